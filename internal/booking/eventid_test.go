package booking_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/booking"
)

// TestNewEventIDOrdersByTime: an event id is "evt_" and 24 base62 characters; ids of
// later times sort after earlier ones (byte order, as the databases compare them), and
// ids of one instant differ.
func TestNewEventIDOrdersByTime(t *testing.T) {
	shape := regexp.MustCompile(`^evt_[A-Za-z0-9]{24}$`)
	t0 := time.Date(2026, 11, 23, 17, 0, 0, 0, time.UTC)
	prev := ""
	seen := map[string]bool{}
	for i, at := range []time.Time{{}, t0, t0, t0.Add(time.Microsecond), t0.Add(61 * time.Microsecond),
		t0.Add(62 * time.Microsecond), t0.Add(time.Hour), t0.AddDate(300, 0, 0)} {
		id := booking.NewEventID(at)
		if !shape.MatchString(id) {
			t.Fatalf("id %q: not evt_ and 24 base62 characters", id)
		}
		if seen[id] {
			t.Fatalf("id %q made twice", id)
		}
		seen[id] = true
		if i > 0 && at.After(time.Time{}) && id[:13] < prev[:13] {
			t.Fatalf("id %q of %v sorts before %q", id, at, prev)
		}
		prev = id
	}
}
