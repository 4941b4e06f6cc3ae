package sqlite

import (
	"context"
	"database/sql"
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
// start the WAL over from its beginning, and the writer's is the one that does
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
	db   *sql.DB
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// startCheckpointer opens path once more, for checkpoints only, and starts them.
func startCheckpointer(path string) (*checkpointer, error) {
	// synchronous NORMAL, as the writer's: a checkpoint syncs the WAL before it copies
	// and the database file after.
	db, err := open(path, "busy_timeout(10000)", "synchronous(NORMAL)")
	if err != nil {
		return nil, err
	}
	c := &checkpointer{db: oneConnection(db), stop: make(chan struct{}), done: make(chan struct{})}
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
		case <-c.stop:
			return
		case <-t.C:
		}
		// PASSIVE neither waits for nor blocks the writer and the readers. It fails
		// only while another connection checkpoints the file (the writer, or the
		// operator's CLI): the next run tries again.
		var busy, frames, copied int
		next := CheckpointIdle
		if err := c.db.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil || frames != last {
			last, next = frames, CheckpointBusy
		}
		t.Reset(next)
	}
}

// close stops the checkpoints and closes their connection. The writer's close, the
// file's last connection, then checkpoints what is left and removes the WAL.
func (c *checkpointer) close() {
	c.once.Do(func() {
		close(c.stop)
		<-c.done
		_ = c.db.Close()
	})
}
