// Package ratelimit enforces per-partner request budgets with GCRA (a token bucket that
// refills continuously): an in-process limiter, a Redis limiter shared by several servers,
// and a fail-open wrapper that falls back from the second to the first.
package ratelimit

import (
	"context"
	"errors"
	"time"
)

// Result is the outcome of one Allow call, with what the X-RateLimit and Retry-After
// headers need.
type Result struct {
	Allowed    bool          // Allowed reports whether the request may proceed.
	Limit      int           // Limit is the budget per minute that was applied.
	Remaining  int           // Remaining is how many more requests would be allowed right now.
	RetryAfter time.Duration // RetryAfter is how long to wait before a refused request can succeed (0 when allowed).
	ResetAfter time.Duration // ResetAfter is how long until the budget is full again.
}

// RetryAfterSeconds returns RetryAfter rounded up to whole seconds for the Retry-After
// header, at least 1 for a refused request and 0 for an allowed one.
func (r Result) RetryAfterSeconds() int {
	if r.Allowed {
		return 0
	}
	s := int((r.RetryAfter + time.Second - 1) / time.Second)
	return max(s, 1)
}

// Limiter decides whether one more request fits a key's budget.
type Limiter interface {
	// Allow spends one request of key's budget of perMinute requests per minute (burst
	// perMinute) if it is available; it returns ErrInvalidLimit when perMinute < 1 and a
	// wrapped backend error when the budget cannot be consulted.
	Allow(ctx context.Context, key string, perMinute int) (Result, error)
}

// ErrInvalidLimit is returned by Allow when perMinute is less than 1.
var ErrInvalidLimit = errors.New("rate limit must be at least 1 request per minute")

// emissionInterval returns the time one request "costs" in a budget of perMinute per
// minute (never zero).
func emissionInterval(perMinute int) time.Duration {
	return max(time.Minute/time.Duration(perMinute), 1)
}
