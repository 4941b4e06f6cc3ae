package ratelimit

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/clocktest"
)

// newFakeClock returns a test clock at a fixed instant.
func newFakeClock() *clocktest.Clock {
	return clocktest.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}

// allowN calls l.Allow n times and returns how many were allowed and the last result.
func allowN(tb testing.TB, l Limiter, key string, perMinute, n int) (allowed int, last Result) {
	tb.Helper()
	for range n {
		res, err := l.Allow(context.Background(), key, perMinute)
		if err != nil {
			tb.Fatalf("Allow(%q, %d): %v", key, perMinute, err)
		}
		if res.Allowed {
			allowed++
		}
		last = res
	}
	return allowed, last
}

// mustAllow calls l.Allow once and fails on error.
func mustAllow(tb testing.TB, l Limiter, key string, perMinute int) Result {
	tb.Helper()
	res, err := l.Allow(context.Background(), key, perMinute)
	if err != nil {
		tb.Fatalf("Allow(%q, %d): %v", key, perMinute, err)
	}
	return res
}

func TestMemoryLogIsBoundedByTheLimit(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock.Now)
	for range 100 {
		mustAllow(t, m, "p", 3)
		clock.Advance(time.Millisecond)
	}
	if _, longest := m.size(); longest != 3 {
		t.Errorf("longest log %d after 100 requests at 3 per minute, want 3", longest)
	}
	// A lowered limit keeps only the newest entries that decide.
	allowN(t, m, "big", 50, 50)
	mustAllow(t, m, "big", 2)
	if _, longest := m.size(); longest != 3 {
		t.Errorf("longest log %d after the limit was lowered to 2, want 3 (key p)", longest)
	}
}

func TestMemoryEvictsIdleKeys(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock.Now)
	for i := range 1000 {
		mustAllow(t, m, fmt.Sprint("k", i), 120) // out of the window after 60s
	}
	clock.Advance(30 * time.Second)
	allowN(t, m, "busy", 120, 120) // in the window until 90s
	if keys, _ := m.size(); keys != 1001 {
		t.Fatalf("tracked %d keys, want 1001 (no sweep before a minute)", keys)
	}
	clock.Advance(31 * time.Second)
	mustAllow(t, m, "other", 120)
	if keys, _ := m.size(); keys != 2 {
		t.Fatalf("after 61s tracked %d keys, want 2 (busy and other)", keys)
	}
	// The busy key kept its log: nothing before 90s.
	if got, _ := allowN(t, m, "busy", 120, 200); got != 0 {
		t.Errorf("busy key: %d allowed, want 0", got)
	}
	// An evicted key starts with a full budget, exactly as if it had been kept.
	if got, _ := allowN(t, m, "k1", 120, 200); got != 120 {
		t.Errorf("evicted key: %d allowed, want 120", got)
	}
}

func TestMemoryDefaultClock(t *testing.T) {
	t.Parallel()
	if res := mustAllow(t, NewMemory(nil), "p", 1); !res.Allowed {
		t.Errorf("NewMemory(nil) refuses the first request: %+v", res)
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		res  Result
		want int
	}{
		{Result{Allowed: true}, 0},
		{Result{RetryAfter: 500 * time.Millisecond}, 1},
		{Result{RetryAfter: time.Nanosecond}, 1},
		{Result{RetryAfter: 0}, 1},
		{Result{RetryAfter: time.Second}, 1},
		{Result{RetryAfter: time.Second + time.Nanosecond}, 2},
		{Result{RetryAfter: time.Minute}, 60},
	}
	for _, tt := range tests {
		if got := tt.res.RetryAfterSeconds(); got != tt.want {
			t.Errorf("%+v.RetryAfterSeconds() = %d, want %d", tt.res, got, tt.want)
		}
	}
}
