package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/tradewind/tradewind/internal/booking"
)

// Intervals of the server's periodic jobs.
const (
	sandboxTimerInterval   = time.Second      // scenario bookings change on time, to the second
	failingWebhookInterval = 10 * time.Minute // a failing subscription is paused within 10 minutes of its 3 days
)

// wireJobs starts the periodic jobs of issue 14 with the server: the sandbox scenarios'
// timed changes and the automatic pause of failing webhook subscriptions. Every server
// runs them; each change is conditional in the database, so running twice is harmless.
//
// A minimal runner of our own until the shared periodic-job mechanism of the retention
// work (internal/jobs) is on main; then these become two of its jobs.
func (c *serveCmd) wireJobs(e *env, svc *booking.Service, srv *server) {
	stopped := make(chan struct{})
	srv.workers = append(srv.workers, func(ctx context.Context) {
		defer close(stopped)
		done := make(chan struct{}, 2)
		go func() {
			every(ctx, e.logger, "sandbox timers", sandboxTimerInterval, func(ctx context.Context) error {
				_, err := svc.RunSandboxTimers(ctx)
				return err
			})
			done <- struct{}{}
		}()
		go func() {
			every(ctx, e.logger, "failing webhook subscriptions", failingWebhookInterval, func(ctx context.Context) error {
				paused, err := svc.PauseFailingSubscriptions(ctx)
				if srv.metrics != nil && len(paused) > 0 {
					srv.metrics.SubscriptionsAutoPaused(len(paused))
				}
				return err
			})
			done <- struct{}{}
		}()
		<-done
		<-done
	})
	srv.shutdown = append(srv.shutdown, func() { <-stopped }) // before the database closes
}

// every runs fn at once and then every interval until ctx ends, logging its errors.
func every(ctx context.Context, logger *slog.Logger, name string, interval time.Duration, fn func(context.Context) error) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := fn(ctx); err != nil && ctx.Err() == nil {
			logger.ErrorContext(ctx, "periodic job failed", "job", name, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
