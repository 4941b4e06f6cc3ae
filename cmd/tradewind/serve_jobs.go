package main

import (
	"context"
	"time"

	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/jobs"
	"github.com/tradewind/tradewind/internal/metrics"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
)

// Intervals of the server's own periodic jobs (the retention jobs name theirs).
const (
	sandboxTimerInterval   = time.Second      // scenario bookings change on time, to the second
	failingWebhookInterval = 10 * time.Minute // a failing subscription is paused within 10 minutes of its 3 days
)

// wireJobs starts the periodic jobs with the server (internal/jobs): the retention of
// every table that grows with traffic (docs/operations.md), the sandbox scenarios' timed
// changes and the automatic pause of failing webhook subscriptions. Each job runs on one
// server at a time, whatever the number of servers on the database. Features with
// periodic work of their own register it on srv.jobs here.
func (c *serveCmd) wireJobs(e *env, st *sqlstore.DB, svc *booking.Service, srv *server) error {
	retention, err := c.retention()
	if err != nil {
		return err
	}
	// Polled every second so that the sandbox timers run on time.
	r := jobs.New(jobs.Config{Leases: st, Clock: e.clock, Logger: e.logger, Poll: sandboxTimerInterval})
	deleted := func(job string, n int) {
		if n > 0 {
			e.logger.Info("retention", "job", job, "deleted", n)
		}
	}
	list := jobs.RetentionJobs(jobs.RetentionConfig{Store: st, Clock: e.clock, Retention: retention, Deleted: deleted})
	list = append(list,
		jobs.Job{Name: "sandbox.timers", Interval: sandboxTimerInterval, Run: func(ctx context.Context) error {
			_, err := svc.RunSandboxTimers(ctx)
			return err
		}},
		pauseFailingJob(svc, srv.metrics),
	)
	for _, j := range list {
		if err := r.Register(j); err != nil {
			return err
		}
	}
	srv.jobs = r
	stopped := make(chan struct{})
	srv.workers = append(srv.workers, func(ctx context.Context) {
		defer close(stopped)
		r.Run(ctx)
	})
	srv.shutdown = append(srv.shutdown, func() { <-stopped }) // before the database closes
	return nil
}

// pauseFailingJob pauses every subscription whose deliveries all failed for 3 days (each
// pause with its audit entry, booking.PauseFailingSubscriptions) and counts them in rec
// (nil: no metrics), the tradewind_webhook_subscriptions_auto_paused_total counter.
func pauseFailingJob(svc *booking.Service, rec *metrics.Recorder) jobs.Job {
	return jobs.Job{Name: "webhooks.pause_failing", Interval: failingWebhookInterval, Run: func(ctx context.Context) error {
		paused, err := svc.PauseFailingSubscriptions(ctx)
		if rec != nil && len(paused) > 0 {
			rec.SubscriptionsAutoPaused(len(paused))
		}
		return err
	}}
}
