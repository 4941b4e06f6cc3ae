package booking

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// A live booking is priced before its transaction (quoteAhead), from the read model
// when the service has one (StoredItems), else on the store's read connections, beside
// the other bookings, and only checked under it
// (claimQuoted): the claim the quote asked for is taken on condition that the item's
// stored document is, byte for byte, the one priced (in the claim's own statement),
// and the same quote code runs again over what the transaction verified — the item
// and the claimed rows as they were just before the claim (the claim returns them).
// That second quote is the booking's price; it must ask for the very claim taken. Whenever anything differs (an item changed, the claim
// failed, the second quote failed or asks for another claim), the claim is given back
// (or, where the claim came with the booking's insert, store.InventoryClaimBooking, the
// booking's transaction or savepoint is rolled back: book.go, createBooking) and the
// booking is priced under the transaction from the store, as before: a stale
// read can neither sell what is gone nor sell at a stale price, and the rules stay in
// each product's price function.
//
// That second quote sees, of the inventory, only the claimed unit's claimed days: each
// product prices a quote from its item and from those rows alone (a hotel reads its
// other rooms' nights too, and uses only the room asked for). A product that read
// another unit's rows would find them absent there, refuse or ask for another claim,
// and its bookings would take the path under the transaction.

// quotedAhead is a live booking's quote priced before its transaction, and the items it
// read as they were stored.
type quotedAhead struct {
	pq    *pricedQuote
	items []aheadItem
}

// aheadItem is one item a quote read: its stored document and its decoded value.
type aheadItem struct {
	kind  tradewind.ProductType
	id    int64
	data  []byte
	value any
}

// errNotAhead tells claimQuoted's quote that it asked for what the quote ahead did not
// read: the booking is priced under the transaction instead.
var errNotAhead = errors.New("booking: not read ahead")

// quoteAhead prices q for c from the read model, or from the store's read connections
// when the service has none, recording the items it reads. nil when it cannot (any
// error: the quote under the transaction answers it). The model may be behind the
// store by a poll: what it priced is checked under the transaction as any quote ahead
// is.
func (s *Service) quoteAhead(ctx context.Context, c *Caller, q *QuoteRequest) *quotedAhead {
	// A quote the model cannot price (not built yet, an item or a night it has not
	// polled yet, or truly sold out) is priced ahead from the store instead.
	if ahead, _ := s.quoteFromModel(ctx, c, q); ahead != nil {
		return ahead
	}
	rec := &recordingReads{StoreReads: StoreReads{Q: s.Store, items: s.quoteItems()}}
	pq, err := s.quoteFrom(ctx, rec, c, q)
	if err != nil || len(rec.items) == 0 {
		return nil
	}
	return &quotedAhead{pq: pq, items: rec.items}
}

// quoteFromModel prices q for c from the service's read model, recording the items it
// reads with their stored documents; nil when the service has none (m nil too) or the
// model cannot price q.
func (s *Service) quoteFromModel(ctx context.Context, c *Caller, q *QuoteRequest) (*quotedAhead, StoredItems) {
	m, ok := s.Reads.(StoredItems)
	if !ok {
		return nil, nil
	}
	rec := &storedReads{StoredItems: m}
	pq, err := s.quoteFrom(ctx, rec, c, q)
	if err != nil || len(rec.items) == 0 {
		return nil, m
	}
	return &quotedAhead{pq: pq, items: rec.items}, m
}

// StoredItems is Reads that also holds each item's stored document (the read model): a
// live booking's quote ahead reads it there, not in the store.
type StoredItems interface {
	Reads
	// StoredItem returns an item's stored document, byte for byte as the store holds it,
	// and its decoded value (read only); false when it holds none (the caller reads the
	// store).
	StoredItem(kind tradewind.ProductType, id int64) (data []byte, value any, ok bool)
}

// storedReads is StoredItems that keeps each item it returned with its stored document.
type storedReads struct {
	StoredItems
	items []aheadItem
}

// Item implements Reads.
func (r *storedReads) Item(_ context.Context, kind tradewind.ProductType, id int64) (any, error) {
	data, v, ok := r.StoredItem(kind, id)
	if !ok {
		return nil, store.ErrNotFound
	}
	r.items = append(r.items, aheadItem{kind: kind, id: id, data: data, value: v})
	return v, nil
}

// claimQuoted checks a quote priced ahead under tx and takes its claim (see above):
// the quote priced again over the verified items and the claimed rows, and the rows the
// claim took. nil, nil, nil: it could not, nothing is claimed, and the booking is
// priced under the transaction.
func (s *Service) claimQuoted(ctx context.Context, tx store.Querier, c *Caller, q *QuoteRequest, ahead *quotedAhead) (*pricedQuote, []store.InventoryRow, error) {
	claim := ahead.pq.Claim
	if len(ahead.items) == 1 { // every product's quote: its item checked by the claim's statement
		it := ahead.items[0]
		claim.IfItem = &store.Item{Kind: it.kind, ID: it.id, Data: it.data}
	} else {
		for _, it := range ahead.items {
			now, err := tx.ItemGet(ctx, it.kind, it.id)
			if errors.Is(err, store.ErrNotFound) {
				return nil, nil, nil
			} else if err != nil {
				return nil, nil, err
			}
			if !bytes.Equal(now.Data, it.data) {
				return nil, nil, nil
			}
		}
	}
	// Not taken (sold out, or the item changed): priced under the transaction, which
	// tells which.
	after, ok, err := tx.InventoryClaim(ctx, claim)
	if err != nil || !ok {
		return nil, nil, err
	}
	claim.IfItem = nil
	if pq := s.priceClaimed(ctx, c, q, ahead, claim, after); pq != nil {
		return pq, after, nil
	}
	// Another answer than ahead: give the claim back, and price under the transaction.
	if err := tx.InventoryRelease(ctx, claim); err != nil {
		return nil, nil, err
	}
	return nil, nil, nil
}

// priceClaimed prices q again over what the claim of a quote ahead verified: its items,
// and the claimed unit's days as they were before the claim (after, the rows it left);
// nil when that quote fails or asks for another claim than claim.
func (s *Service) priceClaimed(ctx context.Context, c *Caller, q *QuoteRequest, ahead *quotedAhead, claim store.Claim, after []store.InventoryRow) *pricedQuote {
	before := make([]DayStock, len(after))
	for i, row := range after {
		row.Sold -= claim.Quantity
		before[i] = dayStock(row)
	}
	pq, err := s.quoteFrom(ctx, claimedReads{items: ahead.items, claim: claim, days: before}, c, q)
	if err != nil || !sameClaim(pq.Claim, claim) {
		return nil
	}
	return pq
}

// recordingReads reads the store and keeps each item it decoded with its stored
// document.
type recordingReads struct {
	StoreReads
	items []aheadItem
}

// Item implements Reads.
func (r *recordingReads) Item(ctx context.Context, kind tradewind.ProductType, id int64) (any, error) {
	it, err := r.stored(ctx, kind, id)
	if err != nil {
		return nil, err
	}
	v, err := r.decode(it)
	if err != nil {
		return nil, err
	}
	r.items = append(r.items, aheadItem{kind: kind, id: id, data: it.Data, value: v})
	return v, nil
}

// sameClaim reports whether a and b claim the same days of the same unit, as many.
func sameClaim(a, b store.Claim) bool {
	return a.Kind == b.Kind && a.ItemID == b.ItemID && a.UnitID == b.UnitID && a.From == b.From && a.To == b.To && a.Quantity == b.Quantity
}

// claimedReads is what a booking's transaction read: the items of a quote ahead, their
// documents verified, and the claimed unit's days as they were before the claim (or
// what a prebook's insert verified: prebook.go).
type claimedReads struct {
	items []aheadItem
	claim store.Claim
	days  []DayStock // the claimed unit's days, in day order
}

// CityItems implements Reads: never read by a quote.
func (r claimedReads) CityItems(context.Context, tradewind.ProductType, string) ([]Decoded, error) {
	return nil, errNotAhead
}

// Item implements Reads.
func (r claimedReads) Item(_ context.Context, kind tradewind.ProductType, id int64) (any, error) {
	for _, it := range r.items {
		if it.kind == kind && it.id == id {
			return it.value, nil
		}
	}
	return nil, errNotAhead
}

// Stock implements Reads: the claimed unit's days q selects; no other unit's.
func (r claimedReads) Stock(_ context.Context, q store.InventoryQuery) (map[int64][]DayStock, error) {
	out := map[int64][]DayStock{}
	if q.Kind != r.claim.Kind || len(q.UnitIDs) > 0 && !slices.Contains(q.UnitIDs, r.claim.UnitID) ||
		len(q.UnitIDs) == 0 && !slices.Contains(q.ItemIDs, r.claim.ItemID) {
		return out, nil
	}
	for _, d := range r.days {
		if d.Day >= q.From && d.Day <= q.To {
			out[r.claim.UnitID] = append(out[r.claim.UnitID], d)
		}
	}
	return out, nil
}
