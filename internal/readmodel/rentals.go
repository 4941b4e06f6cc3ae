package readmodel

import (
	"context"
	"sync"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
)

// cityTables holds one flat table per city (T: booking.CityRentals), whose day slices
// are the units' own (reloadDays writes them in place, under Model.mu). A city's table
// is built by the first search after its items last changed: put and remove drop it,
// under Model.mu's write lock, and a search builds and stores it under the read lock,
// so a stored table always matches the state. (hotelTables is the same for hotels.)
type cityTables[T any] struct {
	building sync.Mutex // one build at a time: concurrent first searches wait for it
	byCity   sync.Map   // city key → *T
}

// drop forgets city's table (its items changed). Under Model.mu's write lock once live.
func (t *cityTables[T]) drop(city string) { t.byCity.Delete(city) }

// get returns city's table, built from items (the city's, by id) by build if needed;
// nil when build returns nil. A city without items gets an empty table, not kept: any
// name may be searched. Under Model.mu (read).
func (t *cityTables[T]) get(items []*item, city string, build func([]*item) *T) *T {
	if c, ok := t.byCity.Load(city); ok {
		return c.(*T)
	}
	if len(items) == 0 {
		return new(T)
	}
	t.building.Lock()
	defer t.building.Unlock()
	if c, ok := t.byCity.Load(city); ok {
		return c.(*T)
	}
	c := build(items)
	if c != nil {
		t.byCity.Store(city, c)
	}
	return c
}

// count is the number of tables kept.
func (t *cityTables[T]) count() int {
	n := 0
	t.byCity.Range(func(any, any) bool { n++; return true })
	return n
}

// buildCityRentals lays out the rentals of a city (by id) and their spaces with
// inventory; nil when one is not a rental (the general scan reports it).
func buildCityRentals(items []*item) *booking.CityRentals {
	n := 0
	for _, x := range items {
		n += len(x.units)
	}
	c := &booking.CityRentals{Rentals: make([]*catalog.Rental, 0, len(items)), End: make([]int32, 0, len(items)),
		Spaces: make([]booking.SpaceDays, 0, n)}
	for _, x := range items {
		r, ok := x.value.(*catalog.Rental)
		if !ok {
			return nil
		}
		s := itemScan{x: x}
		for i := range r.Spaces {
			sp := &r.Spaces[i]
			if u := s.unit(tradewind.UnitSpace, sp.ID); u != nil {
				c.Spaces = append(c.Spaces, booking.SpaceDays{First: u.first, MaxGuests: sp.MaxGuests, Days: u.days()})
			}
		}
		c.Rentals = append(c.Rentals, r)
		c.End = append(c.End, int32(len(c.Spaces)))
	}
	return c
}

var _ booking.RentalScanner = (*Model)(nil)

// ScanRentals implements booking.RentalScanner. The cost is the city's spaces, whatever
// the size of the catalog (and, once after its rentals change, building its table).
func (m *Model) ScanRentals(ctx context.Context, city string, from, to string, each func(c *booking.CityRentals, from, days int32)) (bool, error) {
	if !m.ready.Load() {
		return false, nil
	}
	lo, hi := dayNumber(from), dayNumber(to)
	m.mu.RLock()
	defer m.mu.RUnlock()
	c := m.rentals.get(m.products[tradewind.ProductRental].byCity[city], city, buildCityRentals)
	if c == nil {
		return false, nil
	}
	each(c, lo, hi-lo+1)
	return true, nil
}
