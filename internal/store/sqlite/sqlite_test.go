package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlite"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// openStore opens a new SQLite file store, as serve does, closed when t ends; path is
// its file.
func openStore(t *testing.T) (st *sqlstore.DB, path string) {
	t.Helper()
	path = storetest.SQLitePath(t, "tw.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

// TestReadsBesideTheWriterWritesQueue: while a transaction holds the one writer
// connection, reads outside it are answered by the read pool, and a write waits for
// the writer in Go and succeeds once the transaction commits (no SQLITE_BUSY).
func TestReadsBesideTheWriterWritesQueue(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	now := time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC)
	p := &tradewind.Partner{Name: "acme", PricingMode: "net", Currency: "EUR", CreditLimit: 1000, RateLimit: 120, CreatedAt: now}
	if err := st.PartnerCreate(ctx, p); err != nil {
		t.Fatal(err)
	}

	inTx, release, txDone := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		txDone <- st.InTx(ctx, func(q store.Querier) error {
			if _, err := q.CreditDraw(ctx, p.ID, 100); err != nil {
				return err
			}
			close(inTx)
			<-release
			return nil
		})
	}()
	<-inTx
	// A generous bound, only so that a read stuck behind the writer fails instead of
	// hanging the test: the read pool answers at once.
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	got, err := st.PartnerGetByID(rctx, p.ID)
	if err != nil {
		t.Fatalf("read while the writer is held: %v", err)
	}
	if got.CreditUsed != 0 {
		t.Errorf("read saw the open transaction's draw: %d", got.CreditUsed)
	}
	wrote := make(chan error, 1)
	go func() { _, err := st.CreditDraw(ctx, p.ID, 50); wrote <- err }()
	close(release)
	if err := <-txDone; err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("write queued behind the transaction: %v", err)
	}
	if got, _ := st.PartnerGetByID(ctx, p.ID); got.CreditUsed != 150 {
		t.Errorf("credit used = %d; want 150", got.CreditUsed)
	}
}

// TestBulkLoadSortsInFiles: a bulk load's transaction (a catalog import) runs with
// temp_store FILE, so that its index build sorts in temporary files, not in the
// process's memory; before and after it the writer keeps temp_store MEMORY.
func TestBulkLoadSortsInFiles(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	tempStore := func() int {
		t.Helper()
		var v int
		if err := st.SQL().QueryRowContext(ctx, `PRAGMA temp_store`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := tempStore(); v != 2 {
		t.Fatalf("writer temp_store = %d, want 2 (MEMORY)", v)
	}
	for _, fail := range []bool{false, true} {
		err := st.InTx(store.WithBulkLoad(ctx), func(q store.Querier) error {
			if err := q.InventoryIndexesDrop(ctx); err != nil {
				return err
			}
			if err := q.InventoryIndexesCreate(ctx); err != nil {
				return err
			}
			if fail {
				return errors.New("roll back")
			}
			return nil
		})
		if (err != nil) != fail {
			t.Fatalf("bulk load (fail %v) = %v", fail, err)
		}
		if v := tempStore(); v != 2 {
			t.Errorf("writer temp_store after a bulk load (fail %v) = %d, want 2 (MEMORY)", fail, v)
		}
	}
}

// TestCommitsDurable: the main file's writer syncs the WAL at every COMMIT (synchronous
// FULL), so that a confirmed booking survives a crash of the machine, not only of the
// process; the request log's file syncs at checkpoints only (NORMAL).
func TestCommitsDurable(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	for _, c := range []struct {
		name string
		db   *sql.DB
		want int // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{{"main file's writer", st.SQL(), 2}, {"request log's writer", st.RequestLogSQL(), 1}} {
		var got int
		if err := c.db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&got); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: synchronous = %d; want %d", c.name, got, c.want)
		}
	}
}
