package booking_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestQuoteCacheReadsTheStore: a quote decodes an item once and keeps it, but an item
// changed in the store afterwards (by a re-import, or by another process writing the
// row) is quoted at the new truth, as a service without the cache quotes it; and two
// partners quoting the same cached item each get their own contract's price.
func TestQuoteCacheReadsTheStore(t *testing.T) {
	t.Parallel()
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			clock := apitest.NewClock(apitest.Start)
			doc := catalog.Generate(catalog.GenerateOptions{Hotels: 3, Cities: 1, Days: 20, Seed: 3, Start: apitest.Start})
			svc, c := liveService(t, o, clock, doc, "1000000")
			// The oracle: a service over the same store without the cache.
			plain := booking.New(svc.Store, clock, nil)
			plain.QuoteCacheItems = -1
			h := &doc.Hotels[0]
			room := &h.Rooms[0]
			q := booking.QuoteRequest{ProductType: "hotel", HotelID: h.ID, RoomID: room.ID, CheckIn: apitest.Day(2),
				CheckOut: apitest.Day(4), Rooms: 1, Adults: 1, NationalityCode: "DE"}
			quote := func(s *booking.Service, c *booking.Caller) *booking.PrebookResult {
				t.Helper()
				res, err := s.Prebook(ctx, c, &q)
				if err != nil {
					t.Fatalf("prebook: %v", err)
				}
				return res
			}
			same := func(what string, got, want *booking.PrebookResult) {
				t.Helper()
				if got.TotalPrice != want.TotalPrice || got.CancellationPolicy != want.CancellationPolicy ||
					got.InstantConfirmation != want.InstantConfirmation || got.Currency != want.Currency {
					t.Errorf("%s: cached service quoted %+v, the store says %+v", what, got, want)
				}
			}
			before := quote(svc, c)
			same("before any change", quote(svc, c), quote(plain, c)) // the second from the cache

			// A re-import changes the hotel's document: a market adjustment for DE and
			// the room's refundability; the room's nightly prices stay.
			h.Markets = map[string]catalog.Percent{"DE": 2500}
			room.Refundable = !room.Refundable
			h.InstantConfirmation = !h.InstantConfirmation
			if _, err := svc.ImportCatalog(ctx, doc); err != nil {
				t.Fatal(err)
			}
			after := quote(svc, c)
			same("after a re-import", after, quote(plain, c))
			if after.TotalPrice == before.TotalPrice || after.CancellationPolicy == before.CancellationPolicy ||
				after.InstantConfirmation == before.InstantConfirmation {
				t.Errorf("the change was not seen: before %+v, after %+v", before, after)
			}

			// Another process writes the row itself (no import, nothing in memory told).
			it, err := svc.Store.ItemGet(ctx, tradewind.ProductHotel, h.ID)
			if err != nil {
				t.Fatal(err)
			}
			h.Markets["DE"] = -1000
			if it.Data, err = json.Marshal(hotelDocument(h)); err != nil {
				t.Fatal(err)
			}
			if changed, err := svc.Store.ItemPut(ctx, it); err != nil || !changed {
				t.Fatalf("ItemPut = %v, %v", changed, err)
			}
			direct := quote(svc, c)
			same("after a direct write", direct, quote(plain, c))
			if direct.TotalPrice == after.TotalPrice {
				t.Errorf("the direct write was not seen: %+v", direct)
			}
			// The room no longer in the document: refused, as the store says.
			h.Rooms[0].ID = room.ID + 1_000_000
			if it.Data, err = json.Marshal(hotelDocument(h)); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Store.ItemPut(ctx, it); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Prebook(ctx, c, &q); tradewind.ErrorCode(err) != tradewind.ECodeInvalidQuote {
				t.Errorf("a room removed from the stored hotel: %v, want invalid_quote", err)
			}
		})
	}
}

// hotelDocument is h as the catalog import stores it (without its rooms' inventory).
func hotelDocument(h *catalog.Hotel) catalog.Hotel {
	d := *h
	d.Rooms = append([]catalog.Room(nil), h.Rooms...)
	for i := range d.Rooms {
		d.Rooms[i].Inventory = nil
	}
	return d
}

// TestQuoteCachePerPartnerPrices: the cache keeps catalog items, never a partner's
// price: a partner with a markup and one without quote the same cached item each at
// their own contract, as without the cache.
func TestQuoteCachePerPartnerPrices(t *testing.T) {
	t.Parallel()
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			clock := apitest.NewClock(apitest.Start)
			doc := catalog.Generate(catalog.GenerateOptions{Hotels: 2, Cities: 1, Days: 20, Seed: 4, Start: apitest.Start})
			svc, net := liveService(t, o, clock, doc, "1000000")
			mode, markup, limit := "markup", "20", "1000000"
			p, err := svc.CreatePartner(ctx, "m", booking.PartnerParams{PricingMode: &mode, MarkupPercent: &markup, CreditLimit: &limit})
			if err != nil {
				t.Fatal(err)
			}
			k, _, err := svc.IssueKey(ctx, "m", booking.KeyParams{Mode: "live"})
			if err != nil {
				t.Fatal(err)
			}
			marked := &booking.Caller{Partner: p, Key: k}
			plain := booking.New(svc.Store, clock, nil)
			plain.QuoteCacheItems = -1
			h := doc.Hotels[1]
			q := booking.QuoteRequest{ProductType: "hotel", HotelID: h.ID, RoomID: h.Rooms[0].ID, CheckIn: apitest.Day(3),
				CheckOut: apitest.Day(5), Rooms: 1, Adults: 1}
			var totals []int64
			for _, c := range []*booking.Caller{net, marked, net, marked} {
				got, err := svc.Prebook(ctx, c, &q)
				if err != nil {
					t.Fatal(err)
				}
				want, err := plain.Prebook(ctx, c, &q)
				if err != nil {
					t.Fatal(err)
				}
				if got.TotalPrice != want.TotalPrice {
					t.Errorf("partner %s: %v from the cache, %v without", c.Partner.Name, got.TotalPrice, want.TotalPrice)
				}
				totals = append(totals, got.TotalPrice.Minor)
			}
			if totals[0] == totals[1] || totals[0] != totals[2] || totals[1] != totals[3] {
				t.Errorf("totals %v: each partner its own price, the same each time", totals)
			}
		})
	}
}
