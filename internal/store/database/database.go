// Package database opens the store a DSN names: "sqlite:FILE", "sqlite::memory:" or
// "postgres://…".
package database

import (
	"context"
	"fmt"
	"strings"

	"github.com/tradewind/tradewind/internal/store/postgres"
	"github.com/tradewind/tradewind/internal/store/sqlite"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
)

// DefaultDSN is the embedded database file in the working directory.
const DefaultDSN = "sqlite:tradewind.db"

// Open opens and migrates the database named by dsn.
func Open(ctx context.Context, dsn string) (*sqlstore.DB, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		return sqlite.Open(ctx, strings.TrimPrefix(dsn, "sqlite:"))
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return postgres.Open(ctx, dsn)
	}
	return nil, fmt.Errorf("unknown database %q: use sqlite:FILE, sqlite::memory: or postgres://user@host:5432/db", redact(dsn))
}

// redact hides a password in a DSN so that it never reaches a log or an error.
func redact(dsn string) string {
	if at := strings.LastIndex(dsn, "@"); at >= 0 {
		if scheme := strings.Index(dsn, "://"); scheme >= 0 && scheme < at {
			return dsn[:scheme+3] + "…@" + dsn[at+1:]
		}
	}
	return dsn
}
