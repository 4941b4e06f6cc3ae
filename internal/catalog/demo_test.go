package catalog

import (
	"github.com/tradewind/tradewind"
	"testing"
	"time"
)

func TestDemoIsValid(t *testing.T) {
	t.Parallel()
	for _, today := range []time.Time{
		time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC),
		time.Date(2028, 2, 29, 23, 59, 0, 0, time.UTC),
		time.Date(2027, 12, 31, 23, 30, 0, 0, time.FixedZone("X", -8*3600)), // UTC date 2028-01-01
	} {
		t.Run(today.String(), func(t *testing.T) {
			t.Parallel()
			d := Demo(today)
			if p := d.Validate(); len(p) > 0 {
				t.Fatalf("Demo(%s) problems: %q", today, p)
			}
			first := today.UTC().Format(tradewind.DateLayout)
			last := today.UTC().AddDate(0, 0, DemoDays).Format(tradewind.DateLayout)
			if len(d.Hotels) < 4 || len(d.Activities) < 3 || len(d.Rentals) < 3 || len(d.Packages) < 3 {
				t.Errorf("sizes %d/%d/%d/%d", len(d.Hotels), len(d.Activities), len(d.Rentals), len(d.Packages))
			}
			cities := map[string]bool{}
			for _, h := range d.Hotels {
				cities[h.City] = true
				for _, r := range h.Rooms {
					n := r.Nights()
					if _, ok := n[first]; !ok {
						t.Errorf("room %d: no inventory today", r.ID)
					}
					if _, ok := n[last]; !ok {
						t.Errorf("room %d: no inventory on %s", r.ID, last)
					}
				}
			}
			for _, c := range []string{"Lisbon", "Porto", "Barcelona"} {
				if !cities[c] {
					t.Errorf("no hotel in %s", c)
				}
			}
			casa := d.Hotels[0]
			if casa.ID != 1001 || casa.Markets["GB"] != 500 || casa.Markets["IN"] != -800 {
				t.Errorf("hotel 1001 = %d with markets %v", casa.ID, casa.Markets)
			}
			bump := casa.Rooms[0].Nights()[today.UTC().AddDate(0, 0, 46).Format(tradewind.DateLayout)]
			if bump.Price != 18000 || bump.Allotment != 2 {
				t.Errorf("price bump night = %+v", bump)
			}
			if got := d.Packages[0].Departures[0].Date; got != today.UTC().AddDate(0, 0, 30).Format(tradewind.DateLayout) {
				t.Errorf("first departure on %s", got)
			}
			if d.Rentals[0].InstantBooking || d.Activities[1].InstantConfirmation || d.Hotels[2].InstantConfirmation {
				t.Error("demo lacks on-request items")
			}
		})
	}
}
