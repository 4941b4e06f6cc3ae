package catalog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRoomNightsLaterEntryWins(t *testing.T) {
	t.Parallel()
	r := Room{Inventory: []RoomNights{
		{Start: "2026-12-30", End: "2027-01-02", Allotment: 5, Price: 12000},
		{Start: "2026-12-31", End: "2026-12-31", Allotment: 2, Price: 18000},
		{Start: "2027-01-02", End: "2027-01-03", Allotment: 1, Price: 9000},
		{Start: "2027-02-01", End: "2027-01-01", Allotment: 9, Price: 1}, // end before start: ignored
		{Start: "2027-01-01", End: "2031-01-01", Allotment: 9, Price: 1}, // too long: ignored
	}}
	want := map[string]NightInventory{
		"2026-12-30": {5, 12000},
		"2026-12-31": {2, 18000},
		"2027-01-01": {5, 12000},
		"2027-01-02": {1, 9000},
		"2027-01-03": {1, 9000},
	}
	if diff := cmp.Diff(want, r.Nights()); diff != "" {
		t.Errorf("Nights mismatch (-want +got):\n%s", diff)
	}
}

func TestCapacityAndPriceExpansion(t *testing.T) {
	t.Parallel()
	ranges := []ActivityDays{
		{Start: "2027-02-27", End: "2027-03-02", Capacity: 20},
		{Start: "2027-02-28", End: "2027-02-28", Capacity: 0},
	}
	wantDays := map[string]int{"2027-02-27": 20, "2027-02-28": 0, "2027-03-01": 20, "2027-03-02": 20}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"activity days", Activity{Availability: ranges}.Days(), wantDays},
		{"open package days", Package{Kind: "open", TravelDates: ranges}.OpenDays(), wantDays},
		{"fixed package days", Package{Kind: "fixed"}.OpenDays(), map[string]int{}},
		{"space nights", Space{Availability: []SpaceNights{
			{Start: "2028-02-28", End: "2028-03-01", Price: 9000},
			{Start: "2028-02-29", End: "2028-02-29", Price: 15000},
			{Start: "bad", End: "2028-03-01", Price: 1},
		}}.Nights(), map[string]int64{"2028-02-28": 9000, "2028-02-29": 15000, "2028-03-01": 9000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRangeDays(t *testing.T) {
	t.Parallel()
	tests := []struct {
		start, end string
		want       int
		ok         bool
	}{
		{"2027-01-01", "2027-01-01", 1, true},
		{"2027-01-01", "2027-12-31", 365, true},
		{"2026-03-28", "2026-03-30", 3, true}, // across a DST change in Europe: dates are UTC
		{"2027-01-02", "2027-01-01", 0, false},
		{"2027-1-01", "2027-01-02", 0, false},
		{"0001-01-01", "9999-12-31", 106752, true}, // saturates, still far over the limit
	}
	for _, tt := range tests {
		got, ok := rangeDays(tt.start, tt.end)
		if ok != tt.ok || (ok && got < tt.want) || (ok && tt.want < MaxRangeDays && got != tt.want) {
			t.Errorf("rangeDays(%s, %s) = %d, %v; want %d, %v", tt.start, tt.end, got, ok, tt.want, tt.ok)
		}
	}
}
