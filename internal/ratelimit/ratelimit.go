// Package ratelimit enforces per-partner request budgets as an exact sliding window: in no
// Window (60 seconds) does a key pass more requests than its limit. It has an in-process
// limiter, a Redis limiter shared by several servers, and a fail-open wrapper that falls
// back from the second to the first. Both limiters keep a log of at most limit admission
// times per key; ratelimittest holds the one suite that states the rule for both.
package ratelimit

import (
	"context"
	"errors"
	"time"
)

// Window is the span in which a key passes at most its limit: a request is allowed when
// fewer than limit requests were allowed in the Window that ends with it.
const Window = time.Minute

// Result is the outcome of one Allow call, with what the RateLimit-* and Retry-After
// headers need.
type Result struct {
	Allowed    bool          // Allowed reports whether the request may proceed.
	Limit      int           // Limit is the budget per Window that was applied.
	Remaining  int           // Remaining is how many more requests would be allowed right now.
	RetryAfter time.Duration // RetryAfter is how long until a refused request would pass (0 when allowed).
	// ResetAfter is how long until the oldest request in the window leaves it, so that
	// Remaining grows by one: when Remaining is 0, when the next request will pass.
	ResetAfter time.Duration
}

// RetryAfterSeconds returns RetryAfter rounded up to whole seconds for the Retry-After
// header, at least 1 for a refused request and 0 for an allowed one.
func (r Result) RetryAfterSeconds() int {
	if r.Allowed {
		return 0
	}
	return max(CeilSeconds(r.RetryAfter), 1)
}

// CeilSeconds rounds d up to whole seconds, so that a client waiting that long is never
// early.
func CeilSeconds(d time.Duration) int { return int((d + time.Second - 1) / time.Second) }

// Limiter decides whether one more request fits a key's budget.
type Limiter interface {
	// Allow spends one request of key's budget of perMinute requests per Window if it is
	// available; it returns ErrInvalidLimit when perMinute < 1 and a wrapped backend error
	// when the budget cannot be consulted. A refused request spends nothing.
	Allow(ctx context.Context, key string, perMinute int) (Result, error)
}

// ErrInvalidLimit is returned by Allow when perMinute is less than 1.
var ErrInvalidLimit = errors.New("rate limit must be at least 1 request per minute")
