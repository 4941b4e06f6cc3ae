package readmodel

import (
	"sync"

	"context"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
)

var _ booking.Reads = (*Model)(nil)

// storeReads is what answers until the model is built: the store, as without a model.
func (m *Model) storeReads() booking.StoreReads { return booking.StoreReads{Q: m.st} }

// CityItems implements booking.Reads: the city's items of a kind, by id. The cost is
// the city's items, whatever the size of the catalog.
func (m *Model) CityItems(ctx context.Context, kind tradewind.ProductType, city string) ([]booking.Decoded, error) {
	if !m.ready.Load() {
		return m.storeReads().CityItems(ctx, kind, city)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	idx := m.products[kind]
	if idx == nil {
		return nil, nil
	}
	list := idx.byCity[city]
	out := make([]booking.Decoded, len(list))
	for i, x := range list {
		out[i] = booking.Decoded{ID: x.id, Value: x.value}
	}
	return out, nil
}

var _ booking.CityCounter = (*Model)(nil)

// EachCityItem implements booking.CityCounter: each of the city's items of kind,
// decoded, under the read lock, until each returns false; ok false before the model
// is built.
func (m *Model) EachCityItem(kind tradewind.ProductType, city string, each func(v any) bool) (ok bool) {
	if !m.ready.Load() {
		return false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if idx := m.products[kind]; idx != nil {
		for _, x := range idx.byCity[city] {
			if !each(x.value) {
				break
			}
		}
	}
	return true
}

// Item implements booking.Reads.
func (m *Model) Item(ctx context.Context, kind tradewind.ProductType, id int64) (any, error) {
	if !m.ready.Load() {
		return m.storeReads().Item(ctx, kind, id)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if idx := m.products[kind]; idx != nil {
		if x := idx.byID[id]; x != nil {
			return x.value, nil
		}
	}
	return nil, store.ErrNotFound
}

// StoredItem implements booking.StoredItems: an item's stored document and its decoded
// value, as the model last read them.
func (m *Model) StoredItem(kind tradewind.ProductType, id int64) ([]byte, any, bool) {
	if !m.ready.Load() {
		return nil, nil, false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if idx := m.products[kind]; idx != nil {
		if x := idx.byID[id]; x != nil {
			return x.data, x.value, true
		}
	}
	return nil, nil, false
}

// Stock implements booking.Reads: the days of the units q names (by item or by unit),
// each unit's in order, as InventoryList would return them. The cost is the units asked
// for times the days asked for.
func (m *Model) Stock(ctx context.Context, q store.InventoryQuery) (map[int64][]booking.DayStock, error) {
	if !m.ready.Load() {
		return m.storeReads().Stock(ctx, q)
	}
	from, to := dayNumber(q.From), dayNumber(q.To)
	m.mu.RLock()
	defer m.mu.RUnlock()
	var units []*unit
	if len(q.ItemIDs) > 0 {
		if idx := m.products[productOf(q.Kind)]; idx != nil {
			for _, id := range q.ItemIDs {
				if x := idx.byID[id]; x != nil {
					units = append(units, x.units...)
				}
			}
		}
	} else {
		for _, id := range q.UnitIDs {
			if u := m.units[unitKey{q.Kind, id}]; u != nil {
				units = append(units, u)
			}
		}
	}
	// Two passes: the days asked of every unit first, so that one array holds them all.
	span := func(u *unit) (int32, int32) { return max(from, u.first), min(to, u.first+int32(len(u.free))-1) }
	n := 0
	for _, u := range units {
		if lo, hi := span(u); u.key.kind == q.Kind && lo <= hi {
			n += int(hi - lo + 1)
		}
	}
	buf := make([]booking.DayStock, 0, n)
	out := make(map[int64][]booking.DayStock, len(units))
	for _, u := range units {
		lo, hi := span(u)
		if u.key.kind != q.Kind || lo > hi {
			continue
		}
		start := len(buf)
		for d := lo; d <= hi; d++ {
			if f := u.free[d-u.first]; f >= 0 {
				buf = append(buf, booking.DayStock{Day: m.days.name(d), Free: int(f), Price: u.priceAt(d - u.first)})
			}
		}
		if len(buf) > start {
			out[u.key.id] = buf[start:len(buf):len(buf)]
		}
	}
	return out, nil
}

var _ booking.CityScanner = (*Model)(nil)

// ScanCity implements booking.CityScanner: each item of the city in turn, with its
// units' days read straight from the flat per-day slices, under one read lock. The cost
// is the city's units times the days asked (less for FirstFree, which stops at the
// first day that fits), whatever the size of the catalog; nothing is allocated per item.
func (m *Model) ScanCity(ctx context.Context, kind tradewind.ProductType, city string, kinds []tradewind.UnitKind,
	from, to string, each func(d booking.Decoded, s booking.ItemStock)) (bool, error) {
	if !m.ready.Load() {
		return false, nil
	}
	s := scanPool.Get().(*itemScan)
	defer scanPool.Put(s)
	s.from, s.to = dayNumber(from), dayNumber(to)
	m.mu.RLock()
	defer m.mu.RUnlock()
	s.days = &m.days
	idx := m.products[kind]
	if idx == nil {
		return true, nil
	}
	for _, x := range idx.byCity[city] {
		s.x, s.next = x, 0
		each(booking.Decoded{ID: x.id, Value: x.value}, s)
	}
	s.x, s.days = nil, nil
	return true, nil
}

// itemScan is booking.ItemStock over one item of the model, reused item after item
// (and request after request: scanPool).
type itemScan struct {
	x        *item
	days     *dayNames
	from, to int32
	next     int // where the next unit is looked for first: units are asked in order
	buf      []booking.DayStock
}

var scanPool = sync.Pool{New: func() any { return &itemScan{buf: make([]booking.DayStock, 0, 32)} }}

// unit finds the item's unit (kind, id): most often the one after the last found.
func (s *itemScan) unit(kind tradewind.UnitKind, id int64) *unit {
	units := s.x.units
	if j := s.next; j < len(units) {
		if u := units[j]; u.key.id == id && u.key.kind == kind {
			s.next = j + 1
			return u
		}
	}
	for j, u := range units {
		if u.key.id == id && u.key.kind == kind {
			s.next = j + 1
			return u
		}
	}
	return nil
}

// span is the day indexes of u within the days asked, lo > hi when none.
func (s *itemScan) span(u *unit) (int32, int32) {
	return max(s.from, u.first) - u.first, min(s.to, u.first+int32(len(u.free))-1) - u.first
}

// Days implements booking.ItemStock.
func (s *itemScan) Days(kind tradewind.UnitKind, unitID int64) []booking.DayStock {
	s.buf = s.buf[:0]
	u := s.unit(kind, unitID)
	if u == nil {
		return nil
	}
	lo, hi := s.span(u)
	for d := lo; d <= hi; d++ {
		if f := u.free[d]; f >= 0 {
			s.buf = append(s.buf, booking.DayStock{Day: s.days.name(u.first + d), Free: int(f), Price: u.priceAt(d)})
		}
	}
	if len(s.buf) == 0 {
		return nil
	}
	return s.buf
}

// FirstFree implements booking.ItemStock.
func (s *itemScan) FirstFree(kind tradewind.UnitKind, unitID int64, n int) (booking.DayStock, bool) {
	u := s.unit(kind, unitID)
	if u == nil {
		return booking.DayStock{}, false
	}
	lo, hi := s.span(u)
	for d := lo; d <= hi; d++ {
		if f := u.free[d]; f >= 0 && int(f) >= n {
			return booking.DayStock{Day: s.days.name(u.first + d), Free: int(f), Price: u.priceAt(d)}, true
		}
	}
	return booking.DayStock{}, false
}

// Run implements booking.ItemStock: the unit's own slices over the days asked.
func (s *itemScan) Run(kind tradewind.UnitKind, unitID int64) booking.DayRun {
	u := s.unit(kind, unitID)
	if u == nil {
		return booking.DayRun{}
	}
	days := u.days()
	return days.Span(s.from-u.first, s.to-s.from+1)
}
