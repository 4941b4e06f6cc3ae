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
	// Every transaction runs on the one writer connection and takes the write lock at
	// BEGIN (_txlock=immediate): there are no row locks to take.
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
	StmtCache:        true,
	DriverBatches:    true,
	// The writer keeps temporary data in memory (temp_store(MEMORY) in Open). A first
	// import's by-item index build sorts every inventory row, which held there costs
	// about 40 bytes a row of RSS (24 M rows: about 1 GB); a catalog import's
	// transaction sorts in temporary files instead, and the writer's setting is put
	// back after it.
	BulkLoadSession: [2]string{"PRAGMA temp_store = FILE", "PRAGMA temp_store = MEMORY"},
}

// ReadPool is how many connections serve reads outside transactions.
const ReadPool = 8

// Open opens (creating if needed) the database file at path, or a private in-memory
// database for ":memory:", and applies the migrations.
//
// A file is opened twice: one writer connection, which runs every transaction and every
// write, so that writers queue in Go (database/sql hands the connection over, no
// SQLITE_BUSY and no sleeping back-off on the hot path), and a pool of ReadPool
// query-only connections for the reads outside transactions, which WAL lets run beside
// the writer. Another process (the operator's CLI) still takes the file's write lock
// in turn, waited for by busy_timeout.
func Open(ctx context.Context, path string) (*sqlstore.DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	writer, err := open(path, "journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)",
		"temp_store(MEMORY)", "cache_size(-32768)")
	if err != nil {
		return nil, err
	}
	// One writer connection, for which writers queue in Go. A ":memory:" database has
	// it alone: each connection to ":memory:" would be a database of its own.
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)
	var s *sqlstore.DB
	if path == ":memory:" {
		s = sqlstore.New(writer, Dialect)
	} else {
		// The writer creates the file and turns WAL on before a reader opens it.
		if err := writer.PingContext(ctx); err != nil {
			writer.Close()
			return nil, fmt.Errorf("sqlite %s: %w", path, err)
		}
		reader, err := open(path, "busy_timeout(10000)", "query_only(1)")
		if err != nil {
			writer.Close()
			return nil, err
		}
		reader.SetMaxOpenConns(ReadPool)
		reader.SetMaxIdleConns(ReadPool)
		s = sqlstore.NewSplit(writer, reader, Dialect)
	}
	if err := s.Migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	return s, nil
}

// open opens path with the given pragmas on every connection.
func open(path string, pragmas ...string) (*sql.DB, error) {
	q := url.Values{}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	// A transaction takes the write lock at BEGIN, so a read-then-write transaction
	// never fails to upgrade its lock when another process wrote meanwhile.
	q.Set("_txlock", "immediate")
	q.Set("_time_format", "sqlite")
	dsn := "file:" + strings.ReplaceAll(path, "?", "%3F") + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	return db, nil
}
