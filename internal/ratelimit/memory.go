package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// sweepEvery is how often Memory drops keys whose budget is full again.
const sweepEvery = time.Minute

// Memory is an in-process GCRA limiter; it is safe for concurrent use.
type Memory struct {
	clock func() time.Time

	mu        sync.Mutex
	tat       map[string]time.Time // theoretical arrival time per key; absent means a full budget
	lastSweep time.Time
}

// NewMemory returns an in-process limiter that reads the time from clock (time.Now when
// nil) and forgets keys once their budget has refilled, so idle keys cost no memory.
func NewMemory(clock func() time.Time) *Memory {
	if clock == nil {
		clock = time.Now
	}
	return &Memory{clock: clock, tat: make(map[string]time.Time)}
}

// Allow spends one request of key's budget of perMinute per minute if it is available.
func (m *Memory) Allow(_ context.Context, key string, perMinute int) (Result, error) {
	if perMinute < 1 {
		return Result{}, fmt.Errorf("memory rate limit %q: %w", key, ErrInvalidLimit)
	}
	interval := emissionInterval(perMinute)
	burst := interval * time.Duration(perMinute)

	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock()
	m.sweep(now)

	tat, ok := m.tat[key]
	if !ok || tat.Before(now) {
		tat = now
	}
	newTAT := tat.Add(interval)
	allowAt := newTAT.Add(-burst)
	if now.Before(allowAt) {
		return Result{
			Limit:      perMinute,
			RetryAfter: allowAt.Sub(now),
			ResetAfter: tat.Sub(now),
		}, nil
	}
	m.tat[key] = newTAT
	return Result{
		Allowed:    true,
		Limit:      perMinute,
		Remaining:  int(now.Sub(allowAt) / interval),
		ResetAfter: newTAT.Sub(now),
	}, nil
}

// sweep drops, at most once per sweepEvery, the keys whose budget is full again; such a
// key behaves exactly like one never seen. The caller holds m.mu.
func (m *Memory) sweep(now time.Time) {
	if now.Sub(m.lastSweep) < sweepEvery {
		return
	}
	m.lastSweep = now
	for k, tat := range m.tat {
		if !tat.After(now) {
			delete(m.tat, k)
		}
	}
}

// len returns the number of keys currently tracked.
func (m *Memory) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tat)
}
