package webhook

import (
	"slices"
	"testing"
)

// TestInFlight: a subscription counts as in flight while one of its attempts is, and no
// longer once they all ended (else every subscription ever served would be served last,
// and the map would grow without end).
func TestInFlight(t *testing.T) {
	var f inFlight
	f.add(1, 1)
	f.add(1, 1)
	f.add(2, 1)
	if got := slices.Sorted(slices.Values(f.subscriptions())); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("in flight %v, want [1 2]", got)
	}
	f.add(1, -1)
	f.add(2, -1)
	if got := f.subscriptions(); !slices.Equal(got, []int64{1}) {
		t.Fatalf("in flight %v, want [1]: one of its two attempts still is", got)
	}
	f.add(1, -1)
	if got := f.subscriptions(); len(got) != 0 || len(f.n) != 0 {
		t.Fatalf("in flight %v (map %v), want none", got, f.n)
	}
}
