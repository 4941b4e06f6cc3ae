package catalog

import (
	"github.com/tradewind/tradewind"
	"maps"
	"slices"
	"time"
)

// NightInventory is what a room type offers on one night: rooms sellable and the net
// price of one room for that night, in minor units.
type NightInventory struct {
	Allotment int
	Price     int64
}

// Nights expands the room's inventory ranges into one entry per night ("YYYY-MM-DD");
// where ranges overlap the later entry wins. Invalid or over-long ranges are skipped.
func (r Room) Nights() map[string]NightInventory {
	out := map[string]NightInventory{}
	for _, n := range r.Inventory {
		v := NightInventory{Allotment: n.Allotment, Price: n.Price}
		eachDay(n.Start, n.End, func(date string) { out[date] = v })
	}
	return out
}

// Days expands the activity's availability into seats per day; the later entry wins.
func (a Activity) Days() map[string]int {
	return expandCapacity(a.Availability)
}

// Nights expands the space's availability into the net price per night; the later entry wins.
func (s Space) Nights() map[string]int64 {
	out := map[string]int64{}
	for _, n := range s.Availability {
		eachDay(n.Start, n.End, func(date string) { out[date] = n.Price })
	}
	return out
}

// OpenDays expands an open package's travel_dates into seats per travel date; the later
// entry wins. It is empty for a fixed package.
func (p Package) OpenDays() map[string]int {
	return expandCapacity(p.TravelDates)
}

func expandCapacity(ranges []ActivityDays) map[string]int {
	out := map[string]int{}
	for _, d := range ranges {
		eachDay(d.Start, d.End, func(date string) { out[date] = d.Capacity })
	}
	return out
}

// rangeDays returns the number of days of the inclusive range start..end; ok is false when
// a date is invalid or end is before start.
func rangeDays(start, end string) (n int, ok bool) {
	s, ok1 := ParseDate(start)
	e, ok2 := ParseDate(end)
	if !ok1 || !ok2 || e.Before(s) {
		return 0, false
	}
	// Sub saturates for dates centuries apart, which still counts as "too long".
	return int(e.Sub(s)/(24*time.Hour)) + 1, true
}

// eachDay calls fn with every date of the inclusive range start..end, in order. A range
// that is invalid or longer than MaxRangeDays is skipped, so a document that was not
// validated cannot make it loop for ages.
func eachDay(start, end string, fn func(date string)) {
	n, ok := rangeDays(start, end)
	if !ok || n > MaxRangeDays {
		return
	}
	t, _ := ParseDate(start)
	for range n {
		fn(t.Format(tradewind.DateLayout))
		t = t.AddDate(0, 0, 1)
	}
}

// sortedKeys returns the keys of m in ascending order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
