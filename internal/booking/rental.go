package booking

import (
	"context"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/pricing"
	"github.com/tradewind/tradewind/internal/store"
)

// maxGuests bounds a rental party: the adults, children and infants limits together.
const maxGuests = maxAdults + maxChildren + maxInfants

// RentalSearchRequest is the body of POST /rentals/search.
type RentalSearchRequest struct {
	Destination string `json:"destination"`
	City        string `json:"city"` // alias of destination
	CheckIn     string `json:"check_in"`
	CheckOut    string `json:"check_out"`
	Guests      *int   `json:"guests"`
	Page        *int   `json:"page"`
	PerPage     *int   `json:"per_page"`
}

// RentalHit is one rental search result, at its cheapest free space for the whole stay.
type RentalHit struct {
	RentalID        int64        `json:"rental_id"`
	Name            string       `json:"name"`
	PropertyType    string       `json:"property_type"`
	City            string       `json:"city"`
	ImageURL        string       `json:"image_url"`
	InstantBooking  bool         `json:"instant_booking"`
	AvailableSpaces int          `json:"available_spaces"`
	FromPrice       money.Amount `json:"from_price"`
	Currency        string       `json:"currency"`
}

// RentalSearchResult is the data of a rental search.
type RentalSearchResult struct {
	Destination string                `json:"destination"`
	CheckIn     string                `json:"check_in"`
	CheckOut    string                `json:"check_out"`
	Nights      int                   `json:"nights"`
	Guests      int                   `json:"guests"`
	PricingMode tradewind.PricingMode `json:"pricing_mode"`
	Rentals     []RentalHit           `json:"rentals"`
	hint                              // when empty, a city without rentals (Hinted)
}

// rentalStay is a validated rental stay request.
type rentalStay struct {
	checkIn, checkOut string
	nights, guests    int
}

// fits reports whether space sp takes the stay's guests.
func (st rentalStay) fits(sp *catalog.Space) bool { return st.guests <= sp.MaxGuests }

// validateRentalStay checks the stay and guests of a rental search, availability or quote.
func validateRentalStay(p *problems, checkIn, checkOut string, guests int, today time.Time) rentalStay {
	nights, _ := p.stay(checkIn, checkOut, today)
	p.between("guests", guests, 1, maxGuests)
	return rentalStay{checkIn, checkOut, nights, guests}
}

// spaceOffer prices a space for a stay from its inventory rows (one per night, in
// order), or reports that it does not take the guests or is not free every night.
func spaceOffer(sp *catalog.Space, rows []DayStock, st rentalStay, c pricing.Contract) (int64, bool) {
	if !st.fits(sp) {
		return 0, false
	}
	return stayTotal(rows, st.nights, 1, c.Line)
}

// spacePick is a rental search's count and choice among each rental's spaces (city):
// the spaces that take the guests and are free every night, and the cheapest total of
// them for the stay (spaceOffer's rule over the spaces' runs). One value holds what a
// search keeps across the scan, so that handing city to the reader allocates little.
type spacePick struct {
	st        rentalStay
	con       pricing.Contract
	unchanged bool              // con.Unchanged(0): rentals have no markets
	found     []rentalCandidate // what city found so far
}

// city appends to p.found each rental of c with the number of its spaces that take the
// guests and are free every night of the stay, and the cheapest total among them; a
// rental with none is left out. The stay is days days from day from. One loop over the
// city's spaces (c.scan), each rental's count and total kept in place as it goes and
// its candidate ended at its last space: a net partner's 32-bit nets summed in place
// (stayTotalRun's common case), the rest priced by it.
func (p *spacePick) city(c *CityRentals, from, days int32) {
	if int(days) != p.st.nights {
		return // no space has a run of the nights asked (stayTotalRun's rule)
	}
	guests := int32(min(p.st.guests, math.MaxInt32))
	n := len(p.found)
	p.found = slices.Grow(p.found, len(c.Rentals)+1)[:n+len(c.Rentals)+1]
	out := &spaceOut{found: p.found, nf: n, rentals: c.Rentals}
	x := &p.found[n]
	x.spaces = 0
	spaces, net := c.scan, p.unchanged
	for k := range spaces {
		s := &spaces[k]
		lo := int(from - s.first)
		hi := lo + int(days)
		if free := s.free; s.maxGuests >= guests && lo >= 0 && hi <= len(free) {
			t, ok := int64(0), true
			if price := s.price; net && len(price) == len(free) {
				for d := lo; d < hi; d++ {
					if free[d] < 1 { // a day without inventory (−1) too
						ok = false
						break
					}
					t += int64(price[d])
				}
			} else {
				t, ok = p.priced(&c.Spaces[k].Days, int32(lo), days)
			}
			if ok {
				if x.spaces == 0 || t < x.total {
					x.total = t
				}
				x.spaces++
			}
		}
		if i := s.last; i >= 0 { // the rental's last space
			x = out.end(x, i)
		}
	}
	p.found = p.found[:out.nf]
}

// spaceOut is what spacePick.city has written so far, kept in memory: its space loop
// reads it only at a rental's last space.
type spaceOut struct {
	found   []rentalCandidate // one more than the rentals: the last is scratch
	nf      int
	rentals []*catalog.Rental
}

// end ends rental i, its count and total at x (found[nf]): a candidate unless none of
// its spaces was free; it returns the next rental's place, its count 0.
func (o *spaceOut) end(x *rentalCandidate, i int32) *rentalCandidate {
	if x.spaces > 0 {
		x.r = o.rentals[i]
		o.nf++
		x = &o.found[o.nf]
	}
	x.spaces = 0
	return x
}

// priced is stayTotalRun of days lo..lo+n−1 of days for one space.
//
//go:noinline
func (p *spacePick) priced(days *DayRun, lo, n int32) (int64, bool) {
	run := days.Span(lo, n)
	return stayTotalRun(&run, p.st.nights, 1, p.unchanged, p.con.Line)
}

// RentalScanner is implemented by Reads that keep each city's rentals and their spaces'
// days in flat arrays (the read model): a rental search then reads every space of the
// city in one loop, without a call per rental or per space.
type RentalScanner interface {
	// ScanRentals calls each once, under the reader's lock, with the rentals of city
	// (lower-case key) and their spaces' days, from the day from (days since 1970-01-01)
	// for days days (from..to, both included). ok false: the reader cannot answer this
	// way (its model is not built yet, or the city holds an item that is not a rental);
	// the caller scans the city with ScanCity or CityItems instead. each must not keep c
	// nor call the reader.
	ScanRentals(ctx context.Context, city string, from, to string, each func(c *CityRentals, from, days int32)) (ok bool, err error)
}

// CityRentals is a city's rentals, by id, and the spaces of each that have inventory,
// in the order of the rental's Spaces: the spaces of Rentals[i] are
// Spaces[End[i-1]:End[i]] (from 0 for the first). Read only.
type CityRentals struct {
	Rentals []*catalog.Rental
	End     []int32
	Spaces  []SpaceDays

	scan []spaceScan // Spaces as spacePick.city reads them, in the same order: set by Index
}

// Index derives from Rentals, End and Spaces what a search reads (the spaces in
// spacePick.city's narrower form); the reader calls it once the table is laid out.
func (c *CityRentals) Index() {
	c.scan = slices.Grow(c.scan[:0], len(c.Spaces))[:len(c.Spaces)]
	for k := range c.Spaces {
		sd := &c.Spaces[k]
		c.scan[k] = spaceScan{free: sd.Days.Free, price: sd.Days.Price, first: sd.First,
			maxGuests: int32(max(min(sd.MaxGuests, math.MaxInt32), math.MinInt32)), last: -1}
	}
	markLasts(c.End, func(k, i int32) { c.scan[k].last = i })
}

// spaceScan is the part of a SpaceDays that spacePick.city reads, 64 bytes instead of
// 88: the day slices are the same (the units' own), so it stays in step with Spaces.
type spaceScan struct {
	free, price []int32 // Days.Free, Days.Price (nil: wide prices)
	first       int32
	maxGuests   int32
	last        int32 // the rental's index in Rentals when this is its last space, else −1
}

// SpaceDays is one space of a rental and what it can still sell from day First on
// (days since 1970-01-01), one entry a day, as a DayRun (Free < 0: no inventory).
type SpaceDays struct {
	First     int32
	MaxGuests int // the space's (catalog.Space), read without it
	Days      DayRun
}

// spaceKinds are the unit kinds a rental search reads.
var spaceKinds = []tradewind.UnitKind{tradewind.UnitSpace}

// spaceRows loads the stay's nights of the spaces of the given rentals, by space.
func spaceRows(ctx context.Context, db Reads, rentalIDs []int64, st rentalStay) (map[int64][]DayStock, error) {
	return stayRows(ctx, db, tradewind.UnitSpace, rentalIDs, st.checkIn, st.checkOut)
}

// SearchRentals returns the rentals of a city with a space free every night of the stay
// that takes the guests, each at its cheapest such space for the whole stay, cheapest first.
func (s *Service) SearchRentals(ctx context.Context, c *Caller, req *RentalSearchRequest) (res *RentalSearchResult, meta PageMeta, err error) {
	defer wrap(&err, "search rentals")
	if err := c.RequireProduct(tradewind.ProductRental); err != nil {
		return nil, meta, err
	}
	var p problems
	dest := destination(&p, req.Destination, req.City)
	st := validateRentalStay(&p, req.CheckIn, req.CheckOut, intOr(req.Guests, defaultGuests), s.todayDate())
	pg := pageOf(&p, req.Page, req.PerPage)
	if err := p.err(); err != nil {
		return nil, meta, err
	}
	// Each rental's free spaces counted and its cheapest kept, as a small candidate; the
	// hits are built for the page only.
	pick := &spacePick{st: st, con: c.contract(), found: rentalCandidates.get()}
	pick.unchanged = pick.con.Unchanged(0)
	defer func() { rentalCandidates.put(pick.found) }()
	from, to := nightRange(st.checkIn, st.checkOut)
	flat := false
	if rs, ok := s.reads().(RentalScanner); ok {
		// The city's spaces in flat arrays: one loop over them, the same count and choice.
		flat, err = rs.ScanRentals(ctx, cityKey(dest), from, to, pick.city)
		if err != nil {
			return nil, meta, err
		}
	}
	if !flat {
		// Each rental as a city of one, its spaces as runs of the stay (First 0: the run's
		// first day is the stay's).
		days := int32(daysBetween(from, to))
		one := &CityRentals{Rentals: make([]*catalog.Rental, 1), End: make([]int32, 1)}
		err = scanCity(ctx, s.reads(), tradewind.ProductRental, dest, spaceKinds, from, to, func(r *catalog.Rental, stock ItemStock) {
			one.Spaces = one.Spaces[:0]
			for i := range r.Spaces {
				if sp := &r.Spaces[i]; st.fits(sp) {
					if run := stock.Run(tradewind.UnitSpace, sp.ID); len(run.Free) > 0 {
						one.Spaces = append(one.Spaces, SpaceDays{MaxGuests: sp.MaxGuests, Days: run})
					}
				}
			}
			one.Rentals[0], one.End[0] = r, int32(len(one.Spaces))
			one.Index()
			pick.city(one, 0, days)
		})
		if err != nil {
			return nil, meta, err
		}
	}
	// Ordered as cheapestPage would, with the currencies as ranked numbers (one string
	// comparison a rental, none a comparison of two): rankedFirst's order is cheapestFirst's.
	keys := hotelCandidates.get()
	defer func() { hotelCandidates.put(keys) }()
	var currencies []string
	for i := range pick.found {
		x := &pick.found[i]
		keys = append(keys, hotelCandidate{total: x.total, hotel: int32(i), cur: internCurrency(&currencies, x.r.Currency)})
	}
	ranked, meta := cheapestHotels(keys, currencyRanks(currencies, c.Partner.Currency), pg)
	page := make([]RentalHit, len(ranked))
	for i, k := range ranked {
		x := &pick.found[k.hotel]
		r := x.r
		page[i] = RentalHit{RentalID: r.ID, Name: r.Name, PropertyType: r.PropertyType, City: r.City,
			ImageURL: r.ImageURL, InstantBooking: r.InstantBooking, AvailableSpaces: x.spaces,
			FromPrice: money.Amount{Minor: x.total, Currency: r.Currency}, Currency: r.Currency}
	}
	return &RentalSearchResult{Destination: dest, CheckIn: st.checkIn, CheckOut: st.checkOut, Nights: st.nights,
		Guests: st.guests, PricingMode: c.Partner.PricingMode, Rentals: page,
		hint: s.emptySearchHint(ctx, tradewind.ProductRental, dest, meta.Total)}, meta, nil
}

// RentalRecord is the catalog record of a rental property as a partner sees it.
type RentalRecord struct {
	ID             int64         `json:"id"`
	Type           string        `json:"type"`
	Name           string        `json:"name"`
	PropertyType   string        `json:"property_type"`
	City           string        `json:"city"`
	CheckInTime    string        `json:"check_in_time"`
	CheckOutTime   string        `json:"check_out_time"`
	InstantBooking bool          `json:"instant_booking"`
	Currency       string        `json:"currency"`
	ImageURL       string        `json:"image_url"`
	Photos         []string      `json:"photos"`
	Spaces         []RentalSpace `json:"spaces"`
}

// RentalSpace is a space in a rental record.
type RentalSpace struct {
	ID        int64        `json:"id"`
	Name      string       `json:"name"`
	SpaceType string       `json:"space_type"`
	MaxGuests int          `json:"max_guests"`
	FromPrice money.Amount `json:"from_price"`
	Currency  string       `json:"currency"`
	Photos    []string     `json:"photos"`
}

// Rental returns the catalog record of a rental, prices in the caller's pricing mode.
func (s *Service) Rental(ctx context.Context, c *Caller, id int64) (*RentalRecord, error) {
	if err := c.RequireProduct(tradewind.ProductRental); err != nil {
		return nil, err
	}
	r, err := getItem[catalog.Rental](ctx, s.reads(), tradewind.ProductRental, id)
	if err != nil {
		return nil, mapNotFound(err, "Rental")
	}
	rec := &RentalRecord{ID: r.ID, Type: string(tradewind.ProductRental), Name: r.Name, PropertyType: r.PropertyType,
		City: r.City, CheckInTime: r.CheckInTime, CheckOutTime: r.CheckOutTime, InstantBooking: r.InstantBooking,
		Currency: r.Currency, ImageURL: r.ImageURL, Photos: orEmpty(r.Photos), Spaces: []RentalSpace{}}
	for _, sp := range r.Spaces {
		rec.Spaces = append(rec.Spaces, RentalSpace{ID: sp.ID, Name: sp.Name, SpaceType: sp.SpaceType, MaxGuests: sp.MaxGuests,
			FromPrice: money.Amount{Minor: c.contract().Line(sp.FromPrice), Currency: r.Currency}, Currency: sp.Currency,
			Photos: orEmpty(sp.Photos)})
	}
	return rec, nil
}

// RentalAvailabilityRequest is the body of POST /rentals/availability.
type RentalAvailabilityRequest struct {
	RentalID int64  `json:"rental_id"`
	CheckIn  string `json:"check_in"`
	CheckOut string `json:"check_out"`
	Guests   *int   `json:"guests"`
}

// SpaceOffer is one space free for a whole stay.
type SpaceOffer struct {
	SpaceID    int64        `json:"space_id"`
	Name       string       `json:"name"`
	SpaceType  string       `json:"space_type"`
	MaxGuests  int          `json:"max_guests"`
	Nights     int          `json:"nights"`
	TotalPrice money.Amount `json:"total_price"`
	Currency   string       `json:"currency"`
}

// RentalAvailability is the data of POST /rentals/availability.
type RentalAvailability struct {
	RentalID        int64                 `json:"rental_id"`
	CheckIn         string                `json:"check_in"`
	CheckOut        string                `json:"check_out"`
	Nights          int                   `json:"nights"`
	Guests          int                   `json:"guests"`
	InstantBooking  bool                  `json:"instant_booking"`
	AvailableSpaces []SpaceOffer          `json:"available_spaces"`
	PricingMode     tradewind.PricingMode `json:"pricing_mode"`
	hint                                  // when no space is listed because none takes the guests (Hinted)
}

// spaceOffers lists the spaces of r free for the stay and taking its guests, cheapest first.
func spaceOffers(r *catalog.Rental, bySpace map[int64][]DayStock, st rentalStay, c pricing.Contract) []SpaceOffer {
	offers := []SpaceOffer{}
	for i := range r.Spaces {
		sp := &r.Spaces[i]
		if total, ok := spaceOffer(sp, bySpace[sp.ID], st, c); ok {
			offers = append(offers, SpaceOffer{SpaceID: sp.ID, Name: sp.Name, SpaceType: sp.SpaceType, MaxGuests: sp.MaxGuests,
				Nights: st.nights, TotalPrice: money.Amount{Minor: total, Currency: r.Currency}, Currency: r.Currency})
		}
	}
	sort.SliceStable(offers, func(i, j int) bool { return offers[i].TotalPrice.Minor < offers[j].TotalPrice.Minor })
	return offers
}

// RentalAvailability lists the rental's spaces free every night of the stay that take
// the guests, cheapest first, each priced for the whole stay.
func (s *Service) RentalAvailability(ctx context.Context, c *Caller, req *RentalAvailabilityRequest) (res *RentalAvailability, err error) {
	defer wrap(&err, "rental availability")
	if err := c.RequireProduct(tradewind.ProductRental); err != nil {
		return nil, err
	}
	var p problems
	p.positiveID("rental_id", req.RentalID)
	st := validateRentalStay(&p, req.CheckIn, req.CheckOut, intOr(req.Guests, defaultGuests), s.todayDate())
	if err := p.err(); err != nil {
		return nil, err
	}
	r, err := getItem[catalog.Rental](ctx, s.reads(), tradewind.ProductRental, req.RentalID)
	if err != nil {
		return nil, mapNotFound(err, "Rental")
	}
	bySpace, err := spaceRows(ctx, s.reads(), []int64{r.ID}, st)
	if err != nil {
		return nil, err
	}
	offers := spaceOffers(r, bySpace, st, c.contract())
	return &RentalAvailability{RentalID: r.ID, CheckIn: st.checkIn, CheckOut: st.checkOut, Nights: st.nights,
		Guests: st.guests, InstantBooking: r.InstantBooking, AvailableSpaces: offers,
		PricingMode: c.Partner.PricingMode, hint: guestsHint(r, st, len(offers))}, nil
}

// rentalProduct quotes and books one space of a rental for a stay.
type rentalProduct struct{}

func (rentalProduct) fields() []string {
	return []string{"rental_id", "space_id", "check_in", "check_out", "guests", "adults", "children", "infants"}
}

func (rentalProduct) validate(q *QuoteRequest, today time.Time) problems {
	var p problems
	p.positiveID("rental_id", q.RentalID)
	p.positiveID("space_id", q.SpaceID)
	validateRentalStay(&p, q.CheckIn, q.CheckOut, p.requiredCount("guests", q.Guests, 1), today)
	p.party(p.requiredCount("adults", q.Adults, 1), q.Children, q.Infants)
	if q.Guests > 0 && q.Adults+q.Children > q.Guests {
		p.add("guests: %d is fewer than adults + children (%d)", q.Guests, q.Adults+q.Children)
	}
	return p
}

// stayReads implements unitStay: the rental and its space's nights, as price reads them.
func (rentalProduct) stayReads(q *QuoteRequest) (tradewind.ProductType, int64, store.InventoryQuery) {
	return tradewind.ProductRental, q.RentalID, unitStayQuery(tradewind.UnitSpace, q.RentalID, q.SpaceID, q.CheckIn, q.CheckOut)
}

func (rentalProduct) price(ctx context.Context, db Reads, c *Caller, q *QuoteRequest) (*pricedQuote, error) {
	r, err := getItem[catalog.Rental](ctx, db, tradewind.ProductRental, q.RentalID)
	if err != nil {
		return nil, quoteNotFound(err, "rental %d does not exist", q.RentalID)
	}
	sp := unitByID(r.Spaces, q.SpaceID, func(sp *catalog.Space) int64 { return sp.ID })
	if sp == nil {
		return nil, invalidQuote(tradewind.ReasonUnknownOption, "Space %d is not a space of rental %d.", q.SpaceID, q.RentalID)
	}
	st := rentalStay{q.CheckIn, q.CheckOut, nightsOf(q.CheckIn, q.CheckOut), q.Guests}
	if !st.fits(sp) {
		return nil, invalidQuote(tradewind.ReasonPartyTooLarge, "%s takes at most %d guests, not %d.", sp.Name, sp.MaxGuests, q.Guests)
	}
	rows, err := unitStayRows(ctx, db, tradewind.UnitSpace, r.ID, sp.ID, st.checkIn, st.checkOut)
	if err != nil {
		return nil, err
	}
	total, ok := spaceOffer(sp, rows, st, c.contract())
	if !ok {
		return nil, invalidQuote(tradewind.ReasonSoldOut, "%s at %s is not free every night from %s to %s.", sp.Name, r.Name, st.checkIn, st.checkOut)
	}
	from, to := nightRange(st.checkIn, st.checkOut)
	return &pricedQuote{Total: total, Currency: r.Currency, Instant: r.InstantBooking, Policy: policySeePolicy, ItemID: r.ID,
		Claim:     store.Claim{Kind: tradewind.UnitSpace, ItemID: r.ID, UnitID: sp.ID, From: from, To: to, Quantity: 1},
		StartDate: st.checkIn, EndDate: st.checkOut, OpenStatus: tradewind.StatusPending,
		Details: map[string]any{"rental_property_id": r.ID, "space_id": sp.ID, "check_in": st.checkIn,
			"check_out": st.checkOut, "nights": st.nights, "guests": st.guests}}, nil
}

// rentalCandidate is an item a search found, kept small until the page is chosen.
type rentalCandidate struct {
	r      *catalog.Rental
	spaces int
	total  int64
}

var rentalCandidates scratch[rentalCandidate]
