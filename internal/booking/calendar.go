package booking

import (
	"context"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/store"
)

// A calendar (POST /hotels/calendar, POST /rentals/calendar) prices one item for every
// check-in date of a range at once: for each date, the cheapest unit free for the
// nights asked, priced as the item's availability prices that stay. An activity's
// (POST /activities/calendar) tells each date's seats, as its availability does. It answers what a
// partner's date picker needs from one request rather than one availability a date
// (docs/products.md, "Calendars"). Like an availability it reads only; prebook and
// book still check and claim in the store.

// maxCalendarDates bounds a calendar's check-in dates (from..to): two months, the
// most a date picker shows at once.
const maxCalendarDates = 62

// defaultCalendarNights is the stay a calendar prices when the request names none.
const defaultCalendarNights = 1

// calendarSpan is a validated calendar range: dates check-in dates from from, each
// for a stay of nights nights; the first past of them are before today.
type calendarSpan struct {
	from          string
	first         time.Time // from, parsed
	dates, nights int
	past          int
}

// calendar checks a calendar's from, to and nights, every problem listed. from may be
// in the past, so that a month view can start on the month's first day: its dates
// before today are listed, with nothing available. to may not: such a calendar has
// nothing to show.
func (p *problems) calendar(from, to string, nights *int, today time.Time) calendarSpan {
	f, okFrom := time.Time{}, false
	switch {
	case from == "":
		p.add("from is required")
	default:
		if f, okFrom = catalog.ParseDate(from); !okFrom {
			p.add("from: %q is not a date (YYYY-MM-DD)", from)
		}
	}
	t, okTo := p.date("to", to, today)
	dates, past := 0, 0
	if okFrom && okTo {
		dates = int(t.Sub(f).Hours()/24) + 1
		past = max(int(today.Sub(f).Hours()/24), 0)
		switch {
		case dates < 1:
			p.add("to: %s is before from (%s)", to, from)
		case dates > maxCalendarDates:
			p.add("to: %d dates from %s; at most %d (to at most %s)", dates, from, maxCalendarDates,
				f.AddDate(0, 0, maxCalendarDates-1).Format(tradewind.DateLayout))
		}
	}
	n := intOr(nights, defaultCalendarNights)
	p.between("nights", n, 1, maxNights)
	return calendarSpan{from: from, first: f, dates: dates, nights: n, past: past}
}

// over narrows q to the span's nights from today: from its first check-in not in the
// past to the last night of its last check-in's stay.
func (sp calendarSpan) over(q store.InventoryQuery) store.InventoryQuery {
	q.From, q.To = sp.day(sp.past), sp.day(sp.dates+sp.nights-2)
	return q
}

// checkIn and checkOut are the dates of the span's d-th stay.
func (sp calendarSpan) checkIn(d int) string  { return sp.day(d) }
func (sp calendarSpan) checkOut(d int) string { return sp.day(d + sp.nights) }

// day is the date d days after from; offset the number of days from from to a date.
func (sp calendarSpan) day(d int) string {
	return sp.first.AddDate(0, 0, d).Format(tradewind.DateLayout)
}
func (sp calendarSpan) offset(date string) int {
	t, _ := catalog.ParseDate(date)
	return int(t.Sub(sp.first).Hours() / 24)
}

// calendarPick is a calendar date's cheapest unit and its total, when one is free.
type calendarPick struct {
	unit  int64
	total int64
	ok    bool
}

// cheapestByCheckIn picks, for each check-in date of sp, the cheapest of units for its
// stay: offer(i, nights) prices units[i] from its rows of the stay's nights (a night
// without a row sells nothing), as the item's availability does. Of equal totals the
// first unit in the item's order is picked, as the availability lists them.
func cheapestByCheckIn(sp calendarSpan, units []int64, byUnit map[int64][]DayStock, offer func(i int, nights []DayStock) (int64, bool)) []calendarPick {
	picks := make([]calendarPick, sp.dates)
	grid := make([]DayStock, sp.dates+sp.nights-1) // the span's nights, by their offset from sp.from
	for i, id := range units {
		clear(grid)
		for _, r := range byUnit[id] {
			if d := sp.offset(r.Day); d >= 0 && d < len(grid) {
				grid[d] = r
			}
		}
		for d := sp.past; d < len(picks); d++ { // a check-in in the past sells nothing
			total, ok := offer(i, grid[d:d+sp.nights])
			if ok && (!picks[d].ok || total < picks[d].total) {
				picks[d] = calendarPick{unit: id, total: total, ok: true}
			}
		}
	}
	return picks
}

// calendarDates renders picks, one a check-in date of sp, each as wrap makes it of
// the date and its cheapest unit's id (nil when nothing is free).
func calendarDates[D any](sp calendarSpan, picks []calendarPick, currency string, wrap func(date CalendarDate, unit *int64) D) []D {
	out := make([]D, len(picks))
	for d, pick := range picks {
		date := CalendarDate{CheckIn: sp.checkIn(d), CheckOut: sp.checkOut(d), Available: pick.ok}
		var unit *int64
		if pick.ok {
			unit = &pick.unit
			date.TotalPrice = &money.Amount{Minor: pick.total, Currency: currency}
		}
		out[d] = wrap(date, unit)
	}
	return out
}

// CalendarDate is one check-in date of a calendar.
type CalendarDate struct {
	CheckIn    string        `json:"check_in"`
	CheckOut   string        `json:"check_out"`
	Available  bool          `json:"available"`
	TotalPrice *money.Amount `json:"total_price"` // the cheapest unit's, for the whole stay; null when none is free
}

// HotelCalendarDate is a hotel calendar's date: the cheapest room's id.
type HotelCalendarDate struct {
	CalendarDate
	RoomID *int64 `json:"room_id"`
}

// RentalCalendarDate is a rental calendar's date: the cheapest space's id.
type RentalCalendarDate struct {
	CalendarDate
	SpaceID *int64 `json:"space_id"`
}

// HotelCalendarRequest is the body of POST /hotels/calendar: the party of a hotel
// availability, and a range of check-in dates instead of one stay.
type HotelCalendarRequest struct {
	HotelID         int64  `json:"hotel_id"`
	From            string `json:"from"`
	To              string `json:"to"`
	Nights          *int   `json:"nights"`
	Adults          *int   `json:"adults"`
	Children        int    `json:"children"`
	Rooms           *int   `json:"rooms"`
	ChildAges       []int  `json:"child_ages"`
	NationalityCode string `json:"nationality_code"`
}

// HotelCalendar is the data of POST /hotels/calendar.
type HotelCalendar struct {
	HotelID     int64                 `json:"hotel_id"`
	From        string                `json:"from"`
	To          string                `json:"to"`
	Nights      int                   `json:"nights"`
	Rooms       int                   `json:"rooms"`
	Currency    string                `json:"currency"`
	PricingMode tradewind.PricingMode `json:"pricing_mode"`
	Dates       []HotelCalendarDate   `json:"dates"`
	hint                              // when no date has a room because none takes the party (Hinted)
}

// HotelCalendar prices a hotel for every check-in date from req.From to req.To: for
// each, the cheapest room free every night of a stay of req.Nights nights that takes
// the party, at the total the hotel's availability gives that stay.
func (s *Service) HotelCalendar(ctx context.Context, c *Caller, req *HotelCalendarRequest) (res *HotelCalendar, err error) {
	defer wrap(&err, "hotel calendar")
	if err := c.RequireProduct(tradewind.ProductHotel); err != nil {
		return nil, err
	}
	var p problems
	p.positiveID("hotel_id", req.HotelID)
	sp := p.calendar(req.From, req.To, req.Nights, s.todayDate())
	party := stayRequest{adults: intOr(req.Adults, defaultAdults), children: req.Children, rooms: intOr(req.Rooms, defaultRooms),
		childAges: req.ChildAges, nationality: req.NationalityCode}
	p.hotelParty(party)
	if err := p.err(); err != nil {
		return nil, err
	}
	h, err := getItem[catalog.Hotel](ctx, s.reads(), tradewind.ProductHotel, req.HotelID)
	if err != nil {
		return nil, mapNotFound(err, "Hotel")
	}
	byRoom, err := rowsByUnit(ctx, s.reads(), sp.over(store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: []int64{h.ID}}))
	if err != nil {
		return nil, err
	}
	st := hotelStay{nights: sp.nights, adults: party.adults, children: party.children, rooms: party.rooms, nationality: party.nationality}
	rooms := make([]int64, len(h.Rooms))
	for i := range h.Rooms {
		rooms[i] = h.Rooms[i].ID
	}
	con := c.contract()
	picks := cheapestByCheckIn(sp, rooms, byRoom, func(i int, nights []DayStock) (int64, bool) {
		return roomOffer(h, &h.Rooms[i], nights, st, con)
	})
	available := 0
	dates := calendarDates(sp, picks, h.Currency, func(date CalendarDate, room *int64) HotelCalendarDate {
		if date.Available {
			available++
		}
		return HotelCalendarDate{CalendarDate: date, RoomID: room}
	})
	return &HotelCalendar{HotelID: h.ID, From: req.From, To: req.To, Nights: sp.nights, Rooms: st.rooms, Currency: h.Currency,
		PricingMode: c.Partner.PricingMode, Dates: dates, hint: partyHint(h, &st, available)}, nil
}

// RentalCalendarRequest is the body of POST /rentals/calendar: the guests of a rental
// availability, and a range of check-in dates instead of one stay.
type RentalCalendarRequest struct {
	RentalID int64  `json:"rental_id"`
	From     string `json:"from"`
	To       string `json:"to"`
	Nights   *int   `json:"nights"`
	Guests   *int   `json:"guests"`
}

// RentalCalendar is the data of POST /rentals/calendar.
type RentalCalendar struct {
	RentalID       int64                 `json:"rental_id"`
	From           string                `json:"from"`
	To             string                `json:"to"`
	Nights         int                   `json:"nights"`
	Guests         int                   `json:"guests"`
	InstantBooking bool                  `json:"instant_booking"`
	Currency       string                `json:"currency"`
	PricingMode    tradewind.PricingMode `json:"pricing_mode"`
	Dates          []RentalCalendarDate  `json:"dates"`
	hint                                 // when no date has a space because none takes the guests (Hinted)
}

// RentalCalendar prices a rental for every check-in date from req.From to req.To: for
// each, the cheapest space free every night of a stay of req.Nights nights that takes
// the guests, at the total the rental's availability gives that stay.
func (s *Service) RentalCalendar(ctx context.Context, c *Caller, req *RentalCalendarRequest) (res *RentalCalendar, err error) {
	defer wrap(&err, "rental calendar")
	if err := c.RequireProduct(tradewind.ProductRental); err != nil {
		return nil, err
	}
	var p problems
	p.positiveID("rental_id", req.RentalID)
	sp := p.calendar(req.From, req.To, req.Nights, s.todayDate())
	guests := intOr(req.Guests, defaultGuests)
	p.between("guests", guests, 1, maxGuests)
	if err := p.err(); err != nil {
		return nil, err
	}
	r, err := getItem[catalog.Rental](ctx, s.reads(), tradewind.ProductRental, req.RentalID)
	if err != nil {
		return nil, mapNotFound(err, "Rental")
	}
	bySpace, err := rowsByUnit(ctx, s.reads(), sp.over(store.InventoryQuery{Kind: tradewind.UnitSpace, ItemIDs: []int64{r.ID}}))
	if err != nil {
		return nil, err
	}
	st := rentalStay{nights: sp.nights, guests: guests}
	spaces := make([]int64, len(r.Spaces))
	for i := range r.Spaces {
		spaces[i] = r.Spaces[i].ID
	}
	con := c.contract()
	picks := cheapestByCheckIn(sp, spaces, bySpace, func(i int, nights []DayStock) (int64, bool) {
		return spaceOffer(&r.Spaces[i], nights, st, con)
	})
	available := 0
	dates := calendarDates(sp, picks, r.Currency, func(date CalendarDate, space *int64) RentalCalendarDate {
		if date.Available {
			available++
		}
		return RentalCalendarDate{CalendarDate: date, SpaceID: space}
	})
	return &RentalCalendar{RentalID: r.ID, From: req.From, To: req.To, Nights: sp.nights, Guests: guests,
		InstantBooking: r.InstantBooking, Currency: r.Currency, PricingMode: c.Partner.PricingMode, Dates: dates,
		hint: guestsHint(r, st, available)}, nil
}

// ActivityCalendarRequest is the body of POST /activities/calendar: the party of an
// activity availability, and a range of dates instead of one.
type ActivityCalendarRequest struct {
	ActivityID int64  `json:"activity_id"`
	From       string `json:"from"`
	To         string `json:"to"`
	Adults     *int   `json:"adults"`
	Children   int    `json:"children"`
	Infants    int    `json:"infants"`
}

// ActivityCalendarDate is one date of an activity calendar: the seats left, and whether
// they take the party.
type ActivityCalendarDate struct {
	Date           string `json:"date"`
	Available      bool   `json:"available"`
	SeatsAvailable int    `json:"seats_available"`
}

// ActivityCalendar is the data of POST /activities/calendar. An activity is priced per
// person, the same on every date: the party's price is given once.
type ActivityCalendar struct {
	ActivityID          int64                  `json:"activity_id"`
	From                string                 `json:"from"`
	To                  string                 `json:"to"`
	Adults              int                    `json:"adults"`
	Children            int                    `json:"children"`
	Infants             int                    `json:"infants"`
	InstantConfirmation bool                   `json:"instant_confirmation"`
	Pricing             PersonPricing          `json:"pricing"`
	TotalPrice          money.Amount           `json:"total_price"`
	Currency            string                 `json:"currency"`
	PricingMode         tradewind.PricingMode  `json:"pricing_mode"`
	Dates               []ActivityCalendarDate `json:"dates"`
}

// ActivityCalendar tells, for every date from req.From to req.To, the activity's seats
// left and whether they take the party, as the activity's availability tells one date.
func (s *Service) ActivityCalendar(ctx context.Context, c *Caller, req *ActivityCalendarRequest) (res *ActivityCalendar, err error) {
	defer wrap(&err, "activity calendar")
	if err := c.RequireProduct(tradewind.ProductActivity); err != nil {
		return nil, err
	}
	var p problems
	p.positiveID("activity_id", req.ActivityID)
	sp := p.calendar(req.From, req.To, nil, s.todayDate())
	pt := validParty(&p, intOr(req.Adults, defaultActivityCheckAdults), req.Children, req.Infants)
	if err := p.err(); err != nil {
		return nil, err
	}
	a, err := getItem[catalog.Activity](ctx, s.reads(), tradewind.ProductActivity, req.ActivityID)
	if err != nil {
		return nil, mapNotFound(err, "Activity")
	}
	byUnit, err := rowsByUnit(ctx, s.reads(), sp.over(store.InventoryQuery{Kind: tradewind.UnitActivity, UnitIDs: []int64{a.ID}}))
	if err != nil {
		return nil, err
	}
	seats := make([]int, sp.dates) // a date without a row sells nothing
	for _, r := range byUnit[a.ID] {
		if d := sp.offset(r.Day); d >= 0 && d < len(seats) {
			seats[d] = r.Free
		}
	}
	con := c.contract()
	res = &ActivityCalendar{ActivityID: a.ID, From: req.From, To: req.To, Adults: pt.adults, Children: pt.children,
		Infants: pt.infants, InstantConfirmation: a.InstantConfirmation, Pricing: personPricing(con, a.Pricing, a.Currency),
		TotalPrice: money.Amount{Minor: pt.price(con, a.Pricing), Currency: a.Currency}, Currency: a.Currency,
		PricingMode: c.Partner.PricingMode, Dates: make([]ActivityCalendarDate, sp.dates)}
	for d, left := range seats {
		res.Dates[d] = ActivityCalendarDate{Date: sp.day(d), Available: left >= pt.seats(), SeatsAvailable: left}
	}
	return res, nil
}
