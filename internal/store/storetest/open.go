// Package storetest opens fresh test databases of both kinds and holds the conformance
// suite that every store implementation must pass.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/tradewind/tradewind/internal/store/postgres"
	"github.com/tradewind/tradewind/internal/store/sqlite"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
)

// PostgresURL is the server the tests use: TRADEWIND_TEST_POSTGRES, or the local one.
func PostgresURL() string {
	if u := os.Getenv("TRADEWIND_TEST_POSTGRES"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// Opener opens a fresh, migrated, empty database for one test.
type Opener struct {
	Name string
	Open func(tb testing.TB) *sqlstore.DB
	// DSN returns a DSN of a fresh database, for tests that run the whole binary or
	// several servers on one database.
	DSN func(tb testing.TB) string
}

// Openers returns both databases. PostgreSQL is never skipped: CI provides it.
func Openers() []Opener {
	return []Opener{
		{Name: "sqlite", Open: OpenSQLite, DSN: SQLiteDSN},
		{Name: "postgres", Open: OpenPostgres, DSN: PostgresDSN},
	}
}

// SQLiteDSN returns the DSN of a new database file in a temporary directory, removed
// when the test ends (after the stores opened on it are closed, whose cleanups run
// first).
func SQLiteDSN(tb testing.TB) string {
	tb.Helper()
	return "sqlite:" + SQLitePath(tb, "tradewind.db")
}

// SQLitePath is the path of a SQLite file named name in a new temporary directory,
// removed when tb ends (removeTempDir: not t.TempDir, whose removal does not try again).
func SQLitePath(tb testing.TB, name string) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "tradewind-sqlite-")
	if err != nil {
		tb.Fatalf("sqlite temp dir: %v", err)
	}
	tb.Cleanup(func() { removeTempDir(tb, dir) })
	return filepath.Join(dir, name)
}

// removeTempDir removes dir, trying again for a while: a connection that
// database/sql was still opening when its pool closed can open and close the file once
// more, creating and deleting its -wal and -shm files while the directory is being
// emptied ("directory not empty", seen once in CI with t.TempDir).
func removeTempDir(tb testing.TB, dir string) {
	var err error
	for range 50 {
		if err = os.RemoveAll(dir); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	tb.Errorf("remove %s: %v", dir, err)
}

// OpenSQLite opens a new SQLite database file in a temporary directory.
func OpenSQLite(tb testing.TB) *sqlstore.DB {
	tb.Helper()
	s, err := sqlite.Open(context.Background(), strings.TrimPrefix(SQLiteDSN(tb), "sqlite:"))
	if err != nil {
		tb.Fatalf("open sqlite: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// PostgresDSN creates a schema of its own for the test on the test server and returns
// a DSN whose search_path points at it; the schema is dropped when the test ends.
func PostgresDSN(tb testing.TB) string {
	tb.Helper()
	base := PostgresURL()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatalf("postgres: %v", err)
	}
	defer admin.Close()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		tb.Fatalf("postgres at %s is not answering (CI starts it; run .ci/run or start PostgreSQL): %v", base, err)
	}
	tb.Cleanup(func() {
		admin, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer admin.Close()
		_, _ = admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

// OpenPostgres opens a fresh schema on the test PostgreSQL server.
func OpenPostgres(tb testing.TB) *sqlstore.DB {
	tb.Helper()
	s, err := postgres.Open(context.Background(), PostgresDSN(tb))
	if err != nil {
		tb.Fatalf("open postgres: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}
