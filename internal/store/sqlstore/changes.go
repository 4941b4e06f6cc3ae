package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

func (q *queries) ItemListPage(ctx context.Context, kind tradewind.ProductType, after int64, limit int) ([]*store.Item, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT id, city_key, data FROM items WHERE kind = $1 AND id > $2 ORDER BY id LIMIT $3`,
		string(kind), after, limit)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.Item
	for rows.Next() {
		it := store.Item{Kind: kind}
		var data string
		if err := rows.Scan(&it.ID, &it.CityKey, &data); err != nil {
			return nil, err
		}
		it.Data = []byte(data)
		out = append(out, &it)
	}
	return out, rows.Err()
}

func (q *queries) ChangesUnsequenced(ctx context.Context) (bool, error) {
	return q.queued(ctx, q.unsequencedChanges())
}

func (q *queries) ChangeSequence(ctx context.Context, now time.Time, limit int) (int, error) {
	var last int64
	if err := q.db.QueryRowContext(ctx, `SELECT last FROM change_sequence WHERE id = 1`+q.d.ForUpdate).Scan(&last); err != nil {
		return 0, q.interpret(err)
	}
	n, err := q.exec(ctx, q.changeSequenceSQL(), last, limit, ts(now))
	if err != nil || n == 0 {
		return 0, err
	}
	_, err = q.exec(ctx, `UPDATE change_sequence SET last = $1 WHERE id = 1`, last+n)
	return int(n), err
}

func (q *queries) ChangeLast(ctx context.Context) (int64, error) {
	var last int64
	err := q.db.QueryRowContext(ctx, `SELECT last FROM change_sequence WHERE id = 1`).Scan(&last)
	return last, q.interpret(err)
}

func (q *queries) ChangeFirst(ctx context.Context) (int64, error) {
	var first sql.NullInt64
	err := q.db.QueryRowContext(ctx, `SELECT MIN(seq) FROM changes WHERE seq IS NOT NULL`).Scan(&first)
	return first.Int64, q.interpret(err)
}

func (q *queries) ChangesAfter(ctx context.Context, after int64, limit int) ([]store.Change, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT seq, kind, item_id, unit_kind, unit_id, day_from, day_to FROM changes
		WHERE seq > $1 ORDER BY seq LIMIT $2`, after, limit)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []store.Change
	for rows.Next() {
		var c store.Change
		var unitKind, from, to sql.NullString
		var unitID sql.NullInt64
		if err := rows.Scan(&c.Seq, &c.Kind, &c.ItemID, &unitKind, &unitID, &from, &to); err != nil {
			return nil, err
		}
		c.UnitKind, c.UnitID = tradewind.UnitKind(unitKind.String), unitID.Int64
		c.From, c.To = from.String, to.String
		out = append(out, c)
	}
	return out, rows.Err()
}

func (q *queries) ChangePrune(ctx context.Context, p store.PruneParams) (int, error) {
	if err := checkPrune(p); err != nil {
		return 0, err
	}
	n, err := q.exec(ctx, `DELETE FROM changes WHERE id IN (SELECT id FROM changes
		WHERE seq IS NOT NULL AND sequenced_at < $1 ORDER BY seq LIMIT $2)`, ts(p.Before), p.Limit)
	return int(n), err
}
