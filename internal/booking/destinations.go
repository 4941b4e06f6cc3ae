package booking

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
)

// GET /destinations: the cities a partner can search, each with how many items of each
// product type a search could return there. What counts (onSale) is decided here, once,
// whatever answers: the read model's tallies (CityTallier) or the store's items and stock
// (storeCityTallies).

// DestinationFilter narrows GET /destinations. The zero value lists every city of every
// product type the caller's key enables.
type DestinationFilter struct {
	// Product shows one product type only; "" shows every type the key enables.
	Product tradewind.ProductType
	// Prefix keeps the cities whose name starts with it, folded as a search folds a
	// destination (cityKey); "" keeps them all.
	Prefix string
}

// DestinationQuery are the query parameters of GET /destinations: ParsePage's and
// ParseDestinationFilter's.
var DestinationQuery = append(slices.Clone(PageQuery), "product", "q")

// maxCityPrefix bounds the q of GET /destinations, in characters: a search's destination
// has at most as many.
const maxCityPrefix = 200

// ParseDestinationFilter reads the filter query parameters of GET /destinations: product
// (hotel, activity, rental or package) and q (the start of a city's name, in any case, at
// most 200 characters of UTF-8). A product the caller's key does not enable is 403
// product_not_enabled, before any other problem, as that product's own endpoints answer
// it; otherwise every bad parameter is listed in one 400 bad_request, a parameter given
// twice included.
func ParseDestinationFilter(c *Caller, q url.Values) (DestinationFilter, error) {
	var f DestinationFilter
	var p problems
	if v := p.queryParam(q, "product"); v != "" {
		pt := tradewind.ProductType(v)
		if !pt.Valid() {
			p.add("product: %q is not one of hotel, activity, rental, package", clip(v))
		} else if err := c.RequireProduct(pt); err != nil {
			return f, err
		}
		f.Product = pt
	}
	if v := p.queryParam(q, "q"); v != "" {
		switch {
		case !utf8.ValidString(v):
			p.add("q: must be UTF-8 text")
		case utf8.RuneCountInString(v) > maxCityPrefix:
			p.add("q: at most %d characters", maxCityPrefix)
		default:
			f.Prefix = cityKey(v)
		}
	}
	return f, p.err()
}

// Destination is one city of GET /destinations: its name, as its items spell it (a
// search takes it in any case; commonName), and for each product type shown the number
// of the city's items a search could return.
type Destination struct {
	City     string                        `json:"city"`
	Products map[tradewind.ProductType]int `json:"products"`
}

// CityTally is, for one product type in one city, how many items a search could return
// (onSale) and how all the city's items of that type spell it, on sale or not.
type CityTally struct {
	Items int
	Names map[string]int // the city's name as items spell it (trimmed) → how many of them
}

// Add counts item v (decoded, as Decoded.Value): its spelling of the city, and the item
// itself when stock, its units' days over the days a search may ask for, shows it on
// sale.
func (t *CityTally) Add(v any, stock ItemStock) {
	city, ok := onSale(v, stock)
	if ok {
		t.Items++
	}
	if t.Names == nil {
		t.Names = map[string]int{}
	}
	t.Names[strings.TrimSpace(city)]++
}

// CityTallier is implemented by Reads that keep each city's tallies in memory (the read
// model): GET /destinations reads them instead of every item and its stock.
type CityTallier interface {
	// CityTallies calls each, under the reader's lock, with every product type and city
	// (lower-case key) that has an item of that type, and the tally of those items over
	// the days from..to (CityTally.Add). ok false: the reader cannot answer now (its
	// model is not built yet); the request is 503 (counting from the store would read
	// the whole catalog). each must not keep t nor call the reader.
	CityTallies(ctx context.Context, from, to string,
		each func(kind tradewind.ProductType, city string, t *CityTally)) (ok bool, err error)
}

// destinationParty is the party onSale looks for: one adult takes one room, seat or
// space, and every room and space takes one adult (catalog.Document.Validate), so it is
// the smallest any search asks for.
const destinationParty = 1

// onSale reports whether a search could return the item v (a *catalog.Hotel, …) over the
// days stock holds, and names its city: a unit its document lists (a room, a space, a
// departure; an activity or open package is its own unit) has at least destinationParty
// free on one of those days, as the search of that product reads it. This is the one
// rule of what GET /destinations counts.
func onSale(v any, stock ItemStock) (city string, ok bool) {
	free := func(kind tradewind.UnitKind, id int64) bool {
		_, ok := stock.FirstFree(kind, id, destinationParty)
		return ok
	}
	switch it := v.(type) {
	case *catalog.Hotel:
		return it.City, anyFree(it.Rooms, tradewind.UnitRoom, func(r *catalog.Room) int64 { return r.ID }, free)
	case *catalog.Activity:
		return it.City, free(tradewind.UnitActivity, it.ID)
	case *catalog.Rental:
		return it.City, anyFree(it.Spaces, tradewind.UnitSpace, func(sp *catalog.Space) int64 { return sp.ID }, free)
	case *catalog.Package:
		if it.Kind == catalog.PackageOpen {
			return it.City, free(tradewind.UnitPackageDay, it.ID)
		}
		return it.City, anyFree(it.Departures, tradewind.UnitDeparture, func(d *catalog.Departure) int64 { return d.ID }, free)
	}
	return "", false
}

// anyFree reports whether free holds for one of units (of kind, ids by idOf).
func anyFree[T any](units []T, kind tradewind.UnitKind, idOf func(*T) int64, free func(tradewind.UnitKind, int64) bool) bool {
	for i := range units {
		if free(kind, idOf(&units[i])) {
			return true
		}
	}
	return false
}

// destinationKinds are the unit kinds of each product type's items, as its search reads
// them.
var destinationKinds = map[tradewind.ProductType][]tradewind.UnitKind{
	tradewind.ProductHotel: roomKinds, tradewind.ProductActivity: activityKinds,
	tradewind.ProductRental: spaceKinds, tradewind.ProductPackage: packageKinds,
}

// destinationWindow is the days on which an item on sale makes it count: from today
// (UTC) to the last day a search may ask for.
func (s *Service) destinationWindow() (from, to string) {
	today := s.todayDate()
	return today.Format(tradewind.DateLayout), today.AddDate(0, 0, maxDaysAhead).Format(tradewind.DateLayout)
}

// destinationCity is a city being listed: its tallies of the product types shown.
type destinationCity struct {
	names map[string]int
	items map[tradewind.ProductType]int
	total int // items on sale, of every type shown
}

// Destinations returns a page of the cities where a search of the caller's could return
// an item, ordered by name (the lower-case key, by code point), each with the number of
// such items of every product type shown: f.Product, or every type the caller's key
// enables. A type the key does not enable is never shown, and a city with no item of the
// types shown is not listed. An item counts when a search could return it for a party
// of one on a day from today to the last day a search may ask for (onSale). The answer
// comes from the read model's tallies when the service has one (503 service_unavailable
// while it is being built), else from the store, which reads every item of the types
// shown and their stock over those days. 403 product_not_enabled when the key does not
// enable f.Product.
func (s *Service) Destinations(ctx context.Context, c *Caller, f DestinationFilter, pg Page) (list []Destination, meta PageMeta, err error) {
	defer wrap(&err, "destinations")
	var shown []tradewind.ProductType
	if f.Product != "" {
		if err := c.RequireProduct(f.Product); err != nil {
			return nil, meta, err
		}
		shown = []tradewind.ProductType{f.Product}
	} else {
		for _, p := range tradewind.AllProducts {
			if c.Key.HasProduct(p) {
				shown = append(shown, p)
			}
		}
	}
	cities := map[string]*destinationCity{}
	add := func(kind tradewind.ProductType, city string, t *CityTally) {
		if !slices.Contains(shown, kind) || !strings.HasPrefix(city, f.Prefix) {
			return
		}
		d := cities[city]
		if d == nil {
			d = &destinationCity{names: map[string]int{}, items: map[tradewind.ProductType]int{}}
			cities[city] = d
		}
		d.items[kind] += t.Items
		d.total += t.Items
		for name, n := range t.Names {
			d.names[name] += n
		}
	}
	from, to := s.destinationWindow()
	if ct, ok := s.reads().(CityTallier); ok {
		// A model still being built answers 503, not the store's whole catalog: the
		// store's tallies read every item and its stock, which a request must not cost
		// a server of 20 000 hotels (it is not ready, /readyz says, for a few seconds).
		if len(shown) > 0 {
			if done, err := ct.CityTallies(ctx, from, to, add); err != nil {
				return nil, meta, err
			} else if !done {
				return nil, meta, tradewind.Errorf(tradewind.ECodeUnavailable,
					"Destinations are listed once this server has loaded the catalog, within seconds of its start; retry shortly.").RetryIn(1)
			}
		}
	} else if err := s.storeCityTallies(ctx, shown, from, to, add); err != nil {
		return nil, meta, err
	}
	keys := make([]string, 0, len(cities))
	for key, d := range cities {
		if d.total > 0 {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	lo, hi := pg.window(len(keys))
	list = make([]Destination, 0, hi-lo)
	for _, key := range keys[lo:hi] {
		d := cities[key]
		products := make(map[tradewind.ProductType]int, len(shown))
		for _, p := range shown {
			products[p] = d.items[p]
		}
		list = append(list, Destination{City: commonName(d.names), Products: products})
	}
	return list, pg.meta(len(keys)), nil
}

// commonName is the spelling most of a city's items of the types shown use, on sale or
// not (a name that does not change as items sell out); on a tie, the first in code point
// order, so that every server names a city alike.
func commonName(names map[string]int) string {
	best, most := "", 0
	for name, n := range names {
		if n > most || (n == most && name < best) {
			best, most = name, n
		}
	}
	return best
}

// destinationBatch is how many items storeCityTallies reads at a time.
const destinationBatch = 200

// storeCityTallies tallies the cities of each of kinds from the store, as the read
// model's CityTallies does from memory (the same onSale, through CityTally.Add): every
// item of those types, destinationBatch at a time, with its units' stock from..to.
func (s *Service) storeCityTallies(ctx context.Context, kinds []tradewind.ProductType, from, to string,
	each func(kind tradewind.ProductType, city string, t *CityTally)) error {
	db := StoreReads{Q: s.Store}
	for _, kind := range kinds {
		tallies := map[string]*CityTally{}
		for after := int64(0); ; {
			page, err := s.Store.ItemListPage(ctx, kind, after, destinationBatch)
			if err != nil {
				return err
			}
			if len(page) == 0 {
				break
			}
			after = page[len(page)-1].ID
			ids := make([]int64, len(page))
			for i, it := range page {
				ids[i] = it.ID
			}
			stock := mapStock{byKind: map[tradewind.UnitKind]map[int64][]DayStock{}, days: daysBetween(from, to)}
			for _, uk := range destinationKinds[kind] {
				if stock.byKind[uk], err = db.Stock(ctx, store.InventoryQuery{Kind: uk, ItemIDs: ids, From: from, To: to}); err != nil {
					return err
				}
			}
			for _, it := range page {
				v, err := DecodeItem(it)
				if err != nil {
					return err
				}
				t := tallies[it.CityKey]
				if t == nil {
					t = &CityTally{}
					tallies[it.CityKey] = t
				}
				t.Add(v, stock)
			}
		}
		for city, t := range tallies {
			each(kind, city, t)
		}
	}
	return nil
}
