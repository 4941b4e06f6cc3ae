package sqlstore

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// TestStmtCacheCloseWhileInUse: closing the cache while a cached statement waits for the
// writer's one connection, held by a transaction, must not stop that transaction from
// asking the cache for its next statement (a deadlock seen when a test closed the store
// under a running job).
func TestStmtCacheCloseWhileInUse(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	c := newStmtCache(db)
	const insert = `INSERT INTO t VALUES (?)`
	c.get(insert) // a miss: prepared in the background
	var st *sql.Stmt
	for deadline := time.Now().Add(10 * time.Second); st == nil; {
		if time.Now().After(deadline) {
			t.Fatal("the statement was never prepared")
		}
		time.Sleep(time.Millisecond)
		st = c.get(insert)
	}
	tx, err := db.BeginTx(ctx, nil) // holds the only connection
	if err != nil {
		t.Fatal(err)
	}
	execDone := make(chan error, 1)
	go func() { _, err := st.ExecContext(ctx, 1); execDone <- err }() // waits for the connection
	time.Sleep(50 * time.Millisecond)
	closed := make(chan struct{})
	go func() { c.close(); close(closed) }() // waits for the running ExecContext
	time.Sleep(50 * time.Millisecond)
	asked := make(chan struct{})
	go func() { c.get(`SELECT 1`); close(asked) }() // the transaction's next statement
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("asking the cache waits for its close: the transaction can never end")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-execDone; err != nil {
		t.Fatal(err)
	}
	<-closed
	if c.get(insert) != nil {
		t.Fatal("a closed cache still hands out statements")
	}
}
