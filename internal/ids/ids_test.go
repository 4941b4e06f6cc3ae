package ids_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/ids"
)

// TestTimeOrderedSortsByTime: an id is its prefix and 24 base62 characters; ids of
// later times sort after earlier ones whatever their random part, and two ids of the
// same time differ.
func TestTimeOrderedSortsByTime(t *testing.T) {
	shape := regexp.MustCompile(`^req_[0-9A-Za-z]{24}$`)
	base := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
	var got []string
	for i := range 1000 {
		id := ids.TimeOrdered("req_", base.Add(time.Duration(i*i)*time.Microsecond))
		if !shape.MatchString(id) {
			t.Fatalf("id %q: not req_ and 24 base62 characters", id)
		}
		got = append(got, id)
	}
	if !slices.IsSorted(got) {
		t.Error("ids of increasing times do not sort in that order")
	}
	if a, b := ids.TimeOrdered("x_", base), ids.TimeOrdered("x_", base); a == b || a[:11] != b[:11] {
		t.Errorf("two ids of one time: %q and %q (want the same time part, different ids)", a, b)
	}
	// Before 1970 counts as 1970: the time part never goes negative.
	if id := ids.TimeOrdered("e_", time.Unix(-5, 0)); !strings.HasPrefix(id, "e_000000000") {
		t.Errorf("id before 1970: %q", id)
	}
}

// TestRandomAlphabet: Random draws only from its alphabet, n characters.
func TestRandomAlphabet(t *testing.T) {
	for _, n := range []int{1, 8, 64, 65, 200} {
		s := ids.Random(ids.Alnum, n)
		if len(s) != n || strings.Trim(s, ids.Alnum) != "" {
			t.Errorf("Random(Alnum, %d) = %q", n, s)
		}
	}
}

// TestTimeOrderedAllocatesOnce: a request id costs one allocation, the string.
func TestTimeOrderedAllocatesOnce(t *testing.T) {
	at := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
	want := 1.0
	if raceBuild {
		want++ // see raceBuild
	}
	if n := testing.AllocsPerRun(100, func() { _ = ids.TimeOrdered("req_", at) }); n > want {
		t.Errorf("TimeOrdered allocates %v times, want %v", n, want)
	}
}

// TestCyclicCountsAndWraps: Cyclic's characters are the alphabet's, grow by one step at
// a time in byte order, and wrap after len(alphabet)^n steps.
func TestCyclicCountsAndWraps(t *testing.T) {
	const step = 4 * time.Millisecond
	at := time.Date(2026, 11, 24, 21, 0, 0, 0, time.UTC)
	cycle := time.Duration(36*36*36) * step
	ns := at.UnixNano()
	base := time.Unix(0, ns-ns%int64(cycle)) // the cycle's first step: "000"
	if got := ids.Cyclic(ids.SortableAlnum, base, step, 3); got != "000" {
		t.Fatalf("the cycle's start: %q, want 000", got)
	}
	prev := ""
	for i := range 2000 {
		got := ids.Cyclic(ids.SortableAlnum, base.Add(time.Duration(i)*step+step/2), step, 3)
		if len(got) != 3 || strings.Trim(got, ids.SortableAlnum) != "" || got <= prev {
			t.Fatalf("step %d: %q after %q", i, got, prev)
		}
		prev = got
	}
	if got := ids.Cyclic(ids.SortableAlnum, base.Add(cycle-step), step, 3); got != "ZZZ" {
		t.Errorf("the cycle's last step: %q, want ZZZ", got)
	}
	if got := ids.Cyclic(ids.SortableAlnum, base.Add(cycle), step, 3); got != "000" {
		t.Errorf("after a whole cycle: %q, want 000 again", got)
	}
}
