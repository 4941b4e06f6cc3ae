package store

import (
	"context"
	"time"

	"github.com/tradewind/tradewind"
)

// UsageListMaxSpan bounds UsageList: a little more than the longest usage period (90
// days) and the Overview's 30 days.
const UsageListMaxSpan = 100 * 24 * time.Hour

// UsageRollupAge is the age after which the retention job rolls hourly usage counters
// into day counters: the Overview's rolling 24 hours needs the last 25 hours exact.
const UsageRollupAge = 48 * time.Hour

// UsageQuerier holds the queries of the usage counters (internal/reqlog,
// docs/request-logs.md); the request log's entries are RequestLogs, outside
// transactions.
type UsageQuerier interface {
	// UsageAdd adds each row's Count to its counter (partner, mode, hour, route, status,
	// error code), creating it at that count: count = count + n, so that several servers
	// add to the same rows. Rows with the same counter are summed; Hour is truncated to
	// its UTC hour. All or nothing: a failed call added nothing and may be retried.
	UsageAdd(ctx context.Context, rows []tradewind.UsageRow) error
	// UsageList returns the partner's counters of the hours in [from, to) (both
	// truncated to the hour), by hour, mode, route, status and error code. The span is
	// bounded: from is raised to to - UsageListMaxSpan, so that rows are at most
	// hours × routes × outcomes of that span.
	UsageList(ctx context.Context, partnerID int64, from, to time.Time) ([]tradewind.UsageRow, error)
	// UsageRollup folds up to p.Limit counters of hours before p.Before (other than a
	// day's 00:00 hour) into their UTC day's 00:00 counter, and returns how many it
	// folded. Counts are kept exactly: the folded rows are deleted and added in one go.
	UsageRollup(ctx context.Context, p PruneParams) (int, error)
	// UsagePrune deletes counters of UTC days before p.Before's: a day's counters go
	// together, as its rolled-up row stands for the whole day.
	UsagePrune(ctx context.Context, p PruneParams) (int, error)
}

// RequestLogs holds the request log's entries (internal/reqlog, docs/request-logs.md).
// They are not part of the store's transactions: on SQLite they live in a file of
// their own, written by a connection of their own (sqlite.RequestLogPath), so that
// the log's batches never hold the writer that bookings and prebooks wait for.
type RequestLogs interface {
	// RequestLogInsert writes entries, in batched statements.
	RequestLogInsert(ctx context.Context, entries []*RequestLogEntry) error
	// RequestLogList returns up to f.Limit of the partner's entries matching f, newest
	// first (by At, then ID), without their bodies.
	RequestLogList(ctx context.Context, f RequestLogFilter) ([]*RequestLogEntry, error)
	// RequestLogGet returns one of the partner's entries with its bodies. ErrNotFound,
	// also for another partner's entry.
	RequestLogGet(ctx context.Context, partnerID, id int64) (*RequestLogEntry, error)
	// RequestLogPrune deletes up to p.Limit entries of p.Mode older than p.Before.
	RequestLogPrune(ctx context.Context, p RequestLogPruneParams) (int, error)
}

// RequestLogEntry is one partner API request as the request log keeps it
// (docs/request-logs.md): never a header but the user agent and the Idempotency-Key,
// and bodies already cut to their first 64 KB and redacted.
type RequestLogEntry struct {
	ID             int64
	PartnerID      int64
	Mode           tradewind.Mode
	At             time.Time // when the request arrived
	Method         string
	Path           string // without the query
	Query          string // the raw query, redacted
	Route          string // endpoint pattern "POST /bookings"; "" when none matched
	Status         int
	ErrorCode      string
	Duration       time.Duration
	KeyID          int64
	KeyPrefix      string
	ClientAddr     string
	UserAgent      string
	RequestID      string
	IdempotencyKey string
	Console        bool // sent from the portal's test console
	RequestBody    []byte
	RequestSize    int64 // bytes the request body had before it was cut
	ResponseBody   []byte
	ResponseSize   int64
}

// RequestLogMaxBody is how much of each body an entry keeps.
const RequestLogMaxBody = 64 << 10

// RequestBodyTruncated reports whether the stored request body is the first
// RequestLogMaxBody bytes of a longer one. (Redaction changes a body's length: its size
// alone tells.)
func (e *RequestLogEntry) RequestBodyTruncated() bool { return e.RequestSize > RequestLogMaxBody }

// ResponseBodyTruncated reports whether the stored response body is a cut of a longer one.
func (e *RequestLogEntry) ResponseBodyTruncated() bool { return e.ResponseSize > RequestLogMaxBody }

// RequestLogFilter selects a partner's entries for the portal's list, newest first.
type RequestLogFilter struct {
	PartnerID   int64          // required: every list is one partner's
	Mode        tradewind.Mode // "": both
	StatusClass int            // 2 for 2xx … 5 for 5xx; 0: any
	Status      int            // 0: any
	ErrorCode   string
	Method      string
	PathPrefix  string    // entries whose path starts with it
	KeyPrefix   string    // the prefix of the key that made the request
	From, To    time.Time // At in [From, To) where set
	RequestID   string
	// Keyset paging: only entries older than (BeforeAt, BeforeID) in the list's order.
	BeforeAt time.Time
	BeforeID int64
	Limit    int // required, positive
}

// RequestLogPruneParams select up to Limit entries of Mode that arrived before Before.
type RequestLogPruneParams struct {
	Mode   tradewind.Mode
	Before time.Time
	Limit  int
}
