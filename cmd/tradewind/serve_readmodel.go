package main

import (
	"context"
	"errors"
	"time"

	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/metrics"
	"github.com/tradewind/tradewind/internal/readmodel"
)

// errModelLoading is /readyz's status until the read model is built.
var errModelLoading = errors.New("read model loading")

// readModelReady is the Ready check of /readyz (partner and admin listeners).
func readModelReady(m *readmodel.Model) func() error {
	return func() error {
		if !m.Ready() {
			return errModelLoading
		}
		return nil
	}
}

// wireReadModel builds the read model once the server runs, then keeps it fresh
// (docs/readmodel.md). Until it is built, /readyz answers 503 and searches read the
// store, so the answers are the same, only slower. A failed build is retried.
func (c *serveCmd) wireReadModel(e *env, m *readmodel.Model, srv *server, cfg *httpapi.Config) {
	cfg.Ready = readModelReady(m)
	srv.ready = cfg.Ready
	metrics.RegisterReadModel(srv.registry, m)
	stopped := make(chan struct{})
	srv.workers = append(srv.workers, func(ctx context.Context) {
		defer close(stopped)
		for wait := time.Second; ; wait = min(2*wait, time.Minute) {
			err := m.Build(ctx)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return
			}
			e.logger.Error("read model: build failed; retrying", "err", err, "in", wait)
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		m.Run(ctx)
	})
	srv.shutdown = append(srv.shutdown, func() { <-stopped }) // before the database closes
}
