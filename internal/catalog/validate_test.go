package catalog

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tradewind/tradewind"
)

// TestValidateCapsAmounts: an amount above MaxAmount (or a market above +1000 %) could
// overflow int64 once priced with a markup over a long stay, so every one is refused
// with its path; MaxAmount itself is accepted.
func TestValidateCapsAmounts(t *testing.T) {
	t.Parallel()
	set := func(d *Document, v int64, pct Percent) {
		h := &d.Hotels[0]
		h.Markets = map[string]Percent{"GB": pct}
		h.Rooms[0].PricePerNight = v
		h.Rooms[0].Inventory[1].Price = v
		d.Activities[0].Pricing.Adult = v
		d.Rentals[0].Spaces[0].FromPrice = v
		d.Rentals[0].Spaces[0].Availability[0].Price = v
		d.Packages[0].Addons[0].PricePerPerson = v
		d.Packages[0].Departures[0].Pricing.Child = v
		d.Packages[1].Pricing.Infant = v
	}

	atMax := exampleDocument()
	set(atMax, MaxAmount, MaxMarketBP)
	if p := atMax.Validate(); len(p) != 0 {
		t.Errorf("the largest amounts are allowed: %q", p)
	}

	over := exampleDocument()
	set(over, MaxAmount+1, MaxMarketBP+1)
	over.Activities[0].Currency = "JPY" // the cap is in minor units: 100000000000 yen
	over.Activities[0].Pricing.Child = 999_999_999_999_999
	got := slices.DeleteFunc(over.Validate(), func(p string) bool { return strings.Contains(p, "currency") })
	want := []string{
		`hotels[0].markets.GB: percent must be at most 1000`,
		`hotels[0].rooms[0].price_per_night: at most 1000000000.00 EUR`,
		`hotels[0].rooms[0].inventory[1].price: at most 1000000000.00 EUR`,
		`activities[0].pricing.adult: at most 100000000000 JPY`,
		`activities[0].pricing.child: at most 100000000000 JPY`,
		`rentals[0].spaces[0].from_price: at most 1000000000.00 EUR`,
		`rentals[0].spaces[0].availability[0].price: at most 1000000000.00 EUR`,
		`packages[0].addons[0].price_per_person: at most 1000000000.00 EUR`,
		`packages[0].departures[0].pricing.child: at most 1000000000.00 EUR`,
		`packages[1].pricing.infant: at most 1000000000.00 EUR`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Validate mismatch (-want +got):\n%s", diff)
	}
}

// TestParseCapsAmounts: Parse applies the same caps, with the same paths.
func TestParseCapsAmounts(t *testing.T) {
	t.Parallel()
	doc := `{"hotels":[{"id":9001,"name":"Overflow Inn","property_type":"hotel","board_type":"room_only","star_rating":3,"city":"Lisbon","country":"PT",
		"guest_rating":0,"reviews_count":0,"average_rating":0,"instant_confirmation":true,"currency":"EUR",
		"image_url":"https://img.example.com/h.jpg","markets":{"GB":1000.01,"IN":1000},
		"rooms":[{"id":900101,"name":"Suite","board_type":"room_only","max_adults":2,"max_children":0,
		"refundable":true,"price_per_night":99999999999999.99,"currency":"EUR",
		"inventory":[{"start":"2027-01-01","end":"2027-01-31","allotment":1,"price":1000000000.00},
		{"start":"2027-02-01","end":"2027-02-28","allotment":1,"price":1000000000.01}]}]}]}`
	_, err := Parse(strings.NewReader(doc))
	assertProblems(t, err,
		`hotels[0].markets.GB: percent must be at most 1000`,
		`hotels[0].rooms[0].price_per_night: at most 1000000000.00 EUR`,
		`hotels[0].rooms[0].inventory[1].price: at most 1000000000.00 EUR`,
	)
}

// TestParseDateAsTimeParse: ParseDate's quick reading of canonical dates answers exactly
// as time.Parse with DateLayout and the round trip through Format.
func TestParseDateAsTimeParse(t *testing.T) {
	// Every day of four centuries around the catalog's, through DayNumber's civil arithmetic.
	for day := time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() < 2200; day = day.AddDate(0, 0, 1) {
		if n, ok := DayNumber(day.Format(tradewind.DateLayout)); !ok || n != day.Unix()/86400 {
			t.Fatalf("DayNumber(%s) = %d, %v; want %d", day.Format(tradewind.DateLayout), n, ok, day.Unix()/86400)
		}
	}

	slow := func(s string) (time.Time, bool) {
		t, err := time.Parse(tradewind.DateLayout, s)
		return t, err == nil && t.Format(tradewind.DateLayout) == s
	}
	var inputs []string
	for _, y := range []string{"0000", "0001", "0004", "0100", "0400", "1900", "1970", "2000", "2023", "2024", "2025", "2026",
		"2100", "2400", "9999", "-001", "+202", "20a4"} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				inputs = append(inputs, fmt.Sprintf("%s-%02d-%02d", y, m, d))
			}
		}
	}
	inputs = append(inputs, "", "2026-1-01", "2026-01-1", "2026/01/01", "2026-01-01 ", " 2026-01-01", "2026-01-01T00:00:00Z",
		"20260101", "2026-0101", "２０２６-01-01", "2026-01-3١", "2026--1-01", "2026-00-00", "2026-02-29", "2024-02-29")
	for _, s := range inputs {
		wt, wok := slow(s)
		gt, gok := ParseDate(s)
		if wok != gok || !wt.Equal(gt) || wt.Location() != gt.Location() || wt != gt {
			t.Errorf("ParseDate(%q) = %v, %v; time.Parse gives %v, %v", s, gt, gok, wt, wok)
		}
		// DayNumber answers the same dates, as the Unix day of time.Parse's answer.
		if n, ok := DayNumber(s); ok != wok || (ok && n != wt.Unix()/86400) {
			t.Errorf("DayNumber(%q) = %d, %v; time.Parse gives day %d, %v", s, n, ok, wt.Unix()/86400, wok)
		}
	}
}
