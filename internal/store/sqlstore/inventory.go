package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

func (q *queries) ItemPut(ctx context.Context, it *store.Item) (bool, error) {
	n, err := q.exec(ctx, `INSERT INTO items (kind, id, city_key, data) VALUES ($1, $2, $3, $4)
		ON CONFLICT (kind, id) DO UPDATE SET city_key = excluded.city_key, data = excluded.data
		WHERE items.data <> excluded.data OR items.city_key <> excluded.city_key`,
		string(it.Kind), it.ID, it.CityKey, string(it.Data))
	return n > 0, err
}

func (q *queries) ItemGet(ctx context.Context, kind tradewind.ProductType, id int64) (*store.Item, error) {
	it := store.Item{Kind: kind, ID: id}
	var data string
	err := q.db.QueryRowContext(ctx, `SELECT city_key, data FROM items WHERE kind = $1 AND id = $2`, string(kind), id).
		Scan(&it.CityKey, &data)
	if err != nil {
		return nil, q.interpret(err)
	}
	it.Data = []byte(data)
	return &it, nil
}

func (q *queries) ItemWithUnitDays(ctx context.Context, kind tradewind.ProductType, id int64, iq store.InventoryQuery) (*store.Item, []store.InventoryRow, error) {
	if len(iq.ItemIDs) != 1 || len(iq.UnitIDs) != 1 || iq.ItemIDs[0] != id {
		return nil, nil, fmt.Errorf("item with unit days: the query must name item %d and one of its units", id)
	}
	unit := iq.UnitIDs[0]
	// The item's row (0) and the unit's days (1), each branch by its primary key, as
	// ItemGet and inventoryOfUnit read them. No ORDER BY: SQLite sorted the days in a
	// temporary B-tree for it, on every quote (docs/performance-history.md, "Second
	// afternoon"), while the days come in key order; they are sorted below only if
	// they did not.
	rows, err := q.db.QueryContext(ctx, `SELECT 0, city_key, data, '', 0, 0, 0 FROM items WHERE kind = $1 AND id = $2
		UNION ALL
		SELECT 1, '', '', day, capacity, sold, price FROM inventory
		WHERE kind = $3 AND item_id = $2 AND unit_id = $4 AND day >= $5 AND day <= $6`,
		string(kind), id, iq.Kind, unit, iq.From, iq.To)
	if err != nil {
		return nil, nil, q.interpret(err)
	}
	defer rows.Close()
	var it *store.Item
	var out []store.InventoryRow
	for rows.Next() {
		var part int
		var cityKey, data string
		r := store.InventoryRow{Kind: iq.Kind, UnitID: unit, ItemID: id}
		if err := rows.Scan(&part, &cityKey, &data, &r.Day, &r.Capacity, &r.Sold, &r.Price); err != nil {
			return nil, nil, err
		}
		if part == 0 {
			it = &store.Item{Kind: kind, ID: id, CityKey: cityKey, Data: []byte(data)}
			continue
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if it == nil {
		return nil, nil, store.ErrNotFound
	}
	if !slices.IsSortedFunc(out, rowsByDay) {
		slices.SortFunc(out, rowsByDay)
	}
	return it, out, nil
}

// rowsByDay orders one unit's inventory rows by day.
func rowsByDay(a, b store.InventoryRow) int { return strings.Compare(a.Day, b.Day) }

func (q *queries) ItemListByCity(ctx context.Context, kind tradewind.ProductType, cityKey string) ([]*store.Item, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT id, data FROM items WHERE kind = $1 AND city_key = $2 ORDER BY id`,
		string(kind), cityKey)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.Item
	for rows.Next() {
		it := store.Item{Kind: kind, CityKey: cityKey}
		var data string
		if err := rows.Scan(&it.ID, &data); err != nil {
			return nil, err
		}
		it.Data = []byte(data)
		out = append(out, &it)
	}
	return out, rows.Err()
}

// placeholders returns "$from, $from+1, …" for n arguments.
func placeholders(from, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", from+i)
	}
	return b.String()
}

func (q *queries) InventoryList(ctx context.Context, iq store.InventoryQuery) ([]store.InventoryRow, error) {
	if len(iq.ItemIDs) == 1 && len(iq.UnitIDs) == 1 {
		return q.inventoryOfUnit(ctx, iq)
	}
	col, ids := "item_id", iq.ItemIDs
	if len(iq.UnitIDs) > 0 {
		col, ids = "unit_id", iq.UnitIDs
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var out []store.InventoryRow
	// Chunk the id list so that no statement passes the databases' parameter limits.
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		args := []any{iq.Kind, iq.From, iq.To}
		for _, id := range chunk {
			args = append(args, id)
		}
		// Inventory is keyed (kind, item_id, unit_id, day): by items, a range of the key
		// per item; by units and items, a range per pair; by units alone, each unit's
		// item from inventory_units (by its unique (kind, unit_id)), then its range.
		text := `SELECT unit_id, item_id, day, capacity, sold, price FROM inventory
			WHERE kind = $1 AND day >= $2 AND day <= $3 AND ` + col + ` IN (` + placeholders(4, len(chunk)) + `)`
		switch {
		case col == "unit_id" && len(iq.ItemIDs) > 0: // both: the units of those items
			text += ` AND item_id IN (` + placeholders(len(args)+1, len(iq.ItemIDs)) + `)`
			for _, id := range iq.ItemIDs {
				args = append(args, id)
			}
		case col == "unit_id":
			text = `SELECT inv.unit_id, inv.item_id, inv.day, inv.capacity, inv.sold, inv.price
				FROM inventory_units AS u JOIN inventory AS inv
				ON inv.kind = u.kind AND inv.item_id = u.item_id AND inv.unit_id = u.unit_id
				AND inv.day >= $2 AND inv.day <= $3
				WHERE u.kind = $1 AND u.unit_id IN (` + placeholders(4, len(chunk)) + `)`
		}
		rows, err := q.db.QueryContext(ctx, text, args...)
		if err != nil {
			return nil, q.interpret(err)
		}
		if out, err = appendInventoryRows(out, rows, iq.Kind); err != nil {
			return nil, err
		}
	}
	// Sorted here rather than by ORDER BY, which the key's order (item first) does not
	// give when several items are read.
	slices.SortFunc(out, func(a, b store.InventoryRow) int {
		if c := cmp.Compare(a.UnitID, b.UnitID); c != 0 {
			return c
		}
		return strings.Compare(a.Day, b.Day)
	})
	return out, nil
}

// appendInventoryRows appends rows of (unit_id, item_id, day, capacity, sold, price)
// of kind to out, and closes rows.
func appendInventoryRows(out []store.InventoryRow, rows *sql.Rows, kind tradewind.UnitKind) ([]store.InventoryRow, error) {
	defer rows.Close()
	for rows.Next() {
		r := store.InventoryRow{Kind: kind}
		if err := rows.Scan(&r.UnitID, &r.ItemID, &r.Day, &r.Capacity, &r.Sold, &r.Price); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// itemDaysBatch is the most spans one InventoryOfItemDays statement reads: its text
// stays short enough for the statement caches (stmtCacheMaxText).
const itemDaysBatch = 64

func (q *queries) InventoryOfItemDays(ctx context.Context, kind tradewind.UnitKind, spans []store.ItemDays) ([]store.InventoryRow, error) {
	var out []store.InventoryRow
	var b strings.Builder
	args := make([]any, 0, 1+4*min(len(spans), itemDaysBatch))
	for start := 0; start < len(spans); start += itemDaysBatch {
		chunk := spans[start:min(start+itemDaysBatch, len(spans))]
		// The spans as a table joined to inventory's key (kind, item_id, unit_id, day):
		// one range of days per unit, the span's unit, or each of its item's units
		// (inventory_units, keyed (kind, item_id, unit_id)) for a span of the whole item,
		// not the item's whole year. The first row's casts type the columns for
		// PostgreSQL.
		b.Reset()
		b.WriteString("WITH s(item_id, unit_id, first_day, last_day) AS (VALUES ")
		args = append(args[:0], kind)
		units := true // every span names its unit
		for i, sp := range chunk {
			n := len(args)
			if i == 0 {
				fmt.Fprintf(&b, "(CAST($%d AS BIGINT), CAST($%d AS BIGINT), $%d, $%d)", n+1, n+2, n+3, n+4)
			} else {
				fmt.Fprintf(&b, ", ($%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4)
			}
			args = append(args, sp.ItemID, sp.UnitID, sp.From, sp.To)
			units = units && sp.UnitID != 0
		}
		if units { // a claim's: every key column from one row of s
			b.WriteString(`) SELECT inv.unit_id, inv.item_id, inv.day, inv.capacity, inv.sold, inv.price
			FROM s JOIN inventory AS inv ON inv.kind = $1 AND inv.item_id = s.item_id AND inv.unit_id = s.unit_id
			AND inv.day >= s.first_day AND inv.day <= s.last_day`)
		} else {
			// The spans' units first, so that every column of inventory's key comes from
			// one row. PostgreSQL must have them materialized: joined three ways, it
			// searched each unit by (kind, item_id, unit_id) alone and filtered its whole
			// year by day. SQLite's planner searches the whole key either way, and an
			// ephemeral table costs it more (about 12 % of the statement).
			mat := "NOT MATERIALIZED"
			if q.d.Name == "postgres" {
				mat = "MATERIALIZED"
			}
			b.WriteString(`), su AS ` + mat + ` (SELECT s.item_id, u.unit_id, s.first_day, s.last_day
			FROM s JOIN inventory_units AS u ON u.kind = $1 AND u.item_id = s.item_id
			AND (s.unit_id = 0 OR u.unit_id = s.unit_id))
			SELECT inv.unit_id, inv.item_id, inv.day, inv.capacity, inv.sold, inv.price
			FROM su JOIN inventory AS inv ON inv.kind = $1 AND inv.item_id = su.item_id AND inv.unit_id = su.unit_id
			AND inv.day >= su.first_day AND inv.day <= su.last_day`)
		}
		rows, err := q.db.QueryContext(ctx, b.String(), args...)
		if err != nil {
			return nil, q.interpret(err)
		}
		if out, err = appendInventoryRows(out, rows, kind); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// inventoryOfUnit is InventoryList for one unit of one item (a quote's room or space):
// one statement of a fixed text (prepared once per connection), one range of the
// primary key (kind, item_id, unit_id, day), in its order, no sort.
func (q *queries) inventoryOfUnit(ctx context.Context, iq store.InventoryQuery) ([]store.InventoryRow, error) {
	unit, item := iq.UnitIDs[0], iq.ItemIDs[0]
	rows, err := q.db.QueryContext(ctx, `SELECT day, capacity, sold, price FROM inventory
		WHERE kind = $1 AND item_id = $5 AND unit_id = $2 AND day >= $3 AND day <= $4 ORDER BY day`,
		iq.Kind, unit, iq.From, iq.To, item)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []store.InventoryRow
	for rows.Next() {
		r := store.InventoryRow{Kind: iq.Kind, UnitID: unit, ItemID: item}
		if err := rows.Scan(&r.Day, &r.Capacity, &r.Sold, &r.Price); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (q *queries) InventoryUnitOwners(ctx context.Context, kind tradewind.UnitKind, unitIDs []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	// Chunked like InventoryList; inventory_units' unique (kind, unit_id) serves the
	// lookup (inventory's key begins with the item). A unit has rows exactly when it is
	// listed there: both are written together, and neither is deleted.
	for start := 0; start < len(unitIDs); start += 500 {
		chunk := unitIDs[start:min(start+500, len(unitIDs))]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, kind)
		for _, id := range chunk {
			args = append(args, id)
		}
		rows, err := q.db.QueryContext(ctx, `SELECT unit_id, item_id FROM inventory_units
			WHERE kind = $1 AND unit_id IN (`+placeholders(2, len(chunk))+`)`, args...)
		if err != nil {
			return nil, q.interpret(err)
		}
		for rows.Next() {
			var unit, item int64
			if err := rows.Scan(&unit, &item); err != nil {
				rows.Close()
				return nil, err
			}
			if !slices.Contains(out[unit], item) { // a unit id repeated across chunks
				out[unit] = append(out[unit], item)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	for _, items := range out {
		slices.Sort(items)
	}
	return out, nil
}

// daysInclusive counts the calendar days from..to, both included.
func daysInclusive(from, to string) (int64, error) {
	f, err := time.Parse(tradewind.DateLayout, from)
	if err != nil {
		return 0, err
	}
	t, err := time.Parse(tradewind.DateLayout, to)
	if err != nil {
		return 0, err
	}
	return int64(t.Sub(f).Hours()/24) + 1, nil
}

func (q *queries) InventoryClaim(ctx context.Context, c store.Claim) ([]store.InventoryRow, bool, error) {
	want, err := claimDays(c)
	if err != nil {
		return nil, false, err
	}
	// One conditional statement: rows lacking room are skipped. Fewer rows than days
	// means the claim fails, and the days it did take are given back at once, so the
	// claim is all or nothing even outside a transaction. The rows it returns tell the
	// caller which days sold out, without another read. With c.IfItem the item's
	// document is checked in the same statement (one round trip on PostgreSQL): a
	// primary-key lookup, evaluated once.
	var taken []store.InventoryRow
	// In a group commit on PostgreSQL the booking's savepoint travels with it (queryEach).
	if err := q.queryEach(ctx, claimTexts[c.IfItem != nil], claimArgs(c), claimedRows(c, &taken)); err != nil {
		return nil, false, err
	}
	if int64(len(taken)) == want {
		slices.SortFunc(taken, rowsByDay)
		return taken, true, nil
	}
	return nil, false, q.giveBack(ctx, c, taken)
}

// claimedRows reads each row a claim's statement returns (day, capacity, sold, price,
// then more, if any) into taken.
func claimedRows(c store.Claim, taken *[]store.InventoryRow, more ...any) func(scan func(dest ...any) error) error {
	return func(scan func(dest ...any) error) error {
		r := store.InventoryRow{Kind: c.Kind, UnitID: c.UnitID, ItemID: c.ItemID}
		if err := scan(append([]any{&r.Day, &r.Capacity, &r.Sold, &r.Price}, more...)...); err != nil {
			return err
		}
		*taken = append(*taken, r)
		return nil
	}
}

// claimDays is how many days c must take, checking that it names a range and an item.
func claimDays(c store.Claim) (int64, error) {
	want, err := daysInclusive(c.From, c.To)
	if err != nil || want < 1 {
		return 0, fmt.Errorf("inventory claim: bad range %s..%s", c.From, c.To)
	}
	if c.ItemID == 0 {
		return 0, fmt.Errorf("inventory claim: %s %d names no item", c.Kind, c.UnitID)
	}
	return want, nil
}

// claimUpdate is a claim's conditional update, its arguments (claimArgs) numbered from
// $first, returning the rows it took; with ifItem it takes nothing unless the item is
// stored with the document given.
func claimUpdate(first int, ifItem bool) string {
	p := func(i int) string { return fmt.Sprintf("$%d", first+i) }
	text := `UPDATE inventory SET sold = sold + ` + p(0) + `
		WHERE kind = ` + p(1) + ` AND item_id = ` + p(5) + ` AND unit_id = ` + p(2) + ` AND day >= ` + p(3) + ` AND day <= ` + p(4) + `
		AND sold + ` + p(0) + ` <= capacity`
	if ifItem {
		text += ` AND EXISTS (SELECT 1 FROM items WHERE kind = ` + p(6) + ` AND id = ` + p(7) + ` AND data = ` + p(8) + `)`
	}
	return text + ` RETURNING day, capacity, sold, price`
}

// claimTexts are InventoryClaim's statements, without and with the item's check.
var claimTexts = map[bool]string{false: claimUpdate(1, false), true: claimUpdate(1, true)}

// claimArgs are claimUpdate's arguments for c.
func claimArgs(c store.Claim) []any {
	args := []any{c.Quantity, c.Kind, c.UnitID, c.From, c.To, c.ItemID}
	if it := c.IfItem; it != nil {
		args = append(args, string(it.Kind), it.ID, string(it.Data))
	}
	return args
}

// claimArgCount is how many arguments claimArgs gives.
func claimArgCount(ifItem bool) int {
	if ifItem {
		return 9
	}
	return 6
}

// giveBack returns the days a claim that did not take every day took.
func (q *queries) giveBack(ctx context.Context, c store.Claim, taken []store.InventoryRow) error {
	if len(taken) == 0 {
		return nil
	}
	args := []any{c.Quantity, c.Kind, c.ItemID, c.UnitID}
	for _, r := range taken {
		args = append(args, r.Day)
	}
	_, err := q.exec(ctx, `UPDATE inventory SET sold = sold - $1 WHERE kind = $2 AND item_id = $3 AND unit_id = $4
		AND day IN (`+placeholders(5, len(taken))+`)`, args...)
	return err
}

func (q *queries) InventoryRelease(ctx context.Context, c store.Claim) error {
	if c.ItemID == 0 {
		return fmt.Errorf("inventory release: %s %d names no item", c.Kind, c.UnitID)
	}
	_, err := q.exec(ctx, `UPDATE inventory SET sold = CASE WHEN sold >= $1 THEN sold - $1 ELSE 0 END
		WHERE kind = $2 AND item_id = $6 AND unit_id = $3 AND day >= $4 AND day <= $5`,
		c.Quantity, c.Kind, c.UnitID, c.From, c.To, c.ItemID)
	return err
}
