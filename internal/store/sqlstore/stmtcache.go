package sqlstore

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps one prepared statement per SQL text of the store's writer, so that a
// transaction on the writer connection runs each statement without parsing it again
// (modernc SQLite prepares a statement's text on every call otherwise: a booking spent
// about a third of its time in SQLite's parser). database/sql prepares a cached
// statement once per connection and Tx.StmtContext reuses it on the transaction's
// connection. Only short texts are kept, and at most stmtCacheMax of them: bulk
// statements of many rows are built per call and are prepared once each as before.
// Used where the writer is one connection (sqlite.Open): NewSplit, and New over a pool
// of one connection; the readers of NewSplit (WAL, query-only) have a cache of their own.
type stmtCache struct {
	db     *sql.DB
	mu     sync.Mutex
	m      map[string]*sql.Stmt // nil value: being prepared, or not preparable
	closed bool
}

const (
	stmtCacheMax     = 512  // texts kept
	stmtCacheMaxText = 4096 // bytes of the longest text kept
)

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: map[string]*sql.Stmt{}}
}

// get returns the cached statement of query; nil on a miss, which the caller runs
// unprepared. A miss prepares the text in the background for the next transaction:
// not here, since the transaction holds the writer's one connection, which
// DB.PrepareContext would wait for.
func (c *stmtCache) get(query string) *sql.Stmt {
	if len(query) > stmtCacheMaxText {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st // nil while being prepared, or when it could not be
	}
	if len(c.m) >= stmtCacheMax || c.closed {
		return nil
	}
	c.m[query] = nil
	go c.prepare(query)
	return nil
}

func (c *stmtCache) prepare(query string) {
	st, err := c.db.PrepareContext(context.Background(), query)
	if err != nil {
		return // stays nil: run unprepared
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		_ = st.Close()
		return
	}
	c.m[query] = st
}

// close closes every cached statement. It closes them after letting go of the cache's
// lock: Stmt.Close waits for the statement's running calls, and one of them may wait
// for the writer connection, held by a transaction that asks the cache for its next
// statement.
func (c *stmtCache) close() {
	c.mu.Lock()
	c.closed = true
	stmts := make([]*sql.Stmt, 0, len(c.m))
	for k, st := range c.m {
		if st != nil {
			stmts = append(stmts, st)
		}
		delete(c.m, k)
	}
	c.mu.Unlock()
	for _, st := range stmts {
		_ = st.Close()
	}
}

// cachedTx runs a transaction's statements through the cache.
type cachedTx struct {
	tx    *sql.Tx
	cache *stmtCache
}

func (t cachedTx) stmt(ctx context.Context, query string) *sql.Stmt {
	if st := t.cache.get(query); st != nil {
		return t.tx.StmtContext(ctx, st)
	}
	return nil
}

func (t cachedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

func (t cachedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

func (t cachedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}

func (t cachedTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return t.tx.PrepareContext(ctx, query)
}

// cachedPool runs the statements of a pool (outside transactions) through its cache:
// database/sql prepares a cached statement on each connection it runs on, once.
type cachedPool struct {
	db    *sql.DB
	cache *stmtCache
}

func (p cachedPool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := p.cache.get(query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return p.db.ExecContext(ctx, query, args...)
}

func (p cachedPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := p.cache.get(query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return p.db.QueryContext(ctx, query, args...)
}

func (p cachedPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := p.cache.get(query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return p.db.QueryRowContext(ctx, query, args...)
}

func (p cachedPool) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return p.db.PrepareContext(ctx, query)
}
