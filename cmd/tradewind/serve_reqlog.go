package main

import (
	"context"
	"fmt"
	"time"

	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/jobs"
	"github.com/tradewind/tradewind/internal/metrics"
	"github.com/tradewind/tradewind/internal/reqlog"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
)

// requestLogShutdown bounds how long a graceful shutdown waits for the queued request
// log entries to be written.
const requestLogShutdown = 10 * time.Second

// retention is the retention of every table, with the request log's from
// --request-log-retention.
func (c *serveCmd) retention() (jobs.Retention, error) {
	r := jobs.DefaultRetention
	test, live, err := reqlog.ParseRetention(c.RequestLogRetention)
	if err != nil {
		return r, fmt.Errorf("--request-log-retention: %w", err)
	}
	r.RequestLogsTest, r.RequestLogsLive = test, live
	return r, nil
}

// wireRequestLog records every partner API request in the request log and the usage
// counters (docs/request-logs.md), written off the request path; a graceful shutdown
// writes what is queued, after the listener stopped and before the database closes.
func (c *serveCmd) wireRequestLog(e *env, st *sqlstore.DB, srv *server, cfg *httpapi.Config) {
	l := reqlog.New(reqlog.Config{Store: st, Logger: e.logger, WriterShare: c.RequestLogShare})
	cfg.RequestLog = l
	if srv.registry != nil {
		metrics.RegisterRequestLog(srv.registry, func() metrics.RequestLogStats {
			s := l.Stats()
			return metrics.RequestLogStats{Dropped: s.Dropped, WriteFailed: s.WriteFailed, Written: s.Written, Queued: s.Queued,
				Rested: s.Rested}
		})
	}
	srv.shutdown = append(srv.shutdown, func() {
		ctx, cancel := context.WithTimeout(context.Background(), requestLogShutdown)
		defer cancel()
		if err := l.Close(ctx); err != nil {
			e.logger.Error("request log: usage counters not written at shutdown", "err", err)
		}
	})
	srv.release = append(srv.release, func() { _ = l.Close(context.Background()) })
}
