package storetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// exerciseBulkWrites: the batched item and inventory writes of catalog imports, at sizes
// that take several statements (and, on PostgreSQL, the COPY path inside a transaction).
func exerciseBulkWrites(t *testing.T, s store.Store) {
	ctx := context.Background()
	const nItems = 2300 // three item batches, the first two through the prepared statement
	items := make([]*store.Item, nItems)
	ids := make([]int64, nItems)
	for i := range items {
		ids[i] = int64(i + 1)
		items[i] = &store.Item{Kind: tradewind.ProductHotel, ID: ids[i], CityKey: "lisbon",
			Data: fmt.Appendf(nil, `{"n":%d}`, i), InventoryHash: fmt.Sprint("h", i)}
	}
	if err := s.ItemPutMany(ctx, items); err != nil {
		t.Fatal(err)
	}
	items[5].Data, items[5].InventoryHash = []byte(`{"n":"changed"}`), "h-changed"
	if err := s.ItemPutMany(ctx, items[5:6]); err != nil {
		t.Fatal(err)
	}
	got, err := s.ItemListByIDs(ctx, tradewind.ProductHotel, append(ids, 999999))
	if err != nil || len(got) != nItems {
		t.Fatalf("ItemListByIDs = %d items, %v; want %d", len(got), err, nItems)
	}
	slices.SortFunc(got, func(a, b *store.Item) int { return int(a.ID - b.ID) })
	if g := got[5]; string(g.Data) != `{"n":"changed"}` || g.InventoryHash != "h-changed" || g.CityKey != "lisbon" {
		t.Errorf("item 6 = %+v", g)
	}
	if g := got[nItems-1]; g.InventoryHash != fmt.Sprint("h", nItems-1) {
		t.Errorf("last item = %+v", g)
	}
	if other, _ := s.ItemListByIDs(ctx, tradewind.ProductActivity, ids[:3]); len(other) != 0 {
		t.Errorf("kind is part of the key: %v", other)
	}

	// 12 000 rows: unit u of item u/100, 120 days each.
	var inv []store.InventoryRow
	for u := int64(100); u < 200; u++ {
		for d := range 120 {
			day := fmt.Sprintf("2027-%02d-%02d", 1+d/28, 1+d%28)
			inv = append(inv, store.InventoryRow{Kind: tradewind.UnitRoom, UnitID: u, ItemID: 1, Day: day, Capacity: 3, Price: 100})
		}
	}
	if err := s.InTx(ctx, func(q store.Querier) error { return q.InventoryInsert(ctx, inv) }); err != nil {
		t.Fatal(err)
	}
	// Inserting a row that exists is a conflict, in bulk (COPY) or not.
	for _, n := range []int{1, len(inv)} {
		err := s.InTx(ctx, func(q store.Querier) error { return q.InventoryInsert(ctx, inv[len(inv)-n:]) })
		if !errors.Is(err, store.ErrConflict) {
			t.Errorf("InventoryInsert of %d existing rows = %v, want ErrConflict", n, err)
		}
	}
	if _, ok, err := s.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: 1, UnitID: 150, From: "2027-01-01", To: "2027-01-02", Quantity: 2}); err != nil || !ok {
		t.Fatalf("claim = %v, %v", ok, err)
	}
	// Two bulk writes in one transaction: capacity and price change, what is sold stays.
	for i := range inv {
		inv[i].Capacity, inv[i].Price = 4, 200
	}
	err = s.InTx(ctx, func(q store.Querier) error {
		if err := q.InventoryPut(ctx, inv[:6000]); err != nil {
			return err
		}
		return q.InventoryPut(ctx, inv[6000:])
	})
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: []int64{1}, From: "0000-01-01", To: "9999-12-31"})
	if err != nil || len(all) != len(inv) {
		t.Fatalf("InventoryList = %d rows, %v; want %d", len(all), err, len(inv))
	}
	for _, r := range all {
		wantSold := 0
		if r.UnitID == 150 && r.Day <= "2027-01-02" {
			wantSold = 2
		}
		if r.Capacity != 4 || r.Price != 200 || r.Sold != wantSold {
			t.Fatalf("row %+v: want capacity 4, price 200, sold %d", r, wantSold)
		}
	}
	// Inside a transaction (where SQLite hands the values straight to its driver): items
	// in three statements, and exactly one full statement of inventory rows (5 000: 50
	// units of 100 days, with prices and capacities that vary from row to row).
	items[7].Data, items[7].InventoryHash = []byte(`{"n":"in a transaction"}`), "h-tx"
	var spaces []store.InventoryRow
	for u := int64(500); u < 550; u++ {
		for d := range 100 {
			day := fmt.Sprintf("2028-%02d-%02d", 1+d/28, 1+d%28)
			spaces = append(spaces, store.InventoryRow{Kind: tradewind.UnitSpace, UnitID: u, ItemID: 2, Day: day, Capacity: d % 3, Price: 300 + int64(d)})
		}
	}
	err = s.InTx(ctx, func(q store.Querier) error {
		if err := q.ItemPutMany(ctx, items); err != nil {
			return err
		}
		return q.InventoryInsert(ctx, spaces)
	})
	if err != nil {
		t.Fatal(err)
	}
	if g, err := s.ItemListByIDs(ctx, tradewind.ProductHotel, ids[7:8]); err != nil || len(g) != 1 ||
		string(g[0].Data) != `{"n":"in a transaction"}` || g[0].InventoryHash != "h-tx" || g[0].CityKey != "lisbon" {
		t.Errorf("item 8 written in a transaction = %+v, %v", g, err)
	}
	gotSpaces, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitSpace, ItemIDs: []int64{2}, From: "0000-01-01", To: "9999-12-31"})
	if err != nil || len(gotSpaces) != len(spaces) {
		t.Fatalf("spaces = %d rows, %v; want %d", len(gotSpaces), err, len(spaces))
	}
	want := map[string]store.InventoryRow{}
	for _, r := range spaces {
		want[fmt.Sprint(r.UnitID, r.Day)] = r
	}
	for _, r := range gotSpaces {
		if w := want[fmt.Sprint(r.UnitID, r.Day)]; r != w {
			t.Fatalf("space row %+v, want %+v", r, w)
		}
	}

	// Two kinds interleaved item by item, as a batch of packages has them (departures,
	// open days): every row is written, whatever order a store writes the kinds in, and
	// a row written again is a conflict.
	var mixed []store.InventoryRow
	for u := int64(700); u < 740; u++ {
		if u%2 == 0 {
			mixed = append(mixed, store.InventoryRow{Kind: tradewind.UnitDeparture, UnitID: u, ItemID: u, Day: "2029-03-01", Capacity: int(u % 7), Price: u})
			continue
		}
		for d := range 300 {
			day := fmt.Sprintf("2029-%02d-%02d", 1+d/28, 1+d%28)
			mixed = append(mixed, store.InventoryRow{Kind: tradewind.UnitPackageDay, UnitID: u, ItemID: u, Day: day, Capacity: d % 5})
		}
	}
	if err := s.InTx(ctx, func(q store.Querier) error { return q.InventoryInsert(ctx, mixed) }); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []tradewind.UnitKind{tradewind.UnitDeparture, tradewind.UnitPackageDay} {
		var want []store.InventoryRow
		var items []int64
		for _, r := range mixed {
			if r.Kind == kind {
				want = append(want, r)
				if !slices.Contains(items, r.ItemID) {
					items = append(items, r.ItemID)
				}
			}
		}
		got, err := s.InventoryList(ctx, store.InventoryQuery{Kind: kind, ItemIDs: items, From: "0000-01-01", To: "9999-12-31"})
		if err != nil || len(got) != len(want) {
			t.Fatalf("%s rows = %d, %v; want %d", kind, len(got), err, len(want))
		}
		slices.SortFunc(got, func(a, b store.InventoryRow) int {
			return cmp.Or(cmp.Compare(a.UnitID, b.UnitID), cmp.Compare(a.Day, b.Day))
		})
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s row %d = %+v, want %+v", kind, i, got[i], want[i])
			}
		}
	}
	again := []store.InventoryRow{mixed[len(mixed)-1], mixed[0]}
	if err := s.InTx(ctx, func(q store.Querier) error { return q.InventoryInsert(ctx, again) }); !errors.Is(err, store.ErrConflict) {
		t.Errorf("InventoryInsert of existing rows of two kinds = %v, want ErrConflict", err)
	}

	// A failed transaction writes nothing.
	boom := fmt.Errorf("boom")
	err = s.InTx(ctx, func(q store.Querier) error {
		if err := q.InventoryPut(ctx, rows(tradewind.UnitRoom, 100, 1, 9, inv[0].Day)); err != nil {
			return err
		}
		return boom
	})
	if err != boom {
		t.Fatalf("InTx = %v, want boom", err)
	}
	if r, _ := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, UnitIDs: []int64{100}, From: inv[0].Day, To: inv[0].Day}); len(r) != 1 || r[0].Capacity != 4 {
		t.Errorf("after rollback = %+v", r)
	}
}

// exerciseInventoryItemIndex: what a first import relies on. InventoryEmpty tells an
// empty inventory; the indexes dropped in a transaction that rolls back are still there
// (dropping them again succeeds); dropped and created again in one, inventory is listed
// by item as before; a duplicate loaded meanwhile rolls the whole load back; outside a
// transaction both refuse.
func exerciseInventoryItemIndex(t *testing.T, s store.Store) {
	ctx := context.Background()
	if empty, err := s.InventoryEmpty(ctx); err != nil || !empty {
		t.Fatalf("InventoryEmpty of a new store = %v, %v", empty, err)
	}
	rollback := errors.New("roll back")
	if err := s.InTx(ctx, func(q store.Querier) error {
		if err := q.InventoryIndexesDrop(ctx); err != nil {
			return err
		}
		return rollback
	}); !errors.Is(err, rollback) {
		t.Fatalf("drop then roll back = %v", err)
	}
	row := store.InventoryRow{Kind: tradewind.UnitRoom, UnitID: 77, ItemID: 7, Day: "2027-01-01", Capacity: 2, Price: 100}
	if err := s.InTx(ctx, func(q store.Querier) error {
		if err := q.InventoryIndexesDrop(ctx); err != nil {
			return fmt.Errorf("drop after a rolled back drop: %w", err)
		}
		if err := q.InventoryInsert(ctx, []store.InventoryRow{row}); err != nil {
			return err
		}
		return q.InventoryIndexesCreate(ctx)
	}); err != nil {
		t.Fatal(err)
	}
	if empty, err := s.InventoryEmpty(ctx); err != nil || empty {
		t.Errorf("InventoryEmpty with a row = %v, %v", empty, err)
	}
	got, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: []int64{7}, From: "2027-01-01", To: "2027-01-01"})
	if err != nil || len(got) != 1 || got[0].UnitID != 77 {
		t.Errorf("InventoryList by item = %+v, %v", got, err)
	}
	// A (kind, item, unit, day) loaded twice while the key is dropped fails the load or
	// the rebuild (PostgreSQL drops the primary key too), and the transaction with it:
	// the indexes and the rows stored before are as they were.
	dup := store.InventoryRow{Kind: tradewind.UnitRoom, UnitID: 78, ItemID: 7, Day: "2027-01-01", Capacity: 1, Price: 100}
	if err := s.InTx(ctx, func(q store.Querier) error {
		if err := q.InventoryIndexesDrop(ctx); err != nil {
			return err
		}
		if err := q.InventoryInsert(ctx, []store.InventoryRow{dup}); err != nil {
			return err
		}
		if err := q.InventoryInsert(ctx, []store.InventoryRow{dup}); err != nil {
			return err
		}
		return q.InventoryIndexesCreate(ctx)
	}); err == nil {
		t.Error("a duplicate row loaded without the indexes was committed")
	}
	if err := s.InTx(ctx, func(q store.Querier) error {
		return q.InventoryInsert(ctx, []store.InventoryRow{row})
	}); err == nil {
		t.Error("after the failed load, a duplicate of a stored row was inserted: no primary key")
	}
	if got, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: []int64{7}, From: "2027-01-01", To: "2027-01-01"}); err != nil || len(got) != 1 || got[0].UnitID != 77 {
		t.Errorf("InventoryList by item after the failed load = %+v, %v", got, err)
	}
	if err := s.InventoryIndexesDrop(ctx); err == nil {
		t.Error("InventoryIndexesDrop outside a transaction succeeded")
	}
	if err := s.InventoryIndexesCreate(ctx); err == nil {
		t.Error("InventoryIndexesCreate outside a transaction succeeded")
	}
}

// exerciseInventoryRuns: new rows as an import writes them, mostly runs of one unit's
// consecutive days at one capacity and price (SQLite inserts such runs whole): every
// row is stored as given, whatever breaks a run (a price, a capacity, a unit, an item,
// a missing day, a month's or a leap year's end, days out of order), in one statement
// or several, and a row inserted again is a conflict.
func exerciseInventoryRuns(t *testing.T, s store.Store) {
	ctx := context.Background()
	day := func(n int) string {
		return time.Date(2031, 12, 20, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n).Format(tradewind.DateLayout)
	}
	var rows []store.InventoryRow
	add := func(unit, item int64, from, to, capacity int, price int64) {
		for d := from; d <= to; d++ {
			rows = append(rows, store.InventoryRow{Kind: tradewind.UnitRoom, UnitID: unit, ItemID: item, Day: day(d), Capacity: capacity, Price: price})
		}
	}
	add(900, 9, 0, 99, 3, 100) // over the year's end and 2032-02-29
	add(900, 9, 100, 119, 3, 110)
	add(900, 9, 120, 129, 2, 110)
	add(900, 9, 131, 140, 2, 110) // a day missing
	add(901, 9, 141, 200, 2, 110) // the next unit, from the day after
	add(902, 10, 0, 30, 1, 50)
	add(905, 11, 31, 40, 1, 50) // another item (a unit belongs to one item: another unit)
	for d := 60; d > 50; d-- {  // days out of order
		add(903, 10, d, d, 1, 50)
	}
	add(904, 10, -1200, 300, 4, 70) // more days than one statement names
	for i := range 5100 {           // more runs than one statement's worth
		add(int64(10000+i), 12, i%7, i%7+4, i%4, int64(i))
	}
	if err := s.InTx(ctx, func(q store.Querier) error { return q.InventoryInsert(ctx, rows) }); err != nil {
		t.Fatal(err)
	}
	want := map[string]store.InventoryRow{}
	for _, r := range rows {
		want[fmt.Sprint(r.UnitID, r.Day)] = r
	}
	got, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: []int64{9, 10, 11, 12}, From: "0000-01-01", To: "9999-12-31"})
	if err != nil || len(got) != len(rows) {
		t.Fatalf("InventoryList = %d rows, %v; want %d", len(got), err, len(rows))
	}
	for _, r := range got {
		if w, ok := want[fmt.Sprint(r.UnitID, r.Day)]; !ok || r != w {
			t.Fatalf("row %+v, want %+v", r, w)
		}
	}
	if err := s.InTx(ctx, func(q store.Querier) error { return q.InventoryInsert(ctx, rows[100:]) }); !errors.Is(err, store.ErrConflict) {
		t.Errorf("InventoryInsert of stored runs = %v, want ErrConflict", err)
	}
}

// exerciseInventoryUnitOneItem: a unit's rows belong to one item. Inventory's key is
// (kind, item, unit, day) (migration 00029), which alone would take a unit's day under
// a second item; the old key (kind, unit, day) refused that, and the store still does,
// on any day, in every way rows are written: InventoryInsert and InventoryPut, a few
// rows or a bulk load (COPY on PostgreSQL), with the primary key dropped for a first
// import. A claim names its item: one naming another item takes nothing.
func exerciseInventoryUnitOneItem(t *testing.T, s store.Store) {
	ctx := context.Background()
	days := func(unit, item int64, from, n int) []store.InventoryRow {
		var out []store.InventoryRow
		for d := from; d < from+n; d++ {
			day := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, d).Format(tradewind.DateLayout)
			out = append(out, store.InventoryRow{Kind: tradewind.UnitRoom, UnitID: unit, ItemID: item, Day: day, Capacity: 2, Price: 100})
		}
		return out
	}
	insert := func(r []store.InventoryRow) error {
		return s.InTx(ctx, func(q store.Querier) error { return q.InventoryInsert(ctx, r) })
	}
	if err := insert(days(50, 1, 0, 3)); err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func() error{
		"insert, same day":    func() error { return insert(days(50, 2, 0, 1)) },
		"insert, another day": func() error { return insert(days(50, 2, 9, 1)) },
		"put, same day":       func() error { return s.InventoryPut(ctx, days(50, 2, 1, 1)) },
		"put, another day":    func() error { return s.InventoryPut(ctx, days(50, 2, 20, 2)) },
		"bulk insert (COPY)":  func() error { return insert(append(days(60, 3, 0, 2500), days(50, 2, 30, 1)...)) },
		"bulk put (COPY)": func() error {
			return s.InTx(ctx, func(q store.Querier) error {
				return q.InventoryPut(ctx, append(days(60, 3, 0, 2500), days(50, 2, 30, 1)...))
			})
		},
		"one batch, two items": func() error { return insert(append(days(61, 3, 0, 2), days(61, 4, 2, 2)...)) },
		"key dropped": func() error {
			return s.InTx(ctx, func(q store.Querier) error {
				if err := q.InventoryIndexesDrop(ctx); err != nil {
					return err
				}
				if err := q.InventoryInsert(ctx, days(62, 5, 0, 2500)); err != nil {
					return err
				}
				if err := q.InventoryInsert(ctx, days(62, 6, 0, 2500)); err != nil {
					return err
				}
				return q.InventoryIndexesCreate(ctx)
			})
		},
	} {
		if err := write(); !errors.Is(err, store.ErrConflict) {
			t.Errorf("%s: a unit's rows under a second item = %v, want ErrConflict", name, err)
		}
	}
	// Nothing of the refused writes was stored; the unit is item 1's, three days.
	for item, want := range map[int64]int{1: 3, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0} {
		got, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: []int64{item}, From: "0000-01-01", To: "9999-12-31"})
		if err != nil || len(got) != want {
			t.Errorf("rows of item %d = %d, %v; want %d", item, len(got), err, want)
		}
	}
	if got, err := s.InventoryUnitOwners(ctx, tradewind.UnitRoom, []int64{50, 60, 61, 62}); err != nil || len(got) != 1 || !slices.Equal(got[50], []int64{1}) {
		t.Errorf("owners = %v, %v; want 50 → [1] only", got, err)
	}
	// The same unit id in another kind is another unit.
	if err := insert(append(days(50, 2, 0, 1), days(50, 2, 1, 1)...)); !errors.Is(err, store.ErrConflict) {
		t.Errorf("room 50 of item 2 = %v, want ErrConflict", err)
	}
	space := days(50, 2, 0, 2)
	for i := range space {
		space[i].Kind = tradewind.UnitSpace
	}
	if err := insert(space); err != nil {
		t.Errorf("space 50 of item 2 beside room 50 of item 1: %v", err)
	}
	// A claim names its item: another item's claim of the unit takes nothing; none
	// without an item.
	day := days(50, 1, 0, 1)[0].Day
	if after, ok, err := s.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: 2, UnitID: 50, From: day, To: day, Quantity: 1}); err != nil || ok || after != nil {
		t.Errorf("claim of room 50 as item 2's = %v, %v, %v; want nothing taken", after, ok, err)
	}
	if _, ok, err := s.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, UnitID: 50, From: day, To: day, Quantity: 1}); err == nil || ok {
		t.Errorf("claim without an item = %v, %v; want an error", ok, err)
	}
	if err := s.InventoryRelease(ctx, store.Claim{Kind: tradewind.UnitRoom, UnitID: 50, From: day, To: day, Quantity: 1}); err == nil {
		t.Error("release without an item succeeded")
	}
	if after, ok, err := s.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: 1, UnitID: 50, From: day, To: day, Quantity: 2}); err != nil || !ok || len(after) != 1 || after[0].ItemID != 1 || after[0].Sold != 2 {
		t.Errorf("claim of room 50 as item 1's = %+v, %v, %v", after, ok, err)
	}
	// A unit listed by id alone is found through its item.
	if got, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, UnitIDs: []int64{50}, From: day, To: "9999-12-31"}); err != nil || len(got) != 3 || got[0].Sold != 2 || got[0].ItemID != 1 {
		t.Errorf("InventoryList by unit = %+v, %v", got, err)
	}
}
