package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tradewind/tradewind/internal/clocktest"
)

// logRecorder is a slog.Handler that keeps the records it is given.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logRecorder) WithGroup(string) slog.Handler            { return h }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}

// count returns how many records of level were logged.
func (h *logRecorder) count(level slog.Level) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.records {
		if r.Level == level {
			n++
		}
	}
	return n
}

// countingLimiter counts the calls that reach the Limiter it wraps.
type countingLimiter struct {
	Limiter
	calls atomic.Int64
}

func (c *countingLimiter) Allow(ctx context.Context, key string, perMinute int) (Result, error) {
	c.calls.Add(1)
	return c.Limiter.Allow(ctx, key, perMinute)
}

// errLimiter always fails with err.
type errLimiter struct{ err error }

func (e errLimiter) Allow(context.Context, string, int) (Result, error) { return Result{}, e.err }

// newTestFailOpen returns NewFailOpen's limiter driven by clock, with its log recorder.
func newTestFailOpen(tb testing.TB, primary, fallback Limiter, clock *clocktest.Clock) (*failOpen, *logRecorder) {
	tb.Helper()
	rec := &logRecorder{}
	l, ok := NewFailOpen(primary, slog.New(rec), fallback).(*failOpen)
	if !ok {
		tb.Fatalf("NewFailOpen returned %T", l)
	}
	l.now = clock.Now
	return l, rec
}

func TestFailOpenUnreachableRedisFallsBackAndStillLimits(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	primary := &countingLimiter{Limiter: NewRedis(newDeadRedisClient(t), nil)}
	l, logs := newTestFailOpen(t, primary, NewMemory(clock.Now), clock)

	got, last := allowN(t, l, "p1", 120, 121)
	if got != 120 || last.RetryAfter != Window {
		t.Fatalf("with Redis down: %d allowed, last %+v; want 120 and RetryAfter 1m", got, last)
	}
	if n := primary.calls.Load(); n != 1 {
		t.Errorf("Redis asked %d times, want 1 (then only once per probe interval)", n)
	}
	if n := logs.count(slog.LevelWarn); n != 1 {
		t.Errorf("%d warnings, want 1", n)
	}

	// Probes fail every 5s; warnings stay at one per 30s.
	for range 6 {
		clock.Advance(5 * time.Second)
		allowN(t, l, "p1", 120, 3)
	}
	if n := primary.calls.Load(); n != 7 {
		t.Errorf("Redis asked %d times after 30s, want 7", n)
	}
	if n := logs.count(slog.LevelWarn); n != 2 {
		t.Errorf("%d warnings after 30s, want 2", n)
	}
	if n := logs.count(slog.LevelInfo); n != 0 {
		t.Errorf("%d info records (recovery) while Redis is down, want 0", n)
	}
}

func TestFailOpenProbeInterval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		advance   time.Duration
		wantProbe bool
	}{
		{0, false},
		{4999 * time.Millisecond, false},
		{5 * time.Second, true},
		{time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.advance.String(), func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			primary := &countingLimiter{Limiter: errLimiter{errors.New("connection refused")}}
			l, _ := newTestFailOpen(t, primary, NewMemory(clock.Now), clock)
			mustAllow(t, l, "p", 10) // fails over
			clock.Advance(tt.advance)
			allowN(t, l, "p", 10, 5)
			want := int64(1)
			if tt.wantProbe {
				want = 2 // exactly one of the five requests probes
			}
			if got := primary.calls.Load(); got != want {
				t.Errorf("primary calls = %d, want %d", got, want)
			}
		})
	}
}

func TestFailOpenNotAnOutage(t *testing.T) {
	t.Parallel()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
	}{
		{"invalid limit", context.Background(), fmt.Errorf("redis: %w", ErrInvalidLimit)},
		{"caller gave up", canceled, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			fallback := &countingLimiter{Limiter: NewMemory(clock.Now)}
			l, logs := newTestFailOpen(t, errLimiter{tt.err}, fallback, clock)
			if _, err := l.Allow(tt.ctx, "p", 10); !errors.Is(err, tt.err) {
				t.Errorf("Allow() error = %v, want %v", err, tt.err)
			}
			if fallback.calls.Load() != 0 || logs.count(slog.LevelWarn) != 0 || l.down {
				t.Errorf("treated as an outage: fallback calls %d, warnings %d, down %v",
					fallback.calls.Load(), logs.count(slog.LevelWarn), l.down)
			}
		})
	}
}

func TestFailOpenDefaults(t *testing.T) {
	t.Parallel()
	l := NewFailOpen(errLimiter{errors.New("down")}, nil, nil)
	if got, _ := allowN(t, l, "p", 3, 4); got != 3 {
		t.Errorf("default fallback: %d allowed, want 3", got)
	}
}

// switchableDialer dials the real Redis only while up is set, as a Redis that restarts.
type switchableDialer struct{ up atomic.Bool }

func (d *switchableDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if !d.up.Load() {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connection refused")}
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

func TestFailOpenRecoversWhenRedisAnswers(t *testing.T) {
	t.Parallel()
	check := newRedisClient(t) // fails the test if the real Redis is missing
	var dialer switchableDialer
	c := redis.NewClient(&redis.Options{
		Addr:          redisAddr(),
		Dialer:        dialer.dial,
		DialTimeout:   time.Second,
		DialerRetries: 1,
		MaxRetries:    -1,
	})
	t.Cleanup(func() { c.Close() })
	key := uniqueKey(t, check)

	clock := newFakeClock()
	fallback := &countingLimiter{Limiter: NewMemory(clock.Now)}
	l, logs := newTestFailOpen(t, NewRedis(c, nil), fallback, clock)

	// Redis down: the in-process budget of 2 applies.
	if got, _ := allowN(t, l, key, 2, 3); got != 2 {
		t.Fatalf("Redis down: %d allowed, want 2", got)
	}
	if n := check.Exists(context.Background(), "rate:"+key).Val(); n != 0 {
		t.Fatalf("Redis key exists while the client is down")
	}

	// Redis answers again: the next probe switches back to its (fresh) shared budget.
	dialer.up.Store(true)
	clock.Advance(probeEvery)
	before := fallback.calls.Load()
	if got, _ := allowN(t, l, key, 2, 3); got != 2 {
		t.Errorf("Redis back: %d allowed, want 2 from the Redis budget", got)
	}
	if n := fallback.calls.Load() - before; n != 0 {
		t.Errorf("fallback asked %d times after recovery, want 0", n)
	}
	if n := check.Exists(context.Background(), "rate:"+key).Val(); n != 1 {
		t.Errorf("Redis key missing after recovery")
	}
	if n := logs.count(slog.LevelInfo); n != 1 {
		t.Errorf("%d recovery records, want 1", n)
	}
	// Another server sharing this Redis sees the same, now spent, budget.
	if res := mustAllow(t, NewRedis(check, nil), key, 2); res.Allowed {
		t.Errorf("second server allowed a request beyond the shared budget: %+v", res)
	}
}

// TestFailOpenConcurrent exercises failing over and recovering under load for the race
// detector.
func TestFailOpenConcurrent(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	var fail atomic.Bool
	fail.Store(true)
	memPrimary := NewMemory(clock.Now)
	primary := limiterFunc(func(ctx context.Context, key string, n int) (Result, error) {
		if fail.Load() {
			return Result{}, errors.New("down")
		}
		return memPrimary.Allow(ctx, key, n)
	})
	l, _ := newTestFailOpen(t, primary, NewMemory(clock.Now), clock)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			for j := range 50 {
				if i == 0 && j == 25 {
					fail.Store(false)
					clock.Advance(probeEvery)
				}
				if _, err := l.Allow(context.Background(), "p", 1000); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// limiterFunc adapts a function to the Limiter interface.
type limiterFunc func(ctx context.Context, key string, perMinute int) (Result, error)

func (f limiterFunc) Allow(ctx context.Context, key string, perMinute int) (Result, error) {
	return f(ctx, key, perMinute)
}
