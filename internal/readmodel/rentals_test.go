package readmodel_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestFlatRentalSearchAnswersAsTheScan: rental searches over the model's flat per-city
// tables answer as the per-item scan of the same model and as the store, over many
// generated requests (stays at and past the edges of the inventory, inventory that
// starts late or has a gap, nights booked out, guests from 0 to past the limit, net and
// markup partners, a credit currency the rentals do not use, rentals in two currencies,
// prices above 32 bits, pages), before and after this server's bookings and a re-import
// by another process.
func TestFlatRentalSearchAnswersAsTheScan(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(22, uint64(len(o.Name))))
			const days = 20
			gen := func(rentals int) *catalog.Document {
				return catalog.Generate(catalog.GenerateOptions{Hotels: 4, Activities: 4, Rentals: rentals, Packages: 2, Cities: 2,
					Days: days, Seed: 22, Start: apitest.Start})
			}
			doc := gen(60)
			for i := range doc.Rentals {
				r := &doc.Rentals[i]
				sp := &r.Spaces[len(r.Spaces)-1]
				switch i % 9 {
				case 2: // a second currency in the same cities
					r.Currency = "GBP"
					for j := range r.Spaces {
						r.Spaces[j].Currency = "GBP"
					}
				case 4: // a night without inventory inside the span
					sp.Availability = []catalog.SpaceNights{{Start: apitest.Day(0), End: apitest.Day(6), Price: 9_000},
						{Start: apitest.Day(8), End: apitest.Day(days - 1), Price: 11_000}}
				case 5: // inventory that starts late and ends early
					sp.Availability = []catalog.SpaceNights{{Start: apitest.Day(3), End: apitest.Day(days - 4), Price: sp.FromPrice}}
				case 7: // above int32: the model keeps int64 prices
					sp.Availability[0].Price = 3_000_000_000
				}
			}
			p := newPair(t, o, doc)
			limit := "900000000" // bookings at prices above 32 bits
			pt, err := p.plain.UpdatePartner(ctx, "p", booking.PartnerParams{CreditLimit: &limit})
			if err != nil {
				t.Fatal(err)
			}
			p.caller.Partner = pt
			old := booking.New(p.st, apitest.NewClock(apitest.Start), nil)
			old.Reads = scanOnly{p.model, p.model}
			callers := []*booking.Caller{p.caller, p.partner(t, "markup", "12.5", "EUR"), p.partner(t, "net", "", "GBP"),
				p.partner(t, "markup", "7", "USD")}

			asked, hits, failed := 0, 0, 0
			compare := func(n int) {
				t.Helper()
				for range n {
					req, c := randomRentalSearch(rng, doc, days), callers[rng.IntN(len(callers))]
					ask := func(s *booking.Service) string { return answer(s.SearchRentals(ctx, c, req)) }
					store, scan, flat := ask(p.plain), ask(old), ask(p.fast)
					if flat != scan || flat != store {
						t.Fatalf("rental search %s (partner %s):\nstore: %s\nscan:  %s\nflat:  %s", one(req, nil), c.Partner.Name, store, scan, flat)
					}
					asked++
					switch {
					case strings.HasPrefix(flat, "error: "):
						failed++
					case strings.Contains(flat, `"rentals":[{`):
						hits++
					}
				}
			}
			compare(400)
			cities := map[string]bool{}
			for _, r := range doc.Rentals {
				cities[strings.ToLower(r.City)] = true
			}
			if got := p.model.RentalTables(); got != len(cities) {
				t.Fatalf("%d rental tables kept for %d cities with rentals (searches of unknown cities keep none)", got, len(cities))
			}

			// This server's bookings (nights booked out), applied as they commit, then a
			// re-import elsewhere: a rental moved to the other city, a renamed one, new
			// prices, a space's nights withdrawn, a space more, new rentals.
			p.book(t, rng, 150)
			compare(200)
			moved := 0
			for doc.Rentals[moved+1].City == doc.Rentals[0].City {
				moved++
			}
			doc.Rentals[moved].City = doc.Rentals[0].City
			if doc.Rentals[moved].City == doc.Rentals[moved+1].City {
				t.Fatal("no rental moved")
			}
			doc.Rentals[10].Name += " (renamed)"
			doc.Rentals[11].Spaces[0].Availability[0].Price += 999
			doc.Rentals[12].Spaces[0].Availability = doc.Rentals[12].Spaces[0].Availability[:0:0]
			doc.Rentals[12].Spaces[0].Availability = append(doc.Rentals[12].Spaces[0].Availability,
				catalog.SpaceNights{Start: apitest.Day(days - 2), End: apitest.Day(days - 1), Price: 5_000})
			extra := doc.Rentals[13].Spaces[0]
			extra.ID, extra.Name, extra.MaxGuests = doc.Rentals[13].ID*100+9, "Extra", 12
			doc.Rentals[13].Spaces = append(doc.Rentals[13].Spaces, extra)
			more := gen(70)
			doc.Rentals = append(doc.Rentals, more.Rentals[60:]...)
			if _, err := p.plain.ImportCatalog(ctx, doc); err != nil {
				t.Fatal(err)
			}
			if err := p.model.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			compare(300)
			p.book(t, rng, 90)
			compare(200)
			if hits < asked/3 || failed == 0 {
				t.Fatalf("%d searches, %d with rentals, %d refused: too few of either to compare", asked, hits, failed)
			}
			t.Logf("%d rental searches compared, %d with rentals, %d refused", asked, hits, failed)
		})
	}
}

// randomRentalSearch is a rental search of doc's cities (or none), valid or not.
func randomRentalSearch(rng *rand.Rand, doc *catalog.Document, days int) *booking.RentalSearchRequest {
	city := doc.Rentals[rng.IntN(len(doc.Rentals))].City
	switch rng.IntN(10) {
	case 0:
		city = strings.ToUpper(city)
	case 1:
		city = "Atlantis"
	}
	in := rng.IntN(days + 2) // some at and past the last day of inventory
	if rng.IntN(3) == 0 {
		in = days - 1 - rng.IntN(3)
	}
	nights := 1 + rng.IntN(5)
	guests := 1 + rng.IntN(7)
	switch rng.IntN(20) {
	case 0:
		guests = 0 // refused
	case 1:
		guests = 61 // past the limit: refused
	case 2:
		guests = 12
	}
	req := &booking.RentalSearchRequest{Destination: city, CheckIn: apitest.Day(in), CheckOut: apitest.Day(in + nights)}
	if rng.IntN(5) != 0 {
		req.Guests = &guests
	}
	if rng.IntN(2) == 0 {
		page, perPage := 1+rng.IntN(4), 1+rng.IntN(30)
		req.Page, req.PerPage = &page, &perPage
	}
	return req
}
