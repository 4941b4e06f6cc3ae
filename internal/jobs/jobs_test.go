package jobs_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/jobs"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/postgres"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

func counting(name string, interval time.Duration, n *atomic.Int32) jobs.Job {
	return jobs.Job{Name: name, Interval: interval, Run: func(context.Context) error { n.Add(1); return nil }}
}

// TestRunDueByTheClock: a job runs when due by the injected clock, once per interval,
// and of two runners on one database only one runs it.
func TestRunDueByTheClock(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		st := o.Open(t)
		clock := apitest.NewClock(apitest.Start)
		a, b := jobs.New(jobs.Config{Leases: st, Clock: clock}), jobs.New(jobs.Config{Leases: st, Clock: clock})
		var runs, failures atomic.Int32
		for _, r := range []*jobs.Runner{a, b} {
			if err := r.Register(counting("count", time.Hour, &runs)); err != nil {
				t.Fatal(err)
			}
			if err := r.Register(jobs.Job{Name: "fail", Interval: time.Hour, Run: func(context.Context) error {
				failures.Add(1)
				return errors.New("boom")
			}}); err != nil {
				t.Fatal(err)
			}
		}
		ctx := context.Background()
		if got := a.RunDue(ctx); len(got) != 2 {
			t.Fatalf("first RunDue ran %v, want both jobs (never run before)", got)
		}
		if got := b.RunDue(ctx); len(got) != 0 {
			t.Fatalf("the second runner ran %v in the same interval", got)
		}
		clock.Advance(59 * time.Minute)
		if got := a.RunDue(ctx); len(got) != 0 {
			t.Fatalf("ran %v before the interval passed", got)
		}
		clock.Advance(time.Minute)
		if got := b.RunDue(ctx); len(got) != 2 {
			t.Fatalf("after the interval the other runner ran %v, want both (a failed run is due again too)", got)
		}
		if runs.Load() != 2 || failures.Load() != 2 {
			t.Errorf("runs = %d, failures = %d; want 2 and 2", runs.Load(), failures.Load())
		}
	})
}

func TestRegisterRefusesBadJobs(t *testing.T) {
	r := jobs.New(jobs.Config{Leases: storetest.OpenSQLite(t)})
	var n atomic.Int32
	if err := r.Register(counting("a", time.Minute, &n)); err != nil {
		t.Fatal(err)
	}
	for _, j := range []jobs.Job{counting("a", time.Minute, &n), counting("", time.Minute, &n), counting("b", 0, &n), {Name: "c", Interval: time.Minute}} {
		if err := r.Register(j); err == nil {
			t.Errorf("Register(%q, %s) accepted", j.Name, j.Interval)
		}
	}
}

// TestRunnersOnOnePostgresNeverOverlap runs two runners, each with its own connection
// pool, on one PostgreSQL database, with a job due every few milliseconds: the job runs
// many times and never twice at once.
func TestRunnersOnOnePostgresNeverOverlap(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresDSN(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var inFlight, overlaps, runs atomic.Int32
	perRunner := [2]atomic.Int32{}
	var wg sync.WaitGroup
	for i := range 2 {
		st, err := postgres.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		r := jobs.New(jobs.Config{Leases: st, Poll: time.Millisecond})
		err = r.Register(jobs.Job{Name: "exclusive", Interval: 2 * time.Millisecond, Run: func(context.Context) error {
			if inFlight.Add(1) > 1 {
				overlaps.Add(1)
			}
			time.Sleep(3 * time.Millisecond)
			inFlight.Add(-1)
			runs.Add(1)
			perRunner[i].Add(1)
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Run(ctx)
		}()
	}
	deadline := time.Now().Add(20 * time.Second)
	for runs.Load() < 60 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	if runs.Load() < 60 {
		t.Fatalf("only %d runs", runs.Load())
	}
	if overlaps.Load() != 0 {
		t.Fatalf("the job ran on both servers at once %d times", overlaps.Load())
	}
	t.Logf("runs: %d and %d", perRunner[0].Load(), perRunner[1].Load())
}

// TestRunStopsOnShutdown: cancelling Run's context stops the run in progress, Run
// returns, and the interrupted job is due again at once for another server.
func TestRunStopsOnShutdown(t *testing.T) {
	st := storetest.OpenSQLite(t)
	clock := apitest.NewClock(apitest.Start)
	started := make(chan struct{})
	r := jobs.New(jobs.Config{Leases: st, Clock: clock, Poll: time.Millisecond})
	_ = r.Register(jobs.Job{Name: "long", Interval: time.Hour, Run: func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		r.Run(ctx)
		close(done)
	}()
	<-started
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	other := jobs.New(jobs.Config{Leases: st, Clock: clock})
	var n atomic.Int32
	_ = other.Register(counting("long", time.Hour, &n))
	if got := other.RunDue(context.Background()); len(got) != 1 {
		t.Fatalf("the interrupted job was not due at once: ran %v", got)
	}
}

// TestLostLeaseStopsTheRun: when another server took the lease over (this one stopped
// renewing it in time), the run's context ends.
func TestLostLeaseStopsTheRun(t *testing.T) {
	st := storetest.OpenSQLite(t)
	clock := apitest.NewClock(apitest.Start)
	started, stopped := make(chan struct{}), make(chan struct{})
	r := jobs.New(jobs.Config{Leases: st, Clock: clock})
	job := jobs.Job{Name: "slow", Interval: time.Hour, Lease: 30 * time.Millisecond, Run: func(ctx context.Context) error {
		close(started)
		select {
		case <-ctx.Done():
			close(stopped)
		case <-time.After(10 * time.Second):
		}
		return nil
	}}
	go r.RunOnce(context.Background(), job)
	<-started
	// Another server, whose clock is far ahead, sees the lease expired and takes it.
	later := clock.Now().Add(time.Hour)
	if ok, err := st.JobLeaseAcquire(context.Background(), store.JobLeaseParams{Name: "slow", Owner: "other", Now: later, Until: later.Add(time.Hour)}); err != nil || !ok {
		t.Fatalf("take-over = %v, %v", ok, err)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the run went on after its lease was lost")
	}
}
