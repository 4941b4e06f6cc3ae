// Package ratelimittest is the one conformance suite of the rate limiters: Run states the
// rule every ratelimit.Limiter keeps — no ratelimit.Window passes more requests than the
// limit, a refused request spends nothing, and Retry-After says exactly when the next one
// passes — and the in-memory and Redis limiters both run it.
package ratelimittest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tradewind/tradewind/internal/clocktest"
	"github.com/tradewind/tradewind/internal/ratelimit"
)

// NewLimiter returns the limiter under test reading the time from now, with keys of its
// own (no other test shares them).
type NewLimiter func(t *testing.T, now func() time.Time) ratelimit.Limiter

// start is when every clock of the suite starts.
var start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// tick is the finest step the suite takes: the Redis limiter keeps microseconds.
const tick = time.Millisecond

// Run runs the conformance suite against the limiters newLimiter returns.
func Run(t *testing.T, newLimiter NewLimiter) {
	start := func(t *testing.T) (ratelimit.Limiter, *clocktest.Clock) {
		t.Helper()
		clock := clocktest.New(start)
		return newLimiter(t, clock.Now), clock
	}
	t.Run("FullWindowThenRefuse", func(t *testing.T) { t.Parallel(); fullWindowThenRefuse(t, start) })
	t.Run("NoWindowPassesMoreThanTheLimit", func(t *testing.T) { t.Parallel(); noWindowOverAdmits(t, start) })
	t.Run("NoRefillWithinTheWindow", func(t *testing.T) { t.Parallel(); noRefillWithinWindow(t, start) })
	t.Run("SteadyRate", func(t *testing.T) { t.Parallel(); steadyRate(t, start) })
	t.Run("KeysIndependent", func(t *testing.T) { t.Parallel(); keysIndependent(t, start) })
	t.Run("LimitChange", func(t *testing.T) { t.Parallel(); limitChange(t, start) })
	t.Run("InvalidLimit", func(t *testing.T) { t.Parallel(); invalidLimit(t, start) })
	t.Run("Concurrent", func(t *testing.T) { t.Parallel(); concurrent(t, start) })
}

type starter func(t *testing.T) (ratelimit.Limiter, *clocktest.Clock)

// AllowN calls l.Allow n times and returns how many were allowed and the last result.
func AllowN(tb testing.TB, l ratelimit.Limiter, key string, perMinute, n int) (allowed int, last ratelimit.Result) {
	tb.Helper()
	for range n {
		last = MustAllow(tb, l, key, perMinute)
		if last.Allowed {
			allowed++
		}
	}
	return allowed, last
}

// MustAllow calls l.Allow once and fails the test on error.
func MustAllow(tb testing.TB, l ratelimit.Limiter, key string, perMinute int) ratelimit.Result {
	tb.Helper()
	res, err := l.Allow(context.Background(), key, perMinute)
	if err != nil {
		tb.Fatalf("Allow(%q, %d): %v", key, perMinute, err)
	}
	return res
}

// fullWindowThenRefuse: a limit's worth passes at once, the next is refused until the
// first leaves the window, and RetryAfter says exactly when that is.
func fullWindowThenRefuse(t *testing.T, start starter) {
	for _, limit := range []int{1, 7, 60, 120} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			l, clock := start(t)
			for i := range limit {
				res := MustAllow(t, l, "p", limit)
				// Each request 10 ms after the last: the oldest leaves the window first.
				want := ratelimit.Result{Allowed: true, Limit: limit, Remaining: limit - 1 - i,
					ResetAfter: ratelimit.Window - time.Duration(i)*10*tick}
				if diff := cmp.Diff(want, res); diff != "" {
					t.Fatalf("request %d (-want +got):\n%s", i+1, diff)
				}
				clock.Advance(10 * tick)
			}
			// 10 ms × limit have passed since the first request.
			wait := ratelimit.Window - time.Duration(limit)*10*tick
			want := ratelimit.Result{Limit: limit, RetryAfter: wait, ResetAfter: wait}
			if diff := cmp.Diff(want, MustAllow(t, l, "p", limit)); diff != "" {
				t.Fatalf("request %d (-want +got):\n%s", limit+1, diff)
			}
			// A tick before RetryAfter: still refused (a refusal spends nothing); at it,
			// exactly one more passes, and the next waits for the second oldest.
			clock.Advance(wait - tick)
			if res := MustAllow(t, l, "p", limit); res.Allowed || res.RetryAfter != tick {
				t.Fatalf("a tick early: %+v, want refused with RetryAfter %v", res, tick)
			}
			clock.Advance(tick)
			got, last := AllowN(t, l, "p", limit, 2)
			wantNext := 10 * tick
			if limit == 1 {
				wantNext = ratelimit.Window
			}
			if got != 1 || last.RetryAfter != wantNext || last.RetryAfterSeconds() != ratelimit.CeilSeconds(wantNext) {
				t.Fatalf("at RetryAfter: %d allowed, last %+v; want 1 and RetryAfter %v", got, last, wantNext)
			}
		})
	}
}

// noWindowOverAdmits drives a random but seeded mix of bursts and pauses and compares every
// answer with the rule computed from the admissions so far: a request passes exactly when
// fewer than limit requests passed in the Window ending with it, and a refusal's RetryAfter
// is when the oldest of those leaves. Then it counts the admissions in every Window.
func noWindowOverAdmits(t *testing.T, start starter) {
	for _, tt := range []struct {
		limit int
		seed  uint64
	}{{5, 1}, {12, 2}, {120, 3}} {
		t.Run(fmt.Sprint(tt.limit), func(t *testing.T) {
			l, clock := start(t)
			rng := rand.New(rand.NewPCG(tt.seed, 0))
			var admitted []time.Time
			for i := range 1500 {
				// Mostly short gaps (bursts), sometimes long pauses up to two windows.
				gap := time.Duration(rng.IntN(400)) * tick
				if rng.IntN(20) == 0 {
					gap = time.Duration(rng.IntN(120_000)) * tick
				}
				clock.Advance(gap)
				now := clock.Now()
				var inWindow []time.Time
				for _, a := range admitted {
					if now.Sub(a) < ratelimit.Window {
						inWindow = append(inWindow, a)
					}
				}
				res := MustAllow(t, l, "p", tt.limit)
				wantAllowed := len(inWindow) < tt.limit
				if res.Allowed != wantAllowed {
					t.Fatalf("request %d: allowed %v with %d in the window, want %v", i, res.Allowed, len(inWindow), wantAllowed)
				}
				if res.Allowed {
					admitted = append(admitted, now)
					inWindow = append(inWindow, now)
				}
				if want := tt.limit - len(inWindow); res.Remaining != want {
					t.Fatalf("request %d: Remaining %d, want %d", i, res.Remaining, want)
				}
				oldest := inWindow[len(inWindow)-min(len(inWindow), tt.limit)]
				if want := oldest.Add(ratelimit.Window).Sub(now); res.ResetAfter != want || (!res.Allowed && res.RetryAfter != want) {
					t.Fatalf("request %d: %+v, want ResetAfter (and RetryAfter when refused) %v", i, res, want)
				}
			}
			// The busiest window starts with an admission.
			for i, a := range admitted {
				n := 0
				for _, b := range admitted[i:] {
					if b.Sub(a) < ratelimit.Window {
						n++
					}
				}
				if n > tt.limit {
					t.Fatalf("%d requests passed in the window from %v, limit %d", n, a, tt.limit)
				}
			}
			if len(admitted) < 3*tt.limit {
				t.Errorf("only %d admissions: the pattern does not exercise the limit", len(admitted))
			}
		})
	}
}

// noRefillWithinWindow: the budget is the window's, not a refilling bucket's: "120 per
// minute" spent at once gives nothing back before the minute is over (a token bucket
// would allow about 240 in the first minute).
func noRefillWithinWindow(t *testing.T, start starter) {
	tests := []struct {
		advance time.Duration
		want    int // allowed out of 200 after the advance
	}{
		{0, 0},
		{500 * time.Millisecond, 0},
		{30 * time.Second, 0},
		{ratelimit.Window - tick, 0},
		{ratelimit.Window, 120},
		{time.Hour, 120},
	}
	for _, tt := range tests {
		t.Run(tt.advance.String(), func(t *testing.T) {
			l, clock := start(t)
			if got, _ := AllowN(t, l, "p", 120, 121); got != 120 {
				t.Fatalf("first burst: %d allowed, want 120", got)
			}
			clock.Advance(tt.advance)
			if got, _ := AllowN(t, l, "p", 120, 200); got != tt.want {
				t.Errorf("after %v: %d allowed, want %d", tt.advance, got, tt.want)
			}
		})
	}
}

// steadyRate: one request every 500 ms fits 120 per minute forever; one every 400 ms
// passes exactly 120 of each minute's 150.
func steadyRate(t *testing.T, start starter) {
	l, clock := start(t)
	for i := range 360 {
		if res := MustAllow(t, l, "p", 120); !res.Allowed {
			t.Fatalf("steady request %d refused: %+v", i, res)
		}
		clock.Advance(500 * time.Millisecond)
	}
	l, clock = start(t)
	var perMinute [3]int
	for i := range 3 * 150 {
		if MustAllow(t, l, "p", 120).Allowed {
			perMinute[i/150]++
		}
		clock.Advance(400 * time.Millisecond)
	}
	if perMinute != [3]int{120, 120, 120} {
		t.Errorf("at 150 per minute: %v allowed per minute, want 120 each", perMinute)
	}
}

func keysIndependent(t *testing.T, start starter) {
	l, _ := start(t)
	for _, k := range []struct {
		key   string
		limit int
	}{{"a", 5}, {"b", 5}, {"c", 50}} {
		if got, _ := AllowN(t, l, k.key, k.limit, 2*k.limit); got != k.limit {
			t.Errorf("%s: %d allowed, want %d", k.key, got, k.limit)
		}
	}
}

// limitChange: the window's log outlives a contract change; the new limit applies to it.
func limitChange(t *testing.T, start starter) {
	tests := []struct {
		name          string
		before, after int // limit before and after the change
		used          int // requests allowed before the change
		want          int // requests allowed after the change, in the same window
	}{
		{"raise after some", 10, 20, 5, 15},
		{"raise after all", 10, 20, 10, 10},
		{"lower below use", 20, 10, 15, 0},
		{"lower above use", 20, 10, 5, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, clock := start(t)
			if got, _ := AllowN(t, l, "p", tt.before, tt.used); got != tt.used {
				t.Fatalf("before: %d allowed, want %d", got, tt.used)
			}
			clock.Advance(tick)
			if got, _ := AllowN(t, l, "p", tt.after, 100); got != tt.want {
				t.Errorf("after: %d allowed, want %d", got, tt.want)
			}
			// Once the window has passed, the new limit's full budget is back.
			clock.Advance(ratelimit.Window)
			if got, _ := AllowN(t, l, "p", tt.after, 100); got != tt.after {
				t.Errorf("a window later: %d allowed, want %d", got, tt.after)
			}
		})
	}
}

func invalidLimit(t *testing.T, start starter) {
	l, _ := start(t)
	for _, n := range []int{0, -1} {
		if _, err := l.Allow(context.Background(), "p", n); !errors.Is(err, ratelimit.ErrInvalidLimit) {
			t.Errorf("Allow(perMinute=%d) error = %v, want ErrInvalidLimit", n, err)
		}
	}
	if res := MustAllow(t, l, "p", 1); !res.Allowed {
		t.Errorf("first request after invalid ones refused: %+v", res)
	}
}

// concurrent: many requests at once never take more places than the limit.
func concurrent(t *testing.T, start starter) {
	l, _ := start(t)
	if got := AllowConcurrently(t, []ratelimit.Limiter{l}, "shared", 50, 20, 10); got != 50 {
		t.Errorf("%d allowed of 200 concurrent requests, want 50", got)
	}
}

// AllowConcurrently runs goroutines that each call Allow each times on key, taking the
// limiters in turn (several limiters: several servers), and returns how many were allowed.
func AllowConcurrently(t *testing.T, limiters []ratelimit.Limiter, key string, perMinute, goroutines, each int) int {
	t.Helper()
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := range goroutines {
		l := limiters[i%len(limiters)]
		wg.Go(func() {
			for range each {
				res, err := l.Allow(context.Background(), key, perMinute)
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
	return int(allowed.Load())
}
