package readmodel_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// scanOnly is the model without its flat hotel tables (booking.HotelScanner): hotel
// searches over it take the general per-item scan (ScanCity), the path before them.
type scanOnly struct {
	booking.Reads
	booking.CityScanner
}

// TestFlatHotelSearchAnswersAsTheScan: hotel searches over the model's flat per-city
// tables answer as the per-item scan of the same model and as the store, over many
// generated requests (stays at and past the edge of the inventory, sold-out nights,
// parties and rooms, markets, net and markup partners, a credit currency the hotels do
// not use, hotels in two currencies, prices above 32 bits, pages), before and after
// this server's bookings and a re-import by another process.
func TestFlatHotelSearchAnswersAsTheScan(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(21, uint64(len(o.Name))))
			const days = 20
			doc := catalog.Generate(catalog.GenerateOptions{Hotels: 80, Activities: 4, Rentals: 4, Packages: 2, Cities: 2,
				Days: days, Seed: 21, Start: apitest.Start})
			for i := range doc.Hotels {
				h := &doc.Hotels[i]
				if i%7 == 3 { // a second currency in the same cities
					h.Currency = "GBP"
					for j := range h.Rooms {
						h.Rooms[j].Currency = "GBP"
					}
				}
				if i%5 == 1 { // sold-out nights
					h.Rooms[0].Inventory[0].Allotment = 0
				}
				if i%11 == 2 { // above int32: the model keeps int64 prices
					h.Rooms[0].Inventory[0].Price = 3_000_000_000
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
					req, c := randomHotelSearch(rng, doc, days), callers[rng.IntN(len(callers))]
					ask := func(s *booking.Service) string { return answer(s.SearchHotels(ctx, c, req)) }
					store, scan, flat := ask(p.plain), ask(old), ask(p.fast)
					if flat != scan || flat != store {
						t.Fatalf("hotel search %s (partner %s):\nstore: %s\nscan:  %s\nflat:  %s", one(req, nil), c.Partner.Name, store, scan, flat)
					}
					asked++
					switch {
					case strings.HasPrefix(flat, "error: "):
						failed++
					case strings.Contains(flat, `"hotels":[{`):
						hits++
					}
				}
			}
			compare(400)
			cities := map[string]bool{}
			for _, h := range doc.Hotels {
				cities[strings.ToLower(h.City)] = true
			}
			if got := p.model.HotelTables(); got != len(cities) {
				t.Fatalf("%d hotel tables kept for %d cities with hotels (searches of unknown cities keep none)", got, len(cities))
			}

			// This server's bookings, applied as they commit, then a re-import elsewhere:
			// a hotel moved to the other city, a renamed one, new prices, sold-out and
			// new hotels.
			p.book(t, rng, 60)
			compare(200)
			doc.Hotels[0].City = doc.Hotels[1].City
			if doc.Hotels[0].City == doc.Hotels[2].City {
				doc.Hotels[0].City = doc.Hotels[3].City
			}
			doc.Hotels[4].Name += " (renamed)"
			doc.Hotels[5].Rooms[0].Inventory[0].Price += 999
			doc.Hotels[6].Rooms[0].Inventory[0].Allotment = 0
			more := catalog.Generate(catalog.GenerateOptions{Hotels: 90, Activities: 4, Rentals: 4, Packages: 2, Cities: 2,
				Days: days, Seed: 21, Start: apitest.Start})
			doc.Hotels = append(doc.Hotels, more.Hotels[80:]...)
			if _, err := p.plain.ImportCatalog(ctx, doc); err != nil {
				t.Fatal(err)
			}
			if err := p.model.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			compare(300)
			p.book(t, rng, 30)
			compare(200)
			if hits < asked/3 || failed == 0 {
				t.Fatalf("%d searches, %d with hotels, %d refused: too few of either to compare", asked, hits, failed)
			}
			t.Logf("%d hotel searches compared, %d with hotels, %d refused", asked, hits, failed)
		})
	}
}

// randomHotelSearch is a hotel search of doc's cities (or none), valid or not.
func randomHotelSearch(rng *rand.Rand, doc *catalog.Document, days int) *booking.HotelSearchRequest {
	city := doc.Hotels[rng.IntN(len(doc.Hotels))].City
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
	adults, children, rooms := 1+rng.IntN(4), 0, 1+rng.IntN(3)
	if rng.IntN(3) == 0 {
		children = 1 + rng.IntN(3)
	}
	ages := make([]int, children)
	for i := range ages {
		ages[i] = rng.IntN(12)
	}
	if adults < rooms && rng.IntN(4) != 0 {
		adults = rooms
	}
	req := &booking.HotelSearchRequest{Destination: city, CheckIn: apitest.Day(in), CheckOut: apitest.Day(in + nights),
		Adults: &adults, Children: children, ChildAges: ages, Rooms: &rooms,
		NationalityCode: []string{"", "", "GB", "IN", "US", "DE", "FR", "BR", "JP"}[rng.IntN(9)]}
	if rng.IntN(2) == 0 {
		page, perPage := 1+rng.IntN(4), 1+rng.IntN(30)
		req.Page, req.PerPage = &page, &perPage
	}
	return req
}

// partner creates a partner with the given pricing mode, markup and credit currency,
// and returns it as a caller.
func (p *pair) partner(t *testing.T, mode, markup, currency string) *booking.Caller {
	t.Helper()
	ctx := context.Background()
	code := fmt.Sprintf("p-%s-%s-%s", mode, markup, currency)
	limit := "100000000"
	params := booking.PartnerParams{PricingMode: &mode, Currency: &currency, CreditLimit: &limit}
	if markup != "" {
		params.MarkupPercent = &markup
	}
	pt, err := p.plain.CreatePartner(ctx, code, params)
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := p.plain.IssueKey(ctx, code, booking.KeyParams{Mode: "live"})
	if err != nil {
		t.Fatal(err)
	}
	return &booking.Caller{Partner: pt, Key: k}
}
