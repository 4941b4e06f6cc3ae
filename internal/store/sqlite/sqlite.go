// Package sqlite opens the embedded, pure-Go SQLite store (modernc.org/sqlite).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
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
	IndexedBy:        " INDEXED BY ",
	StmtCache:        true,
	DriverBatches:    true,
	// The writer keeps temporary data in memory (temp_store(MEMORY) in Open). A first
	// import's by-item index build sorted every inventory row, which held there cost
	// about 40 bytes a row of RSS (24 M rows: about 1 GB); since migration 00029 there
	// is no such index, but a catalog import's transaction still keeps its temporary
	// data (statement journals of its multi-row statements) in files, and the
	// writer's setting is put back after it.
	BulkLoadSession: [2]string{"PRAGMA temp_store = FILE", "PRAGMA temp_store = MEMORY"},
}

// The writers' synchronous settings (SQLite's PRAGMA synchronous, in WAL mode).
//
// Durable, the main file's: FULL, so that a COMMIT returns only once the WAL holding it
// is on disk. A confirmed booking, its credit draw and its event are answered to the
// partner after the COMMIT, and must survive a power loss or an operating system crash
// as they would on PostgreSQL (synchronous_commit on). NORMAL syncs only at checkpoints:
// a crash of the process loses nothing, but one of the machine may roll back the last
// commits, bookings already confirmed among them. A group commit (booking/group.go)
// pays the one sync for all its bookings.
//
// Relaxed, the request log's file: NORMAL. Its entries are a record of the traffic,
// written in batches after the answers; a crash of the machine may lose the last
// batches, never a booking (docs/operations.md, "Durability").
const (
	Durable = "FULL"
	Relaxed = "NORMAL"
)

// WALSizeLimit is the size the WAL file is cut back to when it is started over (SQLite's
// journal_size_limit). Steady writes keep it near 1 000 pages (4 MB), well under it.
const WALSizeLimit = 64 << 20

// ReadPool is how many connections serve reads outside transactions.
const ReadPool = 8

// requestLogReadPool is how many connections read the request log's file: the portal's
// pages and retention, never a partner request.
const requestLogReadPool = 2

// requestLogDialect is the request log file's: SQLite with that file's own schema.
var requestLogDialect = func() sqlstore.Dialect {
	d := Dialect
	d.Migrations = "sqlite-requestlog"
	return d
}()

// RequestLogPath is the file that holds the request log's entries of the database file
// at path: "tradewind.db" keeps them in "tradewind.requestlog.db" (with its own -wal and
// -shm files), beside it.
func RequestLogPath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".requestlog" + ext
}

// Open opens (creating if needed) the database file at path, or a private in-memory
// database for ":memory:", and applies the migrations.
//
// A file is opened twice: one writer connection, which runs every transaction and every
// write, so that writers queue in Go (database/sql hands the connection over, no
// SQLITE_BUSY and no sleeping back-off on the hot path), and a pool of ReadPool
// query-only connections for the reads outside transactions, which WAL lets run beside
// the writer. Another process (the operator's CLI) still takes the file's write lock
// in turn, waited for by busy_timeout.
//
// The request log's entries live in a file of their own (RequestLogPath), with a writer
// and readers of their own: its batches, hundreds of entries with their bodies at a
// time, would otherwise hold the one writer that bookings and prebooks queue for, and
// fill its page cache and WAL. A ":memory:" database keeps them in itself.
func Open(ctx context.Context, path string) (*sqlstore.DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	if path == ":memory:" {
		writer, err := openWriter(path, Durable, "cache_size(-32768)")
		if err != nil {
			return nil, err
		}
		// A ":memory:" database has its one connection alone: each connection to
		// ":memory:" would be a database of its own.
		return migrated(ctx, path, sqlstore.New(writer, Dialect))
	}
	s, err := openFile(ctx, path, Dialect, Durable, "cache_size(-32768)", ReadPool)
	if err != nil {
		return nil, err
	}
	logs, err := openFile(ctx, RequestLogPath(path), requestLogDialect, Relaxed, "cache_size(-8192)", requestLogReadPool)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.SetRequestLogs(logs)
	if err := moveRequestLogs(ctx, s, RequestLogPath(path)); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite %s: request log: %w", path, err)
	}
	return s, nil
}

// openFile opens the database file at path with one writer connection (synchronous its
// setting, Durable or Relaxed, cacheSize its page cache) and a pool of readers
// connections, and applies d's migrations.
func openFile(ctx context.Context, path string, d sqlstore.Dialect, synchronous, cacheSize string, readers int) (*sqlstore.DB, error) {
	// A transaction as big as a catalog import leaves a WAL of its size (about 1 GB at
	// issue 12's catalog); the writer, which starts the WAL over, cuts the file back to
	// WALSizeLimit when it does, rather than keep that size on disk until the server stops.
	writer, err := openWriter(path, synchronous, cacheSize, fmt.Sprintf("journal_size_limit(%d)", WALSizeLimit))
	if err != nil {
		return nil, err
	}
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
	reader.SetMaxOpenConns(readers)
	reader.SetMaxIdleConns(readers)
	// Checkpoints beside the writer, which then finds little to copy in its own (checkpoint.go).
	cp, err := startCheckpointer(path)
	if err != nil {
		reader.Close()
		writer.Close()
		return nil, err
	}
	db := sqlstore.NewSplit(writer, reader, d)
	db.OnClose(cp.close)
	return migrated(ctx, path, db)
}

// openWriter opens the one writer connection of path, for which writers queue in Go,
// with synchronous its setting (Durable or Relaxed).
func openWriter(path, synchronous string, pragmas ...string) (*sql.DB, error) {
	writer, err := open(path, append([]string{"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)",
		"synchronous(" + synchronous + ")", "temp_store(MEMORY)"}, pragmas...)...)
	if err != nil {
		return nil, err
	}
	return oneConnection(writer), nil
}

// oneConnection keeps db to one connection, open for as long as db is.
func oneConnection(db *sql.DB) *sql.DB {
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db
}

func migrated(ctx context.Context, path string, s *sqlstore.DB) (*sqlstore.DB, error) {
	if err := s.Migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	return s, nil
}

// moveRequestLogs moves the entries that a main file written before the request log
// had a file of its own still holds (its migrations 00012-00024 create the table) into
// logPath's, ids kept, and drops the main file's table, in one transaction of the
// main file's writer with the log file attached. Run again after a crash between the
// two files' commits (WAL commits each file on its own), it finds the table still
// there and copies only what is missing.
func moveRequestLogs(ctx context.Context, s *sqlstore.DB, logPath string) error {
	conn, err := s.SQL().Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'request_logs'`).Scan(&n); err != nil || n == 0 {
		return err
	}
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE $1 AS requestlog`, logPath); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE requestlog`) //nolint:errcheck // the connection's last use here
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	const columns = `id, ` + sqlstore.RequestLogColumns
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO requestlog.request_logs (`+columns+`)
		SELECT `+columns+` FROM main.request_logs`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE main.request_logs`); err != nil {
		return err
	}
	return tx.Commit()
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
