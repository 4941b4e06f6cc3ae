package sqlite_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/store/sqlite"
)

// TestCheckpointsBesideTheWriter: a commit too small for the writer's own checkpoint
// (under SQLite's 1 000 pages) reaches the database file soon after, copied by the
// checkpointer's connection; many commits leave the WAL about that size, not their
// sum: the writer's checkpoints still end with every frame copied, and its next
// transaction starts the WAL over; a WAL grown past sqlite.WALSizeLimit by one big
// transaction is cut back once started over; Close stops the checkpointer and closes its
// connection, so that the writer's close, the last, removes the WAL.
func TestCheckpointsBesideTheWriter(t *testing.T) {
	ctx := context.Background()
	st, path := openStore(t)
	db := st.SQL()
	// The migrations' pages take a few hundred KB, some of them free for reuse: a file
	// past size holds the commit below.
	const size = 2 << 20 // about 500 pages
	if _, err := db.ExecContext(ctx, `CREATE TABLE checkpointed (v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO checkpointed (v) VALUES ($1)`, strings.Repeat("x", size)); err != nil {
		t.Fatal(err)
	}
	// A generous bound, only so that a checkpointer that never runs fails the test
	// rather than hangs it: it runs every sqlite.CheckpointBusy while the WAL grows.
	for deadline := time.Now().Add(30 * time.Second); fileSize(t, path) < size; {
		if time.Now().After(deadline) {
			t.Fatalf("the database file holds %d bytes after a commit of %d: the WAL was not checkpointed",
				fileSize(t, path), size)
		}
		time.Sleep(sqlite.CheckpointBusy)
	}

	// 3 000 commits of a page or two each: about 24 MB of frames in all.
	page := strings.Repeat("y", 4000)
	for i := range 3000 {
		if _, err := db.ExecContext(ctx, `INSERT INTO checkpointed (v) VALUES ($1)`, page); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	if wal := fileSize(t, path+"-wal"); wal > 12<<20 {
		t.Errorf("the WAL holds %d bytes after 3 000 small commits: it was never started over", wal)
	}

	// A transaction past sqlite.WALSizeLimit (a catalog import) leaves a WAL of its size,
	// cut back once small commits start it over.
	if _, err := db.ExecContext(ctx, `INSERT INTO checkpointed (v) VALUES ($1)`, strings.Repeat("z", sqlite.WALSizeLimit+(8<<20))); err != nil {
		t.Fatal(err)
	}
	if wal := fileSize(t, path+"-wal"); wal <= sqlite.WALSizeLimit {
		t.Fatalf("the WAL holds %d bytes after a commit past %d", wal, sqlite.WALSizeLimit)
	}
	for i := 0; fileSize(t, path+"-wal") > sqlite.WALSizeLimit; i++ {
		if i == 3000 {
			t.Fatalf("the WAL holds %d bytes after 3 000 small commits: not cut back to %d",
				fileSize(t, path+"-wal"), sqlite.WALSizeLimit)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO checkpointed (v) VALUES ($1)`, page); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}

	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !os.IsNotExist(err) {
		t.Errorf("the WAL is still there after Close (%v): a connection of the file was left open", err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
