// Package sqlite opens the embedded, pure-Go SQLite store (modernc.org/sqlite).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/tradewind/tradewind/internal/store/sqlstore"
)

// Dialect is SQLite's way with the shared SQL store.
var Dialect = sqlstore.Dialect{
	Name:  "sqlite",
	Goose: goose.DialectSQLite3,
	IsConflict: func(err error) bool {
		var e *sqlite.Error
		return errors.As(err, &e) &&
			(e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
	},
	IsRetryable: func(err error) bool {
		var e *sqlite.Error
		return errors.As(err, &e) && (e.Code()&0xff == sqlite3.SQLITE_BUSY || e.Code()&0xff == sqlite3.SQLITE_LOCKED)
	},
	// Every transaction takes the write lock at BEGIN (_txlock=immediate), and a single
	// statement holds it while it runs: there are no row locks to take.
	ForUpdate:           "",
	ForUpdateSkipLocked: "",
	JSONListHas: func(column, param string) string {
		return "EXISTS (SELECT 1 FROM json_each(" + column + ") WHERE json_each.value = CAST(" + param + " AS TEXT))"
	},
	// date() reads the stored text with its offset and answers the UTC date.
	UTCDay:           func(column string) string { return "date(" + column + ")" },
	Anonymous:        true,
	BeforeAnalyze:    "PRAGMA analysis_limit = 1000",
	EventInsertOrder: "rowid",
}

// Open opens (creating if needed) the database file at path, or a private in-memory
// database for ":memory:", and applies the migrations.
func Open(ctx context.Context, path string) (*sqlstore.DB, error) {
	memory := path == ":memory:"
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	// Every transaction takes the write lock at BEGIN, so concurrent read-then-write
	// transactions queue instead of failing with SQLITE_BUSY.
	q.Set("_txlock", "immediate")
	q.Set("_time_format", "sqlite")
	dsn := "file:" + strings.ReplaceAll(path, "?", "%3F") + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	if memory {
		// Each connection to ":memory:" is a database of its own: keep exactly one.
		db.SetMaxOpenConns(1)
	}
	s := sqlstore.New(db, Dialect)
	if err := s.Migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	return s, nil
}
