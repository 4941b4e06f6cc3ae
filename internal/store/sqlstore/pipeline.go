package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
)

// BatchStmt is one statement of a batch (Dialect.SendBatch).
type BatchStmt struct {
	SQL  string
	Args []any
	// Rows makes the statement a query: Rows is called for each row it returns, with
	// scan, which reads the row into dest.
	Rows func(scan func(dest ...any) error) error
	// Failed, when set, gives the error the batch returns when this statement fails
	// (from the database's error): a statement that knows what its failure means.
	Failed func(err error) error
	// Commit marks the batch's COMMIT: a transaction that had failed answers it
	// ROLLBACK, without an error, which the batch then returns as ErrRolledBack.
	Commit bool
}

// ErrRolledBack: COMMIT found the transaction failed, and rolled it back.
var ErrRolledBack = errors.New("sqlstore: commit: the transaction had failed and was rolled back")

// deferredTx is a transaction's statements on a dialect that sends batches
// (Dialect.SendBatch, PostgreSQL): BEGIN, the savepoint statements a transaction takes
// or releases (and its SET LOCAL settings) are held back and sent with its next
// statement, in one round trip when that one is an Exec. They have no result of their
// own to wait for: what matters is that they reach the database, in order, before
// anything that follows them, and a failure of one fails the statement they travel
// with (the batch stops at the first error). The statements a transaction leaves for
// its end (atCommit: the group's credit draws) are sent with COMMIT, with whatever is
// held then, in one round trip. A transaction that sent nothing sends nothing.
type deferredTx struct {
	dbtx
	conn     *sql.Conn
	send     func(ctx context.Context, conn *sql.Conn, stmts []BatchStmt) (int64, error)
	held     []string
	atCommit []BatchStmt
	sent     bool  // something reached the database: it holds the transaction open
	failed   error // a held statement that could not be sent: the transaction must not commit
	oneText  bool  // held statements may be sent alone as one text (Dialect.MultiStatement)
}

// beginHeld starts a transaction whose BEGIN travels with its first statement.
func beginHeld(db dbtx, conn *sql.Conn, d *Dialect) *deferredTx {
	return &deferredTx{dbtx: db, conn: conn, send: d.SendBatch, oneText: d.MultiStatement, held: []string{"BEGIN"}}
}

// leaveForCommit keeps st to be sent with COMMIT.
func (t *deferredTx) leaveForCommit(st BatchStmt) { t.atCommit = append(t.atCommit, st) }

// commit sends what is held and left for COMMIT, and COMMIT, in one round trip.
func (t *deferredTx) commit(ctx context.Context) error {
	if t.failed != nil {
		return t.failed
	}
	if !t.sent && len(t.atCommit) == 0 {
		t.held = nil // BEGIN and what followed it, with nothing after: no transaction
		return nil
	}
	stmts := batchOf(t.held, BatchStmt{})
	stmts = append(stmts, t.atCommit...)
	stmts = append(stmts, BatchStmt{SQL: "COMMIT", Commit: true})
	t.held, t.atCommit, t.sent = nil, nil, true
	_, err := t.send(ctx, t.conn, stmts)
	return err
}

// rollback ends a transaction that did not commit. A connection that cannot say
// ROLLBACK is not given back to the pool (which would find it in a transaction and
// drop it anyway).
func (t *deferredTx) rollback(ctx context.Context) {
	if !t.sent {
		return
	}
	if _, err := t.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
		_ = t.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}

// hold keeps stmt for the next statement.
func (t *deferredTx) hold(stmt string) { t.held = append(t.held, stmt) }

// flush sends the held statements alone, before a statement that cannot travel with
// them (a query, whose rows database/sql must read).
func (t *deferredTx) flush(ctx context.Context) error {
	if t.failed != nil {
		return t.failed
	}
	if len(t.held) == 0 {
		return nil
	}
	held := t.held
	t.held, t.sent = nil, true
	var err error
	if t.oneText {
		_, err = t.dbtx.ExecContext(ctx, strings.Join(held, "; "))
	} else {
		_, err = t.send(ctx, t.conn, batchOf(held, BatchStmt{}))
	}
	if err != nil {
		t.failed = err
	}
	return err
}

func batchOf(held []string, last BatchStmt) []BatchStmt {
	out := make([]BatchStmt, 0, len(held)+1)
	for _, s := range held {
		out = append(out, BatchStmt{SQL: s})
	}
	if last.SQL != "" {
		out = append(out, last)
	}
	return out
}

// batchResult is the sql.Result of an Exec sent in a batch.
type batchResult int64

func (r batchResult) LastInsertId() (int64, error) {
	return 0, errors.New("sqlstore: no LastInsertId in a batch")
}
func (r batchResult) RowsAffected() (int64, error) { return int64(r), nil }

// ExecContext sends the held statements and this one in one round trip.
func (t *deferredTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if t.failed != nil {
		return nil, t.failed
	}
	t.sent = true
	if len(t.held) == 0 {
		return t.dbtx.ExecContext(ctx, query, args...)
	}
	held := t.held
	t.held = nil
	n, err := t.send(ctx, t.conn, batchOf(held, BatchStmt{SQL: query, Args: args}))
	if err != nil {
		return nil, err
	}
	return batchResult(n), nil
}

// queryEach sends the held statements and the query in one round trip, and calls row
// for each of its rows; false, with nothing sent, when no statement is held (the query
// runs as any other).
func (t *deferredTx) queryEach(ctx context.Context, query string, args []any, row func(scan func(dest ...any) error) error) (bool, error) {
	if t.failed != nil {
		return true, t.failed
	}
	if len(t.held) == 0 {
		return false, nil
	}
	held := t.held
	t.held, t.sent = nil, true
	_, err := t.send(ctx, t.conn, batchOf(held, BatchStmt{SQL: query, Args: args, Rows: row}))
	return true, err
}

// QueryContext sends the held statements first: a query's rows are read through
// database/sql, which a batch does not answer (queryEach reads them from the batch).
func (t *deferredTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	return t.dbtx.QueryContext(ctx, query, args...)
}

// QueryRowContext is QueryContext's for one row. A *sql.Row cannot carry the held
// statements' failure, and the query must not run: its BEGIN may be what failed, and
// it would run outside the transaction. It is given a done context instead, so that
// its Scan fails (with the context's error) and nothing is sent; failed keeps the
// transaction from committing.
func (t *deferredTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if err := t.flush(ctx); err != nil {
		done, cancel := context.WithCancel(ctx)
		cancel()
		return t.dbtx.QueryRowContext(done, query, args...)
	}
	return t.dbtx.QueryRowContext(ctx, query, args...)
}

func (t *deferredTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	return t.dbtx.PrepareContext(ctx, query)
}

// queryEach runs query and calls row for each of its rows; in a transaction that holds
// statements back (deferredTx) they travel with it, one round trip.
func (q *queries) queryEach(ctx context.Context, query string, args []any, row func(scan func(dest ...any) error) error) error {
	if t := q.deferred(); t != nil {
		if sent, err := t.queryEach(ctx, query, args, row); sent {
			return q.interpret(err)
		}
	}
	rows, err := q.db.QueryContext(ctx, query, args...)
	if err != nil {
		return q.interpret(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return err
		}
	}
	return q.interpret(rows.Err()) // a unique key's refusal may come with a later row
}

// deferred returns the transaction's deferredTx; nil outside a transaction or on a
// dialect without batches.
func (q *queries) deferred() *deferredTx {
	t, _ := q.db.(*deferredTx)
	return t
}

// flushHeld sends the held statements before the transaction's connection is used
// directly (COPY).
func (q *queries) flushHeld(ctx context.Context) error {
	if t := q.deferred(); t != nil {
		return t.flush(ctx)
	}
	return nil
}
