package sqlstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// TestSQLiteChangeRowsUpserted: since migration 00033 SQLite's inventory triggers keep
// at most one unsequenced change row per unit, widened by every write of the unit until
// the sequencer places it (one upsert a row written, where 00030 ran two statements).
// The unsequenced rows of one unit 00030 left are merged into one by the migration,
// which leaves placed rows and an item's record changes (no unit) as they are; those are
// never merged or widened. The Down step brings 00030's
// triggers back.
func TestSQLiteChangeRowsUpserted(t *testing.T) {
	ctx := context.Background()
	s := unmigrated[0].open(t) // SQLite: PostgreSQL's statement trigger writes a row a statement
	if err := s.MigrateTo(ctx, 32); err != nil {
		t.Fatal(err)
	}
	db := s.SQL()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, unit := range []int64{101, 102} {
		for d := 1; d <= 20; d++ {
			exec(`INSERT INTO inventory (kind, unit_id, item_id, day, capacity, sold, price) VALUES ('room', $1, 1, $2, 5, 0, 100)`,
				unit, fmt.Sprintf("2027-01-%02d", d))
		}
	}
	claim := func(unit int64, from, to int) {
		t.Helper()
		c := store.Claim{Kind: tradewind.UnitRoom, ItemID: 1, UnitID: unit, From: fmt.Sprintf("2027-01-%02d", from),
			To: fmt.Sprintf("2027-01-%02d", to), Quantity: 1}
		if _, ok, err := s.InventoryClaim(ctx, c); err != nil || !ok {
			t.Fatalf("claim %+v: %v %v", c, ok, err)
		}
	}
	type change struct {
		unit     any // NULL: the item's record
		from, to any
		seq      bool
	}
	changes := func() []change {
		t.Helper()
		rows, err := db.QueryContext(ctx, `SELECT unit_id, day_from, day_to, seq IS NOT NULL FROM changes ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []change
		for rows.Next() {
			var c change
			if err := rows.Scan(&c.unit, &c.from, &c.to, &c.seq); err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
		return out
	}
	same := func(what string, want []change) {
		t.Helper()
		got := changes()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: change rows %v, want %v", what, got, want)
		}
	}
	exec(`DELETE FROM changes`)
	// A row of unit 101 a poll placed already, and an unsequenced change of the item's
	// record: the migration's merge leaves both as they are.
	exec(`INSERT INTO changes (kind, item_id, unit_kind, unit_id, day_from, day_to, seq, sequenced_at)
		VALUES ('hotel', 1, 'room', 101, '2027-01-01', '2027-01-01', 1000, '2027-01-01 00:00:00')`)
	exec(`INSERT INTO changes (kind, item_id) VALUES ('hotel', 1)`)
	placed := change{int64(101), "2027-01-01", "2027-01-01", true}
	item := change{nil, nil, nil, false}

	// 00030's triggers: claims of one unit apart from each other leave two rows of it.
	claim(101, 3, 5)
	claim(102, 3, 3)
	claim(101, 10, 10)
	same("00030", []change{placed, item, {int64(101), "2027-01-03", "2027-01-05", false}, {int64(102), "2027-01-03", "2027-01-03", false},
		{int64(101), "2027-01-10", "2027-01-10", false}})

	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// The migration merged the unit's two unsequenced rows into the last one, and kept
	// its placed row and the item's.
	same("migrated", []change{placed, item, {int64(102), "2027-01-03", "2027-01-03", false}, {int64(101), "2027-01-03", "2027-01-10", false}})

	// Every write of a unit widens its unsequenced row, a claim's three nights and a
	// release alike; an item's record change has a row of its own.
	claim(102, 7, 9)
	exec(`INSERT INTO changes (kind, item_id) VALUES ('hotel', 1)`)
	exec(`INSERT INTO changes (kind, item_id) VALUES ('hotel', 1)`)
	if err := s.InventoryRelease(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: 1, UnitID: 101, From: "2027-01-15", To: "2027-01-16", Quantity: 1}); err != nil {
		t.Fatal(err)
	}
	exec(`DELETE FROM inventory WHERE kind = 'room' AND item_id = 1 AND unit_id = 102 AND day = '2027-01-01'`)
	same("upserted", []change{placed, item, {int64(102), "2027-01-01", "2027-01-09", false}, {int64(101), "2027-01-03", "2027-01-16", false},
		item, item})

	// Once sequenced, a row is never widened again: the next write adds one.
	exec(`UPDATE changes SET seq = id WHERE seq IS NULL`)
	claim(101, 4, 4)
	itemPlaced := change{nil, nil, nil, true}
	same("after the sequencer", []change{placed, itemPlaced, {int64(102), "2027-01-01", "2027-01-09", true}, {int64(101), "2027-01-03", "2027-01-16", true},
		itemPlaced, itemPlaced, {int64(101), "2027-01-04", "2027-01-04", false}})

	// Down: 00030's triggers again, which add a row for a day the last row does not cover.
	if err := s.MigrateDownTo(ctx, 32); err != nil {
		t.Fatal(err)
	}
	claim(102, 12, 12)
	claim(101, 5, 5)
	same("down", []change{placed, itemPlaced, {int64(102), "2027-01-01", "2027-01-09", true}, {int64(101), "2027-01-03", "2027-01-16", true},
		itemPlaced, itemPlaced, {int64(101), "2027-01-04", "2027-01-04", false},
		{int64(102), "2027-01-12", "2027-01-12", false}, {int64(101), "2027-01-05", "2027-01-05", false}})
}
