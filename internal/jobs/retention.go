package jobs

import (
	"context"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// Retention is how long each table that grows with traffic keeps its rows; docs/
// operations.md states the same to operators. A zero duration keeps rows forever.
type Retention struct {
	Events        time.Duration // events, with their deliveries and attempts, once no delivery is pending
	Subscriptions time.Duration // deleted webhook subscriptions, once no delivery refers to them
	Prebooks      time.Duration // prebooks, counted from their expiry
	Idempotency   time.Duration // idempotency records
	// SigningSecrets is how long a rotated request-signing secret is kept after its
	// overlap ended (it verifies nothing any more).
	SigningSecrets time.Duration
	// SignatureReplays is how long a request-signature replay record is kept after it
	// expired (a signature past its window no longer verifies, so the record guards nothing).
	SignatureReplays time.Duration
	// RequestLogsTest and RequestLogsLive keep the request log entries of each key mode
	// (serve --request-log-retention); UsageCounters keeps the usage counters, by day.
	RequestLogsTest time.Duration
	RequestLogsLive time.Duration
	UsageCounters   time.Duration
	// Changes is how long the read model's change feed keeps a change after it was
	// sequenced; a server stopped for longer rebuilds its model at start anyway, and a
	// running one reads the feed every 200 ms (docs/readmodel.md).
	Changes time.Duration
}

// DefaultRetention is the documented retention.
var DefaultRetention = Retention{
	Events:           30 * 24 * time.Hour,
	Subscriptions:    30 * 24 * time.Hour,
	Prebooks:         24 * time.Hour,
	Idempotency:      7 * 24 * time.Hour,
	SigningSecrets:   time.Hour,
	SignatureReplays: time.Minute,
	RequestLogsTest:  7 * 24 * time.Hour,
	RequestLogsLive:  30 * 24 * time.Hour,
	UsageCounters:    400 * 24 * time.Hour, // a year of charts and the same days a year before
	Changes:          time.Hour,
}

// Retention deletes run in batches of BatchSize rows, one transaction each, so that no
// statement holds locks for long; a run stops after MaxBatches and the next run goes on.
const (
	BatchSize  = 1000
	MaxBatches = 100
)

// RetentionInterval is how often each retention job runs.
const RetentionInterval = 10 * time.Minute

// RetentionConfig configures RetentionJobs.
type RetentionConfig struct {
	Store     store.Store
	Clock     tradewind.Clock
	Retention Retention
	Interval  time.Duration // 0: RetentionInterval
	BatchSize int           // 0: BatchSize
	// Deleted, when set, is told how many rows each run of a job deleted.
	Deleted func(job string, n int)
}

// RetentionJobs returns one job per table, named "retention.TABLE".
func RetentionJobs(c RetentionConfig) []Job {
	if c.Clock == nil {
		c.Clock = tradewind.SystemClock{}
	}
	if c.Interval <= 0 {
		c.Interval = RetentionInterval
	}
	if c.BatchSize <= 0 {
		c.BatchSize = BatchSize
	}
	type prune func(q store.Querier, ctx context.Context, p store.PruneParams) (int, error)
	var out []Job
	// addBatches adds a job that deletes by batch until one falls short of BatchSize.
	addBatches := func(name string, keep time.Duration, batch func(ctx context.Context, p store.PruneParams) (int, error)) {
		if keep <= 0 {
			return
		}
		out = append(out, Job{Name: "retention." + name, Interval: c.Interval, Run: func(ctx context.Context) error {
			before := c.Clock.Now().Add(-keep)
			total := 0
			defer func() {
				if c.Deleted != nil {
					c.Deleted("retention."+name, total)
				}
			}()
			for range MaxBatches {
				n, err := batch(ctx, store.PruneParams{Before: before, Limit: c.BatchSize})
				if err != nil {
					return err
				}
				if total += n; n < c.BatchSize || ctx.Err() != nil {
					return ctx.Err()
				}
			}
			return nil
		}})
	}
	// add deletes each batch in a transaction of its own.
	add := func(name string, keep time.Duration, fn prune) {
		addBatches(name, keep, func(ctx context.Context, p store.PruneParams) (n int, err error) {
			err = c.Store.InTx(ctx, func(q store.Querier) (err error) {
				n, err = fn(q, ctx, p)
				return err
			})
			return n, err
		})
	}
	r := c.Retention
	add("events", r.Events, store.Querier.EventPrune)
	add("subscriptions", r.Subscriptions, store.Querier.SubscriptionPrune)
	add("prebooks", r.Prebooks, store.Querier.PrebookPrune)
	add("idempotency", r.Idempotency, store.Querier.IdempotencyPrune)
	add("signing_secrets", r.SigningSecrets, store.Querier.SigningSecretPrune)
	add("signature_replays", r.SignatureReplays, func(q store.Querier, ctx context.Context, p store.PruneParams) (int, error) {
		n, err := q.SignatureDeleteExpired(ctx, store.SignatureDeleteExpiredParams{Now: p.Before, Limit: p.Limit})
		return int(n), err
	})
	for _, m := range []struct {
		mode tradewind.Mode
		keep time.Duration
	}{{tradewind.ModeTest, r.RequestLogsTest}, {tradewind.ModeLive, r.RequestLogsLive}} {
		mode := m.mode
		// The request log is outside the store's transactions (store.RequestLogs).
		addBatches("request_logs_"+string(mode), m.keep, func(ctx context.Context, p store.PruneParams) (int, error) {
			return c.Store.RequestLogPrune(ctx, store.RequestLogPruneParams{Mode: mode, Before: p.Before, Limit: p.Limit})
		})
	}
	if r.UsageCounters > 0 {
		// Hours older than the Overview's rolling 24 hours need not stay apart: one row
		// per day keeps ~400 days of counters at the size of day counters.
		add("usage_rollup", store.UsageRollupAge, store.Querier.UsageRollup)
	}
	add("usage_counters", r.UsageCounters, store.Querier.UsagePrune)
	add("changes", r.Changes, store.Querier.ChangePrune)
	return out
}
