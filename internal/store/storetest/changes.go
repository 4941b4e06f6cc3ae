package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// exerciseChanges: the read model's change feed. Every write to an item or its
// inventory, through any store method, leaves a change naming the item (and the days),
// sequenced only once committed; a rolled-back write leaves none.
func exerciseChanges(t *testing.T, s store.Store) {
	ctx := context.Background()
	var after int64
	// next sequences what committed and returns the changes since the last call, as
	// "kind:item:unit kind:unit:from..to", sorted and without duplicates.
	next := func() []string {
		t.Helper()
		if err := s.InTx(ctx, func(q store.Querier) error {
			_, err := q.ChangeSequence(ctx, now, 10000)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if pending, err := s.ChangesUnsequenced(ctx); err != nil || pending {
			t.Fatalf("ChangesUnsequenced after sequencing = %v, %v", pending, err)
		}
		list, err := s.ChangesAfter(ctx, after, 10000)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range list {
			if c.Seq <= after {
				t.Fatalf("change %d returned after %d", c.Seq, after)
			}
			after = c.Seq
			out = append(out, fmt.Sprintf("%s:%d:%s:%d:%s..%s", c.Kind, c.ItemID, c.UnitKind, c.UnitID, c.From, c.To))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	want := func(what string, got []string, w ...string) {
		t.Helper()
		if !slices.Equal(got, w) {
			t.Fatalf("%s: changes %q, want %q", what, got, w)
		}
	}
	if last, err := s.ChangeLast(ctx); err != nil || last != 0 {
		t.Fatalf("ChangeLast of an empty feed = %d, %v", last, err)
	}
	if _, err := s.ItemPut(ctx, &store.Item{Kind: tradewind.ProductHotel, ID: 7, CityKey: "lisbon", Data: []byte(`{"id":7}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.ItemPutMany(ctx, []*store.Item{{Kind: tradewind.ProductActivity, ID: 8, CityKey: "porto", Data: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	want("items", next(), "activity:8::0:..", "hotel:7::0:..")

	// Inventory written in bulk (the import writes its item too; only the inventory here).
	var rows []store.InventoryRow
	for d := 1; d <= 2500; d++ { // past the COPY threshold on PostgreSQL
		day := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, d%400).Format(tradewind.DateLayout)
		rows = append(rows, store.InventoryRow{Kind: tradewind.UnitRoom, UnitID: int64(100 + d/400), ItemID: 7, Day: day, Capacity: 2, Price: 100})
	}
	if err := s.InTx(ctx, func(q store.Querier) error { return q.InventoryInsert(ctx, rows) }); err != nil {
		t.Fatal(err)
	}
	next() // SQLite records no inserted day (the import's item row covers it); PostgreSQL does
	if err := s.InTx(ctx, func(q store.Querier) error { return q.InventoryPut(ctx, rows[:3]) }); err != nil {
		t.Fatal(err)
	}
	// Since migration 00030 a change of inventory names its unit, one change for a
	// statement's days of one unit.
	want("inventory put", next(), "hotel:7:room:100:2027-01-02..2027-01-04")

	claim := store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 100, From: "2027-01-10", To: "2027-01-11", Quantity: 1}
	if _, ok, err := s.InventoryClaim(ctx, claim); err != nil || !ok {
		t.Fatalf("claim = %v, %v", ok, err)
	}
	want("claim", next(), "hotel:7:room:100:2027-01-10..2027-01-11")
	if err := s.InventoryRelease(ctx, claim); err != nil {
		t.Fatal(err)
	}
	want("release", next(), "hotel:7:room:100:2027-01-10..2027-01-11")

	// Claims of two units in one transaction: each unit's changes name it and cover its
	// days (SQLite may widen one change over both claims of a unit), and none names
	// another unit's days or no unit.
	other := store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 101, From: "2027-02-10", To: "2027-02-10", Quantity: 1}
	later := store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 100, From: "2027-01-20", To: "2027-01-20", Quantity: 1}
	if err := s.InTx(ctx, func(q store.Querier) error {
		for _, c := range []store.Claim{claim, other, later} {
			if _, ok, err := q.InventoryClaim(ctx, c); err != nil || !ok {
				return fmt.Errorf("claim %v: %v, %v", c, ok, err)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got := next()
	covered := map[string]bool{}
	for _, c := range got {
		var unit int64
		var from, to string
		if _, err := fmt.Sscanf(strings.Replace(c, "..", " ", 1), "hotel:7:room:%d:%s %s", &unit, &from, &to); err != nil {
			t.Fatalf("claims of two units: change %q: %v", c, err)
		}
		for _, cl := range []store.Claim{claim, other, later} {
			for d := cl.From; d <= cl.To; d = nextDay(d) {
				if cl.UnitID == unit && from <= d && d <= to {
					covered[fmt.Sprint(unit, d)] = true
				}
			}
		}
		if unit == 101 && (from != "2027-02-10" || to != "2027-02-10") {
			t.Fatalf("claims of two units: unit 101's change %q names days it did not write", c)
		}
	}
	if len(covered) != 4 {
		t.Fatalf("claims of two units: changes %q cover %v, want 4 unit-days", got, covered)
	}

	// A committed change not sequenced yet, then a transaction whose claim of the same
	// unit is rolled back to its savepoint before another claim: the changes cover the
	// two claims kept (SQLite widens the committed row over both) and none names the
	// day rolled back.
	day := func(d string) store.Claim {
		return store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 102, From: d, To: d, Quantity: 1}
	}
	if _, ok, err := s.InventoryClaim(ctx, day("2027-01-05")); err != nil || !ok {
		t.Fatalf("claim = %v, %v", ok, err)
	}
	if err := s.InTx(ctx, func(q store.Querier) error {
		sp, ok := q.(store.Savepoints)
		if !ok {
			return fmt.Errorf("no savepoints")
		}
		if err := sp.Savepoint(ctx, "claim"); err != nil {
			return err
		}
		if _, ok, err := q.InventoryClaim(ctx, day("2027-01-09")); err != nil || !ok {
			return fmt.Errorf("claim: %v, %v", ok, err)
		}
		if err := sp.RollbackToSavepoint(ctx, "claim"); err != nil {
			return err
		}
		if _, ok, err := q.InventoryClaim(ctx, day("2027-01-07")); err != nil || !ok {
			return fmt.Errorf("claim: %v, %v", ok, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got = next()
	kept := map[string]bool{}
	for _, c := range got {
		var from, to string
		if _, err := fmt.Sscanf(strings.Replace(c, "..", " ", 1), "hotel:7:room:102:%s %s", &from, &to); err != nil {
			t.Fatalf("a claim rolled back: change %q: %v", c, err)
		}
		for _, d := range []string{"2027-01-05", "2027-01-07"} {
			if from <= d && d <= to {
				kept[d] = true
			}
		}
		if from <= "2027-01-09" && "2027-01-09" <= to {
			t.Fatalf("a claim rolled back: change %q names the day rolled back", c)
		}
	}
	if len(kept) != 2 {
		t.Fatalf("a claim rolled back: changes %q do not cover both claims kept", got)
	}

	// A rolled-back write leaves no change; an uncommitted one is not sequenced.
	_ = s.InTx(ctx, func(q store.Querier) error {
		if _, _, err := q.InventoryClaim(ctx, claim); err != nil {
			return err
		}
		return fmt.Errorf("roll back")
	})
	want("rolled back", next())

	// A booking's claim (one statement with its booking on PostgreSQL) names its unit
	// and days, and an import's upsert after it in the same transaction names its own.
	p := newPartner(t, s, "changes")
	b := newBooking(p, "HTL-CHANGES1", "", "changes")
	if err := s.InTx(ctx, func(q store.Querier) error {
		booked := store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 103, From: "2027-01-12", To: "2027-01-13", Quantity: 1}
		if _, ok, err := q.InventoryClaimBooking(ctx, booked, b); err != nil || !ok {
			return fmt.Errorf("claim and booking: %v, %v", ok, err)
		}
		return q.InventoryPut(ctx, []store.InventoryRow{{Kind: tradewind.UnitRoom, UnitID: 104, ItemID: 7, Day: "2027-01-30", Capacity: 5, Price: 100}})
	}); err != nil {
		t.Fatal(err)
	}
	want("a booking's claim, then a put", next(), "hotel:7:room:103:2027-01-12..2027-01-13", "hotel:7:room:104:2027-01-30..2027-01-30")

	last, err := s.ChangeLast(ctx)
	if err != nil || last != after {
		t.Fatalf("ChangeLast = %d, %v; want %d", last, err, after)
	}
	first, err := s.ChangeFirst(ctx)
	if err != nil || first != 1 {
		t.Fatalf("ChangeFirst = %d, %v", first, err)
	}
	// Retention: changes sequenced before the cut are deleted, at most Limit at a time.
	if n, err := s.ChangePrune(ctx, store.PruneParams{Before: now, Limit: 100}); err != nil || n != 0 {
		t.Fatalf("prune before the sequencing = %d, %v", n, err)
	}
	if n, err := s.ChangePrune(ctx, store.PruneParams{Before: now.Add(time.Second), Limit: 2}); err != nil || n != 2 {
		t.Fatalf("prune = %d, %v", n, err)
	}
	if first, err := s.ChangeFirst(ctx); err != nil || first != 3 {
		t.Fatalf("ChangeFirst after prune = %d, %v", first, err)
	}

	// ItemListPage pages through one kind by id.
	for id := int64(20); id < 25; id++ {
		if _, err := s.ItemPut(ctx, &store.Item{Kind: tradewind.ProductHotel, ID: id, CityKey: "faro", Data: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := s.ItemListPage(ctx, tradewind.ProductHotel, 7, 3)
	if err != nil || len(page) != 3 || page[0].ID != 20 || page[2].ID != 22 || page[0].CityKey != "faro" {
		t.Fatalf("ItemListPage = %v, %v", page, err)
	}
}

// nextDay is the day after d (YYYY-MM-DD).
func nextDay(d string) string {
	t, err := time.Parse(tradewind.DateLayout, d)
	if err != nil {
		panic(err)
	}
	return t.AddDate(0, 0, 1).Format(tradewind.DateLayout)
}
