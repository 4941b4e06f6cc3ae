package sqlstore

import (
	"slices"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// TestDayRuns: rows group into runs of consecutive days of one unit, item, capacity and
// price, in their order; a day that is not a date as the store writes them refuses
// the grouping (the rows are then written one by one).
func TestDayRuns(t *testing.T) {
	room := func(unit, item int64, day string, capacity int, price int64) store.InventoryRow {
		return store.InventoryRow{Kind: tradewind.UnitRoom, UnitID: unit, ItemID: item, Day: day, Capacity: capacity, Price: price}
	}
	rows := []store.InventoryRow{
		room(1, 1, "2031-12-31", 2, 10), room(1, 1, "2032-01-01", 2, 10), room(1, 1, "2032-01-02", 2, 10), // over the year's end
		room(1, 1, "2032-01-03", 2, 11),                                  // a price
		room(1, 1, "2032-01-04", 3, 11),                                  // a capacity
		room(1, 1, "2032-01-06", 3, 11),                                  // a missing day
		room(1, 2, "2032-01-07", 3, 11),                                  // an item
		room(2, 2, "2032-01-08", 3, 11),                                  // a unit
		room(2, 2, "2032-02-28", 3, 11), room(2, 2, "2032-02-29", 3, 11), // a leap day
		room(2, 2, "2032-03-01", 3, 11),
		room(2, 2, "2032-02-29", 3, 11), // out of order
	}
	var d dayNumbers
	runs, ok := d.runs(nil, len(rows), func(i int) *store.InventoryRow { return &rows[i] })
	if !ok {
		t.Fatal("runs refused dates")
	}
	n := func(date string) int64 { v, _ := d.number(date); return v }
	want := []dayRun{
		{1, 1, 2, 10, n("2031-12-31"), n("2032-01-02")},
		{1, 1, 2, 11, n("2032-01-03"), n("2032-01-03")},
		{1, 1, 3, 11, n("2032-01-04"), n("2032-01-04")},
		{1, 1, 3, 11, n("2032-01-06"), n("2032-01-06")},
		{1, 2, 3, 11, n("2032-01-07"), n("2032-01-07")},
		{2, 2, 3, 11, n("2032-01-08"), n("2032-01-08")},
		{2, 2, 3, 11, n("2032-02-28"), n("2032-03-01")},
		{2, 2, 3, 11, n("2032-02-29"), n("2032-02-29")},
	}
	if !slices.Equal(runs, want) {
		t.Errorf("runs = %v\nwant %v", runs, want)
	}
	if got := d.dayName(n("2032-02-29") + 1); got != "2032-03-01" {
		t.Errorf("dayName = %q", got)
	}
	for _, bad := range []string{"2032-1-05", "2032-02-30", "someday"} {
		rows := []store.InventoryRow{room(1, 1, "2032-01-01", 1, 1), room(1, 1, bad, 1, 1)}
		if _, ok := d.runs(nil, len(rows), func(i int) *store.InventoryRow { return &rows[i] }); ok {
			t.Errorf("runs accepted day %q", bad)
		}
	}
}
