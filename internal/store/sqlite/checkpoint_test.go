package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/store/sqlite"
)

// TestCheckpointsBesideTheWriter: the writer never checkpoints in its COMMIT
// (wal_autocheckpoint 0), yet what it commits reaches the database file soon after,
// copied by the checkpointer's connection; Close stops it and closes its connection,
// so that the writer's close, the last, removes the WAL.
func TestCheckpointsBesideTheWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tw.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var auto int
	if err := st.SQL().QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil {
		t.Fatal(err)
	}
	if auto != 0 {
		t.Errorf("the writer's wal_autocheckpoint = %d; want 0 (the checkpointer's work)", auto)
	}
	// The migrations' pages take a few hundred KB, some of them free for reuse: a file
	// past size holds the commit below.
	const size = 4 << 20 // about 1 000 pages: one automatic checkpoint's worth
	if _, err := st.SQL().ExecContext(ctx, `CREATE TABLE checkpointed (v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SQL().ExecContext(ctx, `INSERT INTO checkpointed (v) VALUES ($1)`, strings.Repeat("x", size)); err != nil {
		t.Fatal(err)
	}
	// A generous bound, only so that a checkpointer that never runs fails the test
	// rather than hangs it: it runs every sqlite.CheckpointEvery.
	for deadline := time.Now().Add(30 * time.Second); fileSize(t, path) < size; {
		if time.Now().After(deadline) {
			t.Fatalf("the database file holds %d bytes after a commit of %d: the WAL was not checkpointed",
				fileSize(t, path), size)
		}
		time.Sleep(sqlite.CheckpointEvery)
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
