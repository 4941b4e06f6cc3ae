package booking

import (
	"math"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/pricing"
)

// BenchmarkHotelScanIssueCity is a hotel search's choice and page over a city table of
// issue 12's size (the hotels of readmodel's BenchmarkModelSearchIssueCity: 1 000
// hotels, 60 days; 3 nights, 2 adults, a net partner, the default page) without the
// read model's set-up: callgrind --toggle-collect='*booking.hotelScanLoop' counts it
// in seconds rather than the read model's quarter of an hour. The read model's
// benchmark stays the measure of record.
func BenchmarkHotelScanIssueCity(b *testing.B) {
	start := time.Date(2027, 1, 4, 0, 0, 0, 0, time.UTC)
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: 1000, Cities: 1, Days: 60, Seed: 1, Start: start})
	c := benchCityHotels(doc.Hotels)
	first, _ := catalog.DayNumber(start.Format("2006-01-02"))
	st := hotelStay{checkIn: "x", checkOut: "y", nights: 3, adults: 2, rooms: 1}
	pick := newRoomPick(&st, pricing.Contract{Mode: tradewind.PricingNet})
	var found []hotelCandidate
	hotelScanLoop(b, func() int {
		found = pick.city(c, nil, 0, int32(first)+10, 3, found[:0])
		page, _ := cheapestHotels(found, currencyRanks(c.currencies, "EUR"), Page{Page: 1, PerPage: 25})
		return len(page)
	})
}

func hotelScanLoop(b *testing.B, search func() int) {
	b.ReportAllocs()
	for b.Loop() {
		if search() == 0 {
			b.Fatal("no hotel")
		}
	}
}

// benchCityHotels lays out hotels as the read model does (every room with inventory,
// its days from its first to its last).
func benchCityHotels(hotels []catalog.Hotel) *CityHotels {
	c := &CityHotels{}
	for i := range hotels {
		h := &hotels[i]
		for k := range h.Rooms {
			r := &h.Rooms[k]
			lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
			for _, n := range r.Inventory {
				s, _ := catalog.DayNumber(n.Start)
				e, _ := catalog.DayNumber(n.End)
				lo, hi = min(lo, s), max(hi, e)
			}
			if len(r.Inventory) == 0 {
				continue
			}
			run := DayRun{Free: make([]int32, hi-lo+1), Price: make([]int32, hi-lo+1)}
			for d := range run.Free {
				run.Free[d] = -1
			}
			for _, n := range r.Inventory {
				s, _ := catalog.DayNumber(n.Start)
				e, _ := catalog.DayNumber(n.End)
				for d := s; d <= e; d++ {
					run.Free[d-lo], run.Price[d-lo] = int32(n.Allotment), int32(n.Price)
				}
			}
			c.Rooms = append(c.Rooms, RoomDays{Index: int32(k), First: int32(lo), MaxAdults: r.MaxAdults,
				MaxChildren: r.MaxChildren, Days: run})
		}
		c.Hotels = append(c.Hotels, h)
		c.End = append(c.End, int32(len(c.Rooms)))
	}
	c.Index()
	return c
}
