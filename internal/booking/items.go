package booking

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/pricing"
	"github.com/tradewind/tradewind/internal/store"
)

// Helpers shared by the searches, records, availability and quotes of every product.

// intOr returns *v, or def when the field was not sent.
func intOr(v *int, def int) int {
	if v == nil {
		return def
	}
	return *v
}

// maxPage bounds page numbers so that offsets never overflow: a million pages of 100
// is more than any list here holds.
const maxPage = 1_000_000

// Page sizes of every list and search (partner-api.md, Pagination), page numbered or
// keyset (GET /events, GET /webhooks/{id}/deliveries).
const (
	DefaultPerPage = 25
	MaxPerPage     = 100
)

// pageOf validates optional page and per_page values.
func pageOf(p *problems, page, perPage *int) Page {
	pg := Page{Page: intOr(page, 1), PerPage: intOr(perPage, DefaultPerPage)}
	if pg.Page < 1 || pg.Page > maxPage {
		p.add("page: must be 1–%d", maxPage)
	}
	checkPerPage(p, pg.PerPage)
	return pg
}

// checkPerPage is every list's rule for per_page.
func checkPerPage(p *problems, n int) {
	if n < 1 || n > MaxPerPage {
		p.add("per_page: must be 1–%d", MaxPerPage)
	}
}

// ValidatePage checks list paging parameters.
func ValidatePage(page, perPage *int) (Page, error) {
	var p problems
	pg := pageOf(&p, page, perPage)
	return pg, p.err()
}

// destination checks the destination of a search, or its alias city when destination is
// empty; the two naming different cities is a problem, rather than one of them read and
// the other silently not.
func destination(p *problems, dest, city string) string {
	switch {
	case dest == "":
		dest = city
	case city != "" && cityKey(city) != cityKey(dest):
		p.add("city: an alias of destination, and names another city (%q, %q); give one of them", clip(city), clip(dest))
	}
	if cityKey(dest) == "" {
		p.add("destination is required")
	}
	p.maxLen("destination", dest, 200)
	return dest
}

// cheapestFirst returns the indexes of the n cheapest items (all of them when n covers
// them), cheapest first: those in the partner's credit currency first (the only ones it
// can book), then the others by currency and price, since amounts in different currencies
// do not compare; equal prices keep their order (by id). It orders small keys, not the
// items, and when a page needs few of many it keeps only the n cheapest as it goes
// instead of sorting the whole city: the order is total, so either way gives the same
// indexes.
func cheapestFirst[T any](items []T, currency string, price func(T) money.Amount, n int) []int {
	n = max(0, min(n, len(items)))
	var keys []rankKey
	if n*4 >= len(items) {
		keys = make([]rankKey, len(items))
		for i, it := range items {
			keys[i] = newRankKey(price(it), currency, i)
		}
		slices.SortFunc(keys, func(a, b rankKey) int { return a.compare(&b) })
		keys = keys[:n]
	} else if n > 0 {
		keys = make([]rankKey, 0, n+1)
		i := 0
		// While every item so far is in the credit currency (most cities), keys order by
		// price, and by index only among equal prices, where the newest comes last.
		for ; i < len(items); i++ {
			a := price(items[i])
			if a.Currency != currency {
				break
			}
			if len(keys) == n && a.Minor >= keys[n-1].minor {
				continue // most of a big city: one comparison with the page's last
			}
			lo, hi := 0, len(keys) // the first key dearer than a
			for lo < hi {
				if m := int(uint(lo+hi) >> 1); a.Minor < keys[m].minor {
					hi = m
				} else {
					lo = m + 1
				}
			}
			keys = keepFirst(keys, lo, rankKey{false, a.Currency, a.Minor, i}, n)
		}
		for ; i < len(items); i++ {
			k := newRankKey(price(items[i]), currency, i)
			if len(keys) == n && k.compare(&keys[n-1]) >= 0 {
				continue
			}
			lo, hi := 0, len(keys) // the first key k comes before
			for lo < hi {
				if m := int(uint(lo+hi) >> 1); k.compare(&keys[m]) < 0 {
					hi = m
				} else {
					lo = m + 1
				}
			}
			keys = keepFirst(keys, lo, k, n)
		}
	}
	order := make([]int, len(keys))
	for i, k := range keys {
		order[i] = k.i
	}
	return order
}

// internCurrency returns the number of currency in *currencies (distinct codes),
// adding it when new.
func internCurrency(currencies *[]string, currency string) int32 {
	for i, c := range *currencies {
		if c == currency {
			return int32(i)
		}
	}
	*currencies = append(*currencies, currency)
	return int32(len(*currencies) - 1)
}

// currencyRanks ranks distinct currencies in cheapestFirst's order (rankKey's: the
// credit currency first, then the others by code); rank[i] is currencies[i]'s: how
// many come before it. Ordering by rank, then price and index, is cheapestFirst's order.
func currencyRanks(currencies []string, credit string) []int32 {
	rank := make([]int32, len(currencies))
	for i, c := range currencies {
		k := newRankKey(money.Amount{Currency: c}, credit, 0)
		for _, o := range currencies {
			if ko := newRankKey(money.Amount{Currency: o}, credit, 0); ko.compare(&k) < 0 {
				rank[i]++
			}
		}
	}
	return rank
}

// rankKey is what cheapestFirst orders an item by.
type rankKey struct {
	other    bool // not in the credit currency
	currency string
	minor    int64
	i        int
}

func newRankKey(a money.Amount, credit string, i int) rankKey {
	return rankKey{a.Currency != credit, a.Currency, a.Minor, i}
}

// keepFirst inserts k at index at of keys and keeps the first n.
func keepFirst(keys []rankKey, at int, k rankKey, n int) []rankKey {
	keys = slices.Insert(keys, at, k)
	return keys[:min(len(keys), n)]
}

func (a *rankKey) compare(b *rankKey) int {
	if a.other != b.other {
		if a.other {
			return 1
		}
		return -1
	}
	if a.currency != b.currency {
		return cmp.Compare(a.currency, b.currency)
	}
	if c := cmp.Compare(a.minor, b.minor); c != 0 {
		return c
	}
	return cmp.Compare(a.i, b.i)
}

// orEmpty returns l, or an empty list for nil, so that JSON shows [] rather than null.
func orEmpty[T any](l []T) []T {
	if l == nil {
		return []T{}
	}
	return l
}

// quoteNotFound turns a missing item into 422 invalid_quote.
func quoteNotFound(err error, format string, args ...any) error {
	if errors.Is(err, store.ErrNotFound) {
		return invalidQuote(tradewind.ReasonUnknownItem, "The quote names an item that does not exist: "+format+".", args...)
	}
	return err
}

// unitByID returns the unit of an item (a hotel's room, a rental's space, a package's
// departure) whose id is id, or nil when the item has none.
func unitByID[T any](units []T, id int64, idOf func(*T) int64) *T {
	for i := range units {
		if idOf(&units[i]) == id {
			return &units[i]
		}
	}
	return nil
}

// seatShortage is the 422 invalid_quote of an activity or package option with fewer
// seats left than the party takes.
func seatShortage(name string, left int, date string, seats int) error {
	return invalidQuote(tradewind.ReasonSoldOut, "%s has %d seat(s) left on %s; the party needs %d (adults and children take a seat).",
		name, left, date, seats)
}

// getItem reads one catalog item; store.ErrNotFound when it is missing.
func getItem[T any](ctx context.Context, db Reads, kind tradewind.ProductType, id int64) (*T, error) {
	v, err := db.Item(ctx, kind, id)
	if err != nil {
		return nil, err
	}
	return asItem[T](kind, id, v)
}

// asItem is v, an item DecodeItem decoded, as its catalog type.
func asItem[T any](kind tradewind.ProductType, id int64, v any) (*T, error) {
	t, ok := v.(*T)
	if !ok {
		return nil, fmt.Errorf("%s %d: decoded as %T: %w", kind, id, v, store.ErrCorrupt)
	}
	return t, nil
}

// cityItems reads the items of a kind in a city (case-insensitive), by id, and what
// inventory reads of them by their ids: what every search starts from.
func cityItems[T, I any](ctx context.Context, db Reads, kind tradewind.ProductType, city string,
	inventory func(ids []int64) (I, error)) ([]*T, I, error) {
	var inv I
	items, err := db.CityItems(ctx, kind, cityKey(city))
	if err != nil {
		return nil, inv, err
	}
	out := make([]*T, 0, len(items))
	ids := make([]int64, 0, len(items))
	for _, d := range items {
		it, err := asItem[T](kind, d.ID, d.Value)
		if err != nil {
			return nil, inv, err
		}
		out = append(out, it)
		ids = append(ids, d.ID)
	}
	inv, err = inventory(ids)
	return out, inv, err
}

// rowsByUnit reads the days q selects, grouped by unit, each unit's days in order.
func rowsByUnit(ctx context.Context, db Reads, q store.InventoryQuery) (map[int64][]DayStock, error) {
	return db.Stock(ctx, q)
}

// stayRows loads the nights of a stay (check_in .. check_out−1) of the units of a kind
// (rooms, spaces) of the given items, grouped by unit.
func stayRows(ctx context.Context, db Reads, kind tradewind.UnitKind, itemIDs []int64, checkIn, checkOut string) (map[int64][]DayStock, error) {
	from, to := nightRange(checkIn, checkOut)
	return rowsByUnit(ctx, db, store.InventoryQuery{Kind: kind, ItemIDs: itemIDs, From: from, To: to})
}

// unitStayRows loads the nights of a stay (check_in .. check_out−1) of one unit (a room,
// a space) of one item, in order: what a quote prices.
func unitStayRows(ctx context.Context, db Reads, kind tradewind.UnitKind, itemID, unitID int64, checkIn, checkOut string) ([]DayStock, error) {
	byUnit, err := db.Stock(ctx, unitStayQuery(kind, itemID, unitID, checkIn, checkOut))
	return byUnit[unitID], err
}

// free is what an inventory row can still sell.
func free(r store.InventoryRow) int { return max(r.Capacity-r.Sold, 0) }

// dayStock is what an inventory row offers, as searches read it.
func dayStock(r store.InventoryRow) DayStock {
	return DayStock{Day: r.Day, Free: free(r), Price: r.Price}
}

// freeOn is what a unit can still sell on its one selected day: 0 when the day is not
// on sale (no row).
func freeOn(rows []DayStock) int {
	if len(rows) == 0 {
		return 0
	}
	return rows[0].Free
}

// unitFreeOn reads what one unit can still sell on one day.
func unitFreeOn(ctx context.Context, db Reads, kind tradewind.UnitKind, unitID int64, day string) (int, error) {
	rows, err := db.Stock(ctx, store.InventoryQuery{Kind: kind, UnitIDs: []int64{unitID}, From: day, To: day})
	if err != nil {
		return 0, err
	}
	return freeOn(rows[unitID]), nil
}

// stayTotal prices the nights of a stay from their inventory rows (one per night, in
// order), each night needing quantity free units and priced by line; false when a
// night is missing or lacks the units.
func stayTotal(rows []DayStock, nights, quantity int, line func(net int64) int64) (int64, bool) {
	if len(rows) != nights {
		return 0, false
	}
	var total int64
	for _, r := range rows {
		if r.Free < quantity {
			return 0, false
		}
		total += line(r.Price)
	}
	return total, true
}

// stayTotalRun is stayTotal over a run of the stay's nights (ItemStock.Run): the same
// rule, read in place. unchanged says that line returns the net price itself
// (pricing.Contract.Unchanged): 32-bit nets are then summed without calling it.
func stayTotalRun(run *DayRun, nights, quantity int, unchanged bool, line func(net int64) int64) (int64, bool) {
	if len(run.Free) != nights || !unchanged || run.Wide != nil {
		return stayTotalLines(run, nights, quantity, line)
	}
	return sumNets(run.Free, run.Price, 0, quantity)
}

// sumNets is stayTotalRun's sum of 32-bit nets over days lo.. of free (and price),
// every night needing quantity free units.
func sumNets(free, price []int32, lo int, quantity int) (int64, bool) {
	price = price[:len(free)] // one bounds check, not one a night
	var total int64
	for d := lo; d < len(free); d++ {
		if f := free[d]; f < 0 || int(f) < quantity {
			return 0, false
		}
		total += int64(price[d])
	}
	return total, true
}

// stayTotalLines is stayTotalRun pricing each night by line.
//
//go:noinline
func stayTotalLines(run *DayRun, nights, quantity int, line func(net int64) int64) (int64, bool) {
	if len(run.Free) != nights {
		return 0, false
	}
	var total int64
	for i, f := range run.Free {
		if f < 0 || int(f) < quantity {
			return 0, false
		}
		total += line(run.PriceAt(i))
	}
	return total, true
}

// cheapestPage orders search hits cheapest first, those in the caller's credit currency
// first (see cheapestFirst), and returns page pg of them with its meta.
func cheapestPage[T any](hits []T, c *Caller, price func(T) money.Amount, pg Page) ([]T, PageMeta) {
	from, to := pg.window(len(hits))
	order := cheapestFirst(hits, c.Partner.Currency, price, to)
	page := make([]T, 0, to-from)
	for _, i := range order[from:to] {
		page = append(page, hits[i])
	}
	return page, pg.meta(len(hits))
}

// party is the people of a per-person quote. Adults and children take a seat;
// infants do not.
type party struct {
	adults, children, infants int
}

// validParty checks a party against the request limits.
func validParty(p *problems, adults, children, infants int) party {
	p.party(adults, children, infants)
	return party{adults, children, infants}
}

// seats is the number of seats the party takes.
func (pt party) seats() int { return pt.adults + pt.children }

// price prices the party at per-person net prices, one rounded line per person.
func (pt party) price(c pricing.Contract, p catalog.PersonPrices) int64 {
	return c.PerPerson(pt.adults, pt.children, pt.infants, p.Adult, p.Child, p.Infant)
}

// PersonPricing is a per-person price list in the partner's pricing mode.
type PersonPricing struct {
	Adult    money.Amount `json:"adult"`
	Child    money.Amount `json:"child"`
	Infant   money.Amount `json:"infant"`
	Currency string       `json:"currency"`
}

// personPricing prices one person of each type for the partner.
func personPricing(c pricing.Contract, p catalog.PersonPrices, currency string) PersonPricing {
	amount := func(net int64) money.Amount { return money.Amount{Minor: c.Line(net), Currency: currency} }
	return PersonPricing{Adult: amount(p.Adult), Child: amount(p.Child), Infant: amount(p.Infant), Currency: currency}
}

// addDays returns the date n days after date (both YYYY-MM-DD).
func addDays(date string, n int) string {
	t, _ := catalog.ParseDate(date)
	return t.AddDate(0, 0, n).Format(tradewind.DateLayout)
}

// nightsOf counts the nights of a valid stay.
func nightsOf(checkIn, checkOut string) int {
	in, _ := catalog.ParseDate(checkIn)
	out, _ := catalog.ParseDate(checkOut)
	return int(out.Sub(in).Hours() / 24)
}

// scratch keeps the candidate lists of searches for reuse: a search of a big city
// collects one candidate per item, and a fresh list would grow on every request.
type scratch[T any] struct {
	pool  sync.Pool
	plain bool // T holds no pointer: put need not clear it
}

// get returns an empty list.
func (s *scratch[T]) get() []T {
	if p, _ := s.pool.Get().(*[]T); p != nil {
		return (*p)[:0]
	}
	return nil
}

// put gives l back once nothing refers to it any more; its items are cleared so that
// the pool keeps no catalog item alive.
func (s *scratch[T]) put(l []T) {
	if cap(l) == 0 || cap(l) > 1<<16 {
		return
	}
	if !s.plain {
		clear(l[:cap(l)])
	}
	l = l[:0]
	s.pool.Put(&l)
}
