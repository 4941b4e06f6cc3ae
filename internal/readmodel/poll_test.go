package readmodel_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/readmodel"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// daysRead is a store that notes the spans of every InventoryOfItemDays, by unit kind.
type daysRead struct {
	store.Store
	spans map[tradewind.UnitKind][]store.ItemDays
}

func (s *daysRead) InventoryOfItemDays(ctx context.Context, kind tradewind.UnitKind, spans []store.ItemDays) ([]store.InventoryRow, error) {
	s.spans[kind] = append(s.spans[kind], spans...)
	return s.Store.InventoryOfItemDays(ctx, kind, spans)
}

// TestPollReloadsTheChangedUnit: a claim made elsewhere (another server, the CLI)
// reaches the model's poll as one change naming its unit and nights (migration 00030),
// and the poll reads those nights of that unit alone, not every room of the hotel, nor
// a package's units of its other kind. A change row written before the migration names
// no unit: the poll reads the days of every unit of the item. A change of the whole
// item in the same poll reloads it whole. Each time the model then answers as the
// store.
func TestPollReloadsTheChangedUnit(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			doc := catalog.Generate(catalog.GenerateOptions{Hotels: 8, Activities: 1, Rentals: 1, Packages: 6, Cities: 1,
				Days: 40, Seed: 9, Start: apitest.Start})
			i := slices.IndexFunc(doc.Hotels, func(h catalog.Hotel) bool { return len(h.Rooms) >= 2 })
			if i < 0 {
				t.Fatal("no hotel of two rooms or more")
			}
			h := &doc.Hotels[i]
			p := newPair(t, o, doc)
			read := &daysRead{Store: p.st, spans: map[tradewind.UnitKind][]store.ItemDays{}}
			m := readmodel.New(read, apitest.NewClock(apitest.Start), nil)
			if err := m.Build(ctx); err != nil {
				t.Fatal(err)
			}
			fast := booking.New(p.st, apitest.NewClock(apitest.Start), nil)
			fast.Reads = m
			adults, perPage := 1, 50
			req := &booking.HotelSearchRequest{Destination: h.City, CheckIn: apitest.Day(20), CheckOut: apitest.Day(23),
				Adults: &adults, PerPage: &perPage}
			same := func(what string) {
				t.Helper()
				if want, got := answer(p.plain.SearchHotels(ctx, p.caller, req)), answer(fast.SearchHotels(ctx, p.caller, req)); want != got {
					t.Fatalf("%s:\nstore: %s\nmodel: %s", what, want, got)
				}
			}
			same("built")

			// Two nights of the second room, claimed elsewhere: the model is not tracked.
			room := h.Rooms[1].ID
			claim := store.Claim{Kind: tradewind.UnitRoom, ItemID: h.ID, UnitID: room, From: apitest.Day(20), To: apitest.Day(21), Quantity: 1}
			if _, ok, err := p.st.InventoryClaim(ctx, claim); err != nil || !ok {
				t.Fatalf("claim: %v %v", ok, err)
			}
			clear(read.spans)
			if err := m.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			want := map[tradewind.UnitKind][]store.ItemDays{tradewind.UnitRoom: {{ItemID: h.ID, UnitID: room, From: apitest.Day(20), To: apitest.Day(21)}}}
			if !equalSpans(read.spans, want) {
				t.Fatalf("the poll of a claim read %v, want %v", read.spans, want)
			}
			same("after a claim elsewhere, polled")

			// A change row as written before migration 00030: no unit.
			db := p.st.(*sqlstore.DB).SQL()
			if _, err := db.ExecContext(ctx, `INSERT INTO changes (kind, item_id, day_from, day_to) VALUES ('hotel', $1, $2, $3)`,
				h.ID, apitest.Day(22), apitest.Day(22)); err != nil {
				t.Fatal(err)
			}
			clear(read.spans)
			if err := m.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			want = map[tradewind.UnitKind][]store.ItemDays{tradewind.UnitRoom: {{ItemID: h.ID, From: apitest.Day(22), To: apitest.Day(22)}}}
			if !equalSpans(read.spans, want) {
				t.Fatalf("the poll of a change without a unit read %v, want %v", read.spans, want)
			}
			same("after a change without a unit, polled")

			// A change of the whole hotel and a claim of one of its rooms in one poll: the
			// hotel is reloaded whole, its days not read apart.
			claim.From, claim.To = apitest.Day(24), apitest.Day(24)
			if _, ok, err := p.st.InventoryClaim(ctx, claim); err != nil || !ok {
				t.Fatalf("claim: %v %v", ok, err)
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO changes (kind, item_id) VALUES ('hotel', $1)`, h.ID); err != nil {
				t.Fatal(err)
			}
			clear(read.spans)
			if err := m.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if len(read.spans) != 0 {
				t.Fatalf("the poll of a whole hotel's change and a claim of it read %v apart, want a whole reload", read.spans)
			}
			same("after a whole change and a claim, polled")

			// A fixed package's departure (its units are of two kinds, departure and
			// package_day): the poll reads that departure, of its kind only.
			i = slices.IndexFunc(doc.Packages, func(k catalog.Package) bool { return len(k.Departures) > 0 })
			if i < 0 {
				t.Fatal("no fixed package")
			}
			pkg, dep := doc.Packages[i], doc.Packages[i].Departures[0]
			seat := store.Claim{Kind: tradewind.UnitDeparture, ItemID: pkg.ID, UnitID: dep.ID, From: dep.Date, To: dep.Date, Quantity: 1}
			if _, ok, err := p.st.InventoryClaim(ctx, seat); err != nil || !ok {
				t.Fatalf("claim of a seat: %v %v", ok, err)
			}
			clear(read.spans)
			if err := m.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			want = map[tradewind.UnitKind][]store.ItemDays{tradewind.UnitDeparture: {{ItemID: pkg.ID, UnitID: dep.ID, From: dep.Date, To: dep.Date}}}
			if !equalSpans(read.spans, want) {
				t.Fatalf("the poll of a departure's seat read %v, want %v", read.spans, want)
			}
			travellers := 1
			ask := &booking.PackageAvailabilityRequest{PackageID: pkg.ID, DepartureID: dep.ID, Adults: &travellers}
			if want, got := one(p.plain.PackageAvailability(ctx, p.caller, ask)), one(fast.PackageAvailability(ctx, p.caller, ask)); want != got || strings.HasPrefix(got, "error") {
				t.Fatalf("after a seat claimed elsewhere, polled:\nstore: %s\nmodel: %s", want, got)
			}
		})
	}
}

func equalSpans(a, b map[tradewind.UnitKind][]store.ItemDays) bool {
	if len(a) != len(b) {
		return false
	}
	for k, s := range a {
		if !slices.Equal(s, b[k]) {
			return false
		}
	}
	return true
}

// TestStoredItemFollowsTheStore: the model holds each item's stored document, byte for
// byte (a live booking's quote ahead is claimed on condition that the store still
// holds it), and a poll after the item changed holds the new one.
func TestStoredItemFollowsTheStore(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			doc := catalog.Generate(catalog.GenerateOptions{Hotels: 2, Activities: 1, Rentals: 1, Packages: 1, Cities: 1,
				Days: 10, Seed: 9, Start: apitest.Start})
			p := newPair(t, o, doc)
			h := doc.Hotels[0]
			same := func(what string) {
				t.Helper()
				it, err := p.st.ItemGet(ctx, tradewind.ProductHotel, h.ID)
				if err != nil {
					t.Fatal(err)
				}
				data, v, ok := p.model.StoredItem(tradewind.ProductHotel, h.ID)
				if !ok || string(data) != string(it.Data) {
					t.Fatalf("%s: the model holds %q (%v), the store %q", what, data, ok, it.Data)
				}
				want, err := booking.DecodeItem(it)
				if err != nil {
					t.Fatal(err)
				}
				if v.(*catalog.Hotel).Name != want.(*catalog.Hotel).Name {
					t.Fatalf("%s: the model's decoded hotel is %q, the store's %q", what, v.(*catalog.Hotel).Name, want.(*catalog.Hotel).Name)
				}
			}
			same("built")
			doc.Hotels[0].Name = "Renamed"
			if _, err := p.plain.ImportCatalog(ctx, doc); err != nil {
				t.Fatal(err)
			}
			if err := p.model.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			same("after a rename, polled")
			if _, v, _ := p.model.StoredItem(tradewind.ProductHotel, h.ID); v.(*catalog.Hotel).Name != "Renamed" {
				t.Fatalf("the hotel is %q after its rename", v.(*catalog.Hotel).Name)
			}
			if _, _, ok := p.model.StoredItem(tradewind.ProductHotel, 999999999); ok {
				t.Fatal("an unknown item is held")
			}
		})
	}
}
