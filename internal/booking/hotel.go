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

// HotelSearchRequest is the body of POST /hotels/search.
type HotelSearchRequest struct {
	Destination     string `json:"destination"`
	City            string `json:"city"` // alias of destination
	CheckIn         string `json:"check_in"`
	CheckOut        string `json:"check_out"`
	Adults          *int   `json:"adults"`
	Children        int    `json:"children"`
	Rooms           *int   `json:"rooms"`
	ChildAges       []int  `json:"child_ages"`
	NationalityCode string `json:"nationality_code"`
	Page            *int   `json:"page"`
	PerPage         *int   `json:"per_page"`
}

// HotelHit is one hotel search result.
type HotelHit struct {
	HotelID             int64        `json:"hotel_id"`
	Name                string       `json:"name"`
	City                string       `json:"city"`
	Country             string       `json:"country"`
	StarRating          int          `json:"star_rating"`
	ImageURL            string       `json:"image_url"`
	BoardType           string       `json:"board_type"`
	Refundable          bool         `json:"refundable"`
	InstantConfirmation bool         `json:"instant_confirmation"`
	FromPrice           money.Amount `json:"from_price"`
	Currency            string       `json:"currency"`

	head []byte // appendHitHead of the fields above, from the city's table (nil: appended from them)
}

// HotelSearchResult is the data of a hotel search.
type HotelSearchResult struct {
	Destination string                `json:"destination"`
	CheckIn     string                `json:"check_in"`
	CheckOut    string                `json:"check_out"`
	Nights      int                   `json:"nights"`
	PricingMode tradewind.PricingMode `json:"pricing_mode"`
	Hotels      []HotelHit            `json:"hotels"`
	hint                              // when empty, a city without hotels (Hinted)
}

// hotelStay is a validated hotel stay request.
type hotelStay struct {
	checkIn, checkOut       string
	nights                  int
	adults, children, rooms int
	nationality             string
}

func (st hotelStay) claimRange() (string, string) { return nightRange(st.checkIn, st.checkOut) }

// fits reports whether the party fits st.rooms rooms of type r.
func (st *hotelStay) fits(r *catalog.Room) bool { return st.fitsRoom(r.MaxAdults, r.MaxChildren) }

// fitsRoom reports whether the party fits st.rooms rooms of maxAdults adults and
// maxChildren children each.
func (st *hotelStay) fitsRoom(maxAdults, maxChildren int) bool {
	return st.adults <= st.rooms*maxAdults && st.children <= st.rooms*maxChildren
}

// stayRequest is the stay and party a hotel search, availability or quote asks for,
// defaults applied.
type stayRequest struct {
	checkIn, checkOut       string
	adults, children, rooms int
	adultsMissing           bool // a quote's, already told: its range and rooms not checked
	childAges               []int
	nationality             string
}

// validateStay checks the stay and party of a hotel search, availability or quote.
func validateStay(p *problems, r stayRequest, today time.Time) hotelStay {
	nights, _ := p.stay(r.checkIn, r.checkOut, today)
	p.hotelParty(r)
	return hotelStay{r.checkIn, r.checkOut, nights, r.adults, r.children, r.rooms, r.nationality}
}

// hotelParty checks the party, rooms and market of a hotel request (r's dates aside).
func (p *problems) hotelParty(r stayRequest) {
	if !r.adultsMissing {
		p.between("adults", r.adults, 1, maxAdults)
	}
	p.between("children", r.children, 0, maxChildren)
	p.between("rooms", r.rooms, 1, maxRooms)
	if !r.adultsMissing && r.rooms >= 1 && r.adults >= 1 && r.adults < r.rooms {
		p.add("rooms: every room holds at least one adult (%s for %s)", countOf(r.adults, "adult", "adults"), countOf(r.rooms, "room", "rooms"))
	}
	p.childAges(r.children, r.childAges)
	p.nationality(r.nationality)
}

// roomOffer prices a room type for a stay from its inventory rows (one per night,
// ordered), or reports that it does not fit the party or is not available.
func roomOffer(h *catalog.Hotel, r *catalog.Room, rows []DayStock, st hotelStay, c pricing.Contract) (int64, bool) {
	if !st.fits(r) {
		return 0, false
	}
	market := int64(h.Markets[st.nationality])
	total, ok := stayTotal(rows, st.nights, st.rooms, func(net int64) int64 { return c.MarketLine(net, market) })
	return total * int64(st.rooms), ok
}

// roomPick is a hotel search's choice among each hotel's rooms (city): the cheapest
// for the stay (roomOffer's rule over the rooms' runs), the first among equal totals.
type roomPick struct {
	st     *hotelStay
	con    pricing.Contract
	market int64                 // the current hotel's, for line
	line   func(net int64) int64 // con.MarketLine at market
}

func newRoomPick(st *hotelStay, con pricing.Contract) *roomPick {
	p := &roomPick{st: st, con: con}
	p.line = func(net int64) int64 { return p.con.MarketLine(net, p.market) }
	return p
}

// city appends to found each hotel of c with its room (index in its Rooms) of the
// cheapest total for the stay, the first of equal totals; a hotel none of whose rooms
// fits the party and is free every night is left out. The stay is days days from day
// from; markets holds each hotel's market for the stay's nationality (nil: none has
// one). A candidate names its hotel as base + its index in c, and its currency by c's
// number for it (CityHotels.Index).
func (p *roomPick) city(c *CityHotels, markets []int64, base int32, from, days int32, found []hotelCandidate) []hotelCandidate {
	if int(days) != p.st.nights {
		return found // no room has a run of the nights asked (stayTotalRun's rule)
	}
	n := len(found)
	found = slices.Grow(found, len(c.Hotels)+1)
	found = found[:n+netPick(c, from, days, base, p.st, found[n:n+len(c.Hotels)+1])]
	// The net sums are the totals for a net partner and a hotel without market; the
	// others' rooms are priced by stayTotalRun (the same rooms are free: only the price
	// and so the choice may differ).
	net := p.con.Unchanged(0)
	if net && markets == nil && !c.wide {
		return found
	}
	for k := n; k < len(found); k++ {
		x := &found[k]
		i := x.hotel - base
		market := int64(0)
		if markets != nil {
			market = markets[i]
		}
		if !net || market != 0 || x.total < 0 { // pickWide or a wide room's wideNet sum
			p.repick(c, i, from, days, market, x)
		}
	}
	return found
}

// netPick writes to found, in order, each hotel of c that has a room fitting st's
// party with st.rooms units free every night of the stay (days days from day from):
// the room of the least sum of nets (the first of equal sums) and that sum, the hotel
// named base + its index; pickWide for the sum when a free room has wide prices (its
// room and total to be chosen again). It returns how many it wrote; found has room for
// one more than c's hotels. One loop over the city's rooms without calls, each
// hotel's choice written in place as it goes and its candidate ended at its last room
// (roomScan.last): the loop's few live values stay in registers. The rooms' days are
// read day-major (netPickDays) or each room's own (netPickRuns), as c laid them out.
func netPick(c *CityHotels, from, days, base int32, st *hotelStay, found []hotelCandidate) int {
	if c.byDay {
		return netPickDays(c, from, days, base, st, found)
	}
	return netPickRuns(c, from, days, base, st, found)
}

// roomNeed is a party's need of each of st.rooms rooms in roomScan.fit's form: the
// party fits n rooms of a type iff each holds ⌈adults/n⌉ adults and ⌈children/n⌉
// children (hotelStay.fitsRoom).
func roomNeed(st *hotelStay) uint32 {
	return uint32((st.adults+st.rooms-1)/st.rooms)<<16 | uint32((st.children+st.rooms-1)/st.rooms)
}

// netPickDays is netPick over c's day-major days: the stay's nights are days rows of
// the table, read side by side (room k's night j at row j, column k), so a search
// reads a few contiguous arrays whatever the days the catalog holds. A day outside a
// room's run reads as no unit free, so a room whose run does not hold every night is
// not free (the runs' rule). A stay of no days finds nothing. A free room with wide
// prices sums wideNet a night (below any sum of 32-bit nets but an equal one, and
// below 0): it is chosen as pickWide would be, the same room, and its negative total
// has the hotel priced again (city repicks every negative total, which also covers
// negative nets: repick then chooses what netPick would have).
func netPickDays(c *CityHotels, from, days, base int32, st *hotelStay, found []hotelCandidate) int {
	need := roomNeed(st)
	q := uint8(min(st.rooms, 255)) // ≤ maxRooms: satFree's bound
	rooms := c.scan
	if len(found) <= len(c.currency) {
		return 0
	}
	n := len(rooms)
	lo := int(from) - int(c.days.first)
	hi := lo + int(days)
	if lo < 0 || hi > int(c.days.count) || lo >= hi {
		return 0 // no room's run holds the nights
	}
	free := c.days.free[lo*n : hi*n]
	price := c.days.price[lo*n : hi*n]
	price = price[:len(free)]
	// The current hotel's choice is written in place, at found[nf]: a room's sum, or
	// pickNone (not free or does not fit: never chosen).
	out := &pickOut{found: found, curs: c.currency, base: base}
	x := &found[0]
	x.total = pickNone
	for k := range rooms {
		r := &rooms[k]
		t := int64(pickNone)
		if (r.fit-need)&fitGuards == fitGuards {
			t = 0
			for d := k; d < len(free); d += n {
				if free[d] < q { // q ≥ 1: a day without inventory (0) too
					t = pickNone
					break
				}
				t += int64(price[d])
			}
		}
		if t < x.total {
			x.total, x.room = t, r.index
		}
		if h := r.last; h >= 0 { // the hotel's last room
			x = out.end(x, h)
		}
	}
	return out.nf
}

// netPickRuns is netPick over each room's own days (c.runs).
func netPickRuns(c *CityHotels, from, days, base int32, st *hotelStay, found []hotelCandidate) int {
	need := roomNeed(st)
	q := int32(st.rooms)
	rooms, runs := c.scan, c.runs
	if len(found) <= len(c.currency) {
		return 0
	}
	runs = runs[:len(rooms)]
	out := &pickOut{found: found, curs: c.currency, base: base}
	x := &found[0]
	x.total = pickNone
	f, n := int(from), int(days) // as ints: no widening per room
	for k := range rooms {
		r, u := &rooms[k], &runs[k]
		lo := f - int(u.first)
		hi := lo + n
		free, t := u.free, int64(pickNone)
		if (r.fit-need)&fitGuards == fitGuards && lo >= 0 && hi <= len(free) {
			if price := u.price; len(price) == len(free) {
				t = 0
				for d := lo; d < hi; d++ {
					if free[d] < q { // q ≥ 1: a day without inventory (−1) too
						t = pickNone
						break
					}
					t += int64(price[d])
				}
			} else { // wide prices (Price is nil)
				t = pickWide
				for d := lo; d < hi; d++ {
					if free[d] < q {
						t = pickNone
						break
					}
				}
			}
		}
		if t < x.total {
			x.total, x.room = t, r.index
		}
		if h := r.last; h >= 0 { // the hotel's last room
			x = out.end(x, h)
		}
	}
	return out.nf
}

// pickOut is what netPick has written so far. netPick keeps it in memory, not in
// registers: its room loop reads it only at a hotel's last room.
type pickOut struct {
	found []hotelCandidate // one more than the hotels: the last is scratch
	nf    int
	curs  []int32
	base  int32
}

// end ends hotel h, its choice at x (found[nf]): a candidate unless none of its rooms
// was free; it returns the next hotel's place, its total pickNone.
func (o *pickOut) end(x *hotelCandidate, h int32) *hotelCandidate {
	if x.total != pickNone {
		x.hotel, x.cur = o.base+h, o.curs[h]
		o.nf++
		x = &o.found[o.nf]
	}
	x.total = pickNone
	return x
}

// netPick's marks for a room without a sum. A sum of 32-bit nets over a stay's nights
// is far from either.
const (
	pickNone = math.MaxInt64
	pickWide = math.MinInt64
	wideNet  = math.MinInt32 // a night of a room with wide prices in a dayMajor
)

// repick chooses x's room among hotel i's again, each priced by stayTotalRun at the
// hotel's market (the rooms free for the stay are those netPick found): its total for
// one room.
func (p *roomPick) repick(c *CityHotels, i int32, from, days int32, market int64, x *hotelCandidate) {
	start := int32(0)
	if i > 0 {
		start = c.End[i-1]
	}
	unchanged := p.con.Unchanged(market)
	best, total := int32(-1), int64(0)
	for k := start; k < c.End[i]; k++ {
		rd := &c.Rooms[k]
		if !p.st.fitsRoom(rd.MaxAdults, rd.MaxChildren) {
			continue
		}
		if t, ok := p.priced(rd, from, days, market, unchanged); ok && (best < 0 || t < total) {
			best, total = rd.Index, t
		}
	}
	x.room, x.total = best, total
}

// priced is the total for the stay of room rd (stayTotalRun over its days from day
// from), at the hotel's market.
//
//go:noinline
func (p *roomPick) priced(rd *RoomDays, from, n int32, market int64, unchanged bool) (int64, bool) {
	p.market = market
	run := rd.Days.Span(from-rd.First, n)
	t, ok := stayTotalRun(&run, p.st.nights, p.st.rooms, unchanged, p.line)
	return t, ok
}

// roomKinds are the unit kinds a hotel search reads.
var roomKinds = []tradewind.UnitKind{tradewind.UnitRoom}

// hotelRows loads the stay's inventory of the given hotels, grouped by room.
func hotelRows(ctx context.Context, db Reads, hotelIDs []int64, st hotelStay) (map[int64][]DayStock, error) {
	return stayRows(ctx, db, tradewind.UnitRoom, hotelIDs, st.checkIn, st.checkOut)
}

// SearchHotels returns the hotels of a city with a room available for the stay and
// party, each at its cheapest price for the whole stay, cheapest first.
func (s *Service) SearchHotels(ctx context.Context, c *Caller, req *HotelSearchRequest) (res *HotelSearchResult, meta PageMeta, err error) {
	defer wrap(&err, "search hotels")
	if err := c.RequireProduct(tradewind.ProductHotel); err != nil {
		return nil, meta, err
	}
	var p problems
	dest := destination(&p, req.Destination, req.City)
	st := validateStay(&p, stayRequest{checkIn: req.CheckIn, checkOut: req.CheckOut, adults: intOr(req.Adults, defaultAdults),
		children: req.Children, rooms: intOr(req.Rooms, defaultRooms), childAges: req.ChildAges, nationality: req.NationalityCode},
		s.todayDate())
	pg := pageOf(&p, req.Page, req.PerPage)
	if err := p.err(); err != nil {
		return nil, meta, err
	}
	// Each hotel at its cheapest room, kept as a small candidate; the hits are built for
	// the page only.
	con := c.contract()
	from, to := st.claimRange()
	found := hotelCandidates.get()
	defer func() { hotelCandidates.put(found) }()
	pick := newRoomPick(&st, con)
	flat := false
	var hotels []*catalog.Hotel // what the candidates' hotel numbers name
	var currencies []string     // and their cur numbers
	var table *CityHotels       // the flat table, for its hits' JSON heads (read only, kept after the lock)
	if hs, ok := s.reads().(HotelScanner); ok {
		// The city's rooms in flat arrays: one loop over them, the same choice per hotel.
		flat, err = hs.ScanHotels(ctx, cityKey(dest), from, to, func(city *CityHotels, from, days int32) {
			found = pick.city(city, city.markets[st.nationality], 0, from, days, found)
			hotels, currencies, table = city.Hotels, city.currencies, city
		})
		if err != nil {
			return nil, meta, err
		}
	}
	if !flat {
		// Each hotel as a city of one, its rooms as runs of the stay (First 0: the run's
		// first day is the stay's).
		days := int32(daysBetween(from, to))
		one := &CityHotels{Hotels: make([]*catalog.Hotel, 1), End: make([]int32, 1), currency: make([]int32, 1)}
		market := make([]int64, 1)
		err = scanCity(ctx, s.reads(), tradewind.ProductHotel, dest, roomKinds, from, to, func(h *catalog.Hotel, stock ItemStock) {
			one.Rooms = one.Rooms[:0]
			for i := range h.Rooms {
				if r := &h.Rooms[i]; st.fits(r) {
					if run := stock.Run(tradewind.UnitRoom, r.ID); len(run.Free) > 0 {
						one.Rooms = append(one.Rooms, RoomDays{Index: int32(i), MaxAdults: r.MaxAdults, MaxChildren: r.MaxChildren, Days: run})
					}
				}
			}
			one.Hotels[0], one.End[0] = h, int32(len(one.Rooms))
			one.layoutScan(false) // the runs are the stay's, built for this search
			one.currency[0] = internCurrency(&currencies, h.Currency)
			market[0] = int64(h.Markets[st.nationality])
			found = pick.city(one, market, int32(len(hotels)), 0, days, found)
			hotels = append(hotels, h)
		})
		if err != nil {
			return nil, meta, err
		}
	}
	cands, meta := cheapestHotels(found, currencyRanks(currencies, c.Partner.Currency), pg)
	page := make([]HotelHit, len(cands))
	for i, x := range cands {
		h := hotels[x.hotel]
		r := &h.Rooms[x.room]
		page[i] = HotelHit{HotelID: h.ID, Name: h.Name, City: h.City, Country: h.Country, StarRating: h.StarRating,
			ImageURL: h.ImageURL, BoardType: r.BoardType, Refundable: r.Refundable,
			InstantConfirmation: h.InstantConfirmation, FromPrice: money.Amount{Minor: x.total * int64(st.rooms), Currency: h.Currency},
			Currency: h.Currency}
		if table != nil {
			page[i].head = table.hitHead(x.hotel)
		}
	}
	return &HotelSearchResult{Destination: dest, CheckIn: st.checkIn, CheckOut: st.checkOut, Nights: st.nights,
		PricingMode: c.Partner.PricingMode, Hotels: page, hint: s.emptyHotelSearchHint(ctx, dest, &st, meta.Total)}, meta, nil
}

// HotelRecord is the catalog record of a hotel as a partner sees it.
type HotelRecord struct {
	ID                  int64          `json:"id"`
	Type                string         `json:"type"`
	Name                string         `json:"name"`
	Description         string         `json:"description"`
	PropertyType        string         `json:"property_type"`
	StarRating          int            `json:"star_rating"`
	City                string         `json:"city"`
	Country             string         `json:"country"`
	Address             string         `json:"address"`
	BoardType           string         `json:"board_type"`
	Facilities          []string       `json:"facilities"`
	Amenities           map[string]any `json:"amenities"`
	MealPlans           []string       `json:"meal_plans"`
	GuestRating         float64        `json:"guest_rating"`
	ReviewsCount        int            `json:"reviews_count"`
	AverageRating       float64        `json:"average_rating"`
	InstantConfirmation bool           `json:"instant_confirmation"`
	Currency            string         `json:"currency"`
	ImageURL            string         `json:"image_url"`
	Photos              []string       `json:"photos"`
	FromPrice           money.Amount   `json:"from_price"`
	Rooms               []HotelRoom    `json:"rooms"`
}

// HotelRoom is a room type in a hotel record.
type HotelRoom struct {
	ID            int64        `json:"id"`
	Name          string       `json:"name"`
	BoardType     string       `json:"board_type"`
	MaxAdults     int          `json:"max_adults"`
	MaxChildren   int          `json:"max_children"`
	Refundable    bool         `json:"refundable"`
	PricePerNight money.Amount `json:"price_per_night"`
	Currency      string       `json:"currency"`
}

// Hotel returns the catalog record of a hotel, prices in the caller's pricing mode.
func (s *Service) Hotel(ctx context.Context, c *Caller, id int64) (*HotelRecord, error) {
	if err := c.RequireProduct(tradewind.ProductHotel); err != nil {
		return nil, err
	}
	h, err := getItem[catalog.Hotel](ctx, s.reads(), tradewind.ProductHotel, id)
	if err != nil {
		return nil, mapNotFound(err, "Hotel")
	}
	con := c.contract()
	rec := &HotelRecord{ID: h.ID, Type: "hotel", Name: h.Name, Description: h.Description, PropertyType: h.PropertyType,
		StarRating: h.StarRating, City: h.City, Country: h.Country, Address: h.Address, BoardType: h.BoardType,
		Facilities: orEmpty(h.Facilities), Amenities: h.Amenities, MealPlans: orEmpty(h.MealPlans), GuestRating: h.GuestRating,
		ReviewsCount: h.ReviewsCount, AverageRating: h.AverageRating, InstantConfirmation: h.InstantConfirmation,
		Currency: h.Currency, ImageURL: h.ImageURL, Photos: orEmpty(h.Photos), Rooms: []HotelRoom{}}
	if rec.Amenities == nil {
		rec.Amenities = map[string]any{}
	}
	for i, r := range h.Rooms {
		price := con.Line(r.PricePerNight)
		if i == 0 || price < rec.FromPrice.Minor {
			rec.FromPrice = money.Amount{Minor: price, Currency: h.Currency}
		}
		rec.Rooms = append(rec.Rooms, HotelRoom{ID: r.ID, Name: r.Name, BoardType: r.BoardType, MaxAdults: r.MaxAdults,
			MaxChildren: r.MaxChildren, Refundable: r.Refundable, PricePerNight: money.Amount{Minor: price, Currency: h.Currency},
			Currency: r.Currency})
	}
	rec.FromPrice.Currency = h.Currency
	return rec, nil
}

// HotelAvailabilityRequest is the body of POST /hotels/availability.
type HotelAvailabilityRequest struct {
	HotelID         int64  `json:"hotel_id"`
	CheckIn         string `json:"check_in"`
	CheckOut        string `json:"check_out"`
	Adults          *int   `json:"adults"`
	Children        int    `json:"children"`
	Rooms           *int   `json:"rooms"`
	ChildAges       []int  `json:"child_ages"`
	NationalityCode string `json:"nationality_code"`
}

// RoomOffer is one available room type for a stay.
type RoomOffer struct {
	RoomID     int64        `json:"room_id"`
	Name       string       `json:"name"`
	BoardType  string       `json:"board_type"`
	Refundable bool         `json:"refundable"`
	Nights     int          `json:"nights"`
	Rooms      int          `json:"rooms"`
	TotalPrice money.Amount `json:"total_price"`
	Currency   string       `json:"currency"`
}

// HotelAvailability is the data of POST /hotels/availability.
type HotelAvailability struct {
	HotelID        int64                 `json:"hotel_id"`
	CheckIn        string                `json:"check_in"`
	CheckOut       string                `json:"check_out"`
	Nights         int                   `json:"nights"`
	AvailableRooms []RoomOffer           `json:"available_rooms"`
	PricingMode    tradewind.PricingMode `json:"pricing_mode"`
	hint                                 // when no room is listed because none takes the party (Hinted)
}

// HotelAvailability lists the hotel's room types available for the stay and party,
// cheapest first, each priced for the whole stay.
func (s *Service) HotelAvailability(ctx context.Context, c *Caller, req *HotelAvailabilityRequest) (res *HotelAvailability, err error) {
	defer wrap(&err, "hotel availability")
	if err := c.RequireProduct(tradewind.ProductHotel); err != nil {
		return nil, err
	}
	var p problems
	p.positiveID("hotel_id", req.HotelID)
	st := validateStay(&p, stayRequest{checkIn: req.CheckIn, checkOut: req.CheckOut, adults: intOr(req.Adults, defaultAdults),
		children: req.Children, rooms: intOr(req.Rooms, defaultRooms), childAges: req.ChildAges, nationality: req.NationalityCode},
		s.todayDate())
	if err := p.err(); err != nil {
		return nil, err
	}
	h, err := getItem[catalog.Hotel](ctx, s.reads(), tradewind.ProductHotel, req.HotelID)
	if err != nil {
		return nil, mapNotFound(err, "Hotel")
	}
	byRoom, err := hotelRows(ctx, s.reads(), []int64{h.ID}, st)
	if err != nil {
		return nil, err
	}
	offers := []RoomOffer{}
	for i := range h.Rooms {
		r := &h.Rooms[i]
		if total, ok := roomOffer(h, r, byRoom[r.ID], st, c.contract()); ok {
			offers = append(offers, RoomOffer{RoomID: r.ID, Name: r.Name, BoardType: r.BoardType, Refundable: r.Refundable,
				Nights: st.nights, Rooms: st.rooms, TotalPrice: money.Amount{Minor: total, Currency: h.Currency}, Currency: h.Currency})
		}
	}
	sort.SliceStable(offers, func(i, j int) bool { return offers[i].TotalPrice.Minor < offers[j].TotalPrice.Minor })
	return &HotelAvailability{HotelID: h.ID, CheckIn: st.checkIn, CheckOut: st.checkOut, Nights: st.nights,
		AvailableRooms: offers, PricingMode: c.Partner.PricingMode, hint: partyHint(h, &st, len(offers))}, nil
}

// hotelProduct quotes and books hotel rooms.
type hotelProduct struct{}

func (hotelProduct) fields() []string {
	return []string{"hotel_id", "room_id", "check_in", "check_out", "rooms", "adults", "children", "infants", "child_ages",
		"nationality_code"}
}

func (hotelProduct) validate(q *QuoteRequest, today time.Time) problems {
	var p problems
	p.positiveID("hotel_id", q.HotelID)
	p.positiveID("room_id", q.RoomID)
	rooms := p.requiredCount("rooms", q.Rooms, 1)
	p.requiredCount("adults", q.Adults, 0)
	validateStay(&p, stayRequest{checkIn: q.CheckIn, checkOut: q.CheckOut, adults: q.Adults, adultsMissing: q.Adults == 0,
		children: q.Children, rooms: rooms,
		childAges: q.ChildAges, nationality: q.NationalityCode}, today)
	p.between("infants", q.Infants, 0, maxInfants)
	return p
}

// stayReads implements unitStay: the hotel and its room's nights, as price reads them.
func (hotelProduct) stayReads(q *QuoteRequest) (tradewind.ProductType, int64, store.InventoryQuery) {
	return tradewind.ProductHotel, q.HotelID, unitStayQuery(tradewind.UnitRoom, q.HotelID, q.RoomID, q.CheckIn, q.CheckOut)
}

func (hotelProduct) price(ctx context.Context, db Reads, c *Caller, q *QuoteRequest) (*pricedQuote, error) {
	h, err := getItem[catalog.Hotel](ctx, db, tradewind.ProductHotel, q.HotelID)
	if err != nil {
		return nil, quoteNotFound(err, "hotel %d does not exist", q.HotelID)
	}
	room := unitByID(h.Rooms, q.RoomID, func(r *catalog.Room) int64 { return r.ID })
	if room == nil {
		return nil, invalidQuote(tradewind.ReasonUnknownOption, "Room %d is not a room of hotel %d.", q.RoomID, q.HotelID)
	}
	st := hotelStay{q.CheckIn, q.CheckOut, 0, q.Adults, q.Children, q.Rooms, q.NationalityCode}
	st.nights = nightsOf(q.CheckIn, q.CheckOut)
	if !st.fits(room) {
		return nil, invalidQuote(tradewind.ReasonPartyTooLarge, "The party of %s and %s does not fit %d × %s (at most %s and %s each).",
			countOf(st.adults, "adult", "adults"), countOf(st.children, "child", "children"), st.rooms, room.Name,
			countOf(room.MaxAdults, "adult", "adults"), countOf(room.MaxChildren, "child", "children"))
	}
	rows, err := unitStayRows(ctx, db, tradewind.UnitRoom, h.ID, room.ID, st.checkIn, st.checkOut)
	if err != nil {
		return nil, err
	}
	total, ok := roomOffer(h, room, rows, st, c.contract())
	if !ok {
		return nil, invalidQuote(tradewind.ReasonSoldOut, "%s at %s is not available for %d room(s) from %s to %s.", room.Name, h.Name, st.rooms, st.checkIn, st.checkOut)
	}
	from, to := st.claimRange()
	policy := policyNonRefundable
	if room.Refundable {
		policy = policyRefundable
	}
	return &pricedQuote{Total: total, Currency: h.Currency, Instant: h.InstantConfirmation, Policy: policy, ItemID: h.ID,
		Claim:     store.Claim{Kind: tradewind.UnitRoom, ItemID: h.ID, UnitID: room.ID, From: from, To: to, Quantity: st.rooms},
		StartDate: st.checkIn, EndDate: st.checkOut, OpenStatus: tradewind.StatusOnRequest,
		Details: map[string]any{"hotel_id": h.ID, "room_id": room.ID, "check_in": st.checkIn, "check_out": st.checkOut,
			"nights": st.nights, "rooms": st.rooms, "adults": st.adults, "children": st.children,
			"guests": st.adults + st.children + q.Infants}}, nil
}

// hotelCandidate is an item a search found, kept small until the page is chosen.
type hotelCandidate struct {
	total int64 // for the stay and one room: the order of the totals for the rooms asked
	hotel int32 // index in the search's hotels
	room  int32 // index in the hotel's Rooms
	cur   int32 // the hotel's currency, by the search's number for it
}

var hotelCandidates = scratch[hotelCandidate]{plain: true} // no pointer: a pooled list is not cleared

// cheapestHotels is cheapestPage over hotel candidates, their currencies ranked by
// currencyRanks: the same order (cheapestFirst's), compared as small numbers.
func cheapestHotels(found []hotelCandidate, rank []int32, pg Page) ([]hotelCandidate, PageMeta) {
	from, to := pg.window(len(found))
	keys := rankedFirst(found, rank, to)
	page := make([]hotelCandidate, 0, to-from)
	for _, k := range keys[from:to] {
		page = append(page, found[k.i])
	}
	return page, pg.meta(len(found))
}

// rankedKey is what rankedFirst orders a candidate by.
type rankedKey struct {
	rank  int32 // of its currency
	i     int32
	minor int64
}

// cheaper is before between keys of the same rank.
func (a *rankedKey) cheaper(b *rankedKey) bool {
	return a.minor < b.minor || a.minor == b.minor && a.i < b.i
}

func (a *rankedKey) before(b *rankedKey) bool {
	return a.rank < b.rank || a.rank == b.rank && a.cheaper(b)
}

// rankedFirst is cheapestFirst over hotel candidates whose currencies are ranked (rank
// is currencyRanks' for the numbers the candidates hold): the n first by rank, price and
// index, in order.
func rankedFirst(found []hotelCandidate, rank []int32, n int) []rankedKey {
	n = max(0, min(n, len(found)))
	if n*4 >= len(found) {
		keys := make([]rankedKey, len(found))
		for i := range found {
			x := &found[i]
			keys[i] = rankedKey{rank[x.cur], int32(i), x.total}
		}
		slices.SortFunc(keys, func(a, b rankedKey) int {
			if a.before(&b) {
				return -1
			}
			return 1 // no two keys are equal (their indexes differ)
		})
		return keys[:n]
	}
	keys := make([]rankedKey, 0, n+1)
	if n == 0 {
		return keys
	}
	if len(rank) == 1 {
		return cheapestOfOne(found, rank[0], keys, n)
	}
	// The page's last key once it is full: a candidate that does not come before it
	// (most of a big city) is left at that. A later candidate of the same rank and
	// price comes after every key so far (its index is higher).
	lastRank, lastMinor := int32(math.MaxInt32), int64(math.MaxInt64)
	for i := range found {
		x := &found[i]
		r := rank[x.cur]
		if r > lastRank || r == lastRank && x.total >= lastMinor {
			continue
		}
		lo, hi := 0, len(keys) // the first key k comes before
		for lo < hi {
			if m := int(uint(lo+hi) >> 1); r < keys[m].rank || r == keys[m].rank && x.total < keys[m].minor {
				hi = m
			} else {
				lo = m + 1
			}
		}
		keys = keys[:len(keys)+1] // within its capacity, n+1
		copy(keys[lo+1:], keys[lo:])
		keys[lo] = rankedKey{r, int32(i), x.total}
		if len(keys) >= n {
			keys = keys[:n]
			lastRank, lastMinor = keys[n-1].rank, keys[n-1].minor
		}
	}
	return keys
}

// cheapestOfOne is rankedFirst's bounded path for a city of one currency (most): the
// price orders, then the index. The n cheapest so far are kept as a heap whose first
// key is the dearest: a candidate not cheaper than it (most of a big city; a later
// one of the same price comes after it) costs one comparison, one that is cheaper
// replaces it in about log2(n) steps (a page's inserts into a sorted list moved half
// the page each). The page is sorted at the end.
func cheapestOfOne(found []hotelCandidate, rank int32, keys []rankedKey, n int) []rankedKey {
	i := 0
	for ; i < len(found) && len(keys) < n; i++ { // fill the heap
		keys = append(keys, rankedKey{rank, int32(i), found[i].total})
		for j := len(keys) - 1; j > 0; { // up while dearer than its parent
			up := (j - 1) / 2
			if !keys[up].cheaper(&keys[j]) {
				break
			}
			keys[up], keys[j] = keys[j], keys[up]
			j = up
		}
	}
	top := keys[0].minor // the dearest kept
	for ; i < len(found); i++ {
		t := found[i].total
		if t >= top {
			continue
		}
		k := rankedKey{rank, int32(i), t}
		j := 0
		for { // down while a child is dearer
			c := 2*j + 1
			if c >= len(keys) {
				break
			}
			if c+1 < len(keys) && keys[c].cheaper(&keys[c+1]) {
				c++
			}
			if !k.cheaper(&keys[c]) {
				break
			}
			keys[j] = keys[c]
			j = c
		}
		keys[j] = k
		top = keys[0].minor
	}
	for j := 1; j < len(keys); j++ { // the page in order: a page is short, so by insertion
		k := keys[j]
		m := j
		for ; m > 0 && k.cheaper(&keys[m-1]); m-- {
			keys[m] = keys[m-1]
		}
		keys[m] = k
	}
	return keys
}
