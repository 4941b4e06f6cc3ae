package sqlite_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlite"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestFreedPagesReused: the pages the request log's retention frees are reused by new
// entries (SQLite keeps them on its freelist), so the file stops growing under a
// constant load with retention, without VACUUM.
func TestFreedPagesReused(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, storetest.SQLitePath(t, "reuse.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pages := func() (n int64) {
		t.Helper()
		if _, err := s.RequestLogSQL().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		if err := s.RequestLogSQL().QueryRowContext(ctx, `PRAGMA page_count`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	body := []byte(`{"pad":"` + strings.Repeat("x", 4000) + `"}`)
	start := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	day := func(d int) {
		t.Helper()
		var es []*store.RequestLogEntry
		for i := range 1000 {
			es = append(es, &store.RequestLogEntry{PartnerID: 1, Mode: tradewind.ModeTest, At: start.AddDate(0, 0, d).Add(time.Duration(i) * time.Second),
				Method: "POST", Path: "/p", RequestBody: body, RequestSize: int64(len(body)), ResponseBody: body, ResponseSize: int64(len(body))})
		}
		if err := s.RequestLogInsert(ctx, es); err != nil {
			t.Fatal(err)
		}
	}
	prune := func(before int) {
		t.Helper()
		for {
			n, err := s.RequestLogPrune(ctx, store.RequestLogPruneParams{Mode: tradewind.ModeTest, Before: start.AddDate(0, 0, before), Limit: 500})
			if err != nil {
				t.Fatal(err)
			}
			if n < 500 {
				return
			}
		}
	}
	// Keep two days of entries: after the first two, every day adds one and prunes one.
	day(0)
	day(1)
	full := pages()
	for d := 2; d < 8; d++ {
		prune(d - 1)
		day(d)
	}
	if got := pages(); got > full+full/10 {
		t.Errorf("the file grew from %d to %d pages under a constant load with retention", full, got)
	}
}
