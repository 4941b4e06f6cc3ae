package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// usageBatch is the number of counters per upsert statement (× 7 parameters).
const usageBatch = 1000

// usageHourLayout is the hour column's text: sortable, and its first 10 characters are
// the UTC date.
const usageHourLayout = "2006-01-02T15"

type usageKey struct {
	partnerID int64
	hour      string
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
		sums[usageKey{r.PartnerID, r.Hour.UTC().Format(usageHourLayout), r.Mode, r.Route, r.Status, r.ErrorCode}] += r.Count
	}
	keys := make([]usageKey, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b usageKey) int {
		return cmp.Or(cmp.Compare(a.partnerID, b.partnerID), cmp.Compare(a.hour, b.hour), cmp.Compare(a.mode, b.mode),
			cmp.Compare(a.route, b.route), cmp.Compare(a.status, b.status), cmp.Compare(a.errorCode, b.errorCode))
	})
	return q.execBatches(ctx, `INSERT INTO usage_counters (partner_id, hour, mode, route, status, error_code, count) VALUES `,
		` ON CONFLICT (partner_id, hour, mode, route, status, error_code) DO UPDATE SET count = usage_counters.count + excluded.count`,
		7, usageBatch, len(keys), func(args []any, i int) []any {
			k := keys[i]
			return append(args, k.partnerID, k.hour, string(k.mode), k.route, k.status, k.errorCode, sums[k])
		})
}

func (q *queries) UsageList(ctx context.Context, partnerID int64, from, to time.Time) ([]tradewind.UsageRow, error) {
	from = later(from, to.Add(-store.UsageListMaxSpan))
	rows, err := q.db.QueryContext(ctx, `SELECT partner_id, hour, mode, route, status, error_code, count FROM usage_counters
		WHERE partner_id = $1 AND hour >= $2 AND hour < $3
		ORDER BY hour, mode, route, status, error_code`,
		partnerID, from.UTC().Format(usageHourLayout), to.UTC().Format(usageHourLayout))
	if err != nil {
		return nil, q.interpret(err)
	}
	return scanUsage(rows)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// scanUsage reads rows of partner_id, hour, mode, route, status, error_code, count.
func scanUsage(rows *sql.Rows) ([]tradewind.UsageRow, error) {
	defer rows.Close()
	var out []tradewind.UsageRow
	for rows.Next() {
		var r tradewind.UsageRow
		var hour string
		if err := rows.Scan(&r.PartnerID, &hour, &r.Mode, &r.Route, &r.Status, &r.ErrorCode, &r.Count); err != nil {
			return nil, err
		}
		var err error
		if r.Hour, err = time.Parse(usageHourLayout, hour); err != nil {
			return nil, store.ErrCorrupt
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// UsageRollup deletes the hourly rows and adds what it deleted (RETURNING, so that an
// add racing the delete is either folded or left for the next run, never lost) to the
// day's 'T00' rows. Only the retention job, one server at a time, calls it.
func (q *queries) UsageRollup(ctx context.Context, p store.PruneParams) (int, error) {
	rows, err := q.db.QueryContext(ctx, `DELETE FROM usage_counters WHERE (partner_id, hour, mode, route, status, error_code) IN
		(SELECT partner_id, hour, mode, route, status, error_code FROM usage_counters
		 WHERE hour < $1 AND substr(hour, 12, 2) <> '00' LIMIT $2)
		RETURNING partner_id, hour, mode, route, status, error_code, count`,
		p.Before.UTC().Format(usageHourLayout), p.Limit)
	if err != nil {
		return 0, q.interpret(err)
	}
	folded, err := scanUsage(rows)
	if err != nil {
		return 0, err
	}
	for i := range folded {
		folded[i].Hour = folded[i].Hour.Truncate(24 * time.Hour)
	}
	return len(folded), q.UsageAdd(ctx, folded)
}

func (q *queries) UsagePrune(ctx context.Context, p store.PruneParams) (int, error) {
	n, err := q.exec(ctx, `DELETE FROM usage_counters WHERE (partner_id, hour, mode, route, status, error_code) IN
		(SELECT partner_id, hour, mode, route, status, error_code FROM usage_counters WHERE hour < $1 LIMIT $2)`,
		p.Before.UTC().Truncate(24*time.Hour).Format(usageHourLayout), p.Limit)
	return int(n), err
}

// requestLogBatch is the number of entries per insert statement (× 22 parameters).
const requestLogBatch = 200

// RequestLogColumns are the request_logs columns an entry is written with: every one
// but its id (sqlite.Open moves rows by them, with the id).
const RequestLogColumns = `partner_id, mode, at, method, path, query, route, status, error_code, duration_us,
	key_id, key_prefix, client_addr, user_agent, request_id, idempotency_key, console,
	request_body, request_size, response_body, response_size, body_encoding`

// requestLogInsert stores the bodies compressed (reqlogbody.go).
func (q *queries) requestLogInsert(ctx context.Context, entries []*store.RequestLogEntry) error {
	arena := bodyArenas.Get().(*bodyArena)
	defer bodyArenas.Put(arena)
	arena.reset()
	return q.execBatches(ctx, `INSERT INTO request_logs (`+RequestLogColumns+`) VALUES `, ``, 22, requestLogBatch, len(entries),
		func(args []any, i int) []any { return appendRequestLogRow(args, entries[i], arena) })
}

func appendRequestLogRow(args []any, e *store.RequestLogEntry, arena *bodyArena) []any {
	req, resp, encoding := encodeRequestLogBodies(e, arena)
	return append(args, e.PartnerID, string(e.Mode), ts(e.At), e.Method, e.Path, e.Query, e.Route, e.Status, e.ErrorCode,
		e.Duration.Microseconds(), e.KeyID, e.KeyPrefix, e.ClientAddr, e.UserAgent, e.RequestID, e.IdempotencyKey, e.Console,
		req, e.RequestSize, resp, e.ResponseSize, encoding)
}

// RequestLogInsert (the request log's writer) loads a batch with the dialect's
// CopyFrom where it has one (PostgreSQL); otherwise (SQLite) it inserts full batches
// with a statement prepared once and kept, rather than having the database parse and
// plan a 4 400-parameter statement for every batch, and the rest as queries does.
func (s *DB) RequestLogInsert(ctx context.Context, entries []*store.RequestLogEntry) error {
	s = s.requestLogs()
	if s.dialect.CopyFrom != nil && len(entries) >= requestLogCopyMin {
		return s.requestLogCopy(ctx, entries)
	}
	full := len(entries) / requestLogBatch * requestLogBatch
	if full > 0 {
		stmt, err := s.requestLogInsertStmt(ctx)
		if err != nil {
			return err
		}
		args := make([]any, 0, requestLogBatch*22)
		arena := bodyArenas.Get().(*bodyArena)
		defer bodyArenas.Put(arena)
		for start := 0; start < full; start += requestLogBatch {
			args = args[:0]
			arena.reset()
			for _, e := range entries[start : start+requestLogBatch] {
				args = appendRequestLogRow(args, e, arena)
			}
			if _, err := stmt.ExecContext(ctx, args...); err != nil {
				return s.interpret(err)
			}
		}
	}
	return s.queries.requestLogInsert(ctx, entries[full:])
}

// requestLogCopyMin is the batch from which the writer loads entries with the
// dialect's CopyFrom (PostgreSQL's COPY, one statement with no parameters to bind or
// plan) rather than a multi-row INSERT.
const requestLogCopyMin = 20

var requestLogColumnList = strings.Fields(strings.ReplaceAll(RequestLogColumns, ",", " "))

func (s *DB) requestLogCopy(ctx context.Context, entries []*store.RequestLogEntry) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return s.interpret(err)
	}
	defer conn.Close()
	arena := bodyArenas.Get().(*bodyArena)
	defer bodyArenas.Put(arena)
	arena.reset()
	row := make([]any, 0, len(requestLogColumnList))
	return s.interpret(s.dialect.CopyFrom(ctx, conn, "request_logs", requestLogColumnList, len(entries), func(i int) []any {
		// CopyFrom encodes a row before it asks for the next: one slice serves them all.
		row = appendRequestLogRow(row[:0], entries[i], arena)
		return row
	}))
}

func (s *DB) requestLogInsertStmt(ctx context.Context) (*sql.Stmt, error) {
	s.reqlogInsert.Lock()
	defer s.reqlogInsert.Unlock()
	if s.reqlogInsert.stmt == nil {
		stmt, err := s.db.PrepareContext(ctx, `INSERT INTO request_logs (`+RequestLogColumns+`) VALUES `+
			valuesList(requestLogBatch, 22, s.dialect.Anonymous))
		if err != nil {
			return nil, s.interpret(err)
		}
		s.reqlogInsert.stmt = stmt
	}
	return s.reqlogInsert.stmt, nil
}

// nonNil stores an absent body as an empty one (the columns are NOT NULL).
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// requestLogListColumns are the columns of a list row: every one but the bodies.
const requestLogListColumns = `id, partner_id, mode, at, method, path, query, route, status, error_code, duration_us,
	key_id, key_prefix, client_addr, user_agent, request_id, idempotency_key, console, request_size, response_size`

func scanRequestLog(row interface{ Scan(...any) error }, bodies bool) (*store.RequestLogEntry, error) {
	var e store.RequestLogEntry
	var us int64
	dest := []any{&e.ID, &e.PartnerID, &e.Mode, &e.At, &e.Method, &e.Path, &e.Query, &e.Route, &e.Status, &e.ErrorCode, &us,
		&e.KeyID, &e.KeyPrefix, &e.ClientAddr, &e.UserAgent, &e.RequestID, &e.IdempotencyKey, &e.Console,
		&e.RequestSize, &e.ResponseSize}
	var encoding string
	if bodies {
		dest = append(dest, &e.RequestBody, &e.ResponseBody, &encoding)
	}
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	if bodies {
		var err error
		if e.RequestBody, err = DecodeRequestLogBody(encoding, e.RequestBody); err != nil {
			return nil, err
		}
		if e.ResponseBody, err = DecodeRequestLogBody(encoding, e.ResponseBody); err != nil {
			return nil, err
		}
	}
	e.At, e.Duration = e.At.UTC(), time.Duration(us)*time.Microsecond
	return &e, nil
}

func (s *DB) RequestLogList(ctx context.Context, f store.RequestLogFilter) ([]*store.RequestLogEntry, error) {
	q := s.requestLogs().queries
	where, args := "partner_id = $1", []any{f.PartnerID}
	add := func(cond string, vs ...any) {
		for _, v := range vs {
			args = append(args, v)
			cond = strings.Replace(cond, "?", placeholders(len(args), 1), 1)
		}
		where += " AND " + cond
	}
	if f.Mode != "" {
		add("mode = ?", string(f.Mode))
	}
	if f.StatusClass != 0 {
		add("status >= ? AND status < ?", f.StatusClass*100, (f.StatusClass+1)*100)
	}
	if f.Status != 0 {
		add("status = ?", f.Status)
	}
	if f.ErrorCode != "" {
		add("error_code = ?", f.ErrorCode)
	}
	if f.Method != "" {
		add("method = ?", f.Method)
	}
	if f.PathPrefix != "" {
		add(`path LIKE ? ESCAPE '\'`, likeEscape(f.PathPrefix)+"%")
	}
	if f.KeyPrefix != "" {
		add("key_prefix = ?", f.KeyPrefix)
	}
	if !f.From.IsZero() {
		add("at >= ?", ts(f.From))
	}
	if !f.To.IsZero() {
		add("at < ?", ts(f.To))
	}
	if f.RequestID != "" {
		add("request_id = ?", f.RequestID)
	}
	if !f.BeforeAt.IsZero() {
		add("(at < ? OR (at = ? AND id < ?))", ts(f.BeforeAt), ts(f.BeforeAt), f.BeforeID)
	}
	args = append(args, f.Limit)
	rows, err := q.db.QueryContext(ctx, `SELECT `+requestLogListColumns+` FROM request_logs WHERE `+where+
		` ORDER BY at DESC, id DESC LIMIT `+placeholders(len(args), 1), args...)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var out []*store.RequestLogEntry
	for rows.Next() {
		e, err := scanRequestLog(rows, false)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func (s *DB) RequestLogGet(ctx context.Context, partnerID, id int64) (*store.RequestLogEntry, error) {
	q := s.requestLogs().queries
	e, err := scanRequestLog(q.db.QueryRowContext(ctx, `SELECT `+requestLogListColumns+`, request_body, response_body, body_encoding
		FROM request_logs WHERE partner_id = $1 AND id = $2`, partnerID, id), true)
	return e, q.interpret(err)
}

// RequestLogPrune deletes partner by partner, each partner's oldest first, through
// request_logs_partner_at: the table keeps no index for retention alone (migration
// 00024), one index write fewer for every entry written.
func (s *DB) RequestLogPrune(ctx context.Context, p store.RequestLogPruneParams) (int, error) {
	q := s.requestLogs().queries
	partners, err := q.requestLogPartners(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, id := range partners {
		if total >= p.Limit {
			break
		}
		n, err := q.exec(ctx, `DELETE FROM request_logs WHERE id IN
			(SELECT id FROM request_logs WHERE partner_id = $1 AND mode = $2 AND at < $3 ORDER BY at LIMIT $4)`,
			id, string(p.Mode), ts(p.Before), p.Limit-total)
		if err != nil {
			return total, err
		}
		total += int(n)
	}
	return total, nil
}

// requestLogPartners lists the partners that have entries, one index probe each (a
// loose scan of request_logs_partner_at; entries of a partner row since removed
// included), in id order.
func (q *queries) requestLogPartners(ctx context.Context) ([]int64, error) {
	rows, err := q.db.QueryContext(ctx, `WITH RECURSIVE p(id) AS (
			SELECT MIN(partner_id) FROM request_logs
			UNION ALL
			SELECT (SELECT MIN(partner_id) FROM request_logs WHERE partner_id > p.id) FROM p WHERE p.id IS NOT NULL)
		SELECT id FROM p WHERE id IS NOT NULL`)
	if err != nil {
		return nil, q.interpret(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, q.interpret(err)
		}
		ids = append(ids, id)
	}
	return ids, q.interpret(rows.Err())
}
