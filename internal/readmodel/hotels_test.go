package readmodel_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/readmodel"
	"github.com/tradewind/tradewind/internal/store"
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
				if i%13 == 4 { // equal totals: between hotels and between a hotel's rooms
					for j := range h.Rooms {
						for k := range h.Rooms[j].Inventory {
							h.Rooms[j].Inventory[k].Price = 9_000
						}
					}
				}
				if i%17 == 5 { // a third currency, whose code sorts before the others
					h.Currency = "CHF"
					for j := range h.Rooms {
						h.Rooms[j].Currency = "CHF"
					}
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
					if asked%4 == 0 {
						checkHotelPage(t, p.plain, c, req, doc, asked%20 == 0)
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

// checkHotelPage checks a hotel search's answer against the hotels' availability (a
// rule of its own, over the store's rows): each hit at its hotel's cheapest room for
// the stay (the first of equal totals), hits in cheapestFirst's order (the caller's
// credit currency first, then by currency and price) and, when countAll, the total as
// the number of doc's hotels in the city with a room for the stay.
func checkHotelPage(t *testing.T, s *booking.Service, c *booking.Caller, req *booking.HotelSearchRequest, doc *catalog.Document,
	countAll bool) {
	t.Helper()
	ctx := context.Background()
	res, meta, err := s.SearchHotels(ctx, c, req)
	if err != nil {
		return
	}
	avail := func(id int64) []booking.RoomOffer {
		a, err := s.HotelAvailability(ctx, c, &booking.HotelAvailabilityRequest{HotelID: id, CheckIn: req.CheckIn,
			CheckOut: req.CheckOut, Adults: req.Adults, Children: req.Children, Rooms: req.Rooms, ChildAges: req.ChildAges,
			NationalityCode: req.NationalityCode})
		if err != nil {
			t.Fatalf("availability of hotel %d: %v", id, err)
		}
		return a.AvailableRooms
	}
	for i, h := range res.Hotels {
		offers := avail(h.HotelID)
		if len(offers) == 0 {
			t.Fatalf("hotel search %s: hotel %d found, but availability has no room", one(req, nil), h.HotelID)
		}
		if o := offers[0]; h.FromPrice != o.TotalPrice || h.BoardType != o.BoardType || h.Refundable != o.Refundable {
			t.Fatalf("hotel search %s: hotel %d at %v (%s, refundable %v), availability's cheapest %v (%s, refundable %v)",
				one(req, nil), h.HotelID, h.FromPrice, h.BoardType, h.Refundable, o.TotalPrice, o.BoardType, o.Refundable)
		}
		if i > 0 {
			a, b := res.Hotels[i-1].FromPrice, h.FromPrice
			credit := c.Partner.Currency
			ka, kb := a.Currency != credit, b.Currency != credit
			if ka && !kb || ka == kb && (a.Currency > b.Currency || a.Currency == b.Currency && a.Minor > b.Minor) {
				t.Fatalf("hotel search %s (credit %s): %v before %v", one(req, nil), credit, a, b)
			}
		}
	}
	if !countAll {
		return
	}
	n := 0
	for _, h := range doc.Hotels {
		if strings.EqualFold(h.City, strings.TrimSpace(res.Destination)) && len(avail(h.ID)) > 0 {
			n++
		}
	}
	if meta.Total != n {
		t.Fatalf("hotel search %s: total %d, %d hotels of the city have a room", one(req, nil), meta.Total, n)
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

// TestRoomDayWriteShowsInTheHotelScan: a claim and a release of a room's night change
// the next hotel search's answer from the city's built table, whether this server made
// them (Tracked: Touched) or another (the feed: Sync). The table scans a day-major copy
// of its rooms' days, so each write must reach that copy too, not only the unit.
func TestRoomDayWriteShowsInTheHotelScan(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			doc := catalog.Generate(catalog.GenerateOptions{Hotels: 6, Activities: 1, Rentals: 1, Packages: 1, Cities: 1,
				Days: 40, Seed: 5, Start: apitest.Start})
			h := &doc.Hotels[0]
			h.Rooms = h.Rooms[:1] // one room, one unit free a day: a claim sells the hotel out
			for k := range h.Rooms[0].Inventory {
				h.Rooms[0].Inventory[k].Allotment = 1
			}
			p := newPair(t, o, doc)
			adults, perPage := 1, 50
			req := &booking.HotelSearchRequest{Destination: h.City, CheckIn: apitest.Day(30), CheckOut: apitest.Day(31),
				Adults: &adults, PerPage: &perPage}
			found := func(when string, want bool) {
				t.Helper()
				res, _, err := p.fast.SearchHotels(ctx, p.caller, req)
				if err != nil {
					t.Fatal(err)
				}
				got := false
				for _, x := range res.Hotels {
					got = got || x.HotelID == h.ID
				}
				if got != want {
					t.Fatalf("%s: hotel %d found %v, want %v", when, h.ID, got, want)
				}
				if p.model.HotelTables() != 1 {
					t.Fatalf("%s: %d hotel tables, want the city's", when, p.model.HotelTables())
				}
			}
			same := func(when string) {
				t.Helper()
				want, got := answer(p.plain.SearchHotels(ctx, p.caller, req)), answer(p.fast.SearchHotels(ctx, p.caller, req))
				if want != got {
					t.Fatalf("%s:\nstore: %s\nmodel: %s", when, want, got)
				}
			}
			found("before", true) // builds the city's table
			night := store.Claim{Kind: tradewind.UnitRoom, ItemID: h.ID, UnitID: h.Rooms[0].ID, From: apitest.Day(30), To: apitest.Day(30), Quantity: 1}
			tracked := readmodel.Tracked(p.st, p.model)
			if _, ok, err := tracked.InventoryClaim(ctx, night); err != nil || !ok {
				t.Fatalf("claim: %v %v", ok, err)
			}
			found("after this server's claim", false)
			same("after this server's claim")
			if err := tracked.InventoryRelease(ctx, night); err != nil {
				t.Fatal(err)
			}
			found("after this server's release", true)
			same("after this server's release")
			if _, ok, err := p.st.InventoryClaim(ctx, night); err != nil || !ok {
				t.Fatalf("claim elsewhere: %v %v", ok, err)
			}
			if err := p.model.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			found("after a claim elsewhere, polled", false)
			same("after a claim elsewhere, polled")
			if err := p.st.InventoryRelease(ctx, night); err != nil {
				t.Fatal(err)
			}
			if err := p.model.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			found("after a release elsewhere, polled", true)
			same("after a release elsewhere, polled")
		})
	}
}

// readsThen is a store whose next InventoryOfItemDays runs then after its read, before
// the model writes what it read: the moment another reload may come between the two.
type readsThen struct {
	store.Store
	then func()
}

func (s *readsThen) InventoryOfItemDays(ctx context.Context, kind tradewind.UnitKind, spans []store.ItemDays) ([]store.InventoryRow, error) {
	rows, err := s.Store.InventoryOfItemDays(ctx, kind, spans)
	if f := s.then; f != nil {
		s.then = nil
		f()
	}
	return rows, err
}

// oneRoomOfTwo is a small catalog whose first hotel has one room of two units a night.
func oneRoomOfTwo() (*catalog.Document, *catalog.Hotel) {
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: 4, Activities: 1, Rentals: 1, Packages: 1, Cities: 1,
		Days: 40, Seed: 9, Start: apitest.Start})
	h := &doc.Hotels[0]
	h.Rooms = h.Rooms[:1]
	for k := range h.Rooms[0].Inventory {
		h.Rooms[0].Inventory[k].Allotment = 2
	}
	return doc, h
}

// TestAppliedClaimDoesNotUndoANewerPoll: this server claims a room's last-but-one night
// through Tracked and, between its COMMIT and the model's write of the claim's rows,
// another process claims the last one and the model's poll applies it. The claim's
// rows are older than the poll's: the model must read the night again rather than
// write them, and show the room sold out, as the store does. In a transaction and
// alone (a claim outside one).
func TestAppliedClaimDoesNotUndoANewerPoll(t *testing.T) {
	for _, o := range storetest.Openers() {
		for _, inTx := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/tx=%v", o.Name, inTx), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				doc, h := oneRoomOfTwo()
				p := newPair(t, o, doc)
				night := store.Claim{Kind: tradewind.UnitRoom, ItemID: h.ID, UnitID: h.Rooms[0].ID, From: apitest.Day(30), To: apitest.Day(30), Quantity: 1}
				polled := false
				readmodel.BeforeApply(p.model, func() {
					if polled {
						return
					}
					polled = true
					if _, ok, err := p.st.InventoryClaim(ctx, night); err != nil || !ok { // the last night, elsewhere
						t.Errorf("claim elsewhere: %v %v", ok, err)
					}
					if err := p.model.Sync(ctx); err != nil {
						t.Error(err)
					}
				})
				tracked := readmodel.Tracked(p.st, p.model)
				var err error
				if inTx {
					err = tracked.InTx(ctx, func(q store.Querier) error {
						_, ok, err := q.InventoryClaim(ctx, night)
						if err == nil && !ok {
							err = fmt.Errorf("nothing claimed")
						}
						return err
					})
				} else {
					_, _, err = tracked.InventoryClaim(ctx, night)
				}
				if err != nil || !polled {
					t.Fatalf("claim: %v (polled between: %v)", err, polled)
				}
				req := &booking.HotelAvailabilityRequest{HotelID: h.ID, CheckIn: apitest.Day(30), CheckOut: apitest.Day(31)}
				if want, got := one(p.plain.HotelAvailability(ctx, p.caller, req)), one(p.fast.HotelAvailability(ctx, p.caller, req)); want != got {
					t.Fatalf("after a poll between the claim's COMMIT and its apply:\nstore: %s\nmodel: %s", want, got)
				}
			})
		}
	}
}

// TestTouchedDoesNotUndoANewerPoll: a room's last-but-one night is claimed and Touched
// reloads it (as after a release); between Touched's read of the night and its write
// into the model, another process
// claims the last one and the model's poll applies it (the feed's changes are then
// consumed). Touched must not write its older read over the poll's: the room must
// stay sold out in the model, its day-major copy included, as in the store.
func TestTouchedDoesNotUndoANewerPoll(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			doc, h := oneRoomOfTwo()
			p := newPair(t, o, doc)
			slow := &readsThen{Store: p.st}
			m := readmodel.New(slow, apitest.NewClock(apitest.Start), nil)
			if err := m.Build(ctx); err != nil {
				t.Fatal(err)
			}
			fast := booking.New(readmodel.Tracked(p.st, m), apitest.NewClock(apitest.Start), nil)
			fast.Reads = m
			adults, perPage := 1, 50
			req := &booking.HotelSearchRequest{Destination: h.City, CheckIn: apitest.Day(30), CheckOut: apitest.Day(31),
				Adults: &adults, PerPage: &perPage}
			if _, _, err := fast.SearchHotels(ctx, p.caller, req); err != nil { // builds the city's table
				t.Fatal(err)
			}
			night := store.Claim{Kind: tradewind.UnitRoom, ItemID: h.ID, UnitID: h.Rooms[0].ID, From: apitest.Day(30), To: apitest.Day(30), Quantity: 1}
			slow.then = func() {
				if _, ok, err := p.st.InventoryClaim(ctx, night); err != nil || !ok { // the last night, elsewhere
					t.Errorf("claim elsewhere: %v %v", ok, err)
				}
				if err := m.Sync(ctx); err != nil {
					t.Error(err)
				}
			}
			if _, ok, err := p.st.InventoryClaim(ctx, night); err != nil || !ok {
				t.Fatalf("claim: %v %v", ok, err)
			}
			m.Touched(ctx, []store.Claim{night}) // as after a release (claims apply their rows: TestAppliedClaimDoesNotUndoANewerPoll)
			if slow.then != nil {
				t.Fatal("Touched did not read the night")
			}
			want, got := answer(p.plain.SearchHotels(ctx, p.caller, req)), answer(fast.SearchHotels(ctx, p.caller, req))
			if want != got {
				t.Fatalf("after a poll between Touched's read and its write:\nstore: %s\nmodel: %s", want, got)
			}
			res, _, err := fast.SearchHotels(ctx, p.caller, req)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range res.Hotels {
				if x.HotelID == h.ID {
					t.Fatalf("hotel %d found with its room sold out", h.ID)
				}
			}
		})
	}
}
