package readmodel

import (
	"time"

	"github.com/tradewind/tradewind"
)

// dayNumber is the day of a YYYY-MM-DD date counted from 1970-01-01, without time.Parse
// (the build reads millions of rows). Dates come from the store, which holds valid ones.
func dayNumber(s string) int32 {
	if len(s) != 10 {
		return 0
	}
	num := func(b string) int {
		n := 0
		for i := 0; i < len(b); i++ {
			n = n*10 + int(b[i]-'0')
		}
		return n
	}
	y, mo, d := num(s[0:4]), num(s[5:7]), num(s[8:10])
	// Days from civil (H. Hinnant): the proleptic Gregorian calendar, March-based years.
	if mo <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	m := mo + 9
	if mo > 2 {
		m = mo - 3
	}
	doy := (153*m+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int32(era*146097 + doe - 719468)
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
