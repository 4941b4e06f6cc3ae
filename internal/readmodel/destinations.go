package readmodel

import (
	"context"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
)

// destinations holds, for GET /destinations, each product's cities' tallies of the items
// on sale (booking.CityTally) over the days last asked for, from..to. A city's tally is
// counted again when asked for after the city's items or their days changed (touch:
// state.put, state.remove and reloadItemDays mark it, under Model.mu's write lock), and
// every tally when the days asked for move (a new day). A search never reads it; a write
// marks one city once a tally has been asked for, and nothing before.
type destinations struct {
	counted  bool // tallies hold every city's, over from..to
	from, to string
	tallies  map[tradewind.ProductType]map[string]*booking.CityTally // cities without an item of the type are absent
	dirty    map[tradewind.ProductType]map[string]bool               // cities to count again
}

// touch marks city's tally of kind to be counted again. Under Model.mu's write lock.
func (d *destinations) touch(kind tradewind.ProductType, city string) {
	if !d.counted {
		return // the first CityTallies counts every city
	}
	cities := d.dirty[kind]
	if cities == nil {
		cities = map[string]bool{}
		d.dirty[kind] = cities
	}
	cities[city] = true
}

// count counts city's tally of kind from the state's items and their units' days over
// d.from..d.to. Under Model.destMu and Model.mu (read).
func (d *destinations) count(s *state, kind tradewind.ProductType, city string) {
	items := s.products[kind].byCity[city]
	if len(items) == 0 {
		delete(d.tallies[kind], city)
		return
	}
	scan := itemScan{from: dayNumber(d.from), to: dayNumber(d.to), days: &s.days}
	t := &booking.CityTally{}
	for _, x := range items {
		scan.x, scan.next = x, 0
		t.Add(x.value, &scan)
	}
	d.tallies[kind][city] = t
}

var _ booking.CityTallier = (*Model)(nil)

// CityTallies implements booking.CityTallier: every product's cities' tallies, those
// whose items or days changed since the last call counted again (every city's on the
// first call and when from..to moved). The cost is the cities, plus each changed city's
// units (each read up to its first free day), whatever the size of the catalog.
func (m *Model) CityTallies(ctx context.Context, from, to string,
	each func(kind tradewind.ProductType, city string, t *booking.CityTally)) (bool, error) {
	if !m.ready.Load() {
		return false, nil
	}
	// One request counts at a time, and the others wait for it before taking the read
	// lock, not holding it: a writer waiting for the lock would hold every search back
	// behind a queue of them.
	m.destMu.Lock()
	defer m.destMu.Unlock()
	m.mu.RLock()
	defer m.mu.RUnlock()
	d := &m.dest
	if !d.counted || d.from != from || d.to != to {
		d.from, d.to = from, to
		d.tallies = map[tradewind.ProductType]map[string]*booking.CityTally{}
		d.dirty = map[tradewind.ProductType]map[string]bool{}
		for kind, idx := range m.products {
			d.tallies[kind] = map[string]*booking.CityTally{}
			for city := range idx.byCity {
				d.count(m.state, kind, city)
			}
		}
		d.counted = true
	}
	for kind, cities := range d.dirty {
		for city := range cities {
			d.count(m.state, kind, city)
		}
		delete(d.dirty, kind)
	}
	for kind, cities := range d.tallies {
		for city, t := range cities {
			each(kind, city, t)
		}
	}
	return true, nil
}
