package reqlog

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// memStore keeps what is written; failUsage makes UsageAdd fail while set.
type memStore struct {
	mu        sync.Mutex
	entries   []*store.RequestLogEntry
	usage     map[string]int64
	failUsage bool
}

func (m *memStore) RequestLogInsert(_ context.Context, es []*store.RequestLogEntry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries = append(m.entries, es...)
	return nil
}

func (m *memStore) UsageAdd(_ context.Context, rows []tradewind.UsageRow) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failUsage {
		return errors.New("database down")
	}
	for _, r := range rows {
		m.usage[r.Hour.Format(time.DateOnly)+" "+r.Route] += r.Count
	}
	return nil
}

func newTestLogger(m *memStore) *Logger {
	// Intervals long enough never to fire: the test flushes by hand.
	return New(Config{Store: m, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), FlushInterval: time.Hour, UsageInterval: time.Hour})
}

// TestUsageKeptWhenFlushFails: counters whose flush failed are added by the next one,
// and Close writes the queued entries, redacted, and the counters.
func TestUsageKeptWhenFlushFails(t *testing.T) {
	m := &memStore{usage: map[string]int64{}, failUsage: true}
	l := newTestLogger(m)
	day := time.Date(2027, 1, 4, 23, 59, 0, 0, time.UTC)
	for i := range 5 {
		l.Record(&store.RequestLogEntry{PartnerID: 1, Mode: tradewind.ModeTest, At: day.Add(time.Duration(i) * 30 * time.Second),
			Route: "GET /x", Status: 200, ResponseBody: []byte(`{"secret":"whsec_1"}`)}, true)
	}
	if err := l.Flush(context.Background()); err == nil {
		t.Fatal("Flush reported no error while UsageAdd failed")
	}
	m.mu.Lock()
	m.failUsage = false
	m.mu.Unlock()
	l.Record(&store.RequestLogEntry{PartnerID: 1, Mode: tradewind.ModeTest, At: day, Route: "GET /x", Status: 200}, true)
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"2027-01-04 GET /x": 3, "2027-01-05 GET /x": 3}
	if len(m.usage) != 2 || m.usage["2027-01-04 GET /x"] != want["2027-01-04 GET /x"] || m.usage["2027-01-05 GET /x"] != 3 {
		t.Errorf("usage = %v, want %v", m.usage, want)
	}
	if len(m.entries) != 6 || string(m.entries[0].ResponseBody) != `{"secret":"[redacted]"}` {
		t.Errorf("entries written: %d, first body %s", len(m.entries), m.entries[0].ResponseBody)
	}
	if st := l.Stats(); st.UsageFailed != 1 || st.Written != 6 || st.Dropped != 0 {
		t.Errorf("stats = %+v", st)
	}
	// After Close, entries are dropped and counted; their usage is still counted.
	l.Record(&store.RequestLogEntry{PartnerID: 1, At: day}, true)
	if st := l.Stats(); st.Dropped != 1 {
		t.Errorf("an entry recorded after Close: %+v", st)
	}
}

// TestQueueBytesBound: the queue refuses entries whose bodies would pass QueueBytes.
func TestQueueBytesBound(t *testing.T) {
	m := &memStore{usage: map[string]int64{}}
	l := New(Config{Store: m, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), QueueBytes: 100, FlushInterval: time.Hour, UsageInterval: time.Hour})
	l.Record(&store.RequestLogEntry{PartnerID: 1, RequestBody: make([]byte, 101)}, true)
	if st := l.Stats(); st.Dropped != 1 {
		t.Errorf("an entry larger than QueueBytes was queued: %+v", st)
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(m.entries) != 0 {
		t.Errorf("%d entries written", len(m.entries))
	}
}

// TestRecordNotKept: an entry recorded with keep false (its request started while the
// log was Full) is counted in the usage and as dropped, never written; Full tells when
// the queue is full.
func TestRecordNotKept(t *testing.T) {
	m := &memStore{usage: map[string]int64{}}
	l := New(Config{Store: m, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), QueueSize: 2, FlushInterval: time.Hour, UsageInterval: time.Hour})
	day := time.Date(2027, 1, 4, 12, 0, 0, 0, time.UTC)
	if l.Full() {
		t.Fatal("a new log is Full")
	}
	l.Record(&store.RequestLogEntry{PartnerID: 1, Mode: tradewind.ModeTest, At: day, Route: "GET /x", Status: 429, ErrorCode: "rate_limited"}, false)
	if st := l.Stats(); st.Dropped != 1 {
		t.Errorf("an entry not kept: %+v", st)
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(m.entries) != 0 || m.usage["2027-01-04 GET /x"] != 1 {
		t.Errorf("entries %d, usage %v: want none written and one counted", len(m.entries), m.usage)
	}
	if !l.Full() {
		t.Error("a closed log is not Full")
	}
}

// TestCaptureBufferRecycleAllocatesNothing: once warm, taking a capture buffer and
// handing it back allocates nothing (neither the buffer nor a box for it).
func TestCaptureBufferRecycleAllocatesNothing(t *testing.T) {
	Recycle(CaptureBuffer())
	if n := testing.AllocsPerRun(1000, func() { Recycle(append(CaptureBuffer(), "answer"...)) }); n > 0 {
		t.Errorf("CaptureBuffer and Recycle allocate %v times a round, want 0", n)
	}
}
