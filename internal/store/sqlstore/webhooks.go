package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

const subscriptionColumns = `id, partner_id, url, event_types, secret, active, created_at, paused_at, pause_reason, failing_since`

func scanSubscription(row interface{ Scan(...any) error }) (*store.Subscription, error) {
	var s store.Subscription
	var types string
	var paused, failing sql.NullTime
	if err := row.Scan(&s.ID, &s.PartnerID, &s.URL, &types, &s.Secret, &s.Active, &s.CreatedAt, &paused, &s.PauseReason, &failing); err != nil {
		return nil, err
	}
	var err error
	if s.EventTypes, err = decodeList[tradewind.EventType]("webhook_subscriptions.event_types", types); err != nil {
		return nil, err
	}
	s.CreatedAt = s.CreatedAt.UTC()
	s.PausedAt, s.FailingSince = fromNull(paused), fromNull(failing)
	return &s, nil
}

func (q *queries) SubscriptionCreate(ctx context.Context, p store.SubscriptionCreateParams) (*store.Subscription, error) {
	if p.MaxActive > 0 {
		// Lock the partner's row so that concurrent creations count one after another.
		var id int64
		if err := q.db.QueryRowContext(ctx, `SELECT id FROM partners WHERE id = $1`+q.d.ForUpdate, p.PartnerID).Scan(&id); err != nil {
			return nil, q.interpret(err)
		}
	}
	s := &store.Subscription{PartnerID: p.PartnerID, URL: p.URL, EventTypes: p.EventTypes, Secret: p.Secret, Active: true,
		CreatedAt: p.CreatedAt.UTC().Truncate(time.Microsecond)}
	err := q.db.QueryRowContext(ctx, `INSERT INTO webhook_subscriptions (partner_id, url, event_types, secret, active, created_at)
		SELECT $1, $2, $3, $4, TRUE, $5
		WHERE $6 = 0 OR (SELECT COUNT(*) FROM webhook_subscriptions WHERE partner_id = $1 AND active AND deleted_at IS NULL) < $6
		RETURNING id`,
		p.PartnerID, p.URL, jsonList(p.EventTypes), p.Secret, ts(p.CreatedAt), p.MaxActive).Scan(&s.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: the partner has %d active subscriptions", store.ErrConflict, p.MaxActive)
	}
	if err != nil {
		return nil, q.interpret(err)
	}
	return s, nil
}

func (q *queries) SubscriptionList(ctx context.Context, partnerID int64) ([]*store.Subscription, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT `+subscriptionColumns+` FROM webhook_subscriptions
		WHERE partner_id = $1 AND active AND deleted_at IS NULL ORDER BY id`, partnerID)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.Subscription
	for rows.Next() {
		s, err := scanSubscription(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (q *queries) SubscriptionCountActive(ctx context.Context, partnerID int64) (int, error) {
	var n int
	err := q.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_subscriptions
		WHERE partner_id = $1 AND active AND deleted_at IS NULL`, partnerID).Scan(&n)
	return n, q.interpret(err)
}

func (q *queries) SubscriptionDelete(ctx context.Context, p store.SubscriptionDeleteParams) error {
	n, err := q.exec(ctx, `UPDATE webhook_subscriptions SET active = FALSE, deleted_at = $3
		WHERE id = $1 AND partner_id = $2 AND deleted_at IS NULL`, p.ID, p.PartnerID, ts(p.At))
	if err != nil {
		return err
	}
	if n == 0 {
		return q.interpret(sql.ErrNoRows)
	}
	_, err = q.exec(ctx, `UPDATE webhook_deliveries SET status = 'failed', last_error = 'subscription deleted',
		locked_until = NULL, claim_token = '', updated_at = $2
		WHERE subscription_id = $1 AND status = 'pending'`, p.ID, ts(p.At))
	return err
}

func (q *queries) DeliveryClaimDue(ctx context.Context, p store.DeliveryClaimParams) ([]*store.ClaimedDelivery, error) {
	if p.Limit <= 0 || p.Lease <= 0 {
		return nil, fmt.Errorf("delivery claim: limit %d and lease %s must be positive", p.Limit, p.Lease)
	}
	token := rand.Text()
	last := p.Last[:min(len(p.Last), store.MaxClaimLast)]
	// The other subscriptions' first, then the rest of Limit from any (the leased rows
	// of the first are no longer due to the second).
	ids, err := q.leaseDue(ctx, p, token, last)
	if err != nil {
		return nil, err
	}
	if len(last) > 0 && len(ids) < p.Limit {
		more, err := q.leaseDue(ctx, store.DeliveryClaimParams{Now: p.Now, Lease: p.Lease, Limit: p.Limit - len(ids)}, token, nil)
		if err != nil && len(ids) == 0 {
			return nil, err
		}
		// Each statement commits alone: should the second fail, the first's leases are
		// still this claim's to send, not left to expire unsent.
		ids = append(ids, more...)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := q.db.QueryContext(ctx, `SELECT d.id, d.attempts, d.subscription_id, e.id, e.partner_id, e.type, e.data,
		e.created_at, e.test_event, p.name, s.url, s.secret, s.next_secret, s.next_secret_from
		FROM webhook_deliveries d
		JOIN events e ON e.id = d.event_id
		JOIN webhook_subscriptions s ON s.id = d.subscription_id
		JOIN partners p ON p.id = e.partner_id
		WHERE d.id IN (`+placeholders(1, len(ids))+`) ORDER BY d.next_attempt_at, d.id`, args...)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.ClaimedDelivery
	for rows.Next() {
		c := store.ClaimedDelivery{ClaimToken: token}
		var data string
		var nextFrom sql.NullTime
		if err := rows.Scan(&c.ID, &c.Attempts, &c.SubscriptionID, &c.Event.ID, &c.Event.PartnerID, &c.Event.Type, &data,
			&c.Event.CreatedAt, &c.Event.TestEvent, &c.PartnerName, &c.URL, &c.Secret, &c.NextSecret, &nextFrom); err != nil {
			return nil, err
		}
		c.NextSecretFrom = fromNull(nextFrom)
		c.Event.Data, c.Event.CreatedAt = []byte(data), c.Event.CreatedAt.UTC()
		out = append(out, &c)
	}
	return out, rows.Err()
}

// leaseDue leases up to p.Limit due deliveries of subscriptions other than except, under
// token, in one statement: the CTE picks (and on PostgreSQL locks, skipping what another
// claim holds) the due rows, the UPDATE leases them.
func (q *queries) leaseDue(ctx context.Context, p store.DeliveryClaimParams, token string, except []int64) ([]int64, error) {
	args := []any{ts(p.Now), p.Limit, ts(p.Now.Add(p.Lease)), token}
	notThese := ""
	if len(except) > 0 {
		notThese = ` AND subscription_id NOT IN (` + placeholders(len(args)+1, len(except)) + `)`
		for _, id := range except {
			args = append(args, id)
		}
	}
	return q.int64s(ctx, `WITH due AS (
			SELECT id FROM webhook_deliveries
			WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)
			AND subscription_id NOT IN (SELECT id FROM webhook_subscriptions WHERE paused_at IS NOT NULL)`+notThese+`
			ORDER BY next_attempt_at, id LIMIT $2`+q.d.ForUpdateSkipLocked+`
		)
		UPDATE webhook_deliveries SET locked_until = $3, claim_token = $4, updated_at = $1
		FROM due WHERE webhook_deliveries.id = due.id
		RETURNING webhook_deliveries.id`, args...)
}

func (q *queries) DeliveryRecordAttempt(ctx context.Context, p store.DeliveryAttemptParams) (bool, error) {
	if p.ClaimToken == "" {
		return false, errors.New("delivery record attempt: no claim token")
	}
	if _, err := q.exec(ctx, `INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, error, duration_ms, response_snippet)
		VALUES ($1, $2, $3, $4, $5, $6)`,
		p.DeliveryID, ts(p.At), p.StatusCode, p.Error, p.Duration.Milliseconds(), p.ResponseSnippet); err != nil {
		return false, err
	}
	next := p.NextAttemptAt
	if p.Status != store.DeliveryPending || next.IsZero() {
		next = p.At
	}
	n, err := q.exec(ctx, `UPDATE webhook_deliveries SET status = $3, attempts = attempts + 1, next_attempt_at = $4,
		locked_until = NULL, claim_token = '', last_error = $5, updated_at = $6
		WHERE id = $1 AND claim_token = $2 AND status = 'pending'`,
		p.DeliveryID, p.ClaimToken, p.Status, ts(next), p.Error, ts(p.At))
	return n == 1, err
}

func (q *queries) DeliveryList(ctx context.Context, f store.DeliveryFilter) ([]*store.Delivery, error) {
	where, args := "1 = 1", []any{}
	add := func(cond string, v any) {
		args = append(args, v)
		where += " AND " + cond + " " + placeholders(len(args), 1)
	}
	if f.PartnerID != 0 {
		add("e.partner_id =", f.PartnerID)
	}
	if f.EventID != "" {
		add("d.event_id =", f.EventID)
	}
	if f.Status != "" {
		add("d.status =", f.Status)
	}
	if f.SubscriptionID != 0 {
		add("d.subscription_id =", f.SubscriptionID)
	}
	if f.BeforeID != 0 {
		add("d.id <", f.BeforeID)
	}
	if f.Test != nil {
		// A delivery is a test one when its event is a sample ("Send test event") or
		// belongs to a test booking; every other event (live bookings,
		// availability.changed) is live.
		cond := `(e.test_event OR EXISTS (SELECT 1 FROM bookings b WHERE b.reference = e.booking_reference
			AND b.partner_id = e.partner_id AND b.test))`
		if !*f.Test {
			cond = "NOT " + cond
		}
		where += " AND " + cond
	}
	query := `SELECT d.id, d.event_id, e.type, e.test_event, e.partner_id, d.subscription_id, s.url, d.status, d.attempts,
		d.next_attempt_at, d.last_error, d.created_at, d.updated_at
		FROM webhook_deliveries d
		JOIN events e ON e.id = d.event_id
		JOIN webhook_subscriptions s ON s.id = d.subscription_id
		WHERE ` + where + ` ORDER BY d.id DESC`
	if f.Limit > 0 {
		args = append(args, f.Limit)
		query += " LIMIT " + placeholders(len(args), 1)
	}
	rows, err := q.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.Delivery
	for rows.Next() {
		var d store.Delivery
		if err := rows.Scan(&d.ID, &d.EventID, &d.EventType, &d.TestEvent, &d.PartnerID, &d.SubscriptionID, &d.URL, &d.Status, &d.Attempts,
			&d.NextAttemptAt, &d.LastError, &d.CreatedAt, &d.UpdatedAt); err != nil {
			return nil, err
		}
		d.NextAttemptAt, d.CreatedAt, d.UpdatedAt = d.NextAttemptAt.UTC(), d.CreatedAt.UTC(), d.UpdatedAt.UTC()
		out = append(out, &d)
	}
	return out, rows.Err()
}

func (q *queries) AttemptList(ctx context.Context, deliveryIDs []int64) ([]*store.DeliveryAttempt, error) {
	if len(deliveryIDs) == 0 {
		return nil, nil
	}
	args := make([]any, len(deliveryIDs))
	for i, id := range deliveryIDs {
		args[i] = id
	}
	rows, err := q.db.QueryContext(ctx, `SELECT id, delivery_id, attempted_at, status_code, error, response_snippet, duration_ms
		FROM webhook_attempts WHERE delivery_id IN (`+placeholders(1, len(args))+`) ORDER BY id`, args...)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.DeliveryAttempt
	for rows.Next() {
		var a store.DeliveryAttempt
		var ms int64
		if err := rows.Scan(&a.ID, &a.DeliveryID, &a.AttemptedAt, &a.StatusCode, &a.Error, &a.ResponseSnippet, &ms); err != nil {
			return nil, err
		}
		a.AttemptedAt, a.Duration = a.AttemptedAt.UTC(), time.Duration(ms)*time.Millisecond
		out = append(out, &a)
	}
	return out, rows.Err()
}

func (q *queries) DeliveryRedeliver(ctx context.Context, p store.DeliveryRedeliverParams) (int, error) {
	var one int
	if err := q.db.QueryRowContext(ctx, `SELECT 1 FROM events WHERE id = $1`, p.EventID).Scan(&one); err != nil {
		return 0, q.interpret(err)
	}
	due, err := q.exec(ctx, `UPDATE webhook_deliveries SET next_attempt_at = $2, updated_at = $2
		WHERE event_id = $1 AND status = 'pending'`, p.EventID, ts(p.Now))
	if err != nil {
		return 0, err
	}
	added, err := q.exec(ctx, `INSERT INTO webhook_deliveries (event_id, subscription_id, status, attempts, next_attempt_at, created_at, updated_at)
		SELECT $1, s.id, 'pending', 0, $2, $2, $2 FROM webhook_subscriptions s
		WHERE s.active AND s.deleted_at IS NULL
		AND s.id IN (SELECT subscription_id FROM webhook_deliveries WHERE event_id = $1)
		AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = $1 AND d.subscription_id = s.id AND d.status = 'pending')`,
		p.EventID, ts(p.Now))
	return int(due + added), err
}
