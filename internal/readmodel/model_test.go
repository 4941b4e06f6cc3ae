package readmodel_test

import (
	"bytes"
	"context"
	"encoding/json"
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

// pair is one database read two ways: plain reads the store on every call; fast reads
// the model, and its writes go through readmodel.Tracked as serve's do.
type pair struct {
	st          store.Store
	model       *readmodel.Model
	plain, fast *booking.Service
	caller      *booking.Caller
	doc         *catalog.Document
}

func newPair(t testing.TB, o storetest.Opener, doc *catalog.Document) *pair {
	t.Helper()
	ctx := context.Background()
	st := o.Open(t)
	clock := apitest.NewClock(apitest.Start)
	plain := booking.New(st, clock, nil)
	if _, err := plain.ImportCatalog(ctx, doc); err != nil {
		t.Fatal(err)
	}
	limit := "100000000"
	p, err := plain.CreatePartner(ctx, "p", booking.PartnerParams{CreditLimit: &limit})
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := plain.IssueKey(ctx, "p", booking.KeyParams{Mode: "live"})
	if err != nil {
		t.Fatal(err)
	}
	m := readmodel.New(st, clock, nil)
	if err := m.Build(ctx); err != nil {
		t.Fatal(err)
	}
	fast := booking.New(readmodel.Tracked(st, m), clock, nil)
	fast.Reads = m
	return &pair{st: st, model: m, plain: plain, fast: fast, caller: &booking.Caller{Partner: p, Key: k}, doc: doc}
}

// answer is a search result and its page, or an error, as JSON. It holds a note when
// the result's AppendJSON (the partner API's bytes, a hotel hit's head copied from the
// city's table) is not what encoding/json writes for it, so that the answers differ.
func answer[T any](v T, meta booking.PageMeta, err error) string {
	s := one([]any{v, meta}, err)
	if a, ok := any(v).(interface{ AppendJSON([]byte) []byte }); ok && err == nil {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		if got := a.AppendJSON(nil); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			s += "\nAppendJSON differs from encoding/json: " + string(got)
		}
	}
	return s
}

// one is a result or an error, as JSON.
func one[T any](v T, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// compare asks both services every search and some availability questions and fails on
// the first answer that differs.
func (p *pair) compare(t *testing.T, rng *rand.Rand) int {
	t.Helper()
	ctx := context.Background()
	n := 0
	same := func(what string, ask func(s *booking.Service) string) {
		t.Helper()
		want, got := ask(p.plain), ask(p.fast)
		if want != got {
			t.Fatalf("%s:\nstore: %s\nmodel: %s", what, want, got)
		}
		n++
	}
	cities := map[string]bool{}
	for _, h := range p.doc.Hotels {
		cities[h.City] = true
	}
	for city := range cities {
		for _, in := range []int{1, 3 + rng.IntN(10), 20 + rng.IntN(10)} {
			adults, rooms, nights := 1+rng.IntN(3), 1+rng.IntN(2), 1+rng.IntN(4)
			if adults < rooms {
				adults = rooms
			}
			perPage, children := 1+rng.IntN(30), rng.IntN(2)
			same("hotel search "+city, func(s *booking.Service) string {
				return answer(s.SearchHotels(ctx, p.caller, &booking.HotelSearchRequest{Destination: city, CheckIn: apitest.Day(in),
					CheckOut: apitest.Day(in + nights), Adults: &adults, Rooms: &rooms, PerPage: &perPage}))
			})
			same("activity search "+city, func(s *booking.Service) string {
				return answer(s.SearchActivities(ctx, p.caller, &booking.ActivitySearchRequest{City: city, Date: apitest.Day(in),
					Adults: &adults, Children: children, PerPage: &perPage}))
			})
			guests := adults
			same("rental search "+city, func(s *booking.Service) string {
				return answer(s.SearchRentals(ctx, p.caller, &booking.RentalSearchRequest{Destination: city, CheckIn: apitest.Day(in),
					CheckOut: apitest.Day(in + nights), Guests: &guests}))
			})
			same("package search "+city, func(s *booking.Service) string {
				return answer(s.SearchPackages(ctx, p.caller, &booking.PackageSearchRequest{Destination: city,
					DateFrom: apitest.Day(in), DateTo: apitest.Day(in + 15), Adults: &adults}))
			})
		}
	}
	for _, f := range []booking.DestinationFilter{{}, {Product: tradewind.ProductHotel}, {Prefix: strings.ToLower(p.doc.Hotels[0].City[:1])}} {
		same(fmt.Sprintf("destinations %+v", f), func(s *booking.Service) string {
			return answer(s.Destinations(ctx, p.caller, f, booking.Page{Page: 1, PerPage: 100}))
		})
	}
	for range 10 {
		in, nights, adults := 1+rng.IntN(30), 1+rng.IntN(4), 1+rng.IntN(2)
		h := p.doc.Hotels[rng.IntN(len(p.doc.Hotels))]
		same(fmt.Sprint("hotel availability ", h.ID), func(s *booking.Service) string {
			return one(s.HotelAvailability(ctx, p.caller, &booking.HotelAvailabilityRequest{HotelID: h.ID,
				CheckIn: apitest.Day(in), CheckOut: apitest.Day(in + nights), Adults: &adults}))
		})
		a := p.doc.Activities[rng.IntN(len(p.doc.Activities))]
		same(fmt.Sprint("activity availability ", a.ID), func(s *booking.Service) string {
			return one(s.ActivityAvailability(ctx, p.caller, &booking.ActivityAvailabilityRequest{ActivityID: a.ID,
				Date: apitest.Day(in), Adults: &adults}))
		})
		r := p.doc.Rentals[rng.IntN(len(p.doc.Rentals))]
		same(fmt.Sprint("rental availability ", r.ID), func(s *booking.Service) string {
			return one(s.RentalAvailability(ctx, p.caller, &booking.RentalAvailabilityRequest{RentalID: r.ID,
				CheckIn: apitest.Day(in), CheckOut: apitest.Day(in + nights), Guests: &adults}))
		})
		pk := p.doc.Packages[rng.IntN(len(p.doc.Packages))]
		req := &booking.PackageAvailabilityRequest{PackageID: pk.ID, Adults: &adults}
		if pk.Kind == catalog.PackageOpen {
			req.TravelDate = apitest.Day(in)
		} else {
			req.DepartureID = pk.Departures[rng.IntN(len(pk.Departures))].ID
		}
		same(fmt.Sprint("package availability ", pk.ID), func(s *booking.Service) string {
			return one(s.PackageAvailability(ctx, p.caller, req))
		})
		same(fmt.Sprint("package ", pk.ID), func(s *booking.Service) string {
			return one(s.Package(ctx, p.caller, pk.ID))
		})
		same(fmt.Sprint("hotel ", h.ID), func(s *booking.Service) string { return one(s.Hotel(ctx, p.caller, h.ID)) })
	}
	return n
}

// book makes random bookings through the service over the model (hotels, activities,
// rentals) and returns their references.
func (p *pair) book(t *testing.T, rng *rand.Rand, n int) []string {
	t.Helper()
	ctx := context.Background()
	var refs []string
	for i := range n {
		q := booking.QuoteRequest{Adults: 1}
		in := 1 + rng.IntN(30)
		switch rng.IntN(3) {
		case 0:
			h := p.doc.Hotels[rng.IntN(len(p.doc.Hotels))]
			q.ProductType, q.HotelID, q.RoomID, q.Rooms = "hotel", h.ID, h.Rooms[rng.IntN(len(h.Rooms))].ID, 1
			q.CheckIn, q.CheckOut = apitest.Day(in), apitest.Day(in+1+rng.IntN(3))
		case 1:
			a := p.doc.Activities[rng.IntN(len(p.doc.Activities))]
			q.ProductType, q.ActivityID, q.Date, q.Adults = "activity", a.ID, apitest.Day(in), 1+rng.IntN(4)
		default:
			r := p.doc.Rentals[rng.IntN(len(p.doc.Rentals))]
			q.ProductType, q.RentalID, q.SpaceID, q.Guests = "rental", r.ID, r.Spaces[rng.IntN(len(r.Spaces))].ID, 1
			q.CheckIn, q.CheckOut = apitest.Day(in), apitest.Day(in+1+rng.IntN(3))
		}
		v, _, err := p.fast.Book(ctx, p.caller, fmt.Sprint("k-", rng.Int64(), "-", i),
			&booking.BookRequest{QuoteRequest: q, Guest: &booking.Guest{Name: "Test Guest"}})
		if tradewind.ErrorCode(err) == tradewind.ECodeInvalidQuote {
			continue // sold out, or a unit without inventory that day
		}
		if err != nil {
			t.Fatalf("book %+v: %v", q, err)
		}
		refs = append(refs, v.Reference)
	}
	return refs
}

// TestModelAnswersAsTheStore: on a random catalog, through random bookings and cancels
// by this server, claims by another writer, and catalog re-imports by another process,
// every search and availability answer of the model equals the store path's.
func TestModelAnswersAsTheStore(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(12, uint64(len(o.Name))))
			doc := catalog.Generate(catalog.GenerateOptions{Hotels: 30, Activities: 20, Rentals: 20, Packages: 12, Cities: 3,
				Days: 45, Seed: 12, Start: apitest.Start})
			p := newPair(t, o, doc)
			asked := p.compare(t, rng)

			// This server's bookings and cancels, applied as they commit (no Sync).
			refs := p.book(t, rng, 60)
			if len(refs) < 20 {
				t.Fatalf("only %d bookings succeeded", len(refs))
			}
			asked += p.compare(t, rng)
			for _, ref := range refs[:len(refs)/2] {
				if _, err := p.fast.Cancel(ctx, p.caller, ref, "test"); err != nil {
					t.Fatalf("cancel %s: %v", ref, err)
				}
			}
			asked += p.compare(t, rng)

			// Another writer on the same database (claims on packages, a cancel by the
			// store path): seen once the feed is polled.
			for _, pk := range doc.Packages {
				c := store.Claim{Kind: tradewind.UnitPackageDay, ItemID: pk.ID, UnitID: pk.ID, From: apitest.Day(5), To: apitest.Day(5), Quantity: 2}
				if pk.Kind == catalog.PackageFixed {
					d := pk.Departures[0]
					c = store.Claim{Kind: tradewind.UnitDeparture, ItemID: pk.ID, UnitID: d.ID, From: d.Date, To: d.Date, Quantity: 1 + rng.IntN(d.Capacity+1)}
				}
				if _, _, err := p.st.InventoryClaim(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := p.plain.Cancel(ctx, p.caller, refs[len(refs)-1], "elsewhere"); err != nil {
				t.Fatal(err)
			}
			if err := p.model.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			asked += p.compare(t, rng)

			// A re-import elsewhere: a renamed hotel, changed allotments, capacities and
			// prices, a hotel moved to another city, new items.
			doc.Hotels[0].Name += " (renamed)"
			doc.Hotels[1].Rooms[0].Inventory[0].Allotment = 0
			doc.Hotels[2].City = doc.Hotels[5].City
			doc.Activities[0].Availability[0].Capacity += 7
			doc.Rentals[0].Spaces[0].Availability[0].Price += 1234
			doc.Rentals[1].Spaces[0].Availability[0].Price = 3_000_000_000 // above int32: the model keeps int64 prices for it
			more := catalog.Generate(catalog.GenerateOptions{Hotels: 33, Activities: 22, Rentals: 21, Packages: 13, Cities: 3,
				Days: 45, Seed: 12, Start: apitest.Start})
			doc.Hotels = append(doc.Hotels, more.Hotels[30:]...)
			doc.Activities = append(doc.Activities, more.Activities[20:]...)
			if _, err := p.plain.ImportCatalog(ctx, doc); err != nil {
				t.Fatal(err)
			}
			if err := p.model.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			asked += p.compare(t, rng)
			p.book(t, rng, 30)
			asked += p.compare(t, rng)

			// A model built now holds the same as the one kept up to date.
			again := readmodel.New(p.st, nil, nil)
			if err := again.Build(ctx); err != nil {
				t.Fatal(err)
			}
			if err := p.model.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if got, want := again.String(), p.model.String(); got != want {
				t.Fatalf("rebuilt %s, kept up to date %s", got, want)
			}
			if p.model.Applied() == 0 {
				t.Fatal("the model applied no change of the feed")
			}
			t.Logf("%d answers compared", asked)
		})
	}
}

// TestTouchedReloadsEveryClaimOfAGroup: many claims reach Touched together (as a group
// commit's releases, or claims a newer reload overtook, do), several items of two
// products and two claims of one hotel (days far apart, and
// overlapping days of two rooms); the model reloads them all at once and then answers
// every claimed day as the store does, without a poll of the feed.
func TestTouchedReloadsEveryClaimOfAGroup(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			doc := catalog.Generate(catalog.GenerateOptions{Hotels: 12, Activities: 4, Rentals: 6, Packages: 2, Cities: 2,
				Days: 40, Seed: 5, Start: apitest.Start})
			p := newPair(t, o, doc)
			type stay struct{ in, out int }
			var claims []store.Claim
			var hotels []stay
			var hotelIDs []int64
			// claim sells out the unit's days (what is left of its least free day), so
			// that the availability answers show it.
			claim := func(c store.Claim) {
				t.Helper()
				rows, err := p.st.InventoryList(ctx, store.InventoryQuery{Kind: c.Kind, UnitIDs: []int64{c.UnitID}, From: c.From, To: c.To})
				if err != nil || len(rows) == 0 {
					t.Fatalf("rows of %+v: %v %v", c, rows, err)
				}
				c.Quantity = rows[0].Capacity - rows[0].Sold
				for _, r := range rows {
					c.Quantity = min(c.Quantity, r.Capacity-r.Sold)
				}
				if c.Quantity <= 0 {
					t.Fatalf("%+v: nothing free", c)
				}
				if _, ok, err := p.st.InventoryClaim(ctx, c); err != nil || !ok {
					t.Fatalf("claim %+v: %v %v", c, ok, err)
				}
				claims = append(claims, c)
			}
			h0 := doc.Hotels[0]
			if len(h0.Rooms) < 2 {
				t.Fatal("the first hotel has one room")
			}
			// One hotel: a room on days 2-3 and on days 30-31, another room on days 3-4.
			for _, c := range []struct {
				room    int
				in, out int
			}{{0, 2, 3}, {0, 30, 31}, {1, 3, 4}} {
				claim(store.Claim{Kind: tradewind.UnitRoom, ItemID: h0.ID, UnitID: h0.Rooms[c.room].ID, From: apitest.Day(c.in), To: apitest.Day(c.out), Quantity: 1})
				hotels, hotelIDs = append(hotels, stay{c.in, c.out + 1}), append(hotelIDs, h0.ID)
			}
			for i, h := range doc.Hotels[1:8] {
				in := 1 + 4*i
				claim(store.Claim{Kind: tradewind.UnitRoom, ItemID: h.ID, UnitID: h.Rooms[0].ID, From: apitest.Day(in), To: apitest.Day(in + 1), Quantity: 1})
				hotels, hotelIDs = append(hotels, stay{in, in + 2}), append(hotelIDs, h.ID)
			}
			for i, r := range doc.Rentals {
				in := 2 + 5*i
				claim(store.Claim{Kind: tradewind.UnitSpace, ItemID: r.ID, UnitID: r.Spaces[0].ID, From: apitest.Day(in), To: apitest.Day(in), Quantity: 1})
			}
			// Each claimed night differs between the model (before Touched) and the store.
			for i, s := range hotels {
				stale := one(p.fast.HotelAvailability(ctx, p.caller, &booking.HotelAvailabilityRequest{HotelID: hotelIDs[i],
					CheckIn: apitest.Day(s.in), CheckOut: apitest.Day(s.out)}))
				truth := one(p.plain.HotelAvailability(ctx, p.caller, &booking.HotelAvailabilityRequest{HotelID: hotelIDs[i],
					CheckIn: apitest.Day(s.in), CheckOut: apitest.Day(s.out)}))
				if stale == truth {
					t.Fatalf("hotel %d days %d-%d: the model already shows the claim; the test shows nothing", hotelIDs[i], s.in, s.out)
				}
			}

			p.model.Touched(ctx, claims)

			for i, s := range hotels {
				req := &booking.HotelAvailabilityRequest{HotelID: hotelIDs[i], CheckIn: apitest.Day(s.in), CheckOut: apitest.Day(s.out)}
				if got, want := one(p.fast.HotelAvailability(ctx, p.caller, req)), one(p.plain.HotelAvailability(ctx, p.caller, req)); got != want {
					t.Errorf("hotel %d days %d-%d after Touched:\nmodel: %s\nstore: %s", hotelIDs[i], s.in, s.out, got, want)
				}
			}
			for i, r := range doc.Rentals {
				in := 2 + 5*i
				req := &booking.RentalAvailabilityRequest{RentalID: r.ID, CheckIn: apitest.Day(in), CheckOut: apitest.Day(in + 1)}
				if got, want := one(p.fast.RentalAvailability(ctx, p.caller, req)), one(p.plain.RentalAvailability(ctx, p.caller, req)); got != want {
					t.Errorf("rental %d day %d after Touched:\nmodel: %s\nstore: %s", r.ID, in, got, want)
				}
			}
		})
	}
}

// TestTrackedAppliesTheClaimsKept: once a transaction through Tracked commits, the model
// holds the rows its claims left, as the claims returned them (no read of the days
// again), and nothing of a claim rolled back to its savepoint, as a group commit does
// with a booking that fails. A release, which returns no rows, is read again.
func TestTrackedAppliesTheClaimsKept(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			doc := catalog.Generate(catalog.GenerateOptions{Hotels: 3, Cities: 1, Days: 20, Seed: 3, Start: apitest.Start})
			p := newPair(t, o, doc)
			reads := &daysRead{Store: p.st, spans: map[tradewind.UnitKind][]store.ItemDays{}} // poll_test.go
			m := readmodel.New(reads, apitest.NewClock(apitest.Start), nil)
			if err := m.Build(ctx); err != nil {
				t.Fatal(err)
			}
			tracked := readmodel.Tracked(p.st, m)
			fast := booking.New(tracked, apitest.NewClock(apitest.Start), nil)
			fast.Reads = m
			// sellOut is the claim of everything left of a hotel's first room on day 2.
			sellOut := func(h catalog.Hotel) store.Claim {
				rows, err := p.st.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, UnitIDs: []int64{h.Rooms[0].ID}, From: apitest.Day(2), To: apitest.Day(2)})
				if err != nil || len(rows) != 1 || rows[0].Capacity-rows[0].Sold < 1 {
					t.Fatalf("hotel %d's first room on day 2: %+v %v", h.ID, rows, err)
				}
				return store.Claim{Kind: tradewind.UnitRoom, ItemID: h.ID, UnitID: h.Rooms[0].ID, From: apitest.Day(2), To: apitest.Day(2),
					Quantity: rows[0].Capacity - rows[0].Sold}
			}
			kept, undone := sellOut(doc.Hotels[0]), sellOut(doc.Hotels[1])
			avail := func(svc *booking.Service, h catalog.Hotel) string {
				return one(svc.HotelAvailability(ctx, p.caller, &booking.HotelAvailabilityRequest{HotelID: h.ID,
					CheckIn: apitest.Day(2), CheckOut: apitest.Day(3)}))
			}
			before := avail(fast, doc.Hotels[0])
			clear(reads.spans)
			err := tracked.InTx(ctx, func(q store.Querier) error {
				sp := q.(store.Savepoints)
				if err := sp.Savepoint(ctx, "booking"); err != nil {
					return err
				}
				if _, ok, err := q.InventoryClaim(ctx, kept); err != nil || !ok {
					return fmt.Errorf("claim: %v %v", ok, err)
				}
				if err := sp.SavepointNext(ctx, "booking"); err != nil {
					return err
				}
				if _, ok, err := q.InventoryClaim(ctx, undone); err != nil || !ok {
					return fmt.Errorf("claim: %v %v", ok, err)
				}
				return sp.RollbackToSavepoint(ctx, "booking")
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range doc.Hotels[:2] {
				if got, want := avail(fast, h), avail(p.plain, h); got != want {
					t.Errorf("hotel %d after the commit:\nmodel: %s\nstore: %s", h.ID, got, want)
				}
			}
			if avail(fast, doc.Hotels[0]) == before {
				t.Error("the kept claim does not show in the model")
			}
			if len(reads.spans) != 0 {
				t.Errorf("the model read the claimed days %v; want the claims' own rows applied", reads.spans)
			}
			if err := tracked.InTx(ctx, func(q store.Querier) error { return q.InventoryRelease(ctx, kept) }); err != nil {
				t.Fatal(err)
			}
			if got, want := avail(fast, doc.Hotels[0]), avail(p.plain, doc.Hotels[0]); got != want || got != before {
				t.Errorf("after the release:\nmodel: %s\nstore: %s\nbefore: %s", got, want, before)
			}
			if len(reads.spans) == 0 {
				t.Error("the release's days were not read again")
			}
		})
	}
}
