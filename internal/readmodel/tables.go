package readmodel

import "sync"

// cityTables holds one flat table per city (T: booking.CityHotels, booking.CityRentals):
// the city's items and their units' days in flat arrays, whose day slices are the
// units' own (reloadDays writes them in place, under Model.mu); a hotel table also
// holds a day-major copy of its rooms' days, which reloadItemDays refreshes (loaded)
// after writing them. A city's table is built
// by the first search after its items last changed: put and remove drop it, under
// Model.mu's write lock, and a search builds and stores it under the read lock, so a
// stored table always matches the state.
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

// loaded returns city's table if one is built, else nil. Under Model.mu.
func (t *cityTables[T]) loaded(city string) *T {
	if c, ok := t.byCity.Load(city); ok {
		return c.(*T)
	}
	return nil
}

// count is the number of tables kept.
func (t *cityTables[T]) count() int {
	n := 0
	t.byCity.Range(func(any, any) bool { n++; return true })
	return n
}
