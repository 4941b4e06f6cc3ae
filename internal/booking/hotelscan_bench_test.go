package booking

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/pricing"
)

// BenchmarkHotelScanIssueCity is a hotel search's choice and page over a city table of
// issue 12's size (the hotels of readmodel's BenchmarkModelSearchIssueCity: 1 000
// hotels; 3 nights, 2 adults, a net partner, the default page) without the read
// model's set-up: callgrind --toggle-collect='*booking.hotelScanLoop' counts it in
// seconds rather than the read model's quarter of an hour. The read model's benchmark
// stays the measure of record for instructions. Sizes:
//   - 60d: 60 days of inventory, each room's days allocated one after the other;
//   - 365d: the issue's 365 days, the same;
//   - 365d-catalog: 365 days, each room's days followed by those of 19 rooms of other
//     cities (never read), as the read model lays out the issue's 20 cities (units
//     loaded by hotel id, cities mixed): the searched city's days spread over the
//     whole catalog's (≈ 175 MB), for cache and TLB misses (cachegrind).
func BenchmarkHotelScanIssueCity(b *testing.B) {
	for _, size := range []struct {
		name   string
		days   int
		others int
	}{{"60d", 60, 0}, {"365d", 365, 0}, {"365d-catalog", 365, 19}} {
		b.Run(size.name, func(b *testing.B) {
			start := time.Date(2027, 1, 4, 0, 0, 0, 0, time.UTC)
			doc := catalog.Generate(catalog.GenerateOptions{Hotels: 1000, Cities: 1, Days: size.days, Seed: 1, Start: start})
			c, keep := benchCityHotels(doc.Hotels, size.others)
			first, _ := catalog.DayNumber(start.Format("2006-01-02"))
			st := hotelStay{checkIn: "x", checkOut: "y", nights: 3, adults: 2, rooms: 1}
			pick := newRoomPick(&st, pricing.Contract{Mode: tradewind.PricingNet})
			var found []hotelCandidate
			hotelScanLoop(b, func() int {
				found = pick.city(c, nil, 0, int32(first)+10, 3, found[:0])
				page, _ := cheapestHotels(found, currencyRanks(c.currencies, "EUR"), Page{Page: 1, PerPage: 25})
				return len(page)
			})
			runtime.KeepAlive(keep)
		})
	}
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
// its days from its first to its last), each room's days followed by others rooms'
// days of the same size (returned, to be kept alive).
func benchCityHotels(hotels []catalog.Hotel, others int) (*CityHotels, [][]int32) {
	c := &CityHotels{}
	var keep [][]int32
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
			for range others {
				keep = append(keep, make([]int32, hi-lo+1), make([]int32, hi-lo+1))
			}
		}
		c.Hotels = append(c.Hotels, h)
		c.End = append(c.End, int32(len(c.Rooms)))
	}
	c.Index()
	return c, keep
}

// BenchmarkHotelTableIndex is what laying out a city table of issue 12's size costs
// (CityHotels.Index: the rooms' scan, the day-major copy of their 365 days, the hits'
// heads), done by the first search after a hotel of the city changed.
func BenchmarkHotelTableIndex(b *testing.B) {
	start := time.Date(2027, 1, 4, 0, 0, 0, 0, time.UTC)
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: 1000, Cities: 1, Days: 365, Seed: 1, Start: start})
	c, _ := benchCityHotels(doc.Hotels, 0)
	b.ReportAllocs()
	for b.Loop() {
		c.Index()
	}
}
