package main

import (
	"context"

	"github.com/tradewind/tradewind/internal/jobs"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
)

// wireJobs starts the periodic jobs with the server (internal/jobs): today the retention
// of every table that grows with traffic (docs/operations.md). Each job runs on one
// server at a time, whatever the number of servers on the database. Features with
// periodic work of their own register it on srv.jobs here.
func (c *serveCmd) wireJobs(e *env, st *sqlstore.DB, srv *server) error {
	r := jobs.New(jobs.Config{Leases: st, Clock: e.clock, Logger: e.logger})
	deleted := func(job string, n int) {
		if n > 0 {
			e.logger.Info("retention", "job", job, "deleted", n)
		}
	}
	for _, j := range jobs.RetentionJobs(jobs.RetentionConfig{Store: st, Clock: e.clock, Retention: jobs.DefaultRetention, Deleted: deleted}) {
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
