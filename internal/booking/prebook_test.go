package booking_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/readmodel"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestPrebookPricedFromTheModelMeetsTheTruth: a service with a read model prices a
// prebook from it and stores the prebook only while the store holds what it was
// priced from. The model here never learns of a change (built once, never polled).
// While nothing changed, every product is priced from it, as the store prices it; once
// a night's price, a hotel's document or what a unit has left changed in the store
// behind it, the prebook is priced from the store: at the new price, or refused, never
// at the model's stale answer. A night the model alone thinks sold out is prebooked.
func TestPrebookPricedFromTheModelMeetsTheTruth(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		clock := apitest.NewClock(apitest.Start)
		catalogWith := func(change func(*catalog.Document)) *catalog.Document {
			doc, more := apitest.Catalog(), apitest.ProductsCatalog()
			doc.Activities, doc.Rentals, doc.Packages = more.Activities, more.Rentals, more.Packages
			if change != nil {
				change(doc)
			}
			return doc
		}
		svc, c := liveService(t, o, clock, catalogWith(nil), "100000000")
		m := readmodel.New(svc.Store, clock, nil)
		if err := m.Build(ctx); err != nil {
			t.Fatal(err)
		}
		svc.Reads = m                               // svc.Store is not tracked, and m never polls
		truth := booking.New(svc.Store, clock, nil) // no model: priced from the store

		// prebook prebooks q on svc and on truth, and checks that both answered alike and
		// that svc stored what it answered; it reports whether svc's came from the model.
		prebookAs := func(t *testing.T, c *booking.Caller, name string, q booking.QuoteRequest) (*booking.PrebookResult, bool, error) {
			t.Helper()
			kept, missed := svc.PrebookAheadStats()
			got, err := svc.Prebook(ctx, c, &q)
			nowKept, nowMissed := svc.PrebookAheadStats()
			if nowKept+nowMissed != kept+missed+1 {
				t.Errorf("%s: prebook counted %d+%d, then %d+%d", name, kept, missed, nowKept, nowMissed)
			}
			want, werr := truth.Prebook(ctx, c, &q)
			if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
				t.Fatalf("%s: prebook = %v; priced from the store: %v", name, err, werr)
			}
			if err != nil {
				return nil, nowKept > kept, err
			}
			if got.TotalPrice != want.TotalPrice || got.CancellationPolicy != want.CancellationPolicy ||
				got.InstantConfirmation != want.InstantConfirmation || got.ExpiresAt != want.ExpiresAt {
				t.Errorf("%s: prebook = %+v; priced from the store: %+v", name, got, want)
			}
			stored, err := svc.Store.PrebookGet(ctx, got.PrebookToken)
			if err != nil || stored.TotalPrice != got.TotalPrice.Minor || stored.PartnerID != c.Partner.ID {
				t.Errorf("%s: stored prebook = %+v, %v; answered %v", name, stored, err, got.TotalPrice)
			}
			return got, nowKept > kept, nil
		}
		prebook := func(t *testing.T, name string, q booking.QuoteRequest) (*booking.PrebookResult, bool, error) {
			t.Helper()
			return prebookAs(t, c, name, q)
		}
		hotel := func(day int, nationality string) booking.QuoteRequest {
			return booking.QuoteRequest{ProductType: "hotel", HotelID: apitest.HotelLisbon, RoomID: apitest.RoomSmall,
				CheckIn: apitest.Day(day), CheckOut: apitest.Day(day + 2), Rooms: 1, Adults: 1, NationalityCode: nationality}
		}

		t.Run("unchanged", func(t *testing.T) {
			for name, q := range map[string]booking.QuoteRequest{
				"hotel":    hotel(2, "GB"),
				"activity": {ProductType: "activity", ActivityID: apitest.ActivityTram, Date: apitest.Day(3), Adults: 2, Children: 1},
				"rental": {ProductType: "rental", RentalID: apitest.RentalLofts, SpaceID: apitest.SpaceLoft, CheckIn: apitest.Day(4),
					CheckOut: apitest.Day(7), Guests: 3, Adults: 3},
				"open package":  {ProductType: "package", PackageID: apitest.PackageOpen, TravelDate: apitest.Day(5), Adults: 2, AddonIDs: []int64{apitest.AddonTransfer}},
				"fixed package": {ProductType: "package", PackageID: apitest.PackageFixed, DepartureID: apitest.DepartureLater, Adults: 2},
			} {
				if _, fromModel, err := prebook(t, name, q); err != nil {
					t.Errorf("%s: %v", name, err)
				} else if !fromModel {
					t.Errorf("%s: not priced from the model, though nothing changed", name)
				}
			}
		})

		// repriced prebooks q, changes the store behind the model, and prebooks q again:
		// from the store, at another price.
		repriced := func(t *testing.T, q booking.QuoteRequest, change func()) {
			t.Helper()
			stale, _, err := prebook(t, "before", q)
			if err != nil {
				t.Fatal(err)
			}
			change()
			fresh, fromModel, err := prebook(t, "after", q)
			if err != nil {
				t.Fatal(err)
			}
			if fromModel || fresh.TotalPrice == stale.TotalPrice {
				t.Errorf("priced from the model %v at %v; it was %v before the change", fromModel, fresh.TotalPrice, stale.TotalPrice)
			}
		}
		t.Run("sandbox", func(t *testing.T) {
			// A test key, with and without the scenarios that change a prebook: the same
			// answers, refusals and stored prices as from the store.
			k, _, err := svc.IssueKey(ctx, "p", booking.KeyParams{Mode: "test"})
			if err != nil {
				t.Fatal(err)
			}
			for _, header := range []string{"", "sold_out", "price_changed", "price_changed; percent=-50"} {
				var sc *booking.Scenario // none
				if header != "" {
					if sc, err = booking.ParseScenario(header, booking.OpPrebook, true); err != nil {
						t.Fatal(err)
					}
				}
				tc := &booking.Caller{Partner: c.Partner, Key: k, Scenario: sc}
				_, fromModel, err := prebookAs(t, tc, "scenario "+header, hotel(50, ""))
				if header == "sold_out" {
					var te *tradewind.Error
					if !errors.As(err, &te) || te.Code != tradewind.ECodeInvalidQuote {
						t.Errorf("scenario sold_out: %v; want invalid_quote", err)
					}
				} else if err != nil || !fromModel {
					t.Errorf("scenario %q: from the model %v, %v", header, fromModel, err)
				}
			}
		})

		t.Run("night repriced", func(t *testing.T) {
			repriced(t, hotel(10, ""), func() {
				if err := svc.Store.InventoryPut(ctx, []store.InventoryRow{{Kind: tradewind.UnitRoom, UnitID: apitest.RoomSmall,
					ItemID: apitest.HotelLisbon, Day: apitest.Day(11), Capacity: 2, Price: 9100}}); err != nil {
					t.Fatal(err)
				}
			})
		})
		t.Run("hotel changed", func(t *testing.T) {
			repriced(t, hotel(14, "GB"), func() {
				if _, err := svc.ImportCatalog(ctx, catalogWith(func(d *catalog.Document) { d.Hotels[0].Markets["GB"] = 1500 })); err != nil {
					t.Fatal(err)
				}
			})
		})

		t.Run("a seat sold", func(t *testing.T) {
			// The price does not change, what is left does: the store's days differ from
			// the model's, and the prebook is priced from the store.
			q := booking.QuoteRequest{ProductType: "activity", ActivityID: apitest.ActivityCooking, Date: apitest.Day(20), Adults: 1}
			if _, _, err := truth.Book(ctx, c, "seat", &booking.BookRequest{QuoteRequest: q, Guest: &booking.Guest{Name: "S"}}); err != nil {
				t.Fatal(err)
			}
			if _, fromModel, err := prebook(t, "after a sale", q); err != nil || fromModel {
				t.Errorf("prebook after a sale the model missed: from the model %v, %v", fromModel, err)
			}
		})

		t.Run("sold out in the store", func(t *testing.T) {
			q := hotel(30, "")
			for i := range 2 { // the single's two units
				if _, _, err := truth.Book(ctx, c, fmt.Sprint("full-", i), &booking.BookRequest{QuoteRequest: q, Guest: &booking.Guest{Name: "F"}}); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := prebook(t, "sold out", q)
			var te *tradewind.Error
			if !errors.As(err, &te) || te.Code != tradewind.ECodeInvalidQuote {
				t.Fatalf("prebook of a sold-out night the model shows free: %v; want invalid_quote", err)
			}
		})

		t.Run("sold out in the model only", func(t *testing.T) {
			// Both units sold by a service that tells the model, then cancelled behind its
			// back: the model shows the nights sold out, the store free.
			tracked := booking.New(readmodel.Tracked(svc.Store, m), clock, nil)
			q := hotel(40, "")
			for i := range 2 {
				v, _, err := tracked.Book(ctx, c, fmt.Sprint("fill-", i), &booking.BookRequest{QuoteRequest: q, Guest: &booking.Guest{Name: "F"}})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := truth.Cancel(ctx, c, v.Reference, ""); err != nil {
					t.Fatal(err)
				}
			}
			if _, fromModel, err := prebook(t, "free again", q); err != nil || fromModel {
				t.Errorf("prebook of nights free in the store only: from the model %v, %v", fromModel, err)
			}
		})
	})
}
