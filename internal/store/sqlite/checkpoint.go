package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// A checkpointer copies the frames committed to a file's WAL into the database file,
// beside the writer, so that the writer's own checkpoints find little left to do.
//
// SQLite checkpoints in the COMMIT that takes the WAL past 1 000 pages, on the
// connection that committed: on the one writer, which every booking and prebook queues
// for. Alone, that checkpoint copied up to 1 000 pages and waited for two fsyncs, of the
// WAL and of the database file, of as much data, while no transaction could run. The
// writer still checkpoints so (wal_autocheckpoint as SQLite's default): only a
// checkpoint that ends with every frame copied lets the writer's next transaction
// start the WAL over from its beginning, and under steady writes only the writer's
// own, right after its COMMIT, ends so before its next transaction
// (docs/performance-history.md, "Night 3": a checkpointer alone let the WAL grow by
// gigabytes under a steady load, and writes that extend a file cost more). With the
// checkpointer, it copies the last few milliseconds' frames and syncs as little.
const (
	// CheckpointBusy is how often the checkpointer runs while the WAL grows.
	CheckpointBusy = 10 * time.Millisecond
	// CheckpointIdle is how often it looks while the WAL did not grow.
	CheckpointIdle = 100 * time.Millisecond
)

// checkpointer runs PASSIVE checkpoints of one database file on a connection of its
// own, until stopped.
type checkpointer struct {
	db     *sql.DB
	ctx    context.Context    // cancelled by close: a checkpoint cut short is safe
	cancel context.CancelFunc // cancels ctx
	done   chan struct{}
	once   sync.Once
}

// startCheckpointer opens path once more, for checkpoints only, and starts them.
func startCheckpointer(path string) (*checkpointer, error) {
	// Relaxed (NORMAL): a checkpoint syncs the WAL before it copies and the database
	// file after, as under the writer's Durable (FULL), which adds a sync at every
	// COMMIT; this connection commits nothing.
	db, err := open(path, "busy_timeout(10000)", "synchronous("+Relaxed+")")
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite %s: checkpointer: %w", path, err)
	}
	c := &checkpointer{db: oneConnection(db), done: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer close(c.done)
	t := time.NewTimer(CheckpointIdle)
	defer t.Stop()
	last := -1 // the WAL's frames at the last checkpoint
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		// PASSIVE neither waits for nor blocks the writer and the readers. While
		// another connection checkpoints the file (the writer, or the operator's CLI)
		// it answers busy, and the next run tries again. An error (the file gone, say)
		// waits as long as an idle WAL does: the writer's own checkpoints go on.
		var busy, frames, copied int
		next := CheckpointIdle
		err := c.db.QueryRowContext(c.ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
		if err == nil && frames != last {
			last, next = frames, CheckpointBusy
		}
		t.Reset(next)
	}
}

// close stops the checkpoints and closes their connection. The writer's close, the
// file's last connection, then checkpoints what is left and removes the WAL.
func (c *checkpointer) close() {
	c.once.Do(func() {
		c.cancel()
		<-c.done
		_ = c.db.Close()
	})
}
