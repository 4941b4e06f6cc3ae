package main

import (
	"context"
	"fmt"

	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/webhook"
)

// newDispatcher configures the webhook dispatcher; it runs once the server does (see
// wireWebhooks). The service's store nudges it, so that the deliveries of events of
// this server's requests go at once (within a poll when most of its slots are busy); those of other servers and operator commands go
// within a poll.
func (c *serveCmd) newDispatcher(e *env, st *sqlstore.DB, srv *server) (*webhook.Dispatcher, error) {
	schedule, err := webhook.ParseSchedule(c.WebhookRetrySchedule)
	if err != nil {
		return nil, fmt.Errorf("--webhook-retry-schedule: %w (e.g. %s)", err, webhook.DefaultSchedule)
	}
	dc := webhook.DispatcherConfig{Store: st, Deliverer: webhook.NewDeliverer(c.WebhookAllowPrivate, webhook.DefaultTimeout, nil),
		Schedule: schedule, Clock: e.clock, Logger: e.logger, Observe: srv.metrics.WebhookDelivery}
	if c.WebhookAllowPrivate {
		e.logger.Warn("webhooks may be delivered to loopback and private addresses, and over http (--webhook-allow-private): for development and tests only")
	}
	return webhook.NewDispatcher(dc)
}

// wireWebhooks runs the dispatcher with the server and waits for it to stop on shutdown.
func (c *serveCmd) wireWebhooks(srv *server, d *webhook.Dispatcher) {
	stopped := make(chan struct{})
	srv.workers = append(srv.workers, func(ctx context.Context) {
		defer close(stopped)
		d.Run(ctx)
	})
	srv.shutdown = append(srv.shutdown, func() { <-stopped }) // before the database closes
}
