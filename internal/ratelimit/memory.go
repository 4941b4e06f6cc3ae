package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// sweepEvery is how often Memory drops the keys whose log has left the window.
const sweepEvery = time.Minute

// Memory is an in-process sliding-log limiter; it is safe for concurrent use. Per key it
// keeps the times of at most limit allowed requests (8 bytes each), oldest first.
type Memory struct {
	clock func() time.Time

	mu        sync.Mutex
	logs      map[string][]int64 // unix nanoseconds of allowed requests in the window, oldest first
	lastSweep int64              // unix nanoseconds of the last sweep
}

// NewMemory returns an in-process limiter that reads the time from clock (time.Now when
// nil) and forgets a key once its last request has left the window, so idle keys cost no
// memory.
func NewMemory(clock func() time.Time) *Memory {
	if clock == nil {
		clock = time.Now
	}
	return &Memory{clock: clock, logs: make(map[string][]int64)}
}

// Allow spends one request of key's budget of perMinute per Window if it is available.
func (m *Memory) Allow(_ context.Context, key string, perMinute int) (Result, error) {
	if perMinute < 1 {
		return Result{}, fmt.Errorf("memory rate limit %q: %w", key, ErrInvalidLimit)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock().UnixNano()
	m.sweep(now)

	log := inWindow(m.logs[key], now)
	// Only the newest perMinute entries decide (after a lowered limit there may be more).
	log = log[max(len(log)-perMinute, 0):]
	res := Result{Limit: perMinute}
	if len(log) < perMinute {
		log = append(log, now)
		res.Allowed = true
		res.Remaining = perMinute - len(log)
	}
	res.ResetAfter = time.Duration(log[0] + int64(Window) - now)
	if !res.Allowed {
		res.RetryAfter = res.ResetAfter
	}
	m.logs[key] = log
	return res, nil
}

// inWindow returns the suffix of log (oldest first) still inside the window ending at now:
// an entry leaves it exactly Window after it was allowed.
func inWindow(log []int64, now int64) []int64 {
	start := now - int64(Window)
	i := 0
	for i < len(log) && log[i] <= start {
		i++
	}
	return log[i:]
}

// sweep drops, at most once per sweepEvery, the keys whose newest entry has left the
// window; such a key behaves exactly like one never seen. The caller holds m.mu.
func (m *Memory) sweep(now int64) {
	if now-m.lastSweep < int64(sweepEvery) {
		return
	}
	m.lastSweep = now
	for k, log := range m.logs {
		if len(inWindow(log[len(log)-1:], now)) == 0 {
			delete(m.logs, k)
		}
	}
}

// size returns the number of keys tracked and the longest log.
func (m *Memory) size() (keys, longest int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, log := range m.logs {
		longest = max(longest, len(log))
	}
	return len(m.logs), longest
}
