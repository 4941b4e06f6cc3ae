// Package webhook delivers webhook events: the retry schedule, the address guard against
// server-side request forgery, the Deliverer that sends one signed attempt, and the
// Dispatcher that sends the deliveries the store holds, records every attempt and retries.
package webhook

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// DefaultSchedule is the retry schedule: the delays after the first, second, … failed attempt.
const DefaultSchedule = "1m,5m,30m,2h,6h"

// MaxScheduleEntries is the largest number of retries a schedule may hold.
const MaxScheduleEntries = 20

// MaxScheduleDelay is the longest single delay a schedule may hold.
const MaxScheduleDelay = 7 * 24 * time.Hour

// ParseSchedule parses a comma-separated list of positive Go durations such as DefaultSchedule.
func ParseSchedule(s string) ([]time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("webhook schedule is empty")
	}
	parts := strings.Split(s, ",")
	if len(parts) > MaxScheduleEntries {
		return nil, fmt.Errorf("webhook schedule has %d entries, at most %d allowed", len(parts), MaxScheduleEntries)
	}
	out := make([]time.Duration, 0, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		d, err := time.ParseDuration(p)
		switch {
		case err != nil:
			return nil, fmt.Errorf("webhook schedule entry %d %q: not a duration such as 5m or 2h", i+1, p)
		case d <= 0:
			return nil, fmt.Errorf("webhook schedule entry %d %q: must be positive", i+1, p)
		case d > MaxScheduleDelay:
			return nil, fmt.Errorf("webhook schedule entry %d %q: longer than %s", i+1, p, MaxScheduleDelay)
		}
		out = append(out, d)
	}
	return out, nil
}

// NextAttemptDelay returns how long to wait before the next attempt after failedAttempts
// failures, with ±10% jitter drawn from rnd (math/rand when nil), and false when the
// schedule is exhausted, so that there are at most len(schedule)+1 attempts in all.
//
// With failedAttempts below 1 the first attempt is due at once: it returns 0, true.
func NextAttemptDelay(schedule []time.Duration, failedAttempts int, rnd func() float64) (time.Duration, bool) {
	if failedAttempts < 1 {
		return 0, true
	}
	if failedAttempts > len(schedule) {
		return 0, false
	}
	base := schedule[failedAttempts-1]
	if base <= 0 {
		return 0, true
	}
	if rnd == nil {
		rnd = rand.Float64
	}
	r := rnd()
	if !(r >= 0) { // also catches NaN
		r = 0
	} else if r > 1 {
		r = 1
	}
	d := float64(base) * (0.9 + 0.2*r)
	if d >= math.MaxInt64 {
		return time.Duration(math.MaxInt64), true
	}
	return time.Duration(d), true
}
