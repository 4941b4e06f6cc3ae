package webhook

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseSchedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []time.Duration
		errPart string // substring of the error, "" when none is expected
	}{
		{DefaultSchedule, []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour}, ""},
		{"30s", []time.Duration{30 * time.Second}, ""},
		{" 1m , 1h30m ,2h ", []time.Duration{time.Minute, 90 * time.Minute, 2 * time.Hour}, ""},
		{"168h", []time.Duration{168 * time.Hour}, ""},
		{strings.Repeat("1s,", 19) + "1s", slices.Repeat([]time.Duration{time.Second}, 20), ""},
		{"", nil, "empty"},
		{"   ", nil, "empty"},
		{strings.Repeat("1s,", 20) + "1s", nil, "21 entries"},
		{"1m,abc", nil, `entry 2 "abc"`},
		{"1m,,5m", nil, `entry 2 ""`},
		{"1m,", nil, `entry 2 ""`},
		{"5", nil, `entry 1 "5"`},
		{"1m,0s", nil, `entry 2 "0s"`},
		{"-1m", nil, `entry 1 "-1m"`},
		{"1m,169h", nil, `entry 2 "169h"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSchedule(tt.in)
			if tt.errPart != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errPart) {
					t.Fatalf("ParseSchedule(%q) error = %v, want one containing %q", tt.in, err, tt.errPart)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("ParseSchedule(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestNextAttemptDelay(t *testing.T) {
	t.Parallel()
	sched, err := ParseSchedule(DefaultSchedule)
	if err != nil {
		t.Fatal(err)
	}
	fixed := func(r float64) func() float64 { return func() float64 { return r } }
	tests := []struct {
		name   string
		failed int
		rnd    func() float64
		want   time.Duration
		wantOK bool
	}{
		{"not yet attempted", 0, fixed(0.5), 0, true},
		{"negative", -3, fixed(0.5), 0, true},
		{"after first failure, no jitter", 1, fixed(0.5), time.Minute, true},
		{"after first failure, lowest jitter", 1, fixed(0), 54 * time.Second, true},
		{"after first failure, highest jitter", 1, fixed(1), 66 * time.Second, true},
		{"after second failure", 2, fixed(0.5), 5 * time.Minute, true},
		{"after third failure", 3, fixed(0.5), 30 * time.Minute, true},
		{"after fourth failure", 4, fixed(0.5), 2 * time.Hour, true},
		{"after fifth failure", 5, fixed(0.5), 6 * time.Hour, true},
		{"after sixth failure: exhausted", 6, fixed(0.5), 0, false},
		{"far past the end", 100, fixed(0.5), 0, false},
		{"rnd below range is clamped", 1, fixed(-5), 54 * time.Second, true},
		{"rnd above range is clamped", 1, fixed(7), 66 * time.Second, true},
		{"NaN rnd is clamped", 1, fixed(math.NaN()), 54 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := NextAttemptDelay(sched, tt.failed, tt.rnd)
			if got != tt.want || ok != tt.wantOK {
				t.Fatalf("NextAttemptDelay(%d) = %v, %v; want %v, %v", tt.failed, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestNextAttemptDelayJitterBounds(t *testing.T) {
	t.Parallel()
	sched, err := ParseSchedule(DefaultSchedule)
	if err != nil {
		t.Fatal(err)
	}
	for failed := 1; failed <= len(sched); failed++ {
		base := sched[failed-1]
		lo, hi := base-base/10, base+base/10
		var sawLow, sawHigh bool
		for range 2000 {
			d, ok := NextAttemptDelay(sched, failed, nil) // the real random source
			if !ok || d < lo || d > hi {
				t.Fatalf("NextAttemptDelay(%d) = %v, %v; want within [%v, %v]", failed, d, ok, lo, hi)
			}
			sawLow = sawLow || d < base-base/20
			sawHigh = sawHigh || d > base+base/20
		}
		if !sawLow || !sawHigh {
			t.Fatalf("jitter for attempt %d does not spread over ±10%%", failed)
		}
	}
	// The total number of attempts is the first one plus one per schedule entry.
	attempts := 1
	for {
		if _, ok := NextAttemptDelay(sched, attempts, nil); !ok {
			break
		}
		attempts++
	}
	if attempts != len(sched)+1 {
		t.Fatalf("attempts in all = %d, want %d", attempts, len(sched)+1)
	}
}

func TestNextAttemptDelayHugeEntrySaturates(t *testing.T) {
	t.Parallel()
	d, ok := NextAttemptDelay([]time.Duration{math.MaxInt64}, 1, func() float64 { return 1 })
	if !ok || d != math.MaxInt64 {
		t.Fatalf("NextAttemptDelay = %v, %v; want saturation at the largest duration", d, ok)
	}
}
