// Package readmodel holds the catalog and what every unit can still sell per day in
// memory, so that searches and availability (booking.Reads) are answered without a
// query. The database stays the truth: prebook and book price and claim in the store.
//
// The model is built at start (Build), then kept fresh by the change feed (store.
// ChangeQuerier, migration 00010): triggers write a change row for every write to an
// item or its inventory, whoever writes; Run polls the feed every PollInterval and
// reloads only the items (and days) it names. The server's own claims and releases are
// applied as they commit (Tracked). docs/readmodel.md tells the design and the bounds.
package readmodel

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
)

// PollInterval is how often the change feed is read: changes made elsewhere (another
// server, the operator's CLI, a scheduled change) show within about this, well inside
// the 1 s bound of issue 12.
const PollInterval = 200 * time.Millisecond

// Batch sizes: items loaded per query pair at build and on reloads, and changes read or
// sequenced per statement.
const (
	loadBatch   = 200
	changeBatch = 5000
)

// allDays is the widest day range of an item's inventory.
const allFrom, allTo = "0000-01-01", "9999-12-31"

// Model is the in-memory read model; it implements booking.Reads. Its methods are safe
// for concurrent use.
type Model struct {
	st     store.Store
	clock  tradewind.Clock
	logger *slog.Logger

	mu sync.RWMutex
	*state
	// destMu serialises GET /destinations' counts (CityTallies), taken before mu.
	destMu sync.Mutex

	// pollMu serialises polls; cursor is the last change applied (under pollMu).
	pollMu sync.Mutex
	cursor int64

	// beforeApply, if set (tests), runs after a tracked transaction's COMMIT, before
	// its claims are applied (applyClaimed).
	beforeApply func()

	ready    atomic.Bool
	lastSync atomic.Int64 // unix nanoseconds when the last successful poll (or the build) started
	applied  atomic.Int64 // changes applied since start
	kick     chan struct{}
}

// state is what the model holds; Build fills a new one and swaps it in whole.
type state struct {
	products map[tradewind.ProductType]*catalogIndex
	units    map[unitKey]*unit
	days     dayNames
	hotels   *cityTables[booking.CityHotels]
	rentals  *cityTables[booking.CityRentals]
	dest     destinations // GET /destinations' tallies (destinations.go)
}

func newState() *state {
	products := map[tradewind.ProductType]*catalogIndex{}
	for _, p := range tradewind.AllProducts {
		products[p] = &catalogIndex{byID: map[int64]*item{}, byCity: map[string][]*item{}}
	}
	return &state{products: products, units: map[unitKey]*unit{}, hotels: &cityTables[booking.CityHotels]{},
		rentals: &cityTables[booking.CityRentals]{}}
}

// catalogIndex is the items of one product, by id and by city.
type catalogIndex struct {
	byID   map[int64]*item
	byCity map[string][]*item // each ordered by id
}

// item is a catalog item, decoded once, and its units.
type item struct {
	id    int64
	kind  tradewind.ProductType
	city  string
	value any // what booking.DecodeItem returned; read only
	// data is the stored document value was decoded from: a live booking's quote ahead
	// is claimed on condition that the store still holds it (booking.StoredItems).
	data  []byte
	units []*unit
	// days counts the writes of the units' days in place (reloadItemDays), under
	// Model.mu: a reload whose store read began before another reload wrote the item
	// reads again rather than write older days over newer ones.
	days uint64
}

type unitKey struct {
	kind tradewind.UnitKind
	id   int64
}

// unit is what one unit (room, activity, space, departure, open package) offers from
// day first on: free units (−1: no inventory that day) and net prices, one entry per
// day. Flat slices of small ints: prices in int32 unless one does not fit (wide), so the
// whole catalog of issue 12 (24 million unit-days) takes about 8 bytes a unit-day.
type unit struct {
	key    unitKey
	itemID int64
	first  int32
	free   []int32
	price  []int32 // nil when wide
	wide   []int64 // prices above math.MaxInt32 (catalog.MaxAmount allows 10^11)
}

// days is the unit's days as a booking.DayRun, read in place.
func (u *unit) days() booking.DayRun {
	return booking.DayRun{Free: u.free, Price: u.price, Wide: u.wide}
}

// priceAt is the net price of day index d.
func (u *unit) priceAt(d int32) int64 {
	if u.wide != nil {
		return u.wide[d]
	}
	return int64(u.price[d])
}

// setPrice writes the net price of day index d; false when it needs a wide unit.
func (u *unit) setPrice(d int32, p int64) bool {
	if u.wide != nil {
		u.wide[d] = p
		return true
	}
	if p < math.MinInt32 || p > math.MaxInt32 {
		return false
	}
	u.price[d] = int32(p)
	return true
}

// New returns an empty model over st; Build loads it.
func New(st store.Store, clock tradewind.Clock, logger *slog.Logger) *Model {
	if clock == nil {
		clock = tradewind.SystemClock{}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Model{st: st, clock: clock, logger: logger, kick: make(chan struct{}, 1), state: newState()}
}

// unitKinds are the inventory kinds of each product.
var unitKinds = map[tradewind.ProductType][]tradewind.UnitKind{
	tradewind.ProductHotel:    {tradewind.UnitRoom},
	tradewind.ProductActivity: {tradewind.UnitActivity},
	tradewind.ProductRental:   {tradewind.UnitSpace},
	tradewind.ProductPackage:  {tradewind.UnitDeparture, tradewind.UnitPackageDay},
}

// productOf is the product whose items hold units of kind k.
func productOf(k tradewind.UnitKind) tradewind.ProductType {
	for p, kinds := range unitKinds {
		for _, u := range kinds {
			if u == k {
				return p
			}
		}
	}
	return ""
}

// Ready reports whether Build has finished.
func (m *Model) Ready() bool { return m.ready.Load() }

// Lag is how far the model may be behind the database: the time since the last
// successful poll (or the build) started, everything committed before it being applied.
// Zero before the build ends.
func (m *Model) Lag() time.Duration {
	at := m.lastSync.Load()
	if at == 0 {
		return 0
	}
	return max(m.clock.Now().Sub(time.Unix(0, at)), 0)
}

// Applied returns how many changes of the feed the model applied since it started.
func (m *Model) Applied() int64 { return m.applied.Load() }

// Build loads the whole catalog and its inventory. The feed's position is read first, so
// that every change committed during the load is applied again by the next poll.
func (m *Model) Build(ctx context.Context) error {
	m.pollMu.Lock()
	defer m.pollMu.Unlock()
	return m.build(ctx)
}

// build is Build, pollMu held.
func (m *Model) build(ctx context.Context) error {
	start := m.clock.Now()
	if err := m.sequence(ctx); err != nil {
		return fmt.Errorf("read model: %w", err)
	}
	cursor, err := m.st.ChangeLast(ctx)
	if err != nil {
		return fmt.Errorf("read model: %w", err)
	}
	next := newState() // searches read the current state (or the store) meanwhile
	items, units := 0, 0
	for _, kind := range tradewind.AllProducts {
		var after int64
		for {
			page, err := m.st.ItemListPage(ctx, kind, after, loadBatch)
			if err != nil {
				return fmt.Errorf("read model: %w", err)
			}
			if len(page) == 0 {
				break
			}
			loaded, err := m.fetch(ctx, kind, page)
			if err != nil {
				return fmt.Errorf("read model: %w", err)
			}
			for _, x := range loaded {
				next.put(x)
				units += len(x.units)
			}
			items += len(page)
			after = page[len(page)-1].ID
		}
	}
	m.mu.Lock()
	m.state = next
	m.mu.Unlock()
	m.cursor = cursor
	m.lastSync.Store(start.UnixNano())
	m.ready.Store(true)
	m.logger.Info("read model built", "items", items, "units", units, "took", m.clock.Now().Sub(start).Round(time.Millisecond))
	return nil
}

// fetch decodes items (all of one kind) and reads their whole inventory.
func (m *Model) fetch(ctx context.Context, kind tradewind.ProductType, items []*store.Item) ([]*item, error) {
	loaded := make([]*item, 0, len(items))
	byID := make(map[int64]*item, len(items))
	ids := make([]int64, 0, len(items))
	for _, it := range items {
		v, err := booking.DecodeItem(it)
		if err != nil {
			return nil, err
		}
		x := &item{id: it.ID, kind: kind, city: it.CityKey, value: v, data: it.Data}
		loaded, byID[it.ID] = append(loaded, x), x
		ids = append(ids, it.ID)
	}
	if len(ids) > 0 {
		for _, uk := range unitKinds[kind] {
			rows, err := m.st.InventoryList(ctx, store.InventoryQuery{Kind: uk, ItemIDs: ids, From: allFrom, To: allTo})
			if err != nil {
				return nil, err
			}
			for _, u := range unitsOf(uk, rows) {
				if x := byID[u.itemID]; x != nil {
					x.units = append(x.units, u)
				}
			}
		}
	}
	return loaded, nil
}

// unitsOf builds the units of rows (ordered by unit and day, as InventoryList returns them).
func unitsOf(kind tradewind.UnitKind, rows []store.InventoryRow) []*unit {
	var out []*unit
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].UnitID == rows[i].UnitID {
			j++
		}
		first, last := dayNumber(rows[i].Day), dayNumber(rows[j-1].Day)
		n := last - first + 1
		u := &unit{key: unitKey{kind, rows[i].UnitID}, itemID: rows[i].ItemID, first: first, free: make([]int32, n)}
		for _, r := range rows[i:j] {
			if r.Price < math.MinInt32 || r.Price > math.MaxInt32 {
				u.wide = make([]int64, n)
				break
			}
		}
		if u.wide == nil {
			u.price = make([]int32, n)
		}
		for k := range u.free {
			u.free[k] = -1
		}
		for _, r := range rows[i:j] {
			d := dayNumber(r.Day) - first
			u.free[d] = int32(max(r.Capacity-r.Sold, 0))
			u.setPrice(d, r.Price)
		}
		out = append(out, u)
		i = j
	}
	return out
}

// put replaces the item of x's id with x, and its units. Under Model.mu once live.
func (m *state) put(x *item) {
	m.remove(x.kind, x.id)
	idx := m.products[x.kind]
	idx.byID[x.id] = x
	city := idx.byCity[x.city]
	at := len(city)
	for at > 0 && city[at-1].id > x.id {
		at--
	}
	city = append(city, nil)
	copy(city[at+1:], city[at:])
	city[at] = x
	idx.byCity[x.city] = city
	m.dest.touch(x.kind, x.city)
	if x.kind == tradewind.ProductHotel {
		m.hotels.drop(x.city)
	}
	if x.kind == tradewind.ProductRental {
		m.rentals.drop(x.city)
	}
	for _, u := range x.units {
		m.units[u.key] = u
		m.days.cover(u.first, u.first+int32(len(u.free))-1)
	}
}

// remove forgets an item and its units. Under Model.mu once live.
func (m *state) remove(kind tradewind.ProductType, id int64) {
	idx := m.products[kind]
	old := idx.byID[id]
	if old == nil {
		return
	}
	delete(idx.byID, id)
	city := idx.byCity[old.city]
	for i, x := range city {
		if x == old {
			city = append(city[:i:i], city[i+1:]...)
			break
		}
	}
	m.dest.touch(kind, old.city)
	if kind == tradewind.ProductHotel {
		m.hotels.drop(old.city)
	}
	if kind == tradewind.ProductRental {
		m.rentals.drop(old.city)
	}
	if len(city) == 0 {
		delete(idx.byCity, old.city)
	} else {
		idx.byCity[old.city] = city
	}
	for _, u := range old.units {
		if m.units[u.key] == u {
			delete(m.units, u.key)
		}
	}
}

// errStale says a range reload met inventory the model did not hold (a unit or day new
// to its item): the item is reloaded whole.
var errStale = errors.New("read model: inventory outside the loaded range")
