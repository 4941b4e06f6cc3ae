package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
)

// Bulk writes for catalog imports: a whole catalog is tens of millions of inventory rows,
// which row-by-row statements take minutes to write.

// Rows per multi-row statement: within SQLite's 32 766 and PostgreSQL's 65 535 parameters.
const (
	inventoryBatch = 5000 // × 6 parameters
	itemBatch      = 1000 // × 5 parameters
	idBatch        = 1000 // ids per IN list
)

// valuesList returns "($1, …), (…), …": rows groups of cols numbered parameters, or of
// "?" when anonymous.
func valuesList(rows, cols int, anonymous bool) string {
	var b strings.Builder
	b.Grow(rows * cols * 7)
	n := 1
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := 0; c < cols; c++ {
			if c > 0 {
				b.WriteString(", ")
			}
			if anonymous {
				b.WriteByte('?')
			} else {
				fmt.Fprintf(&b, "$%d", n)
			}
			n++
		}
		b.WriteByte(')')
	}
	return b.String()
}

// sharedValuesList returns "(?1, …, ?shared, ?, …), …": rows groups of the shared
// numbered parameters then cols anonymous ones, which SQLite numbers on from the
// largest so far (shared+1, …).
func sharedValuesList(rows, shared, cols int) string {
	var row strings.Builder
	row.WriteByte('(')
	for c := 1; c <= shared; c++ {
		fmt.Fprintf(&row, "?%d, ", c)
	}
	row.WriteString(strings.Repeat("?, ", cols-1))
	row.WriteString("?)")
	return strings.Repeat(row.String()+", ", rows-1) + row.String()
}

// execBatches runs prefix + VALUES list + suffix over n rows in statements of at most per
// rows; appendRow appends the cols values of row i. The full-size statement is prepared
// once and reused.
func (q *queries) execBatches(ctx context.Context, prefix, suffix string, cols, per, n int, appendRow func(args []any, i int) []any) error {
	if q.d.DriverBatches && q.conn != nil {
		return q.interpret(q.execBatchesDriver(ctx, prefix, suffix, nil, cols, per, n, appendRow))
	}
	var full *sql.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	args := make([]any, 0, min(per, n)*cols)
	for start := 0; start < n; start += per {
		m := min(per, n-start)
		args = args[:0]
		for i := start; i < start+m; i++ {
			args = appendRow(args, i)
		}
		var err error
		switch {
		case m == per && n > per:
			if full == nil {
				if full, err = q.db.PrepareContext(ctx, prefix+valuesList(per, cols, q.d.Anonymous)+suffix); err != nil {
					return q.interpret(err)
				}
			}
			_, err = full.ExecContext(ctx, args...)
		default:
			_, err = q.db.ExecContext(ctx, prefix+valuesList(m, cols, q.d.Anonymous)+suffix, args...)
		}
		if err != nil {
			return q.interpret(err)
		}
	}
	return nil
}

// execBatchesDriver is execBatches on the transaction's driver connection: each
// statement's values are set in one reused []driver.NamedValue and executed by the
// driver's statement, without database/sql's per-statement checks and copies. The
// shared values, the same for every row, are bound once per statement as the first
// columns of each row (?1, ?2, …), and appendRow appends the cols others.
func (q *queries) execBatchesDriver(ctx context.Context, prefix, suffix string, shared []any, cols, per, n int, appendRow func(args []any, i int) []any) error {
	if n == 0 {
		return nil
	}
	values := func(rows int) string {
		if len(shared) == 0 {
			return valuesList(rows, cols, q.d.Anonymous)
		}
		return sharedValuesList(rows, len(shared), cols)
	}
	return q.conn.Raw(func(dc any) error {
		pc, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("bulk write: driver connection %T cannot prepare", dc)
		}
		var full driver.Stmt
		defer func() {
			if full != nil {
				full.Close()
			}
		}()
		args := make([]any, 0, len(shared)+min(per, n)*cols)
		named := make([]driver.NamedValue, len(shared)+min(per, n)*cols)
		for j := range named {
			named[j].Ordinal = j + 1
		}
		for start := 0; start < n; start += per {
			m := min(per, n-start)
			args = append(args[:0], shared...)
			for i := start; i < start+m; i++ {
				args = appendRow(args, i)
			}
			for j, v := range args {
				if !driver.IsValue(v) {
					var err error
					if v, err = driver.DefaultParameterConverter.ConvertValue(v); err != nil {
						return fmt.Errorf("bulk write: argument %d: %w", j+1, err)
					}
				}
				named[j].Value = v
			}
			st := full
			if m != per || n == per {
				var err error
				if st, err = pc.PrepareContext(ctx, prefix+values(m)+suffix); err != nil {
					return err
				}
				defer st.Close()
			} else if full == nil {
				var err error
				if full, err = pc.PrepareContext(ctx, prefix+values(per)+suffix); err != nil {
					return err
				}
				st = full
			}
			ex, ok := st.(driver.StmtExecContext)
			if !ok {
				return fmt.Errorf("bulk write: driver statement %T cannot execute with a context", st)
			}
			if _, err := ex.ExecContext(ctx, named[:len(args)]); err != nil {
				return err
			}
		}
		return nil
	})
}

func (q *queries) ItemListByIDs(ctx context.Context, kind tradewind.ProductType, ids []int64) ([]*store.Item, error) {
	var out []*store.Item
	for start := 0; start < len(ids); start += idBatch {
		chunk := ids[start:min(start+idBatch, len(ids))]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, string(kind))
		for _, id := range chunk {
			args = append(args, id)
		}
		rows, err := q.db.QueryContext(ctx, `SELECT id, city_key, data, inventory_hash FROM items
			WHERE kind = $1 AND id IN (`+placeholders(2, len(chunk))+`)`, args...)
		if err != nil {
			return nil, q.interpret(err)
		}
		for rows.Next() {
			it := store.Item{Kind: kind}
			var data string
			if err := rows.Scan(&it.ID, &it.CityKey, &data, &it.InventoryHash); err != nil {
				rows.Close()
				return nil, err
			}
			it.Data = []byte(data)
			out = append(out, &it)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (q *queries) ItemPutMany(ctx context.Context, items []*store.Item) error {
	err := q.execBatches(ctx, `INSERT INTO items (kind, id, city_key, data, inventory_hash) VALUES `,
		` ON CONFLICT (kind, id) DO UPDATE SET city_key = excluded.city_key, data = excluded.data,
			inventory_hash = excluded.inventory_hash`,
		5, itemBatch, len(items), func(args []any, i int) []any {
			it := items[i]
			return append(args, string(it.Kind), it.ID, it.CityKey, string(it.Data), it.InventoryHash)
		})
	if err != nil {
		return fmt.Errorf("item put: %w", err)
	}
	return nil
}

// inventoryColumns are the columns an inventory write sets, in the order of inventoryValues.
var inventoryColumns = []string{"kind", "unit_id", "item_id", "day", "capacity", "price"}

// inventoryValues appends r's values, boxed by b.
func inventoryValues(args []any, b *rowBoxer, r *store.InventoryRow) []any {
	return append(args, b.text(0, string(r.Kind)), b.int(1, r.UnitID), b.int(2, r.ItemID), b.day(r.Day),
		b.int(3, int64(r.Capacity)), b.int(4, r.Price))
}

// rowBoxer boxes a bulk write's values as the drivers' own types (string, int64, which
// database/sql passes on as they are, where a named type or an int goes through
// reflection), reusing the boxed value of a column while it repeats from row to row and
// of each day: a catalog is tens of millions of rows, mostly runs of one unit's days
// at one capacity and price, and a box per value was most of the import's garbage.
type rowBoxer struct {
	texts [1]struct {
		v   string
		box any
	}
	ints [5]struct {
		v   int64
		box any
	}
	days map[string]any
}

func (b *rowBoxer) text(col int, v string) any {
	c := &b.texts[col]
	if c.box == nil || c.v != v {
		c.v, c.box = v, v
	}
	return c.box
}

func (b *rowBoxer) int(col int, v int64) any {
	c := &b.ints[col]
	if c.box == nil || c.v != v {
		c.v, c.box = v, v
	}
	return c.box
}

func (b *rowBoxer) day(v string) any {
	box, ok := b.days[v]
	if !ok {
		if b.days == nil || len(b.days) > 4096 { // a few years of days; bounded all the same
			b.days = map[string]any{}
		}
		box = v
		b.days[v] = box
	}
	return box
}

// inventoryUpsert is the conflict clause of an inventory write: what is sold is kept.
// The item is part of the key: a row cannot move to another item (and its unit cannot
// either: inventoryUnitsAdd refuses it first).
const inventoryUpsert = ` ON CONFLICT (kind, item_id, unit_id, day) DO UPDATE SET
	capacity = excluded.capacity, price = excluded.price`

// inventoryUnitsAdd lists in inventory_units (migration 00029) every unit of rows under
// its item, before the rows are written; ErrConflict if a unit is listed under another
// item of its kind (the unique (kind, unit_id)). That is what keeps a unit's days to one
// item now that inventory's key begins with the item: the old key (kind, unit_id, day)
// refused a unit's day under a second item; this refuses the unit under a second item
// on any day, which the import's owner check has refused all along.
func (q *queries) inventoryUnitsAdd(ctx context.Context, rows []store.InventoryRow) error {
	type unit struct {
		kind       tradewind.UnitKind
		item, unit int64
	}
	var units []unit
	seen := map[unit]bool{}
	for i := range rows {
		r := &rows[i]
		u := unit{r.Kind, r.ItemID, r.UnitID}
		if len(units) > 0 && units[len(units)-1] == u { // rows come unit by unit
			continue
		}
		if !seen[u] {
			seen[u] = true
			units = append(units, u)
		}
	}
	return q.execBatches(ctx, `INSERT INTO inventory_units (kind, item_id, unit_id) VALUES `,
		` ON CONFLICT (kind, item_id, unit_id) DO NOTHING`, 3, idBatch, len(units), func(args []any, i int) []any {
			return append(args, string(units[i].kind), units[i].item, units[i].unit)
		})
}

// copyThreshold is the number of rows from which a transaction's inventory write is
// loaded with the dialect's CopyFrom rather than multi-row INSERTs.
const copyThreshold = 2000

// inventoryWrite writes rows with multi-row INSERTs ending with suffix. On the driver's
// connection (SQLite) it writes the rows of each kind together, the kind bound once
// per statement: binding is a large share of SQLite's cost per row, a text value the
// dearest (copied into C memory and freed per row).
func (q *queries) inventoryWrite(ctx context.Context, rows []store.InventoryRow, suffix string) error {
	const prefix = `INSERT INTO inventory (kind, unit_id, item_id, day, capacity, price) VALUES `
	var b rowBoxer
	if !q.d.DriverBatches || q.conn == nil {
		return q.execBatches(ctx, prefix, suffix, len(inventoryColumns), inventoryBatch, len(rows), func(args []any, i int) []any {
			return inventoryValues(args, &b, &rows[i])
		})
	}
	var runs []dayRun
	var days dayNumbers
	write := func(kind tradewind.UnitKind, n int, row func(i int) *store.InventoryRow) error {
		if suffix == "" { // new rows: as runs of days, if they come so
			var ok bool
			if runs, ok = days.runs(runs[:0], n, row); ok && len(runs)*minRunDays <= n {
				return q.interpret(q.inventoryInsertRuns(ctx, kind, runs, &days))
			}
		}
		return q.interpret(q.execBatchesDriver(ctx, prefix, suffix, []any{string(kind)}, len(inventoryColumns)-1, inventoryBatch, n, func(args []any, i int) []any {
			r := row(i)
			return append(args, b.int(1, r.UnitID), b.int(2, r.ItemID), b.day(r.Day), b.int(3, int64(r.Capacity)), b.int(4, r.Price))
		}))
	}
	mixed := false
	for i := range rows {
		if rows[i].Kind != rows[0].Kind {
			mixed = true
			break
		}
	}
	if !mixed { // an import's batch of hotels, activities or rentals
		if len(rows) == 0 {
			return nil
		}
		return write(rows[0].Kind, len(rows), func(i int) *store.InventoryRow { return &rows[i] })
	}
	// Rows by kind, in order within each (packages' departures and open days come
	// interleaved item by item).
	var kinds []tradewind.UnitKind
	var byKind [][]int32
	for i := range rows {
		j := slices.Index(kinds, rows[i].Kind)
		if j < 0 {
			j = len(kinds)
			kinds, byKind = append(kinds, rows[i].Kind), append(byKind, nil)
		}
		byKind[j] = append(byKind[j], int32(i))
	}
	for j, k := range kinds {
		idx := byKind[j]
		if err := write(k, len(idx), func(i int) *store.InventoryRow { return &rows[idx[i]] }); err != nil {
			return err
		}
	}
	return nil
}

// minRunDays is the average run length from which new rows are inserted as runs of
// days: below it, the days table's statements cost more than the binding they save.
const minRunDays = 4

// dayRun is a run of new inventory rows of one unit and item on consecutive days at
// one capacity and price: how an import's rows mostly come (a unit's year in a few
// ranges).
type dayRun struct {
	unit, item, capacity, price int64
	from, to                    int64 // day numbers, days since 1970-01-01
}

// dayNumbers converts the dates of inventory rows to day numbers and back, each once.
type dayNumbers struct {
	num  map[string]int64
	name map[int64]string
}

// number returns the day number of date, or false if date is not a date written as
// tradewind.DateLayout writes it (then it could not be written back the same).
func (d *dayNumbers) number(date string) (int64, bool) {
	if n, ok := d.num[date]; ok {
		return n, true
	}
	n, ok := catalog.DayNumber(date)
	if !ok {
		return 0, false
	}
	if d.num == nil {
		d.num, d.name = map[string]int64{}, map[int64]string{}
	}
	d.num[date], d.name[n] = n, date
	return n, true
}

// dayName is the date of day number n.
func (d *dayNumbers) dayName(n int64) string {
	s, ok := d.name[n]
	if !ok {
		s = time.Unix(n*86400, 0).UTC().Format(tradewind.DateLayout)
		d.number(s)
	}
	return s
}

// runs appends to out the n rows row(i) grouped, in their order, into runs of
// consecutive days; false if a row's day is not a date.
func (d *dayNumbers) runs(out []dayRun, n int, row func(i int) *store.InventoryRow) ([]dayRun, bool) {
	next := "" // the day after the last run's
	for i := range n {
		r := row(i)
		if len(out) > 0 {
			last := &out[len(out)-1]
			if r.Day == next && r.UnitID == last.unit && r.ItemID == last.item &&
				int64(r.Capacity) == last.capacity && r.Price == last.price {
				last.to++
				next = d.dayName(last.to + 1)
				continue
			}
		}
		day, ok := d.number(r.Day)
		if !ok {
			return out, false
		}
		out = append(out, dayRun{unit: r.UnitID, item: r.ItemID, capacity: int64(r.Capacity), price: r.Price, from: day, to: day})
		next = d.dayName(day + 1)
	}
	return out, true
}

// inventoryInsertRuns inserts the rows of runs of one kind (SQLite, on the driver's
// connection): each run is bound once, its six values, and joined with a temporary
// table of the days it spans, which names them; binding was the dearest part of
// SQLite's cost per row. The rows go in as the runs list them, each run's in day order.
func (q *queries) inventoryInsertRuns(ctx context.Context, kind tradewind.UnitKind, runs []dayRun, days *dayNumbers) error {
	if _, err := q.db.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS inventory_days (n INTEGER PRIMARY KEY, name TEXT NOT NULL)`); err != nil {
		return err
	}
	// Every day of the runs, each once: the runs' spans merged.
	spans := make([][2]int64, len(runs))
	for i, r := range runs {
		spans[i] = [2]int64{r.from, r.to}
	}
	slices.SortFunc(spans, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	var need []int64
	for i, sp := range spans {
		from := sp[0]
		if i > 0 && len(need) > 0 && need[len(need)-1] >= from {
			from = need[len(need)-1] + 1
		}
		for n := from; n <= sp[1]; n++ {
			need = append(need, n)
		}
	}
	err := q.execBatchesDriver(ctx, `INSERT OR IGNORE INTO inventory_days (n, name) VALUES `, "", nil, 2, idBatch, len(need), func(args []any, i int) []any {
		return append(args, need[i], days.dayName(need[i]))
	})
	if err != nil {
		return err
	}
	return q.execBatchesDriver(ctx, `INSERT INTO inventory (kind, unit_id, item_id, day, capacity, price)
		SELECT r.column1, r.column2, r.column3, d.name, r.column6, r.column7 FROM (VALUES `,
		`) AS r CROSS JOIN inventory_days AS d WHERE d.n BETWEEN r.column4 AND r.column5`,
		[]any{string(kind)}, 6, inventoryBatch, len(runs), func(args []any, i int) []any {
			r := &runs[i]
			return append(args, r.unit, r.item, r.from, r.to, r.capacity, r.price)
		})
}

func (q *queries) InventoryPut(ctx context.Context, rows []store.InventoryRow) error {
	if err := q.inventoryUnitsAdd(ctx, rows); err != nil {
		return fmt.Errorf("inventory put: %w", err)
	}
	if q.d.CopyFrom != nil && q.conn != nil && len(rows) >= copyThreshold {
		if err := q.inventoryCopy(ctx, rows); err != nil {
			return fmt.Errorf("inventory put: %w", err)
		}
		return nil
	}
	err := q.inventoryWrite(ctx, rows, inventoryUpsert)
	if err != nil {
		return fmt.Errorf("inventory put: %w", err)
	}
	return nil
}

func (q *queries) InventoryInsert(ctx context.Context, rows []store.InventoryRow) error {
	err := q.inventoryUnitsAdd(ctx, rows)
	switch {
	case err != nil:
	case q.d.CopyFrom != nil && q.conn != nil && len(rows) >= copyThreshold:
		err = q.interpret(q.copyFrom(ctx, "inventory", rows))
	default:
		err = q.inventoryWrite(ctx, rows, "")
	}
	if err != nil {
		return fmt.Errorf("inventory insert: %w", err)
	}
	return nil
}

// copyFrom loads rows into table (inventory's columns) with the dialect's COPY, on the
// transaction's connection: what the transaction holds back (its BEGIN among them,
// deferredTx) is sent first, so that the COPY runs inside it.
func (q *queries) copyFrom(ctx context.Context, table string, rows []store.InventoryRow) error {
	if err := q.flushHeld(ctx); err != nil {
		return err
	}
	return q.d.CopyFrom(ctx, q.conn, table, inventoryColumns, len(rows), inventoryRow(rows))
}

// inventoryRow returns the CopyFrom row function of rows; it reuses one slice.
func inventoryRow(rows []store.InventoryRow) func(i int) []any {
	buf := make([]any, 0, len(inventoryColumns))
	var b rowBoxer
	return func(i int) []any { return inventoryValues(buf[:0], &b, &rows[i]) }
}

// inventoryCopy loads rows into a session-local staging table with COPY, which cannot
// upsert, then merges them into inventory with one INSERT … ON CONFLICT.
func (q *queries) inventoryCopy(ctx context.Context, rows []store.InventoryRow) error {
	if _, err := q.db.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS inventory_load (
		kind TEXT NOT NULL, unit_id BIGINT NOT NULL, item_id BIGINT NOT NULL, day TEXT NOT NULL,
		capacity INTEGER NOT NULL, price BIGINT NOT NULL) ON COMMIT DELETE ROWS`); err != nil {
		return q.interpret(err)
	}
	err := q.copyFrom(ctx, "inventory_load", rows)
	if err != nil {
		return q.interpret(err)
	}
	if _, err := q.db.ExecContext(ctx, `INSERT INTO inventory (kind, unit_id, item_id, day, capacity, price)
		SELECT kind, unit_id, item_id, day, capacity, price FROM inventory_load`+inventoryUpsert); err != nil {
		return q.interpret(err)
	}
	if _, err := q.db.ExecContext(ctx, `TRUNCATE inventory_load`); err != nil {
		return q.interpret(err)
	}
	return nil
}

func (q *queries) InventoryEmpty(ctx context.Context) (bool, error) {
	var one int
	err := q.db.QueryRowContext(ctx, `SELECT 1 FROM inventory LIMIT 1`).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	return false, q.interpret(err)
}

// inventoryPrimaryKey is inventory's primary key (migration 00029), as PostgreSQL names
// it. There is no other index of inventory to drop or build: the key serves reads by
// item and claims (kind, item, unit, days) alike.
const inventoryPrimaryKey = `ALTER TABLE inventory ADD CONSTRAINT inventory_pkey PRIMARY KEY (kind, item_id, unit_id, day)`

// InventoryIndexesDrop drops inventory's primary key where the dialect allows it
// (PostgreSQL). SQLite's inventory is a WITHOUT ROWID table, its key: nothing to drop,
// and rows are written into it as they come (an import's, in key order within a kind).
func (q *queries) InventoryIndexesDrop(ctx context.Context) error {
	if q.conn == nil {
		return errors.New("inventory indexes drop: outside a transaction")
	}
	if q.d.InventoryKeyDroppable {
		if _, err := q.db.ExecContext(ctx, `ALTER TABLE inventory DROP CONSTRAINT inventory_pkey`); err != nil {
			return q.interpret(err)
		}
	}
	return nil
}

// InventoryIndexesCreate builds again what InventoryIndexesDrop dropped: a duplicate
// (kind, item, unit, day) loaded meanwhile fails it, and the transaction with it (a unit
// under two items failed as it was written: inventory_units keeps its keys).
func (q *queries) InventoryIndexesCreate(ctx context.Context) error {
	if q.conn == nil {
		return errors.New("inventory indexes create: outside a transaction")
	}
	if !q.d.InventoryKeyDroppable {
		return nil
	}
	if q.d.BeforeIndexBuild != "" {
		if _, err := q.db.ExecContext(ctx, q.d.BeforeIndexBuild); err != nil {
			return q.interpret(err)
		}
	}
	_, err := q.db.ExecContext(ctx, inventoryPrimaryKey)
	return q.interpret(err)
}
