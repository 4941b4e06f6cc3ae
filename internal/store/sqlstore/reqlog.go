package sqlstore

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// usageBatch is the number of counters per upsert statement (× 7 parameters).
const usageBatch = 1000

type usageKey struct {
	partnerID int64
	day       string
	mode      tradewind.Mode
	route     string
	status    int
	errorCode string
}

// UsageAdd runs the upserts in one transaction, so that a failed call added nothing
// and the caller may retry it without counting twice.
func (s *DB) UsageAdd(ctx context.Context, rows []tradewind.UsageRow) error {
	return s.InTx(ctx, func(q store.Querier) error { return q.UsageAdd(ctx, rows) })
}

func (q *queries) UsageAdd(ctx context.Context, rows []tradewind.UsageRow) error {
	// One statement may not touch a row twice (PostgreSQL refuses), so equal counters
	// are summed first; the sort makes concurrent adders lock rows in the same order,
	// which keeps them from deadlocking.
	sums := make(map[usageKey]int64, len(rows))
	for _, r := range rows {
		if r.Count == 0 {
			continue
		}
		sums[usageKey{r.PartnerID, r.Day.UTC().Format(tradewind.DateLayout), r.Mode, r.Route, r.Status, r.ErrorCode}] += r.Count
	}
	keys := make([]usageKey, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b usageKey) int {
		return cmp.Or(cmp.Compare(a.partnerID, b.partnerID), cmp.Compare(a.day, b.day), cmp.Compare(a.mode, b.mode),
			cmp.Compare(a.route, b.route), cmp.Compare(a.status, b.status), cmp.Compare(a.errorCode, b.errorCode))
	})
	return q.execBatches(ctx, `INSERT INTO usage_counters (partner_id, day, mode, route, status, error_code, count) VALUES `,
		` ON CONFLICT (partner_id, day, mode, route, status, error_code) DO UPDATE SET count = usage_counters.count + excluded.count`,
		7, usageBatch, len(keys), func(args []any, i int) []any {
			k := keys[i]
			return append(args, k.partnerID, k.day, string(k.mode), k.route, k.status, k.errorCode, sums[k])
		})
}

func (q *queries) UsageList(ctx context.Context, partnerID int64, from, to time.Time) ([]tradewind.UsageRow, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT day, mode, route, status, error_code, count FROM usage_counters
		WHERE partner_id = $1 AND day >= $2 AND day < $3
		ORDER BY day, mode, route, status, error_code`,
		partnerID, from.UTC().Format(tradewind.DateLayout), to.UTC().Format(tradewind.DateLayout))
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []tradewind.UsageRow
	for rows.Next() {
		r := tradewind.UsageRow{PartnerID: partnerID}
		var day string
		if err := rows.Scan(&day, &r.Mode, &r.Route, &r.Status, &r.ErrorCode, &r.Count); err != nil {
			return nil, err
		}
		if r.Day, err = time.Parse(tradewind.DateLayout, day); err != nil {
			return nil, store.ErrCorrupt
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
