package booking

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
)

// Reads is what searches, availability and catalog records read: the catalog items and
// what their units can still sell per day. StoreReads reads the database on every call;
// the read model (internal/readmodel) answers from memory, kept fresh by the change feed.
// Both answer alike, so the same code computes every answer. Book claims in the store,
// and prebook and book are priced from what the store holds, so a stale read cannot sell
// what is gone: a live booking's quote ahead and a prebook may read the model
// (StoredItems), but what they priced is only a guess that the booking's claim
// (quoteahead.go) or the prebook's insert (prebook.go) checks against the store.
type Reads interface {
	// CityItems returns the items of a kind in a city (lower-case key), by id, decoded.
	CityItems(ctx context.Context, kind tradewind.ProductType, city string) ([]Decoded, error)
	// Item returns one item decoded (DecodeItem); store.ErrNotFound when it is missing.
	Item(ctx context.Context, kind tradewind.ProductType, id int64) (any, error)
	// Stock returns the days q selects (q.Kind and q.ItemIDs or q.UnitIDs, q.From..q.To),
	// by unit, each unit's days in order; a day without inventory is absent. With both
	// ItemIDs and UnitIDs the store returns the units of those items only (the read
	// model may add the items' other units: callers read the units they asked for).
	Stock(ctx context.Context, q store.InventoryQuery) (map[int64][]DayStock, error)
}

// Decoded is a catalog item decoded into its catalog type, with its id.
type Decoded struct {
	ID    int64
	Value any // *catalog.Hotel, *catalog.Activity, *catalog.Rental or *catalog.Package
}

// DayStock is what one unit can still sell on one day (capacity less sold, never below
// 0) and its net price.
type DayStock struct {
	Day   string
	Free  int
	Price int64
}

// DecodeItem decodes a stored catalog item into its catalog type (see Decoded).
func DecodeItem(it *store.Item) (any, error) {
	var v any
	switch it.Kind {
	case tradewind.ProductHotel:
		v = new(catalog.Hotel)
	case tradewind.ProductActivity:
		v = new(catalog.Activity)
	case tradewind.ProductRental:
		v = new(catalog.Rental)
	case tradewind.ProductPackage:
		v = new(catalog.Package)
	default:
		return nil, fmt.Errorf("item %d of unknown kind %q: %w", it.ID, it.Kind, store.ErrCorrupt)
	}
	if err := json.Unmarshal(it.Data, v); err != nil {
		return nil, fmt.Errorf("%s %d: %w", it.Kind, it.ID, err)
	}
	return v, nil
}

// StoreReads reads Q on every call: the path of a service without a read model, and of
// prebook and book whenever what the model priced is not what the store holds.
type StoreReads struct {
	Q store.Querier
	// items, when set, spares Item the decoding of a stored document it decoded before
	// (the quotes' itemCache); the document is still read from Q every time.
	items *itemCache
	// ahead, when set, is an item and its unit's days read before a quote asked for
	// them (readAhead): Item and Stock answer those from it.
	ahead *readAhead
}

// readAhead is an item and the days q selects of one of its units, read together.
type readAhead struct {
	item *store.Item
	q    store.InventoryQuery
	rows []store.InventoryRow
}

// readAhead reads the item and its unit's days in one round trip
// (store.ItemWithUnitDays), for the quote's Item and Stock that follow. On any error it
// reads nothing: those then read the store as usual and meet the error themselves.
func (r *StoreReads) readAhead(ctx context.Context, kind tradewind.ProductType, id int64, q store.InventoryQuery) {
	it, rows, err := r.Q.ItemWithUnitDays(ctx, kind, id, q)
	if err != nil {
		return
	}
	r.ahead = &readAhead{item: it, q: q, rows: rows}
}

// stored returns the stored item: the one read ahead, or the store's.
func (r StoreReads) stored(ctx context.Context, kind tradewind.ProductType, id int64) (*store.Item, error) {
	if a := r.ahead; a != nil && a.item.Kind == kind && a.item.ID == id {
		return a.item, nil
	}
	return r.Q.ItemGet(ctx, kind, id)
}

// inventory returns the rows q selects: those read ahead when q is the query read
// ahead, or the store's.
func (r StoreReads) inventory(ctx context.Context, q store.InventoryQuery) ([]store.InventoryRow, error) {
	if a := r.ahead; a != nil && a.q.Kind == q.Kind && a.q.From == q.From && a.q.To == q.To &&
		slices.Equal(a.q.ItemIDs, q.ItemIDs) && slices.Equal(a.q.UnitIDs, q.UnitIDs) {
		return a.rows, nil
	}
	return r.Q.InventoryList(ctx, q)
}

// CityItems implements Reads.
func (r StoreReads) CityItems(ctx context.Context, kind tradewind.ProductType, city string) ([]Decoded, error) {
	items, err := r.Q.ItemListByCity(ctx, kind, city)
	if err != nil {
		return nil, err
	}
	out := make([]Decoded, 0, len(items))
	for _, it := range items {
		v, err := DecodeItem(it)
		if err != nil {
			return nil, err
		}
		out = append(out, Decoded{ID: it.ID, Value: v})
	}
	return out, nil
}

// Item implements Reads.
func (r StoreReads) Item(ctx context.Context, kind tradewind.ProductType, id int64) (any, error) {
	it, err := r.stored(ctx, kind, id)
	if err != nil {
		return nil, err
	}
	return r.decode(it)
}

// decode decodes a stored item, through the quotes' cache when r has one.
func (r StoreReads) decode(it *store.Item) (any, error) {
	if r.items != nil {
		return r.items.decode(it)
	}
	return DecodeItem(it)
}

// Stock implements Reads.
func (r StoreReads) Stock(ctx context.Context, q store.InventoryQuery) (map[int64][]DayStock, error) {
	rows, err := r.inventory(ctx, q)
	if err != nil {
		return nil, err
	}
	byUnit := map[int64][]DayStock{}
	for _, row := range rows { // ordered by unit and day
		byUnit[row.UnitID] = append(byUnit[row.UnitID], dayStock(row))
	}
	return byUnit, nil
}

// reads is what the service's searches, availability and records read: its read model,
// or the store.
func (s *Service) reads() Reads {
	if s.Reads != nil {
		return s.Reads
	}
	return StoreReads{Q: s.Store}
}

// ItemStock is what one item's units can still sell over the days a search asked for,
// handed to the search one item at a time (CityScanner). Its answers are valid until
// its next call: a slice Days returns is reused.
type ItemStock interface {
	// Days returns the days of unit (kind, id) in order; a day without inventory is
	// absent, as in Reads.Stock.
	Days(kind tradewind.UnitKind, unitID int64) []DayStock
	// FirstFree returns the first day of unit (kind, id) with at least n free units.
	FirstFree(kind tradewind.UnitKind, unitID int64, n int) (DayStock, bool)
	// Run returns what unit (kind, id) can still sell on each day asked, in order, read
	// in place (no copy, no day names): a run of no days when the unit's inventory does
	// not span every day asked. A day inside the span without inventory has Free < 0.
	Run(kind tradewind.UnitKind, unitID int64) DayRun
}

// DayRun is a unit's free units and net prices over consecutive days, in compact form:
// Free[i] < 0 where the store has no row. Prices are in Price, or in Wide when one does
// not fit 32 bits. Read only.
type DayRun struct {
	Free  []int32
	Price []int32
	Wide  []int64
}

// PriceAt is the net price of day i of the run.
func (r DayRun) PriceAt(i int) int64 {
	if r.Wide != nil {
		return r.Wide[i]
	}
	return int64(r.Price[i])
}

// Span is the run's days lo..lo+days−1, read in place: a run of no days unless it
// holds them all.
func (r *DayRun) Span(lo, days int32) DayRun {
	hi := lo + days
	if lo < 0 || hi > int32(len(r.Free)) || lo >= hi {
		return DayRun{}
	}
	if r.Wide != nil {
		return DayRun{Free: r.Free[lo:hi:hi], Wide: r.Wide[lo:hi:hi]}
	}
	return DayRun{Free: r.Free[lo:hi:hi], Price: r.Price[lo:hi:hi]}
}

// CityScanner is implemented by Reads that hold the catalog in memory (the read
// model): a search reads each item of a city with its units' days in turn, without a
// map of the city's stock nor a copy of every day.
type CityScanner interface {
	// ScanCity calls each for every item of kind in city (lower-case key), by id, with
	// its units' days from..to (units of the kinds named in kinds). ok false: the reader
	// cannot answer now (its model is not built yet); the caller reads CityItems and
	// Stock instead. each must not keep s nor call the reader.
	ScanCity(ctx context.Context, kind tradewind.ProductType, city string, kinds []tradewind.UnitKind, from, to string,
		each func(d Decoded, s ItemStock)) (ok bool, err error)
}

// HotelScanner is implemented by Reads that keep each city's hotels and their rooms'
// days in flat arrays (the read model): a hotel search then reads every room of the
// city in one loop, without a call per hotel or per room.
type HotelScanner interface {
	// ScanHotels calls each once, under the reader's lock, with the hotels of city
	// (lower-case key) and their rooms' days, from the day from (days since 1970-01-01)
	// for days days (from..to, both included). ok false: the reader cannot answer this
	// way (its model is not built yet, or the city holds an item that is not a hotel);
	// the caller scans the city with ScanCity or CityItems instead. each must not keep c
	// nor call the reader.
	ScanHotels(ctx context.Context, city string, from, to string, each func(c *CityHotels, from, days int32)) (ok bool, err error)
}

// CityHotels is a city's hotels, by id, and the rooms of each that have inventory,
// in the order of the hotel's Rooms: the rooms of Hotels[i] are Rooms[End[i-1]:End[i]]
// (from 0 for the first). Read only.
type CityHotels struct {
	Hotels []*catalog.Hotel
	End    []int32
	Rooms  []RoomDays

	// Set by Index from Hotels: what a search reads of each hotel besides its rooms.
	currency   []int32            // Hotels[i].Currency is currencies[currency[i]]
	currencies []string           // distinct
	markets    map[string][]int64 // nationality → each hotel's market for it (basis points); absent when none has one
	scan       []roomScan         // Rooms as netPick reads them, in the same order
	wide       bool               // a room has wide prices
	heads      []byte             // each hotel's hit JSON head (appendHitHead), one after the other
	headEnd    []int32            // Hotels[i]'s head ends at headEnd[i]

	// The rooms' days as netPick reads them: day-major (byDay), or each room's own
	// (runs, the rooms' DayRuns in place).
	byDay bool
	days  dayMajor
	runs  []roomRun // when !byDay: Rooms' days, in the same order
}

// dayMajor is a table's rooms' days day by day: day first+d of room k (of n) is at
// d*n+k, so the nights of a stay are a few contiguous rows whatever the number of
// days the catalog holds. A copy of the rooms' DayRuns: the reader writes a day there
// and then calls CityHotels.RefreshDays.
type dayMajor struct {
	first, count int32   // day numbers first..first+count−1
	free         []uint8 // the units free (satFree: 0 without inventory, or outside the room's run)
	price        []int32 // the net price (wideNet for a room with wide prices; 0 outside its run)
}

// satFree is a day's free units in a dayMajor: 0 without inventory, at most 255. A
// search asks for at most maxRooms units, so free ≥ rooms reads the same.
func satFree(f int32) uint8 { return uint8(max(min(f, 255), 0)) }

const _ uint8 = 255 - maxRooms // satFree's bound holds every stay's rooms

// hitHead is hotel i's appendHitHead: a search's page copies it instead of appending
// six fields of every hit (the hotel's table is dropped when the hotel changes).
func (c *CityHotels) hitHead(i int32) []byte {
	start := int32(0)
	if i > 0 {
		start = c.headEnd[i-1]
	}
	return c.heads[start:c.headEnd[i]:c.headEnd[i]]
}

// roomScan is what netPick reads of a room besides its days: 12 bytes.
type roomScan struct {
	index int32  // in the hotel's Rooms
	last  int32  // the hotel's index in Hotels when this is its last room, else −1
	fit   uint32 // roomFit of the room's MaxAdults, MaxChildren
}

// roomRun is a room's days as netPickRuns reads them: the unit's own slices.
type roomRun struct {
	free, price []int32 // Days.Free, Days.Price (nil: wide prices)
	first       int32
}

// roomFit packs a room's adults and children in one number, each with a guard bit
// above it: fit − (needA<<16 | needC) keeps both guards (fitGuards) iff maxAdults ≥
// needA and maxChildren ≥ needC (needs below 2^15), one comparison for the two. A
// limit above 2^15 − 1 is taken as that (no party needs more); a room that takes no
// adult or fewer than no children takes no party (needA ≥ 1).
func roomFit(maxAdults, maxChildren int) uint32 {
	if maxAdults < 1 || maxChildren < 0 {
		maxAdults, maxChildren = 0, 0
	}
	return uint32(min(maxAdults, 1<<15-1)|1<<15)<<16 | uint32(min(maxChildren, 1<<15-1)|1<<15)
}

const fitGuards = 1<<31 | 1<<15

// layoutScan lays out c.scan from c.Rooms and c.End, and the rooms' days: day-major
// when byDay (a copy), else as runs (the rooms' own slices, read in place).
func (c *CityHotels) layoutScan(byDay bool) {
	n := len(c.Rooms)
	c.scan, c.wide = slices.Grow(c.scan[:0], n)[:n], false
	for k := range c.Rooms {
		r := &c.Rooms[k]
		c.scan[k] = roomScan{index: r.Index, last: -1, fit: roomFit(r.MaxAdults, r.MaxChildren)}
		c.wide = c.wide || len(r.Days.Price) != len(r.Days.Free) // wide prices (Price is nil)
	}
	markLasts(c.End, func(k, i int32) { c.scan[k].last = i })
	c.byDay = byDay
	if !byDay {
		c.days = dayMajor{}
		c.runs = slices.Grow(c.runs[:0], n)[:n]
		for k := range c.Rooms {
			r := &c.Rooms[k]
			c.runs[k] = roomRun{free: r.Days.Free, price: r.Days.Price, first: r.First}
		}
		return
	}
	c.runs = nil
	lo, hi, _ := c.roomDaySpan()
	if lo > hi {
		lo, hi = 0, -1
	}
	cells := int(hi-lo+1) * n
	c.days = dayMajor{first: lo, count: hi - lo + 1, free: make([]uint8, cells), price: make([]int32, cells)}
	for k := range c.Rooms { // room by room (day by day missed the cache more: docs/performance-history.md, "daymajor")
		r := &c.Rooms[k]
		c.copyDays(int32(k), r.First, r.First+int32(len(r.Days.Free))-1)
	}
}

// copyDays copies room k's days from..to (day numbers, within its run) into c.days.
func (c *CityHotels) copyDays(k, from, to int32) {
	r, n := &c.Rooms[k], len(c.Rooms)
	lo, hi := int(from-r.First), int(to-r.First)+1
	free, price := r.Days.Free[lo:hi], r.Days.Price
	at := int(from-c.days.first)*n + int(k)
	for i, f := range free {
		c.days.free[at+i*n] = satFree(f)
	}
	if price == nil { // wide prices: netPickDays' mark
		for i := range free {
			c.days.price[at+i*n] = wideNet
		}
		return
	}
	for i, p := range price[lo:hi] {
		c.days.price[at+i*n] = p
	}
}

// RefreshDays copies the days from..to (day numbers, both included) of hotel id's rooms
// from their DayRuns into the table's day-major copy: the reader calls it after
// writing those days of the hotel's units in place (the table's DayRuns are the
// units'). A hotel not in the table has nothing to copy. Hotels are by id, as the
// reader lays them out.
func (c *CityHotels) RefreshDays(id int64, from, to int32) {
	if !c.byDay {
		return // the scan reads the units' own days
	}
	i, found := slices.BinarySearchFunc(c.Hotels, id, func(h *catalog.Hotel, id int64) int { return cmp.Compare(h.ID, id) })
	if !found {
		i = slices.IndexFunc(c.Hotels, func(h *catalog.Hotel) bool { return h.ID == id })
		if i < 0 {
			return
		}
	}
	start := int32(0)
	if i > 0 {
		start = c.End[i-1]
	}
	for k := start; k < c.End[i]; k++ {
		r := &c.Rooms[k]
		if lo, hi := max(from, r.First), min(to, r.First+int32(len(r.Days.Free))-1); lo <= hi {
			c.copyDays(k, lo, hi)
		}
	}
}

// markLasts calls mark(k, i) for each item i of a flat table (its units end at
// ends[i]) that has units, k its last unit: where a scan ends the item's candidate.
func markLasts(ends []int32, mark func(k, i int32)) {
	start := int32(0)
	for i, end := range ends {
		if end > start {
			mark(end-1, int32(i))
		}
		start = end
	}
}

// Index derives from Hotels and Rooms what a search reads (each hotel's currency as a
// small number, its market for each nationality, the rooms in netPick's narrower
// form, the start of its hits' JSON); the reader calls it once Hotels and Rooms are
// laid out.
func (c *CityHotels) Index() {
	c.layoutScan(c.compactByDay())
	c.currency = make([]int32, len(c.Hotels))
	c.currencies = nil
	c.markets = nil
	c.heads, c.headEnd = nil, make([]int32, len(c.Hotels))
	for i, h := range c.Hotels {
		c.currency[i] = internCurrency(&c.currencies, h.Currency)
		c.heads = appendHitHead(c.heads, h.ID, h.Name, h.City, h.Country, h.StarRating, h.ImageURL)
		c.headEnd[i] = int32(len(c.heads))
		for nat, bp := range h.Markets {
			if bp == 0 {
				continue // as no market
			}
			if c.markets == nil {
				c.markets = map[string][]int64{}
			}
			m := c.markets[nat]
			if m == nil {
				m = make([]int64, len(c.Hotels))
				c.markets[nat] = m
			}
			m[i] = int64(bp)
		}
	}
}

// compactByDay reports whether the rooms' days are worth a day-major copy: it holds
// every room over the union of their runs, so rooms whose runs lie far apart would
// make it much bigger than the runs (the catalog: every room over the same
// days).
func (c *CityHotels) compactByDay() bool {
	lo, hi, cells := c.roomDaySpan()
	return lo > hi || (int64(hi)-int64(lo)+1)*int64(len(c.Rooms)) <= 2*cells+4096
}

// roomDaySpan is the first and last day (numbers) of the rooms' runs together, and
// the days of all runs; lo > hi when no room has a day.
func (c *CityHotels) roomDaySpan() (lo, hi int32, cells int64) {
	lo, hi = math.MaxInt32, math.MinInt32
	for k := range c.Rooms {
		if r := &c.Rooms[k]; len(r.Days.Free) > 0 {
			lo, hi = min(lo, r.First), max(hi, r.First+int32(len(r.Days.Free))-1)
			cells += int64(len(r.Days.Free))
		}
	}
	return lo, hi, cells
}

// RoomDays is one room type of a hotel and what it can still sell from day First on
// (days since 1970-01-01), one entry a day, as a DayRun (Free < 0: no inventory).
type RoomDays struct {
	Index                  int32 // in the hotel's Rooms
	First                  int32
	MaxAdults, MaxChildren int // the room's (catalog.Room), read without it
	Days                   DayRun
}

// mapStock is ItemStock over Stock's maps, for Reads without ScanCity; days is the
// number of days asked.
type mapStock struct {
	byKind map[tradewind.UnitKind]map[int64][]DayStock
	days   int
}

func (m mapStock) Days(kind tradewind.UnitKind, unitID int64) []DayStock {
	return m.byKind[kind][unitID]
}

func (m mapStock) Run(kind tradewind.UnitKind, unitID int64) DayRun {
	rows := m.byKind[kind][unitID]
	if len(rows) != m.days { // days are unique and within those asked: all present
		return DayRun{}
	}
	run := DayRun{Free: make([]int32, len(rows)), Wide: make([]int64, len(rows))}
	for i, d := range rows {
		run.Free[i], run.Wide[i] = int32(min(d.Free, math.MaxInt32)), d.Price
	}
	return run
}

func (m mapStock) FirstFree(kind tradewind.UnitKind, unitID int64, n int) (DayStock, bool) {
	for _, d := range m.byKind[kind][unitID] {
		if d.Free >= n {
			return d, true
		}
	}
	return DayStock{}, false
}

// scanCity calls each for every item of kind in city (case-insensitive), by id, as its
// catalog type, with its units' stock of the given kinds over days from..to: from the
// reader's memory when it can (CityScanner), else from CityItems and Stock.
func scanCity[T any](ctx context.Context, db Reads, kind tradewind.ProductType, city string, kinds []tradewind.UnitKind,
	from, to string, each func(it *T, s ItemStock)) error {
	key := cityKey(city)
	var bad error
	visit := func(d Decoded, s ItemStock) {
		if bad != nil {
			return
		}
		it, err := asItem[T](kind, d.ID, d.Value)
		if err != nil {
			bad = err
			return
		}
		each(it, s)
	}
	if sc, ok := db.(CityScanner); ok {
		done, err := sc.ScanCity(ctx, kind, key, kinds, from, to, visit)
		if err != nil {
			return err
		}
		if done {
			return bad
		}
	}
	items, err := db.CityItems(ctx, kind, key)
	if err != nil || len(items) == 0 {
		return err
	}
	ids := make([]int64, len(items))
	for i, d := range items {
		ids[i] = d.ID
	}
	stock := mapStock{byKind: map[tradewind.UnitKind]map[int64][]DayStock{}, days: daysBetween(from, to)}
	for _, uk := range kinds {
		if stock.byKind[uk], err = db.Stock(ctx, store.InventoryQuery{Kind: uk, ItemIDs: ids, From: from, To: to}); err != nil {
			return err
		}
	}
	for _, d := range items {
		visit(d, stock)
	}
	return bad
}

// daysBetween counts the days from..to, both included (YYYY-MM-DD; 0 when to < from).
func daysBetween(from, to string) int {
	return max(nightsOf(from, to)+1, 0)
}
