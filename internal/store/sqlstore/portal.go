package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

func (q *queries) PartnerLock(ctx context.Context, partnerID int64) error {
	var id int64
	return q.interpret(q.db.QueryRowContext(ctx, `SELECT id FROM partners WHERE id = $1`+q.d.ForUpdate, partnerID).Scan(&id))
}

func (q *queries) PartnerCountByStatus(ctx context.Context, status string) (int, error) {
	var n int
	err := q.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM partners WHERE status = $1`, status).Scan(&n)
	return n, q.interpret(err)
}

func (q *queries) PartnerSetStatus(ctx context.Context, partnerID int64, from, to, reason string) (bool, error) {
	n, err := q.exec(ctx, `UPDATE partners SET status = $3, status_reason = $4 WHERE id = $1 AND status = $2`,
		partnerID, from, to, reason)
	return n == 1, err
}

const portalUserColumns = `id, partner_id, email, name, role, password_hash, time_zone, disabled, totp_secret, recovery_codes,
	created_at, updated_at`

func scanPortalUser(row interface{ Scan(...any) error }) (*store.PortalUser, error) {
	var u store.PortalUser
	var codes string
	if err := row.Scan(&u.ID, &u.PartnerID, &u.Email, &u.Name, &u.Role, &u.PasswordHash, &u.TimeZone, &u.Disabled,
		&u.TOTPSecret, &codes, &u.CreatedAt, &u.UpdatedAt); err != nil {
		return nil, err
	}
	var err error
	if u.RecoveryCodes, err = decodeList[string]("recovery_codes", codes); err != nil {
		return nil, err
	}
	u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	return &u, nil
}

func (q *queries) PortalUserCreate(ctx context.Context, u *store.PortalUser) error {
	if u.TimeZone == "" {
		u.TimeZone = "UTC"
	}
	err := q.db.QueryRowContext(ctx, `INSERT INTO portal_users (partner_id, email, name, role, password_hash, time_zone,
		disabled, totp_secret, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
		u.PartnerID, strings.ToLower(u.Email), u.Name, u.Role, u.PasswordHash, u.TimeZone, u.Disabled, u.TOTPSecret,
		ts(u.CreatedAt), ts(u.UpdatedAt)).Scan(&u.ID)
	return q.interpret(err)
}

func (q *queries) PortalUserGetByID(ctx context.Context, id int64) (*store.PortalUser, error) {
	u, err := scanPortalUser(q.db.QueryRowContext(ctx, `SELECT `+portalUserColumns+` FROM portal_users WHERE id = $1`, id))
	return u, q.interpret(err)
}

func (q *queries) PortalUserGetByEmail(ctx context.Context, email string) (*store.PortalUser, error) {
	u, err := scanPortalUser(q.db.QueryRowContext(ctx, `SELECT `+portalUserColumns+` FROM portal_users WHERE email = $1`,
		strings.ToLower(email)))
	return u, q.interpret(err)
}

func (q *queries) PortalUserList(ctx context.Context, partnerID int64) ([]*store.PortalUser, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT `+portalUserColumns+` FROM portal_users
		WHERE $1 = 0 OR partner_id = $1 ORDER BY email`, partnerID)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.PortalUser
	for rows.Next() {
		u, err := scanPortalUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

func (q *queries) PortalUserUpdate(ctx context.Context, u *store.PortalUser) error {
	n, err := q.exec(ctx, `UPDATE portal_users SET name = $2, role = $3, password_hash = $4, time_zone = $5, disabled = $6,
		updated_at = $7 WHERE id = $1`,
		u.ID, u.Name, u.Role, u.PasswordHash, u.TimeZone, u.Disabled, ts(u.UpdatedAt))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

func (q *queries) PortalUserSetTwoFactor(ctx context.Context, userID int64, secret string, recoveryCodes []string, at time.Time) error {
	n, err := q.exec(ctx, `UPDATE portal_users SET totp_secret = $2, recovery_codes = $3, updated_at = $4,
		totp_last_step = CASE WHEN totp_secret = $2 THEN totp_last_step ELSE 0 END WHERE id = $1`,
		userID, secret, jsonList(recoveryCodes), ts(at))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

func (q *queries) PortalUserTOTPStepUse(ctx context.Context, userID, step int64) (bool, error) {
	n, err := q.exec(ctx, `UPDATE portal_users SET totp_last_step = $2 WHERE id = $1 AND totp_last_step < $2`, userID, step)
	return n == 1, err
}

func (q *queries) PortalUserRecoveryCodeUse(ctx context.Context, userID int64, hash string) (bool, error) {
	// Compare and swap on the whole list: a concurrent use (or change) of the codes makes
	// the UPDATE miss, and the list is read again.
	for {
		var stored string
		err := q.db.QueryRowContext(ctx, `SELECT recovery_codes FROM portal_users WHERE id = $1`, userID).Scan(&stored)
		if err != nil {
			return false, q.interpret(err)
		}
		codes, err := decodeList[string]("recovery_codes", stored)
		if err != nil {
			return false, err
		}
		i := slices.Index(codes, hash)
		if i < 0 {
			return false, nil
		}
		n, err := q.exec(ctx, `UPDATE portal_users SET recovery_codes = $3 WHERE id = $1 AND recovery_codes = $2`,
			userID, stored, jsonList(slices.Delete(codes, i, i+1)))
		if err != nil || n == 1 {
			return n == 1, err
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
	}
}

func (q *queries) PortalUserDelete(ctx context.Context, partnerID, id int64) error {
	if _, err := q.exec(ctx, `DELETE FROM portal_sessions WHERE user_id = $1
		AND user_id IN (SELECT id FROM portal_users WHERE partner_id = $2)`, id, partnerID); err != nil {
		return err
	}
	n, err := q.exec(ctx, `DELETE FROM portal_users WHERE id = $1 AND partner_id = $2`, id, partnerID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

func (q *queries) PortalUserCountRole(ctx context.Context, partnerID int64, role string) (int, error) {
	var n int
	err := q.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM portal_users WHERE partner_id = $1 AND role = $2 AND NOT disabled`,
		partnerID, role).Scan(&n)
	return n, q.interpret(err)
}

const portalSessionColumns = `id, token_hash, user_id, client_addr, user_agent, created_at, last_seen_at, expires_at`

func scanPortalSession(row interface{ Scan(...any) error }) (*store.PortalSession, error) {
	var s store.PortalSession
	if err := row.Scan(&s.ID, &s.TokenHash, &s.UserID, &s.ClientAddr, &s.UserAgent, &s.CreatedAt, &s.LastSeenAt, &s.ExpiresAt); err != nil {
		return nil, err
	}
	s.CreatedAt, s.LastSeenAt, s.ExpiresAt = s.CreatedAt.UTC(), s.LastSeenAt.UTC(), s.ExpiresAt.UTC()
	return &s, nil
}

func (q *queries) PortalSessionCreate(ctx context.Context, s *store.PortalSession) error {
	err := q.db.QueryRowContext(ctx, `INSERT INTO portal_sessions (token_hash, user_id, client_addr, user_agent, created_at,
		last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		s.TokenHash, s.UserID, s.ClientAddr, s.UserAgent, ts(s.CreatedAt), ts(s.LastSeenAt), ts(s.ExpiresAt)).Scan(&s.ID)
	return q.interpret(err)
}

func (q *queries) PortalSessionGet(ctx context.Context, tokenHash string) (*store.PortalSession, error) {
	s, err := scanPortalSession(q.db.QueryRowContext(ctx, `SELECT `+portalSessionColumns+` FROM portal_sessions
		WHERE token_hash = $1`, tokenHash))
	return s, q.interpret(err)
}

func (q *queries) PortalSessionTouch(ctx context.Context, id int64, at time.Time) error {
	_, err := q.exec(ctx, `UPDATE portal_sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $2`, id, ts(at))
	return err
}

func (q *queries) PortalSessionList(ctx context.Context, userID int64) ([]*store.PortalSession, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT `+portalSessionColumns+` FROM portal_sessions WHERE user_id = $1
		ORDER BY id DESC LIMIT 100`, userID)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.PortalSession
	for rows.Next() {
		s, err := scanPortalSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (q *queries) PortalSessionDelete(ctx context.Context, userID, id int64) error {
	n, err := q.exec(ctx, `DELETE FROM portal_sessions WHERE id = $1 AND user_id = $2`, id, userID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

func (q *queries) PortalSessionDeleteUser(ctx context.Context, userID, keepID int64) error {
	_, err := q.exec(ctx, `DELETE FROM portal_sessions WHERE user_id = $1 AND id <> $2`, userID, keepID)
	return err
}

func (q *queries) PortalSessionDeleteExpired(ctx context.Context, idleBefore, now time.Time) (int64, error) {
	return q.exec(ctx, `DELETE FROM portal_sessions WHERE last_seen_at < $1 OR expires_at <= $2`, ts(idleBefore), ts(now))
}

const portalInvitationColumns = `id, token_hash, kind, partner_id, email, role, created_by, created_at, expires_at, used_at`

func scanPortalInvitation(row interface{ Scan(...any) error }) (*store.PortalInvitation, error) {
	var inv store.PortalInvitation
	var used sql.NullTime
	if err := row.Scan(&inv.ID, &inv.TokenHash, &inv.Kind, &inv.PartnerID, &inv.Email, &inv.Role, &inv.CreatedBy,
		&inv.CreatedAt, &inv.ExpiresAt, &used); err != nil {
		return nil, err
	}
	inv.CreatedAt, inv.ExpiresAt, inv.UsedAt = inv.CreatedAt.UTC(), inv.ExpiresAt.UTC(), fromNull(used)
	return &inv, nil
}

func (q *queries) PortalInvitationCreate(ctx context.Context, inv *store.PortalInvitation) error {
	if _, err := q.PortalInvitationDeleteDone(ctx, inv.CreatedAt); err != nil {
		return err
	}
	err := q.db.QueryRowContext(ctx, `INSERT INTO portal_invitations (token_hash, kind, partner_id, email, role, created_by,
		created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
		inv.TokenHash, inv.Kind, inv.PartnerID, strings.ToLower(inv.Email), inv.Role, inv.CreatedBy, ts(inv.CreatedAt),
		ts(inv.ExpiresAt)).Scan(&inv.ID)
	return q.interpret(err)
}

func (q *queries) PortalInvitationUse(ctx context.Context, tokenHash string, now time.Time) (*store.PortalInvitation, error) {
	inv, err := scanPortalInvitation(q.db.QueryRowContext(ctx, `UPDATE portal_invitations SET used_at = $2
		WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING `+portalInvitationColumns, tokenHash, ts(now)))
	return inv, q.interpret(err)
}

func (q *queries) PortalInvitationGet(ctx context.Context, tokenHash string, now time.Time) (*store.PortalInvitation, error) {
	inv, err := scanPortalInvitation(q.db.QueryRowContext(ctx, `SELECT `+portalInvitationColumns+` FROM portal_invitations
		WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2`, tokenHash, ts(now)))
	return inv, q.interpret(err)
}

func (q *queries) ThrottleHit(ctx context.Context, key string, now time.Time, window time.Duration) (int, time.Time, error) {
	var hits int
	var last time.Time
	// One statement, so that servers sharing the database count every hit.
	err := q.db.QueryRowContext(ctx, `INSERT INTO portal_throttle (key, hits, first_at, last_at) VALUES ($1, 1, $2, $2)
		ON CONFLICT (key) DO UPDATE SET
			hits = CASE WHEN portal_throttle.last_at < $3 THEN 1 ELSE portal_throttle.hits + 1 END,
			first_at = CASE WHEN portal_throttle.last_at < $3 THEN $2 ELSE portal_throttle.first_at END,
			last_at = $2
		RETURNING hits, last_at`, key, ts(now), ts(now.Add(-window))).Scan(&hits, &last)
	return hits, last.UTC(), q.interpret(err)
}

func (q *queries) ThrottleGet(ctx context.Context, key string, now time.Time, window time.Duration) (int, time.Time, error) {
	var hits int
	var last time.Time
	err := q.db.QueryRowContext(ctx, `SELECT hits, last_at FROM portal_throttle WHERE key = $1 AND last_at >= $2`,
		key, ts(now.Add(-window))).Scan(&hits, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, time.Time{}, nil
	}
	return hits, last.UTC(), q.interpret(err)
}

func (q *queries) ThrottleReset(ctx context.Context, key string) error {
	_, err := q.exec(ctx, `DELETE FROM portal_throttle WHERE key = $1`, key)
	return err
}

func (q *queries) ThrottleDeleteBefore(ctx context.Context, t time.Time) (int64, error) {
	return q.exec(ctx, `DELETE FROM portal_throttle WHERE last_at < $1`, ts(t))
}

func (q *queries) PortalInvitationDeleteDone(ctx context.Context, now time.Time) (int64, error) {
	return q.exec(ctx, `DELETE FROM portal_invitations WHERE used_at IS NOT NULL OR expires_at <= $1`, ts(now))
}

func (q *queries) AuditAdd(ctx context.Context, e *store.AuditEntry) error {
	err := q.db.QueryRowContext(ctx, `INSERT INTO portal_audit (partner_id, actor, action, detail, client_addr, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, e.PartnerID, e.Actor, e.Action, e.Detail, e.ClientAddr, ts(e.CreatedAt)).Scan(&e.ID)
	return q.interpret(err)
}

func (q *queries) AuditList(ctx context.Context, partnerID, beforeID int64, limit int) ([]*store.AuditEntry, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT id, partner_id, actor, action, detail, client_addr, created_at FROM portal_audit
		WHERE partner_id = $1 AND ($2 = 0 OR id < $2) ORDER BY id DESC LIMIT $3`, partnerID, beforeID, limit)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.AuditEntry
	for rows.Next() {
		var e store.AuditEntry
		if err := rows.Scan(&e.ID, &e.PartnerID, &e.Actor, &e.Action, &e.Detail, &e.ClientAddr, &e.CreatedAt); err != nil {
			return nil, err
		}
		e.CreatedAt = e.CreatedAt.UTC()
		out = append(out, &e)
	}
	return out, rows.Err()
}

func (q *queries) AuditDeleteBefore(ctx context.Context, t time.Time) (int64, error) {
	return q.exec(ctx, `DELETE FROM portal_audit WHERE created_at < $1`, ts(t))
}

func (q *queries) CreditMove(ctx context.Context, e *store.LedgerEntry) (bool, error) {
	move := creditRelease
	if e.Kind == store.LedgerDraw {
		move = creditDraw
	}
	move += ` RETURNING id, credit_used`
	const insert = `INSERT INTO credit_ledger (partner_id, booking_id, reference, kind, amount, currency, balance_after, created_at) `
	args := []any{e.PartnerID, e.Amount, e.BookingID, e.Reference, e.Kind, e.Currency, ts(e.At)}
	var err error
	if q.d.WritableCTE {
		// One round trip: no row when the move was refused.
		err = q.db.QueryRowContext(ctx, `WITH moved AS (`+move+`) `+insert+
			`SELECT id, $3, $4, $5, $2, $6, credit_used, $7 FROM moved RETURNING id, balance_after`, args...).Scan(&e.ID, &e.BalanceAfter)
	} else {
		var id int64
		if err = q.db.QueryRowContext(ctx, move, e.PartnerID, e.Amount).Scan(&id, &e.BalanceAfter); err == nil {
			err = q.db.QueryRowContext(ctx, insert+`VALUES ($1, $3, $4, $5, $2, $6, $8, $7) RETURNING id`,
				append(args, e.BalanceAfter)...).Scan(&e.ID)
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		if e.Kind == store.LedgerDraw {
			return false, nil
		}
		return false, store.ErrNotFound
	}
	if err != nil {
		return false, q.interpret(err)
	}
	return true, nil
}

func (q *queries) CreditDrawAll(ctx context.Context, entries []*store.LedgerEntry) error {
	if len(entries) == 0 {
		return nil
	}
	var total int64
	for _, e := range entries {
		if e.Kind != store.LedgerDraw || e.PartnerID != entries[0].PartnerID || e.Amount <= 0 {
			return fmt.Errorf("credit draw all: every entry must be a positive draw of partner %d", entries[0].PartnerID)
		}
		total += e.Amount
	}
	if q.d.WritableCTE {
		return q.creditDrawAllCTE(ctx, entries, total)
	}
	var used int64
	err := q.db.QueryRowContext(ctx, creditDraw+` RETURNING credit_used`, entries[0].PartnerID, total).Scan(&used)
	if errors.Is(err, sql.ErrNoRows) {
		return &store.CreditRefused{PartnerID: entries[0].PartnerID}
	}
	if err != nil {
		return q.interpret(err)
	}
	// The credit used after each entry: what it was before the sum, and the entries so far.
	balance := used - total
	args := make([]any, 0, 8*len(entries))
	rows := make([]string, 0, len(entries))
	byBooking := make(map[int64]*store.LedgerEntry, len(entries))
	for i, e := range entries {
		balance += e.Amount
		e.BalanceAfter = balance
		byBooking[e.BookingID] = e
		args = append(args, e.PartnerID, e.BookingID, e.Reference, e.Kind, e.Amount, e.Currency, e.BalanceAfter, ts(e.At))
		rows = append(rows, "("+placeholders(8*i+1, 8)+")")
	}
	res, err := q.db.QueryContext(ctx, `INSERT INTO credit_ledger (partner_id, booking_id, reference, kind, amount, currency,
		balance_after, created_at) VALUES `+strings.Join(rows, ", ")+` RETURNING id, booking_id`, args...)
	if err != nil {
		return q.interpret(err)
	}
	defer res.Close()
	for res.Next() { // RETURNING's order is not promised: matched by booking
		var id, booking int64
		if err := res.Scan(&id, &booking); err != nil {
			return err
		}
		if e := byBooking[booking]; e != nil {
			e.ID = id
		}
	}
	return q.interpret(res.Err())
}

// creditDrawAllCTE is CreditDrawAll in one statement (PostgreSQL): the draw and its
// ledger entries, each with the credit used after it. A refusal fails the statement
// (credit_refused, migration 00035), so that in a transaction it is left for COMMIT
// (deferredTx): the partner's row is then held for the round trip of the draw and
// COMMIT only, not from the draw to a COMMIT sent after its answer.
func (q *queries) creditDrawAllCTE(ctx context.Context, entries []*store.LedgerEntry, total int64) error {
	partner := entries[0].PartnerID
	args := make([]any, 0, 2+6*len(entries))
	args = append(args, partner, total)
	rows := make([]string, 0, len(entries))
	byBooking := make(map[int64]*store.LedgerEntry, len(entries))
	var sum int64
	for _, e := range entries {
		sum += e.Amount
		byBooking[e.BookingID] = e
		n := len(args)
		// The VALUES list's types are not the table's: cast every parameter.
		rows = append(rows, fmt.Sprintf("(CAST($%d AS BIGINT), CAST($%d AS TEXT), CAST($%d AS TEXT), CAST($%d AS BIGINT), "+
			"CAST($%d AS TEXT), CAST($%d AS BIGINT), CAST($%d AS TIMESTAMPTZ))", n+1, n+2, n+3, n+4, n+5, n+6, n+7))
		// later: what the entries after this one draw, so balance_after = used - later.
		args = append(args, e.BookingID, e.Reference, e.Kind, e.Amount, e.Currency, total-sum, ts(e.At))
	}
	query := `WITH moved AS (` + creditDraw + ` RETURNING credit_used),
		drawn AS (SELECT credit_used FROM moved
			UNION ALL SELECT credit_refused($1) WHERE NOT EXISTS (SELECT 1 FROM moved))
		INSERT INTO credit_ledger (partner_id, booking_id, reference, kind, amount, currency, balance_after, created_at)
		SELECT $1, v.booking_id, v.reference, v.kind, v.amount, v.currency, drawn.credit_used - v.later, v.created_at
		FROM drawn, (VALUES ` + strings.Join(rows, ", ") + `) AS v (booking_id, reference, kind, amount, currency, later, created_at)
		RETURNING id, booking_id, balance_after`
	each := func(scan func(dest ...any) error) error {
		var id, booking, after int64
		if err := scan(&id, &booking, &after); err != nil {
			return err
		}
		if e := byBooking[booking]; e != nil {
			e.ID, e.BalanceAfter = id, after
		}
		return nil
	}
	failed := func(err error) error {
		if q.d.IsCreditRefused != nil && q.d.IsCreditRefused(err) {
			return &store.CreditRefused{PartnerID: partner}
		}
		return q.interpret(err)
	}
	if t := q.deferred(); t != nil {
		t.leaveForCommit(BatchStmt{SQL: query, Args: args, Rows: each, Failed: failed})
		return nil
	}
	if err := q.queryEach(ctx, query, args, each); err != nil {
		return failed(err)
	}
	return nil
}

func (q *queries) CreditLedgerList(ctx context.Context, lq store.LedgerQuery) ([]*store.LedgerEntry, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT id, partner_id, booking_id, reference, kind, amount, currency, balance_after,
		created_at FROM credit_ledger WHERE partner_id = $1 AND ($2 = 0 OR id < $2) ORDER BY id DESC LIMIT $3`,
		lq.PartnerID, lq.BeforeID, lq.Limit)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.LedgerEntry
	for rows.Next() {
		var e store.LedgerEntry
		if err := rows.Scan(&e.ID, &e.PartnerID, &e.BookingID, &e.Reference, &e.Kind, &e.Amount, &e.Currency,
			&e.BalanceAfter, &e.At); err != nil {
			return nil, err
		}
		e.At = e.At.UTC()
		out = append(out, &e)
	}
	return out, rows.Err()
}

func scanEvent(row interface{ Scan(...any) error }) (*store.EventRow, error) {
	var e store.EventRow
	var data string
	if err := row.Scan(&e.ID, &e.PartnerID, &e.Type, &data, &e.CreatedAt); err != nil {
		return nil, err
	}
	e.Data, e.CreatedAt = []byte(data), e.CreatedAt.UTC()
	return &e, nil
}

// eventsOfBookingSQL reads a partner's booking events about one booking by
// events_booking_reference: the reference every event insert copies from its data
// (eventArgs). It used to match the data's text among all the partner's events, whose
// count grows with the partner's history, on every view of a booking in the portal.
const eventsOfBookingSQL = `SELECT id, partner_id, type, data, created_at FROM events
		WHERE partner_id = $1 AND booking_reference = $2 AND type LIKE 'booking.%' ORDER BY created_at, id LIMIT 100`

func (q *queries) EventListByBooking(ctx context.Context, partnerID int64, reference string) ([]*store.EventRow, error) {
	if reference == "" {
		return nil, nil // the events of no booking (availability's) are never a booking's
	}
	rows, err := q.db.QueryContext(ctx, eventsOfBookingSQL, partnerID, reference)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.EventRow
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func (q *queries) EventGet(ctx context.Context, partnerID int64, id string) (*store.EventRow, error) {
	e, err := scanEvent(q.db.QueryRowContext(ctx, `SELECT id, partner_id, type, data, created_at FROM events
		WHERE id = $1 AND partner_id = $2`, id, partnerID))
	return e, q.interpret(err)
}

func (q *queries) EventCreateTest(ctx context.Context, e *tradewind.Event, subscriptionID int64, maxPending int) error {
	var id int64
	if err := q.db.QueryRowContext(ctx, `SELECT id FROM webhook_subscriptions WHERE id = $1 AND partner_id = $2 AND active
		AND deleted_at IS NULL`+q.d.ForUpdate, subscriptionID, e.PartnerID).Scan(&id); err != nil {
		return q.interpret(err)
	}
	var pending int
	if err := q.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
		WHERE d.subscription_id = $1 AND d.status = 'pending' AND e.test_event`, subscriptionID).Scan(&pending); err != nil {
		return q.interpret(err)
	}
	if pending >= maxPending {
		return store.ErrTooMany
	}
	e.TestEvent = true
	if _, err := q.exec(ctx, `INSERT INTO events (id, partner_id, type, data, created_at, test_event) VALUES ($1, $2, $3, $4, $5, TRUE)`,
		e.ID, e.PartnerID, e.Type, string(e.Data), ts(e.CreatedAt)); err != nil {
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO webhook_deliveries (event_id, subscription_id, status, attempts, next_attempt_at, created_at, updated_at)
		VALUES ($1, $2, 'pending', 0, $3, $3, $3)`, e.ID, subscriptionID, ts(e.CreatedAt))
	return err
}

func (q *queries) SubscriptionGet(ctx context.Context, partnerID, id int64) (*store.Subscription, error) {
	var from sql.NullTime
	s, err := scanSubscription(scanFirst{q.db.QueryRowContext(ctx, `SELECT next_secret_from, `+subscriptionColumns+`
		FROM webhook_subscriptions WHERE id = $1 AND partner_id = $2 AND active AND deleted_at IS NULL`, id, partnerID), &from})
	if err != nil {
		return nil, q.interpret(err)
	}
	s.NextSecretFrom = fromNull(from)
	return s, nil
}

// scanFirst scans its first column into first and the others as asked.
type scanFirst struct {
	row   interface{ Scan(...any) error }
	first any
}

func (s scanFirst) Scan(dest ...any) error { return s.row.Scan(append([]any{s.first}, dest...)...) }

func (q *queries) SubscriptionRollSecret(ctx context.Context, partnerID, id int64, next string, now, from time.Time) error {
	n, err := q.exec(ctx, `UPDATE webhook_subscriptions SET
		secret = CASE WHEN next_secret <> '' AND next_secret_from <= $4 THEN next_secret ELSE secret END,
		next_secret = $3, next_secret_from = $5
		WHERE id = $1 AND partner_id = $2 AND active AND deleted_at IS NULL`, id, partnerID, next, ts(now), ts(from))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}
