package reqlog

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/clocktest"
	"github.com/tradewind/tradewind/internal/store"
)

// slowStore is a memStore whose every batch takes 30 ms of the test clock.
type slowStore struct {
	*memStore
	clock *clocktest.Clock
}

func (s slowStore) RequestLogInsert(ctx context.Context, es []*store.RequestLogEntry) error {
	s.clock.Advance(30 * time.Millisecond)
	return s.memStore.RequestLogInsert(ctx, es)
}

func TestRestAfter(t *testing.T) {
	for _, c := range []struct {
		busy  time.Duration
		share float64
		want  time.Duration
	}{
		{30 * time.Millisecond, 0.25, 90 * time.Millisecond},
		{30 * time.Millisecond, 0.5, 30 * time.Millisecond},
		{30 * time.Millisecond, 1, 0},
		{30 * time.Millisecond, 2, 0},
		{0, 0.25, 0},
	} {
		if got := restAfter(c.busy, c.share); got != c.want {
			t.Errorf("restAfter(%v, %v) = %v, want %v", c.busy, c.share, got, c.want)
		}
	}
}

// TestWriterRestsToItsShare: after a batch that took 30 ms (test clock) the writer with
// a share of 0.125 of 2 cores (a quarter of the wall time) rests 90 ms; meanwhile it writes nothing, the queue fills and then
// drops (counted, Record never waits), and the usage counters count every request.
// Close then writes what is queued without resting.
func TestWriterRestsToItsShare(t *testing.T) {
	m := &memStore{usage: map[string]int64{}}
	clock := clocktest.New(time.Date(2027, 1, 4, 12, 0, 0, 0, time.UTC))
	rests := make(chan time.Duration, 100)
	resume := make(chan time.Time)
	after := func(d time.Duration) <-chan time.Time {
		rests <- d
		return resume
	}
	l := newLogger(Config{Store: slowStore{m, clock}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), BatchSize: 2,
		QueueSize: 4, WriterShare: 0.125, Cores: 2, Clock: clock, FlushInterval: time.Hour, UsageInterval: time.Hour}, after)
	rec := func(n int) {
		for range n {
			l.Record(&store.RequestLogEntry{PartnerID: 1, Mode: tradewind.ModeTest, At: clock.Now(), Route: "GET /x", Status: 200}, true)
		}
	}
	rec(2) // a full batch: written, then the writer rests
	if d := <-rests; d != 90*time.Millisecond {
		t.Fatalf("rest after a 30 ms batch at share 0.125 of 2 cores: %v, want 90ms", d)
	}
	rec(6) // 4 queued, 2 dropped
	if st := l.Stats(); st.Dropped != 2 || st.Written != 2 || st.Queued != 4 || st.Rested != 90*time.Millisecond {
		t.Fatalf("while resting: %+v, want 2 written, 4 queued, 2 dropped", st)
	}
	resume <- time.Time{} // the rest ends: the next batch is written, then it rests again
	if d := <-rests; d != 90*time.Millisecond {
		t.Fatalf("second rest: %v", d)
	}
	if st := l.Stats(); st.Written != 4 || st.Queued != 2 {
		t.Fatalf("after one rest: %+v, want 4 written, 2 queued", st)
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := l.Stats(); st.Written != 6 || st.Dropped != 2 || st.Queued != 0 {
		t.Errorf("after Close: %+v, want 6 written, 2 dropped", st)
	}
	if got := m.usage["2027-01-04 GET /x"]; got != 8 {
		t.Errorf("usage counted %d requests, want all 8 (drops included)", got)
	}
}
