package booking_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/readmodel"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestBookPricedAheadMeetsTheTruth: a live booking is priced before its transaction;
// when the night's price, the hotel's document, the room's capacity or its last unit changes between
// that quote and the transaction, the booking is made at the new price or refused,
// never at the quote's stale price, and nothing is oversold. Priced ahead from the
// store, or from a read model that never learns of those changes (built once, never
// polled): the model is only a guess the transaction checks.
func TestBookPricedAheadMeetsTheTruth(t *testing.T) {
	for _, from := range []string{"store", "stale model"} {
		t.Run(from, func(t *testing.T) { testBookPricedAhead(t, from == "stale model") })
	}
}

func testBookPricedAhead(t *testing.T, staleModel bool) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, c := liveService(t, o, apitest.NewClock(apitest.Start), apitest.Catalog(), "100000")
		if staleModel {
			m := readmodel.New(svc.Store, apitest.NewClock(apitest.Start), nil)
			if err := m.Build(ctx); err != nil {
				t.Fatal(err)
			}
			svc.Reads = m // svc.Store is not tracked, and m never polls
		}
		quote := func(day int, nationality string) booking.QuoteRequest {
			return booking.QuoteRequest{ProductType: "hotel", HotelID: apitest.HotelLisbon, RoomID: apitest.RoomSmall,
				CheckIn: apitest.Day(day), CheckOut: apitest.Day(day + 1), Rooms: 1, Adults: 1, NationalityCode: nationality}
		}
		priceOf := func(q booking.QuoteRequest) int64 {
			t.Helper()
			pb, err := svc.Prebook(ctx, c, &q)
			if err != nil {
				t.Fatalf("prebook: %v", err)
			}
			return pb.TotalPrice.Minor
		}
		book := func(key string, q booking.QuoteRequest, between func()) (*booking.BookingView, error) {
			t.Helper()
			ran := false
			booking.AfterQuoteAhead(svc, func() {
				if !ran {
					ran = true
					between()
				}
			})
			defer booking.AfterQuoteAhead(svc, nil)
			v, _, err := svc.Book(ctx, c, key, &booking.BookRequest{QuoteRequest: q, Guest: &booking.Guest{Name: "G"}})
			if !ran {
				t.Fatalf("%s: the booking was not priced ahead", key)
			}
			return v, err
		}
		soldOn := func(day int) int {
			t.Helper()
			rows, err := svc.Store.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, UnitIDs: []int64{apitest.RoomSmall},
				From: apitest.Day(day), To: apitest.Day(day)})
			if err != nil || len(rows) != 1 {
				t.Fatalf("inventory of day %d: %v %v", day, rows, err)
			}
			return rows[0].Sold
		}

		t.Run("unchanged", func(t *testing.T) {
			q := quote(2, "")
			want := priceOf(q)
			kept, _ := svc.BookAheadStats()
			v, err := book("unchanged", q, func() {})
			if err != nil {
				t.Fatalf("book: %v", err)
			}
			if v.TotalPrice.Minor != want {
				t.Errorf("booked at %d, priced at %d", v.TotalPrice.Minor, want)
			}
			if now, _ := svc.BookAheadStats(); now != kept+1 {
				t.Errorf("the quote priced ahead was not kept (%d kept, then %d)", kept, now)
			}
		})

		t.Run("night repriced", func(t *testing.T) {
			q := quote(3, "")
			stale := priceOf(q)
			var fresh int64
			_, missed := svc.BookAheadStats()
			v, err := book("repriced", q, func() {
				if err := svc.Store.InventoryPut(ctx, []store.InventoryRow{{Kind: tradewind.UnitRoom, UnitID: apitest.RoomSmall,
					ItemID: apitest.HotelLisbon, Day: apitest.Day(3), Capacity: 2, Price: 9100}}); err != nil {
					t.Fatal(err)
				}
				fresh = priceOf(q)
			})
			if err != nil {
				t.Fatalf("book: %v", err)
			}
			if fresh == stale {
				t.Fatalf("the new price %d is the old one", fresh)
			}
			if v.TotalPrice.Minor != fresh {
				t.Errorf("booked at %d; the night's price is now %d (it was %d when priced ahead)", v.TotalPrice.Minor, fresh, stale)
			}
			// Created at the stale price with its claim, then undone: one night sold, one
			// booking of the key, drawn at the fresh price.
			if n := soldOn(3); n != 1 {
				t.Errorf("%d sold on day 3, want 1", n)
			}
			if got, err := svc.Store.BookingGetByReference(ctx, c.Partner.ID, v.Reference); err != nil || got.TotalPrice != fresh || got.CreditDrawn != fresh {
				t.Errorf("stored booking = %+v, %v; want total and draw %d", got, err, fresh)
			}
			if _, now := svc.BookAheadStats(); now != missed+1 {
				t.Errorf("the stale quote ahead was not missed (%d missed, then %d)", missed, now)
			}
		})

		t.Run("hotel changed", func(t *testing.T) {
			q := quote(4, "GB")
			stale := priceOf(q)
			var fresh int64
			v, err := book("market", q, func() {
				doc := apitest.Catalog()
				doc.Hotels[0].Markets["GB"] = 1500 // +15 % for British guests, not +5 %
				if _, err := svc.ImportCatalog(ctx, doc); err != nil {
					t.Fatal(err)
				}
				fresh = priceOf(q)
			})
			if err != nil {
				t.Fatalf("book: %v", err)
			}
			if fresh == stale {
				t.Fatalf("the new price %d is the old one", fresh)
			}
			if v.TotalPrice.Minor != fresh {
				t.Errorf("booked at %d; the hotel's market price is now %d (it was %d when priced ahead)", v.TotalPrice.Minor, fresh, stale)
			}
		})

		t.Run("hotel changed before", func(t *testing.T) {
			// The hotel's document changed before the booking: the store's quote ahead
			// reads the new one and is kept; the stale model's reads the old one, which
			// the claim refuses, and the booking is priced under its transaction. Both
			// at the new price.
			doc := apitest.Catalog()
			doc.Hotels[0].Markets["GB"] = 2000
			if _, err := svc.ImportCatalog(ctx, doc); err != nil {
				t.Fatal(err)
			}
			q := quote(7, "GB")
			want := priceOf(q)
			kept, missed := svc.BookAheadStats()
			v, err := book("changed before", q, func() {})
			if err != nil {
				t.Fatalf("book: %v", err)
			}
			if v.TotalPrice.Minor != want {
				t.Errorf("booked at %d; the hotel's price is now %d", v.TotalPrice.Minor, want)
			}
			nowKept, nowMissed := svc.BookAheadStats()
			if staleModel && nowMissed != missed+1 || !staleModel && nowKept != kept+1 {
				t.Errorf("stale model %v: kept %d→%d, missed %d→%d", staleModel, kept, nowKept, missed, nowMissed)
			}
			if _, err := svc.ImportCatalog(ctx, apitest.Catalog()); err != nil {
				t.Fatal(err)
			}
		})

		t.Run("capacity cut", func(t *testing.T) {
			q := quote(5, "")
			q.Adults, q.Rooms = 2, 2 // two singles
			_, err := book("unfit", q, func() {
				doc := apitest.Catalog()
				doc.Hotels[0].Rooms[1].Inventory[0].Allotment = 1 // one single a night now
				if _, err := svc.ImportCatalog(ctx, doc); err != nil {
					t.Fatal(err)
				}
			})
			var te *tradewind.Error
			if !errors.As(err, &te) || te.Code != tradewind.ECodeInvalidQuote {
				t.Fatalf("book: %v; want invalid_quote", err)
			}
			if n := soldOn(5); n != 0 {
				t.Errorf("%d sold on day 5, want 0", n)
			}
			if _, err := svc.ImportCatalog(ctx, apitest.Catalog()); err != nil { // two singles again
				t.Fatal(err)
			}
		})

		t.Run("sold out", func(t *testing.T) {
			q := quote(6, "")
			_, err := book("gone", q, func() {
				for i := range 2 { // the single's two units, by other bookings
					if _, _, err := svc.Book(ctx, c, fmt.Sprint("other-", i), &booking.BookRequest{QuoteRequest: q, Guest: &booking.Guest{Name: "O"}}); err != nil {
						t.Fatal(err)
					}
				}
			})
			var te *tradewind.Error
			if !errors.As(err, &te) || te.Code != tradewind.ECodeInvalidQuote {
				t.Fatalf("book: %v; want invalid_quote", err)
			}
			if n := soldOn(6); n != 2 {
				t.Errorf("%d sold on day 6 of a room of two", n)
			}
		})

		t.Run("free again", func(t *testing.T) {
			// Day 6 is sold out since the subtest above; the stale model still shows it
			// free. Freed in the store again, it is booked, priced ahead or under the
			// transaction.
			for i := range 2 {
				if _, err := svc.Cancel(ctx, c, otherRef(t, svc, c, fmt.Sprint("other-", i)), ""); err != nil {
					t.Fatal(err)
				}
			}
			q := quote(6, "")
			want := priceOf(q)
			v, err := book("again", q, func() {})
			if err != nil {
				t.Fatalf("book: %v", err)
			}
			if v.TotalPrice.Minor != want {
				t.Errorf("booked at %d, priced at %d", v.TotalPrice.Minor, want)
			}
			if n := soldOn(6); n != 1 {
				t.Errorf("%d sold on day 6, want 1", n)
			}
		})

		if staleModel {
			t.Run("sold out in the model only", func(t *testing.T) {
				// Day 8's both units sold by a service that tells the model (tracked), then
				// released in the store behind its back: the model shows the night sold
				// out, the store free. The model's quote fails, and the booking is priced
				// ahead from the store instead.
				m := svc.Reads.(*readmodel.Model)
				tracked := booking.New(readmodel.Tracked(svc.Store, m), apitest.NewClock(apitest.Start), nil)
				q := quote(8, "")
				var refs []string
				for i := range 2 {
					v, _, err := tracked.Book(ctx, c, fmt.Sprint("fill-", i), &booking.BookRequest{QuoteRequest: q, Guest: &booking.Guest{Name: "F"}})
					if err != nil {
						t.Fatal(err)
					}
					refs = append(refs, v.Reference)
				}
				for _, ref := range refs {
					if _, err := svc.Cancel(ctx, c, ref, ""); err != nil {
						t.Fatal(err)
					}
				}
				kept, _ := svc.BookAheadStats()
				if _, err := book("behind", q, func() {}); err != nil {
					t.Fatalf("book: %v", err)
				}
				if now, _ := svc.BookAheadStats(); now != kept+1 {
					t.Errorf("not priced ahead from the store after the model's refusal: %d kept, then %d", kept, now)
				}
				if n := soldOn(8); n != 1 {
					t.Errorf("%d sold on day 8, want 1", n)
				}
			})
		}
	})
}

// otherRef is the reference of the booking c made with Idempotency-Key key.
func otherRef(t *testing.T, svc *booking.Service, c *booking.Caller, key string) string {
	t.Helper()
	b, err := svc.Store.BookingGetByIdempotencyKey(context.Background(), c.Partner.ID, c.Key.Mode, key)
	if err != nil {
		t.Fatalf("booking of key %s: %v", key, err)
	}
	return b.Reference
}
