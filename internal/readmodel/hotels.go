package readmodel

import (
	"context"
	"sync"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
)

// hotelTables holds each city's booking.CityHotels: its hotels and their rooms' days in
// flat arrays, whose day slices are the units' own (reloadDays writes them in place,
// under Model.mu). A city's table is built by the first search after its hotels last
// changed: put and remove drop it, under Model.mu's write lock, and a search builds and
// stores it under the read lock, so a stored table always matches the state.
type hotelTables struct {
	building sync.Mutex // one build at a time: concurrent first searches wait for it
	byCity   sync.Map   // city key → *booking.CityHotels
}

// drop forgets city's table (its hotels changed). Under Model.mu's write lock once live.
func (t *hotelTables) drop(city string) { t.byCity.Delete(city) }

// get returns city's table, built from s if needed; nil when the city holds an item
// that is not a hotel. Under Model.mu (read).
func (t *hotelTables) get(s *state, city string) *booking.CityHotels {
	if c, ok := t.byCity.Load(city); ok {
		return c.(*booking.CityHotels)
	}
	items := s.products[tradewind.ProductHotel].byCity[city]
	if len(items) == 0 {
		return &booking.CityHotels{} // not kept: any name may be searched
	}
	t.building.Lock()
	defer t.building.Unlock()
	if c, ok := t.byCity.Load(city); ok {
		return c.(*booking.CityHotels)
	}
	c := buildCityHotels(items)
	if c != nil {
		t.byCity.Store(city, c)
	}
	return c
}

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
	c := m.hotels.get(m.state, city)
	if c == nil {
		return false, nil
	}
	each(c, lo, hi-lo+1)
	return true, nil
}
