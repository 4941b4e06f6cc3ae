package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlite"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

func logEntry(path string, at time.Time) *store.RequestLogEntry {
	body := []byte(`{"hello":"world"}`)
	return &store.RequestLogEntry{PartnerID: 1, Mode: tradewind.ModeTest, At: at, Method: "POST", Path: path, Route: path,
		Status: 200, RequestBody: body, RequestSize: int64(len(body)), ResponseBody: body, ResponseSize: int64(len(body))}
}

// TestRequestLogBesideTheWriter: the request log's entries are written by a writer of
// their own, in their own file: a batch is written while a transaction holds the main
// writer, and a booking's write goes on while the log's writer is in a transaction.
// (On one file and one writer, each would wait for the other.)
func TestRequestLogBesideTheWriter(t *testing.T) {
	ctx := context.Background()
	st, path := openStore(t)
	now := time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC)
	p := &tradewind.Partner{Name: "acme", PricingMode: "net", Currency: "EUR", CreditLimit: 1000, RateLimit: 120, CreatedAt: now}
	if err := st.PartnerCreate(ctx, p); err != nil {
		t.Fatal(err)
	}
	// A generous bound, only so that a write stuck behind the other writer fails
	// instead of hanging the test.
	bounded, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

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
	if err := st.RequestLogInsert(bounded, []*store.RequestLogEntry{logEntry("/a", now)}); err != nil {
		t.Fatalf("log entry written while the main writer is held: %v", err)
	}
	close(release)
	if err := <-txDone; err != nil {
		t.Fatal(err)
	}

	// The log's writer held by a transaction of its own.
	logTx, err := st.RequestLogSQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer logTx.Rollback() //nolint:errcheck
	if _, err := logTx.ExecContext(ctx, `DELETE FROM request_logs`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreditDraw(bounded, p.ID, 50); err != nil {
		t.Fatalf("main write while the log's writer is held: %v", err)
	}
	if err := logTx.Rollback(); err != nil {
		t.Fatal(err)
	}

	got, err := st.RequestLogList(ctx, store.RequestLogFilter{PartnerID: 1, Limit: 10})
	if err != nil || len(got) != 1 || got[0].Path != "/a" {
		t.Fatalf("entries: %v, %v; want the one written", got, err)
	}
	var tables int
	if err := st.SQL().QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'request_logs'`).Scan(&tables); err != nil || tables != 0 {
		t.Errorf("main file's request_logs tables: %d, %v; want none", tables, err)
	}
	if got, want := sqlite.RequestLogPath(path), filepath.Join(filepath.Dir(path), "tw.requestlog.db"); got != want {
		t.Errorf("RequestLogPath = %q, want %q", got, want)
	}
}

// TestOpenMovesRequestLogs: a file written when the entries lived in the main file has
// them moved into the log's file at Open, ids kept, and the main file's table dropped;
// a move cut short after the log's file committed (an entry already there) is finished
// without duplicates, and new entries take ids after the moved ones.
func TestOpenMovesRequestLogs(t *testing.T) {
	ctx := context.Background()
	path := storetest.SQLitePath(t, "old.db")
	at := time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC)

	// The main file as it was: its entries in its own request_logs.
	old := openPlain(t, path, sqlite.Dialect)
	var entries []*store.RequestLogEntry
	for i, p := range []string{"/one", "/two", "/three"} {
		entries = append(entries, logEntry(p, at.Add(time.Duration(i)*time.Second)))
	}
	if err := old.RequestLogInsert(ctx, entries); err != nil {
		t.Fatal(err)
	}
	old.Close()
	// The log's file already holds entry 1, as after a move whose log file committed and
	// whose main file did not.
	cut := openPlain(t, sqlite.RequestLogPath(path), sqlite.RequestLogDialect)
	if err := cut.RequestLogInsert(ctx, entries[:1]); err != nil {
		t.Fatal(err)
	}
	cut.Close()

	for range 2 { // a second Open finds nothing to move
		st, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.RequestLogList(ctx, store.RequestLogFilter{PartnerID: 1, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, e := range got {
			paths = append(paths, e.Path)
			if e.ID < 1 || e.ID > 3 || e.Path != entries[e.ID-1].Path {
				t.Errorf("entry %d: %s, want %s", e.ID, e.Path, entries[min(max(e.ID, 1), 3)-1].Path)
			}
		}
		if len(got) != 3 {
			t.Errorf("entries after the move: %v, want the three", paths)
		}
		st.Close()
	}
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.RequestLogInsert(ctx, []*store.RequestLogEntry{logEntry("/four", at.Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	got, err := st.RequestLogList(ctx, store.RequestLogFilter{PartnerID: 1, Limit: 1})
	if err != nil || len(got) != 1 || got[0].ID != 4 || got[0].Path != "/four" {
		t.Fatalf("newest entry: %+v, %v; want id 4", got, err)
	}
}

// openPlain opens path as one store of dialect d, migrated, without Open's split.
func openPlain(t *testing.T, path string, d sqlstore.Dialect) *sqlstore.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	s := sqlstore.New(db, d)
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}
