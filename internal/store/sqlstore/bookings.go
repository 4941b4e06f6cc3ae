package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"database/sql"
	"strings"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

const bookingColumns = `id, reference, partner_id, key_id, product_type, status, test, pricing_mode, total_price,
	currency, credit_drawn, partner_reference, idempotency_key, item_id, unit_kind, unit_id, start_date, end_date,
	quantity, quote, guest, details, cancel_reason, cancelled_at, created_at, updated_at, request_hash`

func scanBooking(row interface{ Scan(...any) error }) (*tradewind.Booking, error) {
	var b tradewind.Booking
	var pref, ikey sql.NullString
	var quote, guest, details string
	var cancelled sql.NullTime
	err := row.Scan(&b.ID, &b.Reference, &b.PartnerID, &b.KeyID, &b.ProductType, &b.Status, &b.Test, &b.PricingMode,
		&b.TotalPrice, &b.Currency, &b.CreditDrawn, &pref, &ikey, &b.ItemID, &b.UnitKind, &b.UnitID, &b.StartDate,
		&b.EndDate, &b.Quantity, &quote, &guest, &details, &b.CancelReason, &cancelled, &b.CreatedAt, &b.UpdatedAt, &b.RequestHash)
	if err != nil {
		return nil, err
	}
	b.PartnerReference, b.IdempotencyKey = pref.String, ikey.String
	b.Quote, b.Guest, b.Details = []byte(quote), []byte(guest), []byte(details)
	b.CancelledAt, b.CreatedAt, b.UpdatedAt = fromNull(cancelled), b.CreatedAt.UTC(), b.UpdatedAt.UTC()
	return &b, nil
}

const bookingInto = `INSERT INTO bookings (reference, partner_id, key_id, product_type, status, test,
		pricing_mode, total_price, currency, credit_drawn, partner_reference, idempotency_key, item_id, unit_kind,
		unit_id, start_date, end_date, quantity, quote, guest, details, cancel_reason, created_at, updated_at, request_hash)`

const bookingValues = `$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25`

const bookingInsert = bookingInto + ` VALUES (` + bookingValues + `) RETURNING id`

const bookingArgs = 25 // bookingInsert's

// bookingRowArgs are bookingInsert's arguments for b, with room for more.
func bookingRowArgs(b *tradewind.Booking, more int) []any {
	return append(make([]any, 0, bookingArgs+more), b.Reference, b.PartnerID, b.KeyID, string(b.ProductType),
		b.Status, b.Test, b.PricingMode, b.TotalPrice, b.Currency, b.CreditDrawn, nullString(b.PartnerReference),
		nullString(b.IdempotencyKey), b.ItemID, b.UnitKind, b.UnitID, b.StartDate, b.EndDate, b.Quantity, string(b.Quote),
		string(b.Guest), string(b.Details), b.CancelReason, ts(b.CreatedAt), ts(b.UpdatedAt), b.RequestHash)
}

// BookingCreate inserts b and then events. Where the dialect has writable CTEs, the
// booking, its events and their deliveries are one statement, one round trip.
func (q *queries) BookingCreate(ctx context.Context, b *tradewind.Booking, events ...*tradewind.Event) error {
	args := bookingRowArgs(b, 8*len(events))
	if q.d.WritableCTE && len(events) > 0 {
		for _, e := range events {
			args = append(args, eventArgs(e)...)
		}
		return bookingConflict(q.interpret(q.db.QueryRowContext(ctx, q.bookingWithEvents(len(events)), args...).Scan(&b.ID)))
	}
	if err := bookingConflict(q.interpret(q.db.QueryRowContext(ctx, bookingInsert, args...).Scan(&b.ID))); err != nil {
		return err
	}
	for _, e := range events {
		if err := q.EventCreate(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// bookingConflict names the unique key of bookings that refused an insert, from the
// database's message: PostgreSQL names the index (bookings_idempotency_key,
// bookings_partner_reference), SQLite its columns (bookings.idempotency_key,
// bookings.partner_reference). Another conflict (the reference, an event's id) stays
// ErrConflict.
func bookingConflict(err error) error {
	if !errors.Is(err, store.ErrConflict) {
		return err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "idempotency_key"):
		return fmt.Errorf("%w (%v)", store.ErrIdempotencyKeyTaken, err)
	case strings.Contains(msg, "partner_reference"):
		return fmt.Errorf("%w (%v)", store.ErrPartnerReferenceTaken, err)
	}
	return err
}

// bookingWhere reads the one booking where names, ErrNotFound if none. In a transaction
// that holds statements back (its BEGIN, a booking's savepoint in a group) the read
// travels with them, one round trip (queryEach): book's check of a partner_reference
// after a refusal (booking.partnerRefFirst), say.
func (q *queries) bookingWhere(ctx context.Context, where string, args ...any) (*tradewind.Booking, error) {
	var b *tradewind.Booking
	err := q.queryEach(ctx, `SELECT `+bookingColumns+` FROM bookings WHERE `+where, args, func(scan func(dest ...any) error) error {
		var err error
		b, err = scanBooking(scanner(scan))
		return err
	})
	if err == nil && b == nil {
		err = store.ErrNotFound
	}
	return b, err
}

// scanner is a row's scan function as the Scan method scanBooking reads.
type scanner func(dest ...any) error

func (s scanner) Scan(dest ...any) error { return s(dest...) }

func (q *queries) BookingGetByReference(ctx context.Context, partnerID int64, reference string) (*tradewind.Booking, error) {
	if partnerID == 0 {
		return q.bookingWhere(ctx, `reference = $1`, reference)
	}
	return q.bookingWhere(ctx, `reference = $1 AND partner_id = $2`, reference, partnerID)
}

func (q *queries) BookingGetByIdempotencyKey(ctx context.Context, partnerID int64, mode tradewind.Mode, key string) (*tradewind.Booking, error) {
	return q.bookingWhere(ctx, `partner_id = $1 AND test = $2 AND idempotency_key = $3`, partnerID, mode == tradewind.ModeTest, key)
}

func (q *queries) BookingGetByPartnerReference(ctx context.Context, partnerID int64, ref string) (*tradewind.Booking, error) {
	return q.bookingWhere(ctx, `partner_id = $1 AND partner_reference = $2`, partnerID, ref)
}

func (q *queries) BookingList(ctx context.Context, f store.BookingFilter) ([]*tradewind.Booking, int, error) {
	where, args := bookingWhere(f)
	var total int
	if err := q.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, q.interpret(err)
	}
	query := `SELECT ` + bookingColumns + ` FROM bookings WHERE ` + where + ` ORDER BY id DESC`
	if f.Limit > 0 {
		args = append(args, f.Limit, f.Offset)
		query += " LIMIT " + placeholders(len(args)-1, 1) + " OFFSET " + placeholders(len(args), 1)
	}
	rows, err := q.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, q.interpret(err)
	}
	defer rows.Close()
	var out []*tradewind.Booking
	for rows.Next() {
		b, err := scanBooking(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, b)
	}
	return out, total, rows.Err()
}

func (q *queries) BookingSetStatus(ctx context.Context, p store.BookingSetStatusParams) (bool, error) {
	args := []any{p.ID, string(p.Status), p.Reason, ts(p.At)}
	for _, s := range p.From {
		args = append(args, string(s))
	}
	cancelledAt := "cancelled_at"
	if p.Status == tradewind.StatusCancelled {
		cancelledAt = "$4"
	}
	n, err := q.exec(ctx, `UPDATE bookings SET status = $2, cancel_reason = $3, updated_at = $4, cancelled_at = `+cancelledAt+`
		WHERE id = $1 AND status IN (`+placeholders(5, len(p.From))+`)`, args...)
	return n == 1, err
}

func (q *queries) IdempotencyClaim(ctx context.Context, r store.IdempotencyRecord) error {
	_, err := q.exec(ctx, `INSERT INTO idempotency_keys (partner_id, mode, key, request_hash, created_at) VALUES ($1, $2, $3, $4, $5)`,
		r.PartnerID, string(r.Mode), r.Key, r.RequestHash, ts(r.CreatedAt))
	return err
}

func (q *queries) IdempotencyGet(ctx context.Context, partnerID int64, mode tradewind.Mode, key string) (*store.IdempotencyRecord, error) {
	r := store.IdempotencyRecord{PartnerID: partnerID, Mode: mode, Key: key}
	err := q.db.QueryRowContext(ctx, `SELECT request_hash, created_at FROM idempotency_keys
		WHERE partner_id = $1 AND mode = $2 AND key = $3`, partnerID, string(mode), key).Scan(&r.RequestHash, &r.CreatedAt)
	if err != nil {
		return nil, q.interpret(err)
	}
	r.CreatedAt = r.CreatedAt.UTC()
	return &r, nil
}

// prebookInsert is the start of a prebook's insert, whose values are prebookArgs: $1..$8.
const prebookInsert = `INSERT INTO prebooks (token, partner_id, mode, quote, total_price, currency, expires_at, created_at)`

// prebookArgs is p's values for prebookInsert, then more.
func prebookArgs(p *tradewind.Prebook, more ...any) []any {
	return append([]any{p.Token, p.PartnerID, string(p.Mode), string(p.Quote), p.TotalPrice, p.Currency,
		ts(p.ExpiresAt), ts(p.CreatedAt)}, more...)
}

func (q *queries) PrebookCreate(ctx context.Context, p *tradewind.Prebook) error {
	_, err := q.exec(ctx, prebookInsert+` VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, prebookArgs(p)...)
	return err
}

func (q *queries) PrebookCreateIfStored(ctx context.Context, p *tradewind.Prebook, from store.PricedFrom) (bool, error) {
	if len(from.Days) == 0 {
		return false, nil
	}
	// The unit's days compared as one string, in day order, to what was priced: a
	// missing day, an extra one, a sale or a price changed since all differ.
	want := make([]byte, 0, 24*len(from.Days))
	for i, d := range from.Days {
		if i > 0 {
			want = append(want, ',')
		}
		want = append(want, d.Day...)
		want = append(want, ':')
		want = strconv.AppendInt(want, int64(d.Free), 10)
		want = append(want, ':')
		want = strconv.AppendInt(want, d.Price, 10)
	}
	n, err := q.exec(ctx, prebookInsert+` SELECT $1, $2, $3, $4, $5, $6, $7, $8
		WHERE EXISTS (SELECT 1 FROM items WHERE kind = $9 AND id = $10 AND data = $11)
		AND (SELECT string_agg(day || ':' || (capacity - sold) || ':' || price, ',' ORDER BY day) FROM inventory
			WHERE kind = $12 AND item_id = $13 AND unit_id = $14 AND day >= $15 AND day <= $16) = $17`,
		prebookArgs(p, string(from.Item.Kind), from.Item.ID, string(from.Item.Data),
			from.Kind, from.Item.ID, from.UnitID, from.From, from.To, string(want))...)
	return n == 1, err
}

func (q *queries) PrebookGet(ctx context.Context, token string) (*tradewind.Prebook, error) {
	var p tradewind.Prebook
	var quote string
	var booking sql.NullInt64
	err := q.db.QueryRowContext(ctx, `SELECT token, partner_id, mode, quote, total_price, currency, expires_at, booking_id, created_at
		FROM prebooks WHERE token = $1`, token).
		Scan(&p.Token, &p.PartnerID, &p.Mode, &quote, &p.TotalPrice, &p.Currency, &p.ExpiresAt, &booking, &p.CreatedAt)
	if err != nil {
		return nil, q.interpret(err)
	}
	p.Quote, p.BookingID = []byte(quote), booking.Int64
	p.ExpiresAt, p.CreatedAt = p.ExpiresAt.UTC(), p.CreatedAt.UTC()
	return &p, nil
}

func (q *queries) PrebookConsume(ctx context.Context, token string, bookingID int64) (bool, error) {
	n, err := q.exec(ctx, `UPDATE prebooks SET booking_id = $2 WHERE token = $1 AND booking_id IS NULL`, token, bookingID)
	return n == 1, err
}

func (q *queries) EventCreate(ctx context.Context, e *tradewind.Event) error {
	insert, deliveries := q.eventSQL(1)
	args := eventArgs(e)
	if q.d.WritableCTE { // both inserts in one statement: one round trip per event
		_, err := q.exec(ctx, q.text("event with deliveries", 1, func() string { return `WITH e AS (` + insert + `) ` + deliveries }), args...)
		return err
	}
	if _, err := q.exec(ctx, insert, args...); err != nil {
		return err
	}
	_, err := q.exec(ctx, deliveries, args[:5]...) // up to the last it uses, $5
	return err
}

// sqlTexts keeps statement texts built once per dialect and shape (sqlTextKey).
var sqlTexts sync.Map

type sqlTextKey struct {
	dialect, what string
	n             int
}

// text returns build's text for the dialect and the key, built once.
func (q *queries) text(what string, n int, build func() string) string {
	k := sqlTextKey{q.d.Name, what, n}
	if t, ok := sqlTexts.Load(k); ok {
		return t.(string)
	}
	t, _ := sqlTexts.LoadOrStore(k, build())
	return t.(string)
}

// eventSQL returns the insert of an event and the insert of its deliveries (one pending
// delivery for every active subscription of the partner to the type), with the
// arguments of eventArgs numbered from $first.
func (q *queries) eventSQL(first int) (insert, deliveries string) {
	return q.eventSQLWith(first, "")
}

// eventSQLWith is eventSQL whose inserts, when with names a CTE of the same statement,
// write only when that CTE returned a row (InventoryClaimBooking's booking).
func (q *queries) eventSQLWith(first int, with string) (insert, deliveries string) {
	p := func(i int) string { return fmt.Sprintf("$%d", first+i) }
	insert = q.text("event insert"+with, first, func() string {
		into := `INSERT INTO events (id, partner_id, type, data, created_at, test_event, booking_reference, product_type) `
		if with != "" {
			return into + `SELECT ` + placeholders(first, 8) + ` FROM ` + with
		}
		return into + `VALUES (` + placeholders(first, 8) + `)`
	})
	deliveries = q.text("event deliveries"+with, first, func() string {
		text := `INSERT INTO webhook_deliveries (event_id, subscription_id, status, attempts, next_attempt_at, created_at, updated_at)
		SELECT ` + p(0) + `, s.id, 'pending', 0, ` + p(4) + `, ` + p(4) + `, ` + p(4) + ` FROM webhook_subscriptions s
		WHERE s.partner_id = ` + p(1) + ` AND s.active AND s.deleted_at IS NULL
		AND ` + q.d.JSONListHas("s.event_types", p(2))
		if with != "" {
			text += ` AND EXISTS (SELECT 1 FROM ` + with + `)`
		}
		return text
	})
	return insert, deliveries
}

func eventArgs(e *tradewind.Event) []any {
	x := indexedOf(e.Data)
	return []any{e.ID, e.PartnerID, e.Type, string(e.Data), ts(e.CreatedAt), e.TestEvent, x.Reference, x.ProductType}
}

// bookingWithEvents is the statement of a booking and n events with their deliveries
// (writable CTEs), which returns the booking's id.
func (q *queries) bookingWithEvents(n int) string {
	return q.text("booking with events", n, func() string {
		text := `WITH b AS (` + bookingInsert + `)`
		for i := range n {
			insert, deliveries := q.eventSQL(bookingArgs + 1 + 8*i)
			text += fmt.Sprintf(`, e%[1]d AS (%[2]s), d%[1]d AS (%[3]s)`, i, insert, deliveries)
		}
		return text + ` SELECT id FROM b`
	})
}

// claimBookingSQL is InventoryClaimBooking's statement with n events: the claim (c), the
// booking inserted only when the claim took every day (b), its events and their
// deliveries only with it; it returns the claim's rows, each with the booking's id (NULL
// when none was inserted). Arguments: the booking's, the events', the claim's
// (claimArgs) and the days the claim must take.
func (q *queries) claimBookingSQL(n int, ifItem bool) string {
	what := "claim and booking"
	if ifItem {
		what += " if item"
	}
	return q.text(what, n, func() string {
		claimFirst := bookingArgs + 1 + 8*n
		days := claimFirst + claimArgCount(ifItem)
		text := `WITH c AS (` + claimUpdate(claimFirst, ifItem) + `), b AS (` + bookingInto + ` SELECT ` + bookingValues +
			` WHERE (SELECT COUNT(*) FROM c) = ` + placeholders(days, 1) + ` RETURNING id)`
		for i := range n {
			insert, deliveries := q.eventSQLWith(bookingArgs+1+8*i, "b")
			text += fmt.Sprintf(`, e%[1]d AS (%[2]s), d%[1]d AS (%[3]s)`, i, insert, deliveries)
		}
		return text + ` SELECT c.day, c.capacity, c.sold, c.price, b.id FROM c LEFT JOIN b ON true`
	})
}

func (q *queries) InventoryClaimBooking(ctx context.Context, c store.Claim, b *tradewind.Booking, events ...*tradewind.Event) ([]store.InventoryRow, bool, error) {
	want, err := claimDays(c)
	if err != nil {
		return nil, false, err
	}
	if !q.d.WritableCTE {
		after, ok, err := q.InventoryClaim(ctx, c)
		if err != nil || !ok {
			return nil, false, err
		}
		if err := q.BookingCreate(ctx, b, events...); err != nil {
			// Outside a transaction the claim committed on its own: given back.
			return nil, false, errors.Join(err, q.InventoryRelease(ctx, c))
		}
		return after, true, nil
	}
	args := bookingRowArgs(b, 8*len(events)+claimArgCount(c.IfItem != nil)+1)
	for _, e := range events {
		args = append(args, eventArgs(e)...)
	}
	args = append(append(args, claimArgs(c)...), want)
	var taken []store.InventoryRow
	var id sql.NullInt64
	// In a group commit the booking's savepoint travels with it (queryEach).
	if err := q.queryEach(ctx, q.claimBookingSQL(len(events), c.IfItem != nil), args, claimedRows(c, &taken, &id)); err != nil {
		return nil, false, bookingConflict(err)
	}
	if !id.Valid { // the claim did not take every day: no booking, and what it took goes back
		return nil, false, q.giveBack(ctx, c, taken)
	}
	b.ID = id.Int64
	slices.SortFunc(taken, rowsByDay)
	return taken, true, nil
}

func (q *queries) SubscriberPartnerIDs(ctx context.Context, eventType tradewind.EventType) ([]int64, error) {
	return q.int64s(ctx, `SELECT DISTINCT partner_id FROM webhook_subscriptions
		WHERE active AND deleted_at IS NULL AND `+q.d.JSONListHas("event_types", "$1")+`
		ORDER BY partner_id`, eventType)
}

// bookingWhere is the condition selecting the bookings of f, with its arguments.
func bookingWhere(f store.BookingFilter) (string, []any) {
	where, args := "1 = 1", []any{}
	add := func(cond string, v any) {
		args = append(args, v)
		where += " AND " + strings.ReplaceAll(cond, "?", placeholders(len(args), 1))
	}
	if f.PartnerID != 0 {
		add("partner_id = ?", f.PartnerID)
	}
	if len(f.Statuses) > 0 {
		terms := make([]string, len(f.Statuses))
		for i, st := range f.Statuses {
			conds := []string{"1 = 1"}
			for _, c := range []struct {
				cond, v string
			}{{"status = ", string(st.Status)}, {"end_date < ", st.EndBefore}, {"end_date >= ", st.EndFrom}} {
				if c.v != "" {
					args = append(args, c.v)
					conds = append(conds, c.cond+placeholders(len(args), 1))
				}
			}
			terms[i] = "(" + strings.Join(conds, " AND ") + ")"
		}
		where += " AND (" + strings.Join(terms, " OR ") + ")"
	}
	if f.Test != nil {
		add("test = ?", *f.Test)
	}
	if f.ProductType != "" {
		add("product_type = ?", string(f.ProductType))
	}
	if f.Search != "" {
		pattern := "%" + likeEscape(strings.ToLower(f.Search)) + "%"
		add(`(LOWER(reference) LIKE ? ESCAPE '\' OR LOWER(COALESCE(partner_reference, '')) LIKE ? ESCAPE '\'
			OR LOWER(guest) LIKE ? ESCAPE '\')`, pattern)
	}
	if !f.CreatedFrom.IsZero() {
		add("created_at >= ?", ts(f.CreatedFrom))
	}
	if !f.CreatedBefore.IsZero() {
		add("created_at < ?", ts(f.CreatedBefore))
	}
	if f.ServiceFrom != "" {
		add("end_date >= ?", f.ServiceFrom)
	}
	if f.ServiceTo != "" {
		add("start_date <= ?", f.ServiceTo)
	}
	if f.PartnerReference != "" {
		add("partner_reference = ?", f.PartnerReference)
	}
	if f.BeforeID != 0 {
		add("id < ?", f.BeforeID)
	}
	return where, args
}

func (q *queries) BookingDaily(ctx context.Context, f store.BookingFilter) ([]store.BookingDay, error) {
	f.BeforeID = 0
	where, args := bookingWhere(f)
	day := q.d.UTCDay("created_at")
	rows, err := q.db.QueryContext(ctx, `SELECT `+day+`, currency, COUNT(*), SUM(total_price) FROM bookings WHERE `+where+
		` GROUP BY `+day+`, currency ORDER BY 1, 2`, args...)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []store.BookingDay
	for rows.Next() {
		var d store.BookingDay
		var day string
		if err := rows.Scan(&day, &d.Currency, &d.Count, &d.Value); err != nil {
			return nil, err
		}
		if d.Day, err = time.Parse(tradewind.DateLayout, day); err != nil {
			return nil, store.ErrCorrupt
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// likeEscape escapes the LIKE wildcards of s with a backslash.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}

func (q *queries) BookingCount(ctx context.Context, f store.BookingFilter) (int, error) {
	f.BeforeID = 0
	where, args := bookingWhere(f)
	var n int
	err := q.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE `+where, args...).Scan(&n)
	return n, q.interpret(err)
}
