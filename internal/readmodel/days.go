package readmodel

import (
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
)

// dayNumber is the day of a YYYY-MM-DD date counted from 1970-01-01 (catalog.DayNumber).
// Dates come from the store, which holds valid ones.
func dayNumber(s string) int32 {
	n, _ := catalog.DayNumber(s)
	return int32(n)
}

// dayNames holds the YYYY-MM-DD names of the days the model's units cover, so that
// answers name days without formatting them. Under Model.mu.
type dayNames struct {
	first int32
	names []string
}

// cover extends the table to days from..to.
func (t *dayNames) cover(from, to int32) {
	if len(t.names) == 0 {
		t.first, t.names = from, nil
	}
	last := t.first + int32(len(t.names)) - 1
	if from >= t.first && to <= last && len(t.names) > 0 {
		return
	}
	lo, hi := min(from, t.first), max(to, last)
	if len(t.names) == 0 {
		lo, hi = from, to
	}
	names := make([]string, hi-lo+1)
	copy(names[t.first-lo:], t.names)
	for i := range names {
		if names[i] == "" {
			names[i] = time.Unix(int64(lo+int32(i))*86400, 0).UTC().Format(tradewind.DateLayout)
		}
	}
	t.first, t.names = lo, names
}

// name is the name of day n, which cover covered.
func (t *dayNames) name(n int32) string { return t.names[n-t.first] }
