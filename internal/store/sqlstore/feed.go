package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// eventIndexed is what EventCreate copies from an event's data into columns the feed
// filters on.
type eventIndexed struct {
	Reference   string `json:"reference"`
	ProductType string `json:"product_type"`
}

func indexedOf(data []byte) eventIndexed {
	var x eventIndexed
	_ = json.Unmarshal(data, &x) // data without these fields indexes as ""
	return x
}

const feedEventColumns = `e.id, e.partner_id, e.type, e.data, e.created_at, e.seq, e.test_event`

func (q *queries) EventsUnsequenced(ctx context.Context) (bool, error) {
	return q.queued(ctx, q.unsequencedEvents())
}

func (q *queries) EventSequence(ctx context.Context, limit int) (int, error) {
	var last int64
	if err := q.db.QueryRowContext(ctx, `SELECT last FROM event_sequence WHERE id = 1`+q.d.ForUpdate).Scan(&last); err != nil {
		return 0, q.interpret(err)
	}
	n, err := q.exec(ctx, q.eventSequenceSQL(), last, limit)
	if err != nil || n == 0 {
		return 0, err
	}
	_, err = q.exec(ctx, `UPDATE event_sequence SET last = $1 WHERE id = 1`, last+n)
	return int(n), err
}

func scanFeedEvent(row interface{ Scan(...any) error }) (*store.FeedEvent, error) {
	var e store.FeedEvent
	var data string
	var seq sql.NullInt64
	if err := row.Scan(&e.ID, &e.PartnerID, &e.Type, &data, &e.CreatedAt, &seq, &e.TestEvent); err != nil {
		return nil, err
	}
	e.Data, e.CreatedAt, e.Seq = []byte(data), e.CreatedAt.UTC(), seq.Int64
	return &e, nil
}

// EventFeed reads a partner's page of the feed as two bounded reads merged: its own
// events, and the shared availability events of its products, each by events_feed
// (partner, position) from the position asked. One read by position of every partner's
// events, filtered, scanned all of them after the position until it found a page of
// the partner's: a partner with few events, or an old position, read the whole feed.
func (q *queries) EventFeed(ctx context.Context, p store.EventFeedParams) ([]*store.FeedEvent, error) {
	query, args := q.eventFeedQuery(p)
	if query == "" {
		return nil, nil
	}
	rows, err := q.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.FeedEvent
	for rows.Next() {
		e, err := scanFeedEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// eventFeedQuery is EventFeed's statement for p, with its arguments; "" when p's
// types rule out both arms (nothing to read).
func (q *queries) eventFeedQuery(p store.EventFeedParams) (string, []any) {
	// An arm the types rule out is left out rather than read for nothing: a filter on
	// booking events alone would otherwise walk every shared event after the cursor.
	own, shared := len(p.Types) == 0, len(p.Types) == 0 && len(p.Products) > 0
	for _, t := range p.Types {
		if t == tradewind.EventAvailabilityChanged {
			shared = len(p.Products) > 0
		} else {
			own = true
		}
	}
	if !own && !shared {
		return "", nil
	}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return placeholders(len(args), 1)
	}
	avail, after := arg(tradewind.EventAvailabilityChanged), arg(p.After)
	filters := " AND e.seq > " + after
	if !p.Since.IsZero() {
		filters += " AND e.created_at >= " + arg(ts(p.Since))
	}
	if p.BookingReference != "" {
		filters += " AND e.booking_reference = " + arg(p.BookingReference)
	}
	if len(p.Types) > 0 {
		types := make([]string, len(p.Types))
		for i, t := range p.Types {
			types[i] = arg(t)
		}
		filters += " AND e.type IN (" + strings.Join(types, ", ") + ")"
	}
	limit := arg(p.Limit)
	arm := func(name, where string) string {
		return `SELECT * FROM (SELECT ` + feedEventColumns + ` FROM events e WHERE ` + where + filters +
			` ORDER BY e.seq LIMIT ` + limit + `) AS ` + name
	}
	var arms []string
	if own {
		// A sample event (POST /webhooks/{id}/test, the portal's "Send test event") is
		// for its one subscription: nothing happened, so the feed does not list it.
		arms = append(arms, arm("own", `e.partner_id = `+arg(p.PartnerID)+` AND e.type <> `+avail+` AND NOT e.test_event`))
	}
	if shared {
		products := make([]string, len(p.Products))
		for i, pr := range p.Products {
			products[i] = arg(pr)
		}
		arms = append(arms, arm("shared", `e.partner_id = `+arg(store.FeedPartnerID)+` AND e.type = `+avail+
			` AND e.product_type IN (`+strings.Join(products, ", ")+`)`))
	}
	return strings.Join(arms, ` UNION ALL `) + ` ORDER BY seq LIMIT ` + limit, args
}

func (q *queries) FeedEventGet(ctx context.Context, id string) (*store.FeedEvent, error) {
	e, err := scanFeedEvent(q.db.QueryRowContext(ctx, `SELECT `+feedEventColumns+` FROM events e WHERE e.id = $1`, id))
	return e, q.interpret(err)
}

// attemptOK is the condition of a successful attempt (a 2xx answer).
const attemptOK = `a.error = '' AND a.status_code BETWEEN 200 AND 299`

func (q *queries) SubscriptionsFailing(ctx context.Context, failingBefore time.Time) ([]store.FailingSubscription, error) {
	// For each active subscription: the attempts after its last success; failing when
	// the first of them is at or before failingBefore. The epoch stands for "never".
	rows, err := q.db.QueryContext(ctx, `SELECT s.id, s.partner_id, MIN(a.attempted_at)
		FROM webhook_subscriptions s
		JOIN webhook_deliveries d ON d.subscription_id = s.id
		JOIN webhook_attempts a ON a.delivery_id = d.id
		WHERE s.active AND s.deleted_at IS NULL AND s.paused_at IS NULL
		AND a.attempted_at > COALESCE((SELECT MAX(a.attempted_at) FROM webhook_deliveries d
			JOIN webhook_attempts a ON a.delivery_id = d.id
			WHERE d.subscription_id = s.id AND `+attemptOK+`), $2)
		GROUP BY s.id, s.partner_id
		HAVING MIN(a.attempted_at) <= $1
		ORDER BY s.id`, ts(failingBefore), ts(time.Unix(0, 0)))
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []store.FailingSubscription
	for rows.Next() {
		var f store.FailingSubscription
		var since sqlTime
		if err := rows.Scan(&f.ID, &f.PartnerID, &since); err != nil {
			return nil, err
		}
		f.Since = since.t.UTC()
		out = append(out, f)
	}
	return out, rows.Err()
}

// sqlTime scans a timestamp that an aggregate returns: SQLite gives MIN(...) of a
// DATETIME column back as text.
type sqlTime struct{ t time.Time }

func (s *sqlTime) Scan(v any) error {
	switch x := v.(type) {
	case time.Time:
		s.t = x
		return nil
	case string:
		return s.parse(x)
	case []byte:
		return s.parse(string(x))
	}
	var n sql.NullTime
	if err := n.Scan(v); err != nil {
		return err
	}
	s.t = n.Time
	return nil
}

func (s *sqlTime) parse(v string) error {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, v); err == nil {
			s.t = t
			return nil
		}
	}
	var n sql.NullTime
	return n.Scan(v)
}

func (q *queries) SubscriptionPause(ctx context.Context, p store.SubscriptionPauseParams) (bool, error) {
	n, err := q.exec(ctx, `UPDATE webhook_subscriptions SET paused_at = $2, pause_reason = $3, failing_since = $4
		WHERE id = $1 AND ($5 = 0 OR partner_id = $5) AND active AND deleted_at IS NULL AND paused_at IS NULL`,
		p.ID, ts(p.At), p.Reason, ts(p.FailingSince), p.PartnerID)
	return n == 1, err
}

func (q *queries) SubscriptionResume(ctx context.Context, p store.SubscriptionResumeParams) (int, bool, error) {
	var paused, failingSince sql.NullTime
	err := q.db.QueryRowContext(ctx, `SELECT paused_at, failing_since FROM webhook_subscriptions
		WHERE id = $1 AND ($2 = 0 OR partner_id = $2) AND active AND deleted_at IS NULL`+q.d.ForUpdate, p.ID, p.PartnerID).
		Scan(&paused, &failingSince)
	if err != nil {
		return 0, false, q.interpret(err)
	}
	if !paused.Valid {
		return 0, false, nil
	}
	since := paused.Time
	if failingSince.Valid && failingSince.Time.Before(since) {
		since = failingSince.Time
	}
	if _, err := q.exec(ctx, `UPDATE webhook_subscriptions SET paused_at = NULL, pause_reason = '', failing_since = NULL
		WHERE id = $1`, p.ID); err != nil {
		return 0, false, err
	}
	// Deliveries that waited while paused are due now.
	due, err := q.exec(ctx, `UPDATE webhook_deliveries SET next_attempt_at = $2, updated_at = $2
		WHERE subscription_id = $1 AND status = 'pending'`, p.ID, ts(p.Now))
	if err != nil {
		return 0, false, err
	}
	// Each event whose delivery failed meanwhile gets one new pending delivery (unless
	// one is pending already), as a redelivery does.
	added, err := q.exec(ctx, `INSERT INTO webhook_deliveries (event_id, subscription_id, status, attempts, next_attempt_at, created_at, updated_at)
		SELECT d.event_id, d.subscription_id, 'pending', 0, $2, $2, $2 FROM webhook_deliveries d
		WHERE d.id IN (SELECT MIN(f.id) FROM webhook_deliveries f
			WHERE f.subscription_id = $1 AND f.status = 'failed' AND f.updated_at >= $3 GROUP BY f.event_id)
		AND NOT EXISTS (SELECT 1 FROM webhook_deliveries x WHERE x.event_id = d.event_id AND x.subscription_id = $1
			AND x.status IN ('pending', 'succeeded'))`, p.ID, ts(p.Now), ts(since))
	if err != nil {
		return 0, false, err
	}
	return int(due + added), true, nil
}

func (q *queries) SubscriptionGetByID(ctx context.Context, id int64) (*store.Subscription, error) {
	s, err := scanSubscription(q.db.QueryRowContext(ctx, `SELECT `+subscriptionColumns+` FROM webhook_subscriptions WHERE id = $1`, id))
	return s, q.interpret(err)
}

func (q *queries) SandboxTimerCreate(ctx context.Context, t store.SandboxTimer) error {
	_, err := q.exec(ctx, `INSERT INTO sandbox_timers (booking_id, action, due_at) VALUES ($1, $2, $3)`,
		t.BookingID, t.Action, ts(t.DueAt))
	return err
}

func (q *queries) SandboxTimersDue(ctx context.Context, now time.Time, limit int) ([]store.SandboxTimer, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT t.booking_id, t.action, t.due_at, b.reference, b.status
		FROM sandbox_timers t JOIN bookings b ON b.id = t.booking_id
		WHERE t.due_at <= $1 ORDER BY t.due_at, t.booking_id LIMIT $2`, ts(now), limit)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []store.SandboxTimer
	for rows.Next() {
		var t store.SandboxTimer
		if err := rows.Scan(&t.BookingID, &t.Action, &t.DueAt, &t.Reference, &t.Status); err != nil {
			return nil, err
		}
		t.DueAt = t.DueAt.UTC()
		out = append(out, t)
	}
	return out, rows.Err()
}

func (q *queries) SandboxTimerDelete(ctx context.Context, bookingID int64) error {
	_, err := q.exec(ctx, `DELETE FROM sandbox_timers WHERE booking_id = $1`, bookingID)
	return err
}
