package readmodel

import (
	"context"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
)

// buildCityHotels lays out the hotels of a city (by id) and their rooms with inventory;
// nil when one is not a hotel (the general scan reports it).
func buildCityHotels(items []*item) *booking.CityHotels {
	n := 0
	for _, x := range items {
		n += len(x.units)
	}
	c := &booking.CityHotels{Hotels: make([]*catalog.Hotel, 0, len(items)), End: make([]int32, 0, len(items)),
		Rooms: make([]booking.RoomDays, 0, n)}
	for _, x := range items {
		h, ok := x.value.(*catalog.Hotel)
		if !ok {
			return nil
		}
		s := itemScan{x: x}
		for i := range h.Rooms {
			r := &h.Rooms[i]
			if u := s.unit(tradewind.UnitRoom, r.ID); u != nil {
				c.Rooms = append(c.Rooms, booking.RoomDays{Index: int32(i), First: u.first, MaxAdults: r.MaxAdults,
					MaxChildren: r.MaxChildren, Days: u.days()})
			}
		}
		c.Hotels = append(c.Hotels, h)
		c.End = append(c.End, int32(len(c.Rooms)))
	}
	c.Index()
	return c
}

var _ booking.HotelScanner = (*Model)(nil)

// ScanHotels implements booking.HotelScanner. The cost is the city's rooms, whatever
// the size of the catalog (and, once after its hotels change, building its table).
func (m *Model) ScanHotels(ctx context.Context, city string, from, to string, each func(c *booking.CityHotels, from, days int32)) (bool, error) {
	if !m.ready.Load() {
		return false, nil
	}
	lo, hi := dayNumber(from), dayNumber(to)
	m.mu.RLock()
	defer m.mu.RUnlock()
	c := m.hotels.get(m.products[tradewind.ProductHotel].byCity[city], city, buildCityHotels)
	if c == nil {
		return false, nil
	}
	each(c, lo, hi-lo+1)
	return true, nil
}
