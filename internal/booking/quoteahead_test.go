package booking_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestBookPricedAheadMeetsTheTruth: a live booking is priced before its transaction;
// when the night's price, the hotel's document, the room's capacity or its last unit changes between
// that quote and the transaction, the booking is made at the new price or refused,
// never at the quote's stale price, and nothing is oversold.
func TestBookPricedAheadMeetsTheTruth(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, c := liveService(t, o, apitest.NewClock(apitest.Start), apitest.Catalog(), "100000")
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
	})
}
