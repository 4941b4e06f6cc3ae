package main

import (
	"context"
	"fmt"

	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/webhook"
)

// wireWebhooks starts the webhook dispatcher with the server: it sends the deliveries of
// every committed event, at once for events of this server's requests (the service's
// store nudges it) and within a poll for those of other servers and operator commands.
func (c *serveCmd) wireWebhooks(e *env, st *sqlstore.DB, svc *booking.Service, srv *server, cfg *httpapi.Config) error {
	schedule, err := webhook.ParseSchedule(c.WebhookRetrySchedule)
	if err != nil {
		return fmt.Errorf("--webhook-retry-schedule: %w (e.g. %s)", err, webhook.DefaultSchedule)
	}
	dc := webhook.DispatcherConfig{Store: st, Deliverer: webhook.NewDeliverer(c.WebhookAllowPrivate, webhook.DefaultTimeout, nil),
		Schedule: schedule, Clock: e.clock, Logger: e.logger}
	if srv.metrics != nil {
		dc.Observe = srv.metrics.WebhookDelivery
	}
	d, err := webhook.NewDispatcher(dc)
	if err != nil {
		return err
	}
	svc.Store = webhook.NotifyOnEvent(st, d.Nudge)
	svc.WebhookAllowPrivate = c.WebhookAllowPrivate // subscriptions are judged as deliveries are
	if c.WebhookAllowPrivate {
		e.logger.Warn("webhooks may be delivered to loopback and private addresses, and over http (--webhook-allow-private): for development and tests only")
	}
	stopped := make(chan struct{})
	srv.workers = append(srv.workers, func(ctx context.Context) {
		defer close(stopped)
		d.Run(ctx)
	})
	srv.shutdown = append(srv.shutdown, func() { <-stopped }) // before the database closes
	return nil
}
