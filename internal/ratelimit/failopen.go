package ratelimit

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

const (
	// warnEvery is the least time between two "primary unavailable" warnings.
	warnEvery = 30 * time.Second
	// probeEvery is how long FailOpen stays on the fallback after a primary failure before
	// one request tries the primary again.
	probeEvery = 5 * time.Second
)

// failOpen is the Limiter returned by NewFailOpen.
type failOpen struct {
	primary    Limiter
	fallback   Limiter
	logger     *slog.Logger
	now        func() time.Time
	probeEvery time.Duration
	warnEvery  time.Duration

	mu       sync.Mutex
	down     bool      // the primary failed and has not answered since
	probeAt  time.Time // while down, when the next request may try the primary
	lastWarn time.Time // when the last warning was logged (zero: never)
}

// NewFailOpen returns a Limiter that asks primary (normally Redis) and, when primary
// fails, FAILS OPEN to fallback (an in-process limiter; NewMemory(time.Now) when nil): each
// server then enforces the budget locally, so with N servers a partner gets at most N× its
// budget, but the API stays up. While primary is down, one request every 5 s tries it
// again and the limiter returns to it as soon as it answers; the outage is logged as a
// warning at most once per 30 s and the recovery at info level. ErrInvalidLimit and errors
// after the caller's context ended are returned, not treated as an outage.
func NewFailOpen(primary Limiter, logger *slog.Logger, fallback Limiter) Limiter {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if fallback == nil {
		fallback = NewMemory(time.Now)
	}
	return &failOpen{
		primary:    primary,
		fallback:   fallback,
		logger:     logger,
		now:        time.Now,
		probeEvery: probeEvery,
		warnEvery:  warnEvery,
	}
}

// Allow asks the primary limiter, or the fallback while the primary is unavailable.
func (f *failOpen) Allow(ctx context.Context, key string, perMinute int) (Result, error) {
	if f.tryPrimary() {
		res, err := f.primary.Allow(ctx, key, perMinute)
		switch {
		case err == nil:
			f.markUp()
			return res, nil
		case errors.Is(err, ErrInvalidLimit), ctx.Err() != nil:
			return Result{}, err
		}
		f.markDown(err)
	}
	return f.fallback.Allow(ctx, key, perMinute)
}

// tryPrimary reports whether this request should ask the primary; while the primary is
// down only one request per probe interval does.
func (f *failOpen) tryPrimary() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.down {
		return true
	}
	now := f.now()
	if now.Before(f.probeAt) {
		return false
	}
	f.probeAt = now.Add(f.probeEvery)
	return true
}

// markDown records a primary failure and logs it unless a warning was logged recently.
func (f *failOpen) markDown(err error) {
	f.mu.Lock()
	now := f.now()
	f.down = true
	f.probeAt = now.Add(f.probeEvery)
	warn := f.lastWarn.IsZero() || now.Sub(f.lastWarn) >= f.warnEvery
	if warn {
		f.lastWarn = now
	}
	f.mu.Unlock()
	if warn {
		f.logger.Warn("rate limiter unavailable, failing open to the in-process limiter (budgets are per server until it recovers)",
			slog.Any("error", err))
	}
}

// markUp records that the primary answered and logs the recovery if it was down.
func (f *failOpen) markUp() {
	f.mu.Lock()
	wasDown := f.down
	f.down = false
	f.mu.Unlock()
	if wasDown {
		f.logger.Info("rate limiter available again, back to the shared budget")
	}
}
