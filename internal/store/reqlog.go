package store

import (
	"context"
	"time"

	"github.com/tradewind/tradewind"
)

// RequestLogQuerier holds the queries of the request logs and usage counters
// (internal/reqlog, docs/request-logs.md).
type RequestLogQuerier interface {
	// UsageAdd adds each row's Count to its counter (partner, mode, day, route, status,
	// error code), creating it at that count: count = count + n, so that several servers
	// add to the same rows. Rows with the same counter are summed; Day is taken as its
	// UTC date. All or nothing: a failed call added nothing and may be retried.
	UsageAdd(ctx context.Context, rows []tradewind.UsageRow) error
	// UsageList returns the partner's counters of the days in [from, to), by day, mode,
	// route, status and error code.
	UsageList(ctx context.Context, partnerID int64, from, to time.Time) ([]tradewind.UsageRow, error)
}
