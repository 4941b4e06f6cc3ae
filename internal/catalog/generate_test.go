package catalog

import (
	"fmt"
	"github.com/tradewind/tradewind"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestGenerateIsDeterministic(t *testing.T) {
	t.Parallel()
	o := GenerateOptions{Hotels: 30, Activities: 30, Rentals: 30, Packages: 30, Seed: 42}
	a, b := Generate(o), Generate(o)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different catalogs (-first +second):\n%s", diff)
	}
	o.Seed = 43
	if cmp.Equal(a, Generate(o)) {
		t.Error("different seeds gave the same catalog")
	}
}

func TestGenerateIsValid(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 21, 18, 30, 0, 0, time.FixedZone("X", 5*3600))
	tests := []GenerateOptions{
		{},
		{Hotels: 1, Activities: 1, Rentals: 1, Packages: 1, Days: 1},
		{Hotels: 50, Activities: 50, Rentals: 50, Packages: 50, Seed: 1, Start: start},
		{Hotels: 300, Activities: 100, Rentals: 100, Packages: 100, Cities: 120, Seed: -9, Days: 30},
		{Hotels: 10, Activities: 10, Rentals: 10, Packages: 10, Days: 2500, Seed: 3}, // ranges split at MaxRangeDays
	}
	for _, o := range tests {
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			t.Parallel()
			d := Generate(o)
			if p := d.Validate(); len(p) > 0 {
				t.Fatalf("%d problems, first: %q", len(p), p[:min(5, len(p))])
			}
			if len(d.Hotels) != o.Hotels || len(d.Activities) != o.Activities ||
				len(d.Rentals) != o.Rentals || len(d.Packages) != o.Packages {
				t.Errorf("sizes = %d/%d/%d/%d", len(d.Hotels), len(d.Activities), len(d.Rentals), len(d.Packages))
			}
			days := o.Days
			if days == 0 {
				days = 365
			}
			first := "2027-01-01"
			if !o.Start.IsZero() {
				first = o.Start.Format(tradewind.DateLayout) // the calendar date of Start, in its own zone
			}
			for _, h := range d.Hotels {
				for _, r := range h.Rooms {
					n := r.Nights()
					if len(n) != days {
						t.Fatalf("room %d covers %d nights, want %d", r.ID, len(n), days)
					}
					if _, ok := n[first]; !ok {
						t.Fatalf("room %d has no night %s", r.ID, first)
					}
				}
			}
		})
	}
}

func TestGenerateMix(t *testing.T) {
	t.Parallel()
	d := Generate(GenerateOptions{Hotels: 200, Activities: 200, Rentals: 200, Packages: 200, Seed: 5, Cities: 50})
	count := map[string]int{}
	for _, h := range d.Hotels {
		if h.ID < genHotelBase {
			t.Fatalf("hotel id %d below base", h.ID)
		}
		count[fmt.Sprint("instant hotel ", h.InstantConfirmation)]++
		if len(h.Markets) > 0 {
			count["markets"]++
		}
		if n := len(h.Rooms); n < 1 || n > 4 {
			t.Errorf("hotel %d has %d rooms", h.ID, n)
		}
		for _, r := range h.Rooms {
			count[fmt.Sprint("refundable ", r.Refundable)]++
			if r.ID/100 != h.ID {
				t.Errorf("room id %d not under hotel %d", r.ID, h.ID)
			}
		}
		count["city "+h.City]++
	}
	for _, a := range d.Activities {
		count[fmt.Sprint("instant activity ", a.InstantConfirmation)]++
	}
	for _, r := range d.Rentals {
		count[fmt.Sprint("instant rental ", r.InstantBooking)]++
		if n := len(r.Spaces); n < 1 || n > 3 {
			t.Errorf("rental %d has %d spaces", r.ID, n)
		}
	}
	for _, p := range d.Packages {
		count["package "+p.Kind]++
	}
	for _, k := range []string{
		"instant hotel true", "instant hotel false", "refundable true", "refundable false", "markets",
		"instant activity true", "instant activity false", "instant rental true", "instant rental false",
		"package fixed", "package open", "city Lisbon", "city Lisbon 2",
	} {
		if count[k] == 0 {
			t.Errorf("no %q in a catalog of 200 of each", k)
		}
	}
}

// TestGenerateChangePercent: ChangePercent changes exactly that share of each kind's
// items against the same options without it, and the result stays valid.
func TestGenerateChangePercent(t *testing.T) {
	t.Parallel()
	o := GenerateOptions{Hotels: 200, Activities: 50, Rentals: 50, Packages: 50, Days: 60, Seed: 5}
	base := Generate(o)
	o.ChangePercent = 10
	changed := Generate(o)
	if problems := changed.Validate(); len(problems) > 0 {
		t.Fatalf("changed catalog invalid: %v", problems)
	}
	count := func(n int, at func(int) (any, any)) int {
		d := 0
		for i := range n {
			x, y := at(i)
			if !cmp.Equal(x, y) {
				d++
			}
		}
		return d
	}
	got := []int{
		count(200, func(i int) (any, any) { return base.Hotels[i], changed.Hotels[i] }),
		count(50, func(i int) (any, any) { return base.Activities[i], changed.Activities[i] }),
		count(50, func(i int) (any, any) { return base.Rentals[i], changed.Rentals[i] }),
		count(50, func(i int) (any, any) { return base.Packages[i], changed.Packages[i] }),
	}
	if want := []int{20, 5, 5, 5}; !cmp.Equal(got, want) {
		t.Errorf("changed items by kind = %v, want %v", got, want)
	}
}
