// Package postgres opens the PostgreSQL store through pgx, for several servers sharing
// one database.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/pressly/goose/v3"

	"github.com/tradewind/tradewind/internal/store/sqlstore"
)

func pgCode(err error) string {
	var e *pgconn.PgError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Dialect is PostgreSQL's way with the shared SQL store.
var Dialect = sqlstore.Dialect{
	Name:                "postgres",
	Goose:               goose.DialectPostgres,
	IsConflict:          func(err error) bool { return pgCode(err) == "23505" },
	IsRetryable:         func(err error) bool { c := pgCode(err); return c == "40001" || c == "40P01" },
	IsCreditRefused:     func(err error) bool { return pgCode(err) == "TW001" },
	ForUpdate:           " FOR UPDATE",
	ForUpdateSkipLocked: " FOR UPDATE SKIP LOCKED",
	JSONListHas: func(column, param string) string {
		return "CAST(" + column + " AS jsonb) @> jsonb_build_array(CAST(" + param + " AS TEXT))"
	},
	UTCDay:           func(column string) string { return "to_char(" + column + " AT TIME ZONE 'UTC', 'YYYY-MM-DD')" },
	CopyFrom:         copyFrom,
	SendBatch:        sendBatch,
	LockTimeout:      "SET LOCAL lock_timeout = %d",
	EventInsertOrder: "inserted",
	WritableCTE:      true,
	MultiStatement:   true,
	// A first import loads inventory into the bare heap and builds its one B-tree (the
	// primary key, migration 00029) once, sorted, in memory rather than in 24 million
	// inserts.
	InventoryKeyDroppable: true,
	BeforeIndexBuild:      "SET LOCAL maintenance_work_mem = '512MB'",
}

// copyFrom runs COPY … FROM STDIN on the pgx connection under conn, inside the
// transaction conn holds.
func copyFrom(ctx context.Context, conn *sql.Conn, table string, columns []string, n int, row func(i int) []any) error {
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: copy: connection is %T, not pgx", dc)
		}
		_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{table}, columns,
			pgx.CopyFromSlice(n, func(i int) ([]any, error) { return row(i), nil }))
		return err
	})
}

// sendBatch sends stmts as one pgx batch on the pgx connection under conn, inside the
// transaction conn holds: one round trip once the connection has prepared them.
func sendBatch(ctx context.Context, conn *sql.Conn, stmts []sqlstore.BatchStmt) (n int64, err error) {
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: batch: connection is %T, not pgx", dc)
		}
		b := &pgx.Batch{}
		for _, s := range stmts {
			b.Queue(s.SQL, s.Args...)
		}
		br := c.Conn().SendBatch(ctx, b)
		for _, s := range stmts {
			var err error
			if s.Rows != nil {
				err = batchRows(br, s.Rows)
			} else {
				var tag pgconn.CommandTag
				tag, err = br.Exec()
				n = tag.RowsAffected()
				if err == nil && s.Commit && tag.String() != "COMMIT" {
					err = sqlstore.ErrRolledBack
				}
			}
			if err != nil {
				if s.Failed != nil {
					err = s.Failed(err)
				}
				_ = br.Close()
				return err
			}
		}
		return br.Close()
	})
	return n, err
}

// batchRows reads the rows of a batch's next statement, a query, into each.
func batchRows(br pgx.BatchResults, each func(scan func(dest ...any) error) error) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Open connects to the database at dsn (postgres://…) and applies the migrations.
// Migrations take a PostgreSQL advisory lock, so servers starting together are safe.
func Open(ctx context.Context, dsn string) (*sqlstore.DB, error) {
	return OpenTraced(ctx, dsn, nil)
}

// OpenTraced is Open with a pgx tracer on every connection (nil: none), with which
// tests and benchmarks count the statements, hence the round trips, of an operation.
func OpenTraced(ctx context.Context, dsn string, tracer pgx.QueryTracer) (*sqlstore.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	cfg.Tracer = tracer
	db := stdlib.OpenDB(*cfg)
	// Every open connection stays open while in use: with fewer idle than open (16
	// until night 6), a burst of 32 requests closed the surplus as each came back and
	// opened it again for the next, a new backend and TLS handshake every time (the
	// PostgreSQL get-booking benchmark: 6 300/s, p99 33 ms, against 11 400/s, 7 ms).
	// A quiet server gives them back after a minute.
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	db.SetConnMaxIdleTime(time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: cannot connect: %w", err)
	}
	s := sqlstore.New(db, Dialect)
	if err := s.Migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return s, nil
}
