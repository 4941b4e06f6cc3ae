package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// TestMigrationInventoryByItem: migration 00029 keys inventory (kind, item_id, unit_id,
// day) (SQLite: a WITHOUT ROWID table, rebuilt), drops inventory_item and lists every
// unit under its item in inventory_units. Rows stored before it survive as they were,
// what is sold included; claims, releases and their change rows (SQLite's triggers,
// made again with the table) work after it; a unit under a second item is refused.
func TestMigrationInventoryByItem(t *testing.T) {
	type row struct {
		kind       string
		unit, item int64
		day        string
		capacity   int
		sold       int
		price      int64
	}
	var before []row
	for _, u := range []struct {
		kind       string
		unit, item int64
	}{{"room", 101, 1}, {"room", 102, 1}, {"room", 201, 2}, {"space", 101, 3}, {"activity", 4, 4}, {"departure", 501, 5}} {
		for d := 1; d <= 5; d++ {
			before = append(before, row{u.kind, u.unit, u.item, fmt.Sprintf("2027-01-%02d", d), 3, d % 3, 1000 + u.unit})
		}
	}
	for _, o := range unmigrated {
		t.Run(o.name, func(t *testing.T) {
			ctx := context.Background()
			s := o.open(t)
			if err := s.MigrateTo(ctx, 28); err != nil {
				t.Fatal(err)
			}
			for _, r := range before {
				if _, err := s.SQL().ExecContext(ctx, `INSERT INTO inventory (kind, unit_id, item_id, day, capacity, sold, price)
					VALUES ($1, $2, $3, $4, $5, $6, $7)`, r.kind, r.unit, r.item, r.day, r.capacity, r.sold, r.price); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			stored := func() []row {
				t.Helper()
				rs, err := s.SQL().QueryContext(ctx, `SELECT kind, unit_id, item_id, day, capacity, sold, price FROM inventory`)
				if err != nil {
					t.Fatal(err)
				}
				defer rs.Close()
				var out []row
				for rs.Next() {
					var r row
					if err := rs.Scan(&r.kind, &r.unit, &r.item, &r.day, &r.capacity, &r.sold, &r.price); err != nil {
						t.Fatal(err)
					}
					out = append(out, r)
				}
				return out
			}
			after := stored()
			if len(after) != len(before) {
				t.Fatalf("%d rows after the migration, want %d", len(after), len(before))
			}
			want := map[row]bool{}
			for _, r := range before {
				want[r] = true
			}
			for _, r := range after {
				if !want[r] {
					t.Errorf("row after the migration %+v was not stored before it", r)
				}
			}
			// The schema: one key, item first; no inventory_item.
			var schema string
			query := `SELECT group_concat(sql, ' ') FROM sqlite_master WHERE tbl_name = 'inventory'`
			if o.name == "postgres" {
				query = `SELECT string_agg(indexdef, ' ') FROM pg_indexes WHERE tablename = 'inventory' AND schemaname = current_schema()`
			}
			if err := s.SQL().QueryRowContext(ctx, query).Scan(&schema); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(schema, "inventory_item") || !strings.Contains(strings.ReplaceAll(schema, " ", ""), "(kind,item_id,unit_id,day)") {
				t.Errorf("inventory's schema after 00029: %s", schema)
			}
			if o.name == "sqlite" && (!strings.Contains(schema, "WITHOUT ROWID") || !strings.Contains(schema, "inventory_changed_update") ||
				!strings.Contains(schema, "inventory_changed_delete")) {
				t.Errorf("SQLite's inventory after 00029 (a WITHOUT ROWID table with 00010's triggers): %s", schema)
			}
			// Every unit under its item.
			owners, err := s.InventoryUnitOwners(ctx, tradewind.UnitRoom, []int64{101, 102, 201, 404})
			if err != nil || len(owners) != 3 || owners[101][0] != 1 || owners[102][0] != 1 || owners[201][0] != 2 {
				t.Errorf("room owners after the migration = %v, %v", owners, err)
			}
			if owners, err := s.InventoryUnitOwners(ctx, tradewind.UnitSpace, []int64{101}); err != nil || len(owners[101]) != 1 || owners[101][0] != 3 {
				t.Errorf("space owners after the migration = %v, %v", owners, err)
			}
			// A claim and a release, with their change rows.
			changes := func() int {
				var n int
				if err := s.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM changes WHERE item_id = 1 AND day_from IS NOT NULL`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			c0 := changes()
			claim := store.Claim{Kind: tradewind.UnitRoom, ItemID: 1, UnitID: 101, From: "2027-01-02", To: "2027-01-03", Quantity: 1}
			got, ok, err := s.InventoryClaim(ctx, claim) // sold 2 and 0 of 3 before
			if err != nil || !ok || len(got) != 2 || got[0].Sold != 3 || got[1].Sold != 1 || got[0].ItemID != 1 {
				t.Fatalf("claim after the migration = %+v, %v, %v", got, ok, err)
			}
			if c1 := changes(); c1 <= c0 {
				t.Errorf("a claim after the migration left no change row (%d, then %d)", c0, c1)
			}
			if err := s.InventoryRelease(ctx, claim); err != nil {
				t.Fatal(err)
			}
			rows, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: []int64{1}, From: "2027-01-02", To: "2027-01-03"})
			if err != nil || len(rows) != 4 || rows[0].UnitID != 101 || rows[0].Sold != 2 || rows[1].Sold != 0 {
				t.Errorf("item 1 after claim and release = %+v, %v", rows, err)
			}
			// The old key's guarantee: room 101 cannot be item 2's, on a stored day or another.
			for _, day := range []string{"2027-01-01", "2027-02-01"} {
				err := s.InventoryPut(ctx, []store.InventoryRow{{Kind: tradewind.UnitRoom, UnitID: 101, ItemID: 2, Day: day, Capacity: 1}})
				if !errors.Is(err, store.ErrConflict) {
					t.Errorf("room 101 of item 2 on %s after the migration = %v, want ErrConflict", day, err)
				}
			}
			// A new unit of an item, and new days of a stored unit.
			if err := s.InventoryPut(ctx, []store.InventoryRow{{Kind: tradewind.UnitRoom, UnitID: 103, ItemID: 1, Day: "2027-01-01", Capacity: 1},
				{Kind: tradewind.UnitRoom, UnitID: 101, ItemID: 1, Day: "2027-01-06", Capacity: 1}}); err != nil {
				t.Errorf("new rows of item 1 after the migration: %v", err)
			}

			// Down (00031's, 00030's and 00029's steps): every row as it stood, what is sold
			// included, under the old key (kind, unit_id, day) with inventory_item back and
			// no inventory_units; a sale still leaves a change row. Up again: the same rows.
			kept := stored()
			if err := s.MigrateDownTo(ctx, 28); err != nil {
				t.Fatal(err)
			}
			if down := stored(); !sameRows(down, kept) {
				t.Errorf("rows after 00029's Down = %v, want %v", down, kept)
			}
			if err := s.SQL().QueryRowContext(ctx, query).Scan(&schema); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(schema, "inventory_item") {
				t.Errorf("inventory's schema after 00029's Down, without inventory_item: %s", schema)
			}
			if _, err := s.SQL().ExecContext(ctx, `INSERT INTO inventory (kind, unit_id, item_id, day, capacity) VALUES ('room', 101, 2, '2027-01-01', 1)`); err == nil ||
				!strings.Contains(strings.ToLower(err.Error()), "unique") && !strings.Contains(err.Error(), "duplicate key") {
				t.Errorf("after 00029's Down, room 101 of item 2 on a day room 101 of item 1 holds: %v; want the old key (kind, unit_id, day) to refuse it", err)
			}
			var units int
			if err := s.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM inventory_units`).Scan(&units); err == nil {
				t.Errorf("inventory_units after 00029's Down: %d rows", units)
			}
			c0 = changes()
			if _, err := s.SQL().ExecContext(ctx, `UPDATE inventory SET sold = sold + 1 WHERE kind = 'room' AND unit_id = 102 AND day = '2027-01-01'`); err != nil {
				t.Fatal(err)
			}
			if c1 := changes(); c1 <= c0 {
				t.Errorf("a sale after 00029's Down left no change row (%d, then %d)", c0, c1)
			}
			if _, err := s.SQL().ExecContext(ctx, `UPDATE inventory SET sold = sold - 1 WHERE kind = 'room' AND unit_id = 102 AND day = '2027-01-01'`); err != nil {
				t.Fatal(err)
			}
			if err := s.Migrate(ctx); err != nil {
				t.Fatalf("up again after 00029's Down: %v", err)
			}
			if up := stored(); !sameRows(up, kept) {
				t.Errorf("rows up again after 00029's Down = %v, want %v", up, kept)
			}
			if owners, err := s.InventoryUnitOwners(ctx, tradewind.UnitRoom, []int64{101, 103, 201}); err != nil || len(owners) != 3 ||
				owners[101][0] != 1 || owners[103][0] != 1 || owners[201][0] != 2 {
				t.Errorf("room owners up again after 00029's Down = %v, %v", owners, err)
			}
		})
	}
}

// sameRows reports whether a and b hold the same rows, in any order.
func sameRows[R comparable](a, b []R) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[R]int{}
	for _, r := range a {
		count[r]++
	}
	for _, r := range b {
		if count[r]--; count[r] < 0 {
			return false
		}
	}
	return true
}

// TestMigrationInventoryByItemSplitUnit: a stored unit with rows of two items (which the
// import's owner check has refused since before 00029) fails the migration, which then
// leaves the rows and the old schema as they were, rather than keep one item's rows
// unlisted.
func TestMigrationInventoryByItemSplitUnit(t *testing.T) {
	for _, o := range unmigrated {
		t.Run(o.name, func(t *testing.T) {
			ctx := context.Background()
			s := o.open(t)
			if err := s.MigrateTo(ctx, 28); err != nil {
				t.Fatal(err)
			}
			for i, item := range []int64{1, 2} {
				if _, err := s.SQL().ExecContext(ctx, `INSERT INTO inventory (kind, unit_id, item_id, day, capacity)
					VALUES ('room', 5, $1, $2, 1)`, item, fmt.Sprintf("2027-01-0%d", i+1)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Migrate(ctx); err == nil {
				t.Fatal("migrated a unit split between two items")
			}
			var n int
			if err := s.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM inventory WHERE unit_id = 5`).Scan(&n); err != nil || n != 2 {
				t.Errorf("rows after the failed migration = %d, %v", n, err)
			}
			var idx int
			query := `SELECT COUNT(*) FROM sqlite_master WHERE name = 'inventory_item'`
			if o.name == "postgres" {
				query = `SELECT COUNT(*) FROM pg_indexes WHERE indexname = 'inventory_item' AND schemaname = current_schema()`
			}
			if err := s.SQL().QueryRowContext(ctx, query).Scan(&idx); err != nil || idx != 1 {
				t.Errorf("inventory_item after the failed migration: %d, %v", idx, err)
			}
		})
	}
}
