package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeClock is a manually advanced clock, safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
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

func TestMemoryBurstThenRefuse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		perMinute int
		interval  time.Duration
	}{
		{120, 500 * time.Millisecond},
		{60, time.Second},
		{1, time.Minute},
		{7, 8571428571 * time.Nanosecond},
		{1000, 60 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.perMinute), func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			m := NewMemory(clock.Now)
			for i := range tt.perMinute {
				res := mustAllow(t, m, "p1", tt.perMinute)
				want := Result{
					Allowed:    true,
					Limit:      tt.perMinute,
					Remaining:  tt.perMinute - 1 - i,
					ResetAfter: tt.interval * time.Duration(i+1),
				}
				if diff := cmp.Diff(want, res); diff != "" {
					t.Fatalf("request %d mismatch (-want +got):\n%s", i+1, diff)
				}
			}
			res := mustAllow(t, m, "p1", tt.perMinute)
			want := Result{
				Limit:      tt.perMinute,
				RetryAfter: tt.interval,
				ResetAfter: tt.interval * time.Duration(tt.perMinute),
			}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Fatalf("request %d mismatch (-want +got):\n%s", tt.perMinute+1, diff)
			}
			// Just before the retry time: still refused; at it: exactly one more.
			clock.Advance(tt.interval - time.Nanosecond)
			if res := mustAllow(t, m, "p1", tt.perMinute); res.Allowed || res.RetryAfter != time.Nanosecond {
				t.Fatalf("1ns early: %+v, want refused with RetryAfter 1ns", res)
			}
			clock.Advance(time.Nanosecond)
			if got, _ := allowN(t, m, "p1", tt.perMinute, 2); got != 1 {
				t.Fatalf("after RetryAfter: %d allowed, want 1", got)
			}
		})
	}
}

func TestMemoryRefill(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		advance time.Duration
		want    int // allowed out of 200 after the advance
	}{
		{"none", 0, 0},
		{"half a second", 500 * time.Millisecond, 1},
		{"1.4s", 1400 * time.Millisecond, 2},
		{"ten seconds", 10 * time.Second, 20},
		{"half a minute", 30 * time.Second, 60},
		{"a minute", time.Minute, 120},
		{"an hour caps at burst", time.Hour, 120},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			m := NewMemory(clock.Now)
			if got, _ := allowN(t, m, "p", 120, 121); got != 120 {
				t.Fatalf("initial burst: %d allowed, want 120", got)
			}
			clock.Advance(tt.advance)
			if got, _ := allowN(t, m, "p", 120, 200); got != tt.want {
				t.Errorf("after %v: %d allowed, want %d", tt.advance, got, tt.want)
			}
		})
	}
}

func TestMemorySteadyRate(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock.Now)
	allowN(t, m, "p", 120, 120)
	// One request every 500ms is sustainable forever; one every 400ms is not.
	for i := range 240 {
		clock.Advance(500 * time.Millisecond)
		if res := mustAllow(t, m, "p", 120); !res.Allowed || res.Remaining != 0 {
			t.Fatalf("steady request %d: %+v, want allowed with 0 remaining", i, res)
		}
	}
	refused := 0
	for range 100 {
		clock.Advance(400 * time.Millisecond)
		if !mustAllow(t, m, "p", 120).Allowed {
			refused++
		}
	}
	if refused != 20 { // 40s at 400ms: 100 attempts, 80 tokens
		t.Errorf("at 150/min: %d refused, want 20", refused)
	}
}

func TestMemoryKeysIndependent(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock.Now)
	if got, _ := allowN(t, m, "a", 5, 10); got != 5 {
		t.Fatalf("a: %d allowed, want 5", got)
	}
	if got, _ := allowN(t, m, "b", 5, 10); got != 5 {
		t.Fatalf("b: %d allowed, want 5", got)
	}
	if got, _ := allowN(t, m, "c", 50, 100); got != 50 {
		t.Fatalf("c: %d allowed, want 50", got)
	}
}

func TestMemoryLimitChange(t *testing.T) {
	t.Parallel()
	// GCRA state is time: a key that used half its minute keeps half a minute of budget
	// when its contract changes.
	tests := []struct {
		name          string
		before, after int // perMinute before and after the change
		used          int // requests made before the change
		want          int // requests allowed after the change
	}{
		{"raise after half", 10, 20, 5, 10},
		{"lower after half", 20, 10, 10, 5},
		{"raise after all", 10, 20, 10, 0},
		{"raise unused", 10, 20, 0, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := NewMemory(newFakeClock().Now)
			if got, _ := allowN(t, m, "p", tt.before, tt.used); got != tt.used {
				t.Fatalf("before: %d allowed, want %d", got, tt.used)
			}
			if got, _ := allowN(t, m, "p", tt.after, 100); got != tt.want {
				t.Errorf("after: %d allowed, want %d", got, tt.want)
			}
		})
	}
}

func TestMemoryInvalidLimit(t *testing.T) {
	t.Parallel()
	m := NewMemory(nil)
	for _, n := range []int{0, -1} {
		if _, err := m.Allow(context.Background(), "p", n); !errors.Is(err, ErrInvalidLimit) {
			t.Errorf("Allow(perMinute=%d) error = %v, want ErrInvalidLimit", n, err)
		}
	}
	if res := mustAllow(t, m, "p", 1); !res.Allowed {
		t.Errorf("NewMemory(nil) refuses the first request: %+v", res)
	}
}

func TestMemoryEvictsIdleKeys(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock.Now)
	for i := range 1000 {
		mustAllow(t, m, fmt.Sprint("k", i), 120) // full again after 500ms
	}
	clock.Advance(30 * time.Second)
	allowN(t, m, "busy", 120, 120) // full again only at 90s
	if got := m.len(); got != 1001 {
		t.Fatalf("tracked %d keys, want 1001 (no sweep before a minute)", got)
	}
	clock.Advance(31 * time.Second)
	mustAllow(t, m, "other", 120)
	if got := m.len(); got != 2 {
		t.Fatalf("after 61s tracked %d keys, want 2 (busy and other)", got)
	}
	// The busy key kept its state: 31s of its minute are back, 62 tokens of 500ms.
	if got, _ := allowN(t, m, "busy", 120, 200); got != 62 {
		t.Errorf("busy key: %d allowed, want 62", got)
	}
	// An evicted key starts with a full budget, exactly as if it had been kept.
	if got, _ := allowN(t, m, "k1", 120, 200); got != 120 {
		t.Errorf("evicted key: %d allowed, want 120", got)
	}
}

func TestMemoryConcurrent(t *testing.T) {
	t.Parallel()
	m := NewMemory(newFakeClock().Now)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			for range 10 {
				res, err := m.Allow(context.Background(), "shared", 100)
				if err != nil {
					t.Error(err)
					return
				}
				if res.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != 100 {
		t.Errorf("%d allowed of 500 concurrent requests, want 100", got)
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
