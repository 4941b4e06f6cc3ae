// Package jobs runs Tradewind's periodic background work: named jobs, each due every
// Interval by the injectable clock, run by `tradewind serve`. However many servers share
// the database, one at a time runs a given job: a run first takes the job's lease, a row
// of job_leases written by one conditional upsert (store.Maintenance), which works alike
// on SQLite and PostgreSQL. The lease is renewed while the job runs and released when it
// ends, with the time the job is due again, so a job runs once per interval across all
// servers; if a server dies mid-run, its lease expires and another takes the job over.
//
// Adding a job (request-log retention, timed sandbox scenarios, …): build a Job and
// register it before Run, usually where serve wires its workers (cmd/tradewind):
//
//	runner.Register(jobs.Job{
//		Name:     "sandbox.scenarios", // unique; the lease's key
//		Interval: 5 * time.Second,     // due again this long after a run ends
//		Run: func(ctx context.Context) error {
//			// Do a bounded amount of work, checking ctx between batches: ctx ends
//			// when the server shuts down or the lease is lost.
//			return nil
//		},
//	})
//
// A job must be safe to run again after an interrupted run, and each run should be
// bounded (Retention below deletes at most MaxBatches batches per run). A run that
// returns an error is logged and due again after Interval like any other. How soon a
// due job starts is bounded by the runner's Poll (and by a job's Interval if shorter).
package jobs

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// Leases is what the runner needs of the store.
type Leases interface {
	JobLeaseAcquire(ctx context.Context, p store.JobLeaseParams) (bool, error)
	JobLeaseExtend(ctx context.Context, p store.JobLeaseParams) (bool, error)
	JobLeaseRelease(ctx context.Context, p store.JobReleaseParams) error
}

// Job is a named piece of periodic work.
type Job struct {
	Name     string
	Interval time.Duration
	Run      func(ctx context.Context) error
	// Lease is how long a run holds the job before another server may take it over if
	// this one stops renewing it (DefaultLease when zero); it is renewed every third
	// of it while the run lasts.
	Lease time.Duration
}

// DefaultLease is a job's lease when it names none.
const DefaultLease = 2 * time.Minute

// DefaultPoll is how often the runner checks, per job, whether it is due.
const DefaultPoll = 5 * time.Second

// Config configures a Runner.
type Config struct {
	Leases Leases
	Clock  tradewind.Clock // nil: the system clock
	Logger *slog.Logger    // nil: discard
	Poll   time.Duration   // 0: DefaultPoll
}

// Runner runs registered jobs until its context ends.
type Runner struct {
	cfg     Config
	mu      sync.Mutex
	jobs    []Job
	started bool
}

// New returns a runner with no jobs.
func New(cfg Config) *Runner {
	if cfg.Clock == nil {
		cfg.Clock = tradewind.SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	return &Runner{cfg: cfg}
}

// Register adds a job; it must come before Run. A name already registered, an empty
// name, a missing Run or an interval that is not positive is refused.
func (r *Runner) Register(j Job) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.started:
		return fmt.Errorf("jobs: %q registered after the runner started", j.Name)
	case j.Name == "" || j.Run == nil || j.Interval <= 0:
		return fmt.Errorf("jobs: job %q needs a name, a Run function and a positive interval", j.Name)
	}
	for _, have := range r.jobs {
		if have.Name == j.Name {
			return fmt.Errorf("jobs: %q is registered twice", j.Name)
		}
	}
	if j.Lease <= 0 {
		j.Lease = DefaultLease
	}
	r.jobs = append(r.jobs, j)
	return nil
}

// Jobs returns the names of the registered jobs.
func (r *Runner) Jobs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.jobs))
	for i, j := range r.jobs {
		out[i] = j.Name
	}
	return out
}

// Run checks every job for being due each Poll (each job in its own goroutine, so a
// long run delays no other job) until ctx ends, then waits for the runs in progress to
// stop: they see their context end, and their leases are released due at once, so that
// another server resumes them.
func (r *Runner) Run(ctx context.Context) {
	r.mu.Lock()
	r.started = true
	jobs := append([]Job(nil), r.jobs...)
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.loop(ctx, j)
		}()
	}
	wg.Wait()
}

func (r *Runner) loop(ctx context.Context, j Job) {
	poll := min(r.cfg.Poll, j.Interval)
	t := time.NewTicker(poll)
	defer t.Stop()
	var notBefore time.Time // after its own run, this server knows when the job is due
	for {
		if !r.cfg.Clock.Now().Before(notBefore) {
			if ran, next := r.RunOnce(ctx, j); ran {
				notBefore = next
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RunDue runs, one after another, every registered job that is due and not leased
// elsewhere, and returns the names of those it ran. Tests call it to run jobs at a
// moment of an injected clock.
func (r *Runner) RunDue(ctx context.Context) []string {
	r.mu.Lock()
	jobs := append([]Job(nil), r.jobs...)
	r.mu.Unlock()
	var ran []string
	for _, j := range jobs {
		if ok, _ := r.RunOnce(ctx, j); ok {
			ran = append(ran, j.Name)
		}
	}
	return ran
}

// RunOnce runs j if it is due and this runner gets its lease. It reports whether it
// ran j and, if so, when j is due next.
func (r *Runner) RunOnce(ctx context.Context, j Job) (bool, time.Time) {
	if ctx.Err() != nil {
		return false, time.Time{}
	}
	if j.Lease <= 0 {
		j.Lease = DefaultLease
	}
	log := r.cfg.Logger.With("job", j.Name)
	owner := rand.Text()
	now := r.cfg.Clock.Now()
	ok, err := r.cfg.Leases.JobLeaseAcquire(ctx, store.JobLeaseParams{Name: j.Name, Owner: owner, Now: now, Until: now.Add(j.Lease)})
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("job lease", "err", err)
		}
		return false, time.Time{}
	}
	if !ok {
		return false, time.Time{}
	}

	runCtx, cancel := context.WithCancel(ctx)
	renewed := make(chan struct{})
	go func() { // renew the lease while the run lasts; a lost lease stops the run
		defer close(renewed)
		t := time.NewTicker(j.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
			}
			at := r.cfg.Clock.Now()
			ok, err := r.cfg.Leases.JobLeaseExtend(runCtx, store.JobLeaseParams{Name: j.Name, Owner: owner, Now: at, Until: at.Add(j.Lease)})
			if err == nil && !ok {
				log.Warn("job lease lost: stopping the run")
				cancel()
				return
			}
		}
	}()
	start := time.Now()
	err = safeRun(runCtx, j)
	cancel()
	<-renewed
	took := time.Since(start)

	// An interrupted run is due again at once, for whichever server runs next.
	at := r.cfg.Clock.Now()
	next := at.Add(j.Interval)
	interrupted := ctx.Err() != nil
	if interrupted {
		next = at
	}
	relCtx, relCancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer relCancel()
	if rerr := r.cfg.Leases.JobLeaseRelease(relCtx, store.JobReleaseParams{Name: j.Name, Owner: owner, At: at, NextRunAt: next}); rerr != nil {
		log.Warn("job lease release", "err", rerr)
	}
	switch {
	case interrupted:
		log.Info("job interrupted by shutdown", "duration_ms", took.Milliseconds())
	case err != nil:
		log.Error("job failed", "err", err, "duration_ms", took.Milliseconds())
	default:
		log.Debug("job ran", "duration_ms", took.Milliseconds())
	}
	return true, next
}

// safeRun runs the job, turning a panic into an error so that one bad job does not
// take the server down.
func safeRun(ctx context.Context, j Job) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	err = j.Run(ctx)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil // stopped by shutdown or a lost lease, logged as such
	}
	return err
}
