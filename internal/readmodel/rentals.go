package readmodel

import (
	"context"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
)

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
	c.Index()
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
