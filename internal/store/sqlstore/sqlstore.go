// Package sqlstore implements store.Store over database/sql with one SQL text for
// both databases: modernc SQLite and pgx both bind $N parameters by number. A Dialect
// supplies what differs: migrations, error translation, retry rules and how a JSON list
// column is searched. Every list column holds a JSON array of strings.
package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/tradewind/tradewind/internal/store"
)

//go:embed migrations
var migrations embed.FS

// Dialect is what one database does differently.
type Dialect struct {
	Name  string        // "sqlite" or "postgres"
	Goose goose.Dialect // migration dialect
	// IsConflict reports a unique-constraint violation.
	IsConflict func(error) bool
	// IsRetryable reports a transaction aborted for concurrency that may be run again.
	IsRetryable func(error) bool
	// IsCreditRefused reports the error of a credit draw made to fail when refused
	// (CreditDrawAll where it travels with COMMIT; migration 00035 on PostgreSQL).
	IsCreditRefused func(error) bool
	// ForUpdate locks the rows a SELECT reads until the transaction ends (" FOR UPDATE");
	// empty where every transaction holds the database's write lock (SQLite).
	ForUpdate string
	// ForUpdateSkipLocked is ForUpdate that skips rows another transaction holds, so
	// that concurrent claims take disjoint rows (" FOR UPDATE SKIP LOCKED"); empty for SQLite.
	ForUpdateSkipLocked string
	// JSONListHas is a condition true when the JSON array of strings in column holds
	// the text parameter param (e.g. "$1"): how a list column is searched.
	JSONListHas func(column, param string) string
	// UTCDay is an expression of the UTC date of the time column, as text YYYY-MM-DD.
	UTCDay func(column string) string
	// BeforeAnalyze, when set, runs on the connection of ANALYZE just before it (SQLite:
	// a sampling limit, without which ANALYZE reads every row of every index).
	BeforeAnalyze string
	// Anonymous makes bulk multi-row statements bind "?" rather than "$N": modernc
	// SQLite looks each numbered parameter up by a linear scan, which makes a statement
	// of thousands of them quadratic.
	Anonymous bool
	// DriverBatches makes a transaction's bulk multi-row statements go straight to the
	// driver's connection with one reused argument slice (SQLite): database/sql checks
	// and copies every value into a new slice per statement, which at 30 000 values a
	// statement was a large share of a catalog import's CPU and garbage.
	DriverBatches bool
	// CopyFrom, where set, bulk-loads n rows (row(i) gives the values of row i in the
	// order of columns) into table over the connection of the current transaction
	// (PostgreSQL: COPY). Nil: bulk writes use batched multi-row INSERTs.
	CopyFrom func(ctx context.Context, conn *sql.Conn, table string, columns []string, n int, row func(i int) []any) error
	// WritableCTE: a statement may INSERT in its WITH clause (PostgreSQL), which joins
	// dependent writes into one statement, one round trip.
	WritableCTE bool
	// MultiStatement: a statement text without parameters may hold several statements,
	// sent in one round trip (PostgreSQL's simple protocol, which pgx uses for them).
	// Not SQLite's: a prepared text runs its first statement only.
	MultiStatement bool
	// InventoryKeyDroppable: a first import may drop inventory's primary key and build
	// it, sorted, before commit (PostgreSQL; SQLite's WITHOUT ROWID inventory is its key).
	InventoryKeyDroppable bool
	// BulkLoadSession, when set, is run on the connection of a bulk load's transaction
	// (store.WithBulkLoad) before it begins ([0]) and after it ends ([1]): settings that
	// cannot change inside a transaction (SQLite's temp_store).
	BulkLoadSession [2]string
	// BeforeIndexBuild, when set, runs in the transaction just before a first import
	// builds inventory's primary key (PostgreSQL: SET LOCAL maintenance_work_mem).
	BeforeIndexBuild string
	// EventInsertOrder is the column that orders events as they were inserted, which
	// the feed's sequencer follows within one batch of committed events.
	EventInsertOrder string
	// IndexedBy, where set, follows a table's name to make a statement read it through
	// the index named after it (SQLite: " INDEXED BY "). Only the sequencers' reads of
	// what is not sequenced yet use it (queue.go): their partial indexes are queues, and
	// the statistics an ANALYZE took while the queue held every row (after an import)
	// make the planner scan the whole table instead. PostgreSQL needs no hint: ordered
	// as the partial index is, its read is the plan whatever the statistics.
	IndexedBy string
	// SendBatch, where set, sends stmts on the transaction's connection conn in one
	// round trip (PostgreSQL: a pgx batch) and returns the rows the last one affected;
	// the first that fails stops the rest and is the error. A transaction then holds
	// its savepoint statements back and sends them with its next statement (deferredTx).
	SendBatch func(ctx context.Context, conn *sql.Conn, stmts []BatchStmt) (int64, error)
	// LockTimeout, where set, is the statement that bounds a transaction's lock waits
	// to %d milliseconds, 0 for none (store.LockWaits; PostgreSQL's SET LOCAL lock_timeout).
	LockTimeout string
	// StmtCache prepares each statement text of a transaction once on the writer and
	// reuses it (stmtcache.go): SQLite, whose driver parses the text on every call
	// otherwise. pgx keeps its own cache of prepared statements per connection.
	StmtCache bool
	// Migrations is the folder under migrations/ that the database's schema comes from;
	// empty: Name. (SQLite's request log file has a schema of its own.)
	Migrations string
}

// DB is a store.Store over one *sql.DB, or over a writer and a pool of readers.
type DB struct {
	*queries
	db      *sql.DB // every transaction and every statement that writes
	reader  *sql.DB // statements outside a transaction that only read; db when nil
	dialect Dialect
	stmts   *stmtCache // prepared statements of the writer (db); nil without Dialect.StmtCache
	rstmts  *stmtCache // prepared statements of the readers; nil without Dialect.StmtCache or reader
	// reqlogInsert is the request log's insert of a full batch, prepared once (reqlog.go).
	reqlogInsert struct {
		sync.Mutex
		stmt *sql.Stmt
	}
	// logs holds the request log's entries when they live in a database of their own
	// (SetRequestLogs); nil: in this one.
	logs *DB
	// onClose runs first in Close (OnClose): helpers of the store's own, such as
	// SQLite's checkpointer, stopped before its connections close.
	onClose []func()
}

// OnClose makes Close run fn first. Called before the store is used.
func (s *DB) OnClose(fn func()) { s.onClose = append(s.onClose, fn) }

// SetRequestLogs makes logs, a database of the request log's own schema, hold the
// request log's entries (store.RequestLogs) from now on; Close closes it. Called once,
// before the store is used.
func (s *DB) SetRequestLogs(logs *DB) { s.logs = logs }

// requestLogs is the database that holds the request log's entries.
func (s *DB) requestLogs() *DB {
	if s.logs != nil {
		return s.logs
	}
	return s
}

// RequestLogSQL returns the database of the request log's entries (the writer where
// there is a read pool), for tests and operator tooling: SQL() unless they live in a
// database of their own.
func (s *DB) RequestLogSQL() *sql.DB { return s.requestLogs().db }

// New wraps db, which the caller opened with the dialect's driver.
func New(db *sql.DB, d Dialect) *DB {
	s := &DB{db: db, dialect: d}
	s.queries = &queries{db: db, d: &s.dialect}
	// Only over one connection (SQLite's ":memory:"): the cache prepares in the
	// background, which on another connection of a pool in rollback-journal mode
	// would hold a read lock that a writer meets as SQLITE_BUSY.
	if d.StmtCache && db.Stats().MaxOpenConnections == 1 {
		s.stmts = newStmtCache(db)
		s.queries.db = cachedPool{db: db, cache: s.stmts}
	}
	return s
}

// NewSplit wraps a writer and a pool of read-only connections to the same database
// (SQLite in WAL mode): transactions and writes run on writer, whose pool the caller
// limits to one connection so that writers queue in Go rather than on the database's
// lock; a statement outside a transaction that starts with SELECT runs on reader.
func NewSplit(writer, reader *sql.DB, d Dialect) *DB {
	s := &DB{db: writer, reader: reader, dialect: d}
	sp := split{w: writer, r: reader}
	if d.StmtCache {
		s.stmts, s.rstmts = newStmtCache(writer), newStmtCache(reader)
		sp = split{w: cachedPool{db: writer, cache: s.stmts}, r: cachedPool{db: reader, cache: s.rstmts}}
	}
	s.queries = &queries{db: sp, d: &s.dialect}
	return s
}

// split routes each statement outside a transaction by what it does.
type split struct{ w, r dbtx }

// pick returns the reader for a statement that starts with SELECT (which never writes
// in SQLite), the writer for anything else (WITH may carry an UPDATE).
func (s split) pick(query string) dbtx {
	q := strings.TrimLeft(query, " \t\r\n")
	if len(q) >= 6 && strings.EqualFold(q[:6], "SELECT") {
		return s.r
	}
	return s.w
}

func (s split) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.pick(query).ExecContext(ctx, query, args...)
}
func (s split) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return s.pick(query).QueryContext(ctx, query, args...)
}
func (s split) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return s.pick(query).QueryRowContext(ctx, query, args...)
}
func (s split) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return s.pick(query).PrepareContext(ctx, query)
}

// Migrate applies every pending migration.
func (s *DB) Migrate(ctx context.Context) error {
	return s.MigrateTo(ctx, 0)
}

// MigrateTo applies the pending migrations up to version (0: all of them); tests use
// it to write rows in an older schema and migrate them.
func (s *DB) MigrateTo(ctx context.Context, version int64) error {
	p, err := s.migrations()
	if err != nil {
		return err
	}
	if version == 0 {
		_, err = p.Up(ctx)
	} else {
		_, err = p.UpTo(ctx, version)
	}
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	return nil
}

// migrations is the goose provider of the dialect's migrations on s.
func (s *DB) migrations() (*goose.Provider, error) {
	dir := s.dialect.Migrations
	if dir == "" {
		dir = s.dialect.Name
	}
	sub, err := fs.Sub(migrations, "migrations/"+dir)
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(s.dialect.Goose, s.db, sub)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// SQL returns the underlying database (the writer where there is a read pool), for
// tests and operator tooling.
func (s *DB) SQL() *sql.DB { return s.db }

// Dialect names the database.
func (s *DB) Dialect() string { return s.dialect.Name }

// Ping checks that the database answers.
func (s *DB) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// Analyze refreshes the planner's statistics; both databases accept a bare ANALYZE.
func (s *DB) Analyze(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if s.dialect.BeforeAnalyze != "" {
		if _, err := conn.ExecContext(ctx, s.dialect.BeforeAnalyze); err != nil {
			return err
		}
	}
	_, err = conn.ExecContext(ctx, "ANALYZE")
	return err
}

// Close closes the database.
func (s *DB) Close() error {
	for _, fn := range s.onClose {
		fn()
	}
	s.onClose = nil
	if s.stmts != nil {
		s.stmts.close()
	}
	if s.rstmts != nil {
		s.rstmts.close()
	}
	s.reqlogInsert.Lock()
	stmt := s.reqlogInsert.stmt
	s.reqlogInsert.stmt = nil
	s.reqlogInsert.Unlock()
	if stmt != nil {
		_ = stmt.Close() // outside the lock, as stmtCache.close does
	}
	if s.reader != nil {
		_ = s.reader.Close()
	}
	if s.logs != nil {
		_ = s.logs.Close()
	}
	return s.db.Close()
}

// InTx runs fn in a transaction, retrying it when the database aborted it for
// concurrency (deadlock or serialization failure).
func (s *DB) InTx(ctx context.Context, fn func(q store.Querier) error) error {
	const attempts = 5
	var err error
	for i := 0; i < attempts; i++ {
		err = s.inTxOnce(ctx, fn)
		if err == nil || !s.dialect.IsRetryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * 10 * time.Millisecond):
		}
	}
	return err
}

func (s *DB) inTxOnce(ctx context.Context, fn func(q store.Querier) error) (err error) {
	// The transaction runs on a connection of its own, which the dialect's bulk load
	// (CopyFrom) reaches through conn.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer conn.Close()
	if setup := s.dialect.BulkLoadSession; setup[0] != "" && store.IsBulkLoad(ctx) {
		if _, err := conn.ExecContext(ctx, setup[0]); err != nil {
			return fmt.Errorf("bulk load session: %w", err)
		}
		defer func() {
			// Put back even when ctx is done: the connection returns to the pool.
			if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), setup[1]); rerr != nil {
				_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // never reused as set up
				if err == nil {
					err = fmt.Errorf("bulk load session: %w", rerr)
				}
			}
		}()
	}
	run := s.inSQLTx
	if s.dialect.SendBatch != nil {
		run = s.inHeldTx
	}
	if err = run(ctx, conn, fn); err != nil {
		return err
	}
	store.AfterCommit(ctx)
	return nil
}

// inSQLTx runs fn in a transaction of database/sql's on conn.
func (s *DB) inSQLTx(ctx context.Context, conn *sql.Conn, fn func(q store.Querier) error) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	// Rolled back unless committed: on an error, and on a panic in fn, whose unwinding
	// would otherwise wait in conn.Close for the open transaction to end, holding the
	// connection (on SQLite the one writer) for ever.
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	var db dbtx = tx
	if s.stmts != nil {
		db = cachedTx{tx: tx, cache: s.stmts}
	}
	if err = fn(&queries{db: db, d: &s.dialect, conn: conn}); err != nil {
		return err
	}
	committed = true // a failed COMMIT ends the transaction too
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// inHeldTx runs fn in a transaction on a dialect that sends batches (PostgreSQL),
// written by hand on conn rather than through database/sql's Tx: its BEGIN travels
// with its first statement, and its COMMIT with the statements left for it (deferredTx),
// two round trips fewer than BEGIN and COMMIT alone, besides what they carry. Rolled
// back unless committed, on an error and on a panic in fn.
func (s *DB) inHeldTx(ctx context.Context, conn *sql.Conn, fn func(q store.Querier) error) (err error) {
	t := beginHeld(conn, conn, &s.dialect)
	committed := false
	defer func() {
		if !committed {
			t.rollback(ctx)
		}
	}()
	q := &queries{db: t, d: &s.dialect, conn: conn}
	if err = fn(q); err != nil {
		return err
	}
	if err = t.commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", q.interpret(err))
	}
	committed = true
	return nil
}

// dbtx is what *sql.DB and *sql.Tx have in common.
type dbtx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// queries implements store.Querier on a database or a transaction.
type queries struct {
	db   dbtx
	d    *Dialect
	conn *sql.Conn // the transaction's connection; nil outside a transaction
}

// interpret translates native errors into the store's sentinels.
func (q *queries) interpret(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return store.ErrNotFound
	case q.d.IsConflict(err):
		return fmt.Errorf("%w: %v", store.ErrConflict, err)
	}
	return err
}

func (q *queries) exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.db.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, q.interpret(err)
	}
	return res.RowsAffected()
}

// ts stores times in UTC at the microsecond precision both databases keep.
func ts(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Truncate(time.Microsecond)
}

func fromNull(t sql.NullTime) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
