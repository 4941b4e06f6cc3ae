package sqlstore

import (
	"context"
	"fmt"

	"github.com/tradewind/tradewind/internal/store"
)

// The lease is one upsert: the row is created due at once, or taken over only when the
// job is due and unleased. On PostgreSQL a concurrent upsert of the same name waits for
// the first and re-checks the condition against the row it wrote, so one caller wins.
func (q *queries) JobLeaseAcquire(ctx context.Context, p store.JobLeaseParams) (bool, error) {
	n, err := q.exec(ctx, `INSERT INTO job_leases (name, owner, locked_until, next_run_at, updated_at)
		VALUES ($1, $2, $3, $4, $4)
		ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, locked_until = excluded.locked_until,
			updated_at = excluded.updated_at
		WHERE job_leases.next_run_at <= $4 AND (job_leases.locked_until IS NULL OR job_leases.locked_until <= $4)`,
		p.Name, p.Owner, ts(p.Until), ts(p.Now))
	return n == 1, err
}

func (q *queries) JobLeaseExtend(ctx context.Context, p store.JobLeaseParams) (bool, error) {
	n, err := q.exec(ctx, `UPDATE job_leases SET locked_until = $3, updated_at = $4
		WHERE name = $1 AND owner = $2 AND locked_until IS NOT NULL`, p.Name, p.Owner, ts(p.Until), ts(p.Now))
	return n == 1, err
}

func (q *queries) JobLeaseRelease(ctx context.Context, p store.JobReleaseParams) error {
	_, err := q.exec(ctx, `UPDATE job_leases SET owner = '', locked_until = NULL, next_run_at = $3, updated_at = $4
		WHERE name = $1 AND owner = $2`, p.Name, p.Owner, ts(p.NextRunAt), ts(p.At))
	return err
}

func checkPrune(p store.PruneParams) error {
	if p.Limit <= 0 || p.Before.IsZero() {
		return fmt.Errorf("prune: limit %d must be positive and before set", p.Limit)
	}
	return nil
}

func (q *queries) EventPrune(ctx context.Context, p store.PruneParams) (int, error) {
	if err := checkPrune(p); err != nil {
		return 0, err
	}
	// Locking the chosen events (PostgreSQL) keeps a concurrent redelivery from adding
	// a delivery to one of them before it is gone.
	ids, err := q.texts(ctx, `SELECT id FROM events e WHERE created_at < $1
		AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
		ORDER BY created_at, id LIMIT $2`+q.d.ForUpdate, ts(p.Before), p.Limit)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	in := placeholders(1, len(ids))
	if _, err := q.exec(ctx, `DELETE FROM webhook_attempts WHERE delivery_id IN
		(SELECT id FROM webhook_deliveries WHERE event_id IN (`+in+`))`, args...); err != nil {
		return 0, err
	}
	if _, err := q.exec(ctx, `DELETE FROM webhook_deliveries WHERE event_id IN (`+in+`)`, args...); err != nil {
		return 0, err
	}
	n, err := q.exec(ctx, `DELETE FROM events WHERE id IN (`+in+`)`, args...)
	return int(n), err
}

func (q *queries) SubscriptionPrune(ctx context.Context, p store.PruneParams) (int, error) {
	if err := checkPrune(p); err != nil {
		return 0, err
	}
	n, err := q.exec(ctx, `DELETE FROM webhook_subscriptions WHERE id IN (
		SELECT id FROM webhook_subscriptions s WHERE s.deleted_at IS NOT NULL AND s.deleted_at < $1
		AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.subscription_id = s.id)
		ORDER BY s.deleted_at, s.id LIMIT $2)`, ts(p.Before), p.Limit)
	return int(n), err
}

func (q *queries) PrebookPrune(ctx context.Context, p store.PruneParams) (int, error) {
	if err := checkPrune(p); err != nil {
		return 0, err
	}
	// Any expired prebooks, not the oldest first: on SQLite, prebooks have no expiry
	// index (migration 00028: one index write fewer for every prebook), and a batch
	// scans the table in the order the rows were written, where the expired ones are
	// mostly first; the condition stays exact whatever the clock did.
	n, err := q.exec(ctx, `DELETE FROM prebooks WHERE token IN (
		SELECT token FROM prebooks WHERE expires_at < $1 LIMIT $2)`, ts(p.Before), p.Limit)
	return int(n), err
}

func (q *queries) IdempotencyPrune(ctx context.Context, p store.PruneParams) (int, error) {
	if err := checkPrune(p); err != nil {
		return 0, err
	}
	// The age condition is repeated outside the batch so that a row sharing the batch's
	// (partner, key) but written later is never taken with it.
	n, err := q.exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < $1 AND (partner_id, key) IN (
		SELECT partner_id, key FROM idempotency_keys WHERE created_at < $1 ORDER BY created_at LIMIT $2)`,
		ts(p.Before), p.Limit)
	return int(n), err
}

func (q *queries) SigningSecretPrune(ctx context.Context, p store.PruneParams) (int, error) {
	if err := checkPrune(p); err != nil {
		return 0, err
	}
	n, err := q.exec(ctx, `UPDATE partners SET prev_signing_secret = '', prev_secret_until = NULL WHERE id IN (
		SELECT id FROM partners WHERE prev_secret_until IS NOT NULL AND prev_secret_until < $1 ORDER BY id LIMIT $2)`,
		ts(p.Before), p.Limit)
	return int(n), err
}

func (q *queries) texts(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := q.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
