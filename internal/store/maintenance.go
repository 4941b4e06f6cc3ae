package store

import (
	"context"
	"time"
)

// Maintenance holds the queries of the periodic jobs (internal/jobs): the leases that
// let one server at a time run a job, and the retention deletes that keep every table
// that grows with traffic bounded. Each Prune method deletes at most Limit rows, the
// oldest first, and returns how many it deleted; callers loop until it returns fewer.
type Maintenance interface {
	// JobLeaseAcquire leases the named job to p.Owner until p.Until if the job is due
	// (its next run is at or before p.Now) and no unexpired lease holds it; a job never
	// seen before is due at once. False when it is not due or another owner holds it.
	// One statement: of concurrent callers, on any server, at most one gets the lease.
	JobLeaseAcquire(ctx context.Context, p JobLeaseParams) (bool, error)
	// JobLeaseExtend moves the lease's expiry to p.Until while p.Owner still holds it;
	// false when the lease was lost (it expired and another owner took it).
	JobLeaseExtend(ctx context.Context, p JobLeaseParams) (bool, error)
	// JobLeaseRelease ends p.Owner's lease and makes the job due again at p.NextRunAt.
	// Nothing happens when p.Owner no longer holds it.
	JobLeaseRelease(ctx context.Context, p JobReleaseParams) error

	// EventPrune deletes events created before p.Before none of whose deliveries is
	// still pending, with their deliveries and those deliveries' attempts. Run it in
	// InTx, so that the three deletes commit together.
	EventPrune(ctx context.Context, p PruneParams) (int, error)
	// SubscriptionPrune deletes subscriptions deleted before p.Before that no delivery
	// refers to any more.
	SubscriptionPrune(ctx context.Context, p PruneParams) (int, error)
	// PrebookPrune deletes prebooks that expired before p.Before, used or not.
	PrebookPrune(ctx context.Context, p PruneParams) (int, error)
	// IdempotencyPrune deletes idempotency records created before p.Before.
	IdempotencyPrune(ctx context.Context, p PruneParams) (int, error)
	// SigningSecretPrune erases the previous request-signing secrets whose rotation
	// overlap ended before p.Before, and returns how many partners it changed.
	SigningSecretPrune(ctx context.Context, p PruneParams) (int, error)
}

// JobLeaseParams name a job, the lease's owner (a token unique to one run) and its
// expiry.
type JobLeaseParams struct {
	Name  string
	Owner string
	Now   time.Time
	Until time.Time
}

// JobReleaseParams end a run's lease and say when the job is due again.
type JobReleaseParams struct {
	Name      string
	Owner     string
	At        time.Time
	NextRunAt time.Time
}

// PruneParams select what a retention delete removes: rows past their retention at
// Before, at most Limit of them (Limit must be positive).
type PruneParams struct {
	Before time.Time
	Limit  int
}
