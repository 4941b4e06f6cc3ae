package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// CheckpointEvery is how often a file's checkpointer copies the frames committed to its
// WAL into the database file.
//
// SQLite's automatic checkpoint runs inside the COMMIT that takes the WAL past 1 000
// pages, on the connection that committed: on the one writer, which every booking
// queues for. It copies those pages and waits for two fsyncs, of the WAL and of the
// database file, while no transaction can run: on this project's host a few
// milliseconds every twenty or so group commits (docs/performance.md, "The write
// path"). The writer does not checkpoint (wal_autocheckpoint 0); a connection of its
// own does, beside it, as often as this. A checkpoint and a transaction run at once:
// the checkpoint copies only frames committed before it began, and WAL lets the writer
// append meanwhile.
const CheckpointEvery = 50 * time.Millisecond

// checkpointer runs PASSIVE checkpoints of one database file on a connection of its
// own, until stopped.
type checkpointer struct {
	db   *sql.DB
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// startCheckpointer opens path once more, for checkpoints only, and checkpoints it
// every interval.
func startCheckpointer(path string, every time.Duration) (*checkpointer, error) {
	// synchronous NORMAL, as the writer's: a checkpoint syncs the WAL before it copies
	// and the database file after, whatever the setting, and nothing else.
	db, err := open(path, "busy_timeout(10000)", "synchronous(NORMAL)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	c := &checkpointer{db: db, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run(every)
	return c, nil
}

func (c *checkpointer) run(every time.Duration) {
	defer close(c.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		// PASSIVE neither waits for nor blocks the writer and the readers; with nothing
		// new in the WAL it returns at once. It fails only while another connection (the
		// operator's CLI, which checkpoints its own commits) checkpoints the file: the
		// next tick tries again.
		_, _ = c.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
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
