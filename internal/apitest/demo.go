package apitest

import (
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
)

// Demo returns the demo catalog dated from today with every range of inventory cut to
// the first days days (dated departures are kept): the same items and ids, imported in a
// fraction of the time.
func Demo(today time.Time, days int) *catalog.Document {
	doc := catalog.Demo(today)
	last := today.UTC().AddDate(0, 0, days).Format(tradewind.DateLayout)
	for i := range doc.Hotels {
		for j := range doc.Hotels[i].Rooms {
			r := &doc.Hotels[i].Rooms[j]
			r.Inventory = clip(r.Inventory, last, func(n *catalog.RoomNights) (*string, *string) { return &n.Start, &n.End })
		}
	}
	for i := range doc.Activities {
		a := &doc.Activities[i]
		a.Availability = clip(a.Availability, last, func(d *catalog.ActivityDays) (*string, *string) { return &d.Start, &d.End })
	}
	for i := range doc.Rentals {
		for j := range doc.Rentals[i].Spaces {
			s := &doc.Rentals[i].Spaces[j]
			s.Availability = clip(s.Availability, last, func(n *catalog.SpaceNights) (*string, *string) { return &n.Start, &n.End })
		}
	}
	for i := range doc.Packages {
		p := &doc.Packages[i]
		p.TravelDates = clip(p.TravelDates, last, func(d *catalog.ActivityDays) (*string, *string) { return &d.Start, &d.End })
	}
	return doc
}

// clip drops the ranges that start after last and ends the others by last.
func clip[T any](ranges []T, last string, bounds func(*T) (start, end *string)) []T {
	out := ranges[:0]
	for i := range ranges {
		start, end := bounds(&ranges[i])
		if *start > last {
			continue
		}
		*end = min(*end, last)
		out = append(out, ranges[i])
	}
	return out
}
