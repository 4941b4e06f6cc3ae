package booking

import (
	"context"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/ids"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/store"
)

// PrebookResult is the data of POST /bookings/prebook.
type PrebookResult struct {
	PrebookToken        string       `json:"prebook_token"`
	ExpiresAt           time.Time    `json:"expires_at"`
	ProductType         string       `json:"product_type"`
	TotalPrice          money.Amount `json:"total_price"`
	Currency            string       `json:"currency"`
	InstantConfirmation bool         `json:"instant_confirmation"`
	CancellationPolicy  string       `json:"cancellation_policy"`
}

// lockedQuote is what a prebook token remembers.
type lockedQuote struct {
	Quote  QuoteRequest `json:"quote"`
	Policy string       `json:"cancellation_policy"`
}

// Prebook re-checks availability, prices the quote and locks the price for 15 minutes.
// It holds no inventory. It is priced from the read model when the service has one and
// stored only while the store holds what it was priced from (prebookAhead), else priced
// from the store.
func (s *Service) Prebook(ctx context.Context, c *Caller, q *QuoteRequest) (res *PrebookResult, err error) {
	defer wrap(&err, "prebook")
	pq, pb, err := s.prebookAhead(ctx, c, q)
	if err != nil {
		return nil, err
	}
	if pb == nil {
		if pq, err = s.quote(ctx, s.Store, c, q); err != nil {
			return nil, err
		}
		if pb, err = s.newPrebook(c, q, pq); err != nil {
			return nil, err
		}
		if err := s.groupedWrite(ctx, func(ctx context.Context, tx store.Querier) error {
			return tx.PrebookCreate(ctx, pb)
		}); err != nil {
			return nil, err
		}
	}
	return &PrebookResult{PrebookToken: pb.Token, ExpiresAt: pb.ExpiresAt, ProductType: q.ProductType,
		TotalPrice: money.Amount{Minor: pq.Total, Currency: pq.Currency}, Currency: pq.Currency,
		InstantConfirmation: pq.Instant, CancellationPolicy: pq.Policy}, nil
}

// newPrebook is the prebook of q priced pq, for c; the sandbox's scenario may refuse it.
func (s *Service) newPrebook(c *Caller, q *QuoteRequest, pq *pricedQuote) (*tradewind.Prebook, error) {
	if err := c.scenarioQuote(pq, OpPrebook); err != nil {
		return nil, err
	}
	raw, err := marshalLockedQuote(&lockedQuote{Quote: *q, Policy: pq.Policy})
	if err != nil {
		return nil, err
	}
	now := s.now()
	return &tradewind.Prebook{Token: ids.TimeOrdered("pbk_", now), PartnerID: c.Partner.ID, Mode: c.Key.Mode,
		Quote: raw, TotalPrice: pq.Total, Currency: pq.Currency, ExpiresAt: now.Add(PrebookTTL).Truncate(time.Second), CreatedAt: now}, nil
}

// prebookAhead prices q from the read model and stores its prebook on condition that
// the store holds what it was priced from, checked in the insert's own statement
// (store.PricedFrom): the item's document byte for byte, and the asked unit's days
// with their free units and prices. As a booking's quote ahead (quoteahead.go), the
// price is that of the same quote run again over those verified things alone, and must
// ask for the same unit and days. So the store stays the truth: a model behind the
// store by a poll prices nothing the store would not.
//
// nil, nil, nil when it stored nothing: no model, a quote the model cannot price (its
// answer, a refusal included, is then the store's), a product that reads more than
// one item or claims another item's unit, or a store that holds something else than what was priced. The caller
// prices from the store instead.
func (s *Service) prebookAhead(ctx context.Context, c *Caller, q *QuoteRequest) (pq *pricedQuote, pb *tradewind.Prebook, err error) {
	ahead, m := s.quoteFromModel(ctx, c, q)
	if m == nil {
		return nil, nil, nil
	}
	defer func() {
		if pb != nil {
			s.prebookKept.Add(1)
		} else {
			s.prebookMissed.Add(1) // the caller prices from the store
		}
	}()
	if ahead == nil || len(ahead.items) != 1 || ahead.items[0].id != ahead.pq.Claim.ItemID {
		return nil, nil, nil
	}
	claim := ahead.pq.Claim
	stock, err := m.Stock(ctx, store.InventoryQuery{Kind: claim.Kind, ItemIDs: []int64{claim.ItemID}, UnitIDs: []int64{claim.UnitID},
		From: claim.From, To: claim.To})
	if err != nil {
		return nil, nil, nil
	}
	days := stock[claim.UnitID]
	pq, err = s.quoteFrom(ctx, claimedReads{items: ahead.items, claim: claim, days: days}, c, q)
	if err != nil || !sameClaim(pq.Claim, claim) {
		return nil, nil, nil
	}
	if pb, err = s.newPrebook(c, q, pq); err != nil {
		return nil, nil, nil // the sandbox's refusal: answered by the store's path
	}
	it := ahead.items[0]
	from := store.PricedFrom{Item: store.Item{Kind: it.kind, ID: it.id, Data: it.data}, Kind: claim.Kind, UnitID: claim.UnitID,
		From: claim.From, To: claim.To, Days: make([]store.PricedDay, len(days))}
	for i, d := range days {
		from.Days[i] = store.PricedDay(d)
	}
	stored := false
	if err := s.groupedWrite(ctx, func(ctx context.Context, tx store.Querier) (err error) {
		stored, err = tx.PrebookCreateIfStored(ctx, pb, from)
		return err
	}); err != nil || !stored {
		return nil, nil, err
	}
	return pq, pb, nil
}
