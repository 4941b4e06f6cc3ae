package catalog

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/money"
)

// MaxRangeDays is the longest date range (counted inclusively, in days) that one inventory
// entry may span; longer ranges are refused as almost certainly a typo (2026 → 2062).
const MaxRangeDays = 1100

// MaxAmount is the largest amount a catalog may hold, in minor units of its currency:
// 1 000 000 000.00 in a two-decimal currency (100 000 000 000 JPY). With MaxMarketBP, the
// largest partner markup (+1000 %), the longest stay and the most rooms or persons, a
// booking's total stays far inside int64 (see the booking package's tests).
const MaxAmount = 100_000_000_000

// MaxMarketBP is the largest hotel market adjustment, in basis points (+1000 %).
const MaxMarketBP = 100_000

// ValidationError lists every problem found in a catalog document, each one prefixed
// with the JSON path it concerns ("hotels[3].rooms[0].inventory[1].end: before start").
type ValidationError struct {
	Problems []string
}

// Error joins the problems into one line.
func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return "invalid catalog: " + e.Problems[0]
	}
	return fmt.Sprintf("invalid catalog (%d problems): %s", len(e.Problems), strings.Join(e.Problems, "; "))
}

// problem is one finding before it is rendered as "path: message".
type problem struct {
	path, msg string
}

func (p problem) String() string { return p.path + ": " + p.msg }

// checker collects problems. Parse records structural problems (unknown field, wrong
// type, missing field) with addBad, which marks the path as bad; the semantic rules of
// Validate then stay silent on a bad path and everything below it, so a field that is
// missing is reported once as "required" and not again as "must not be empty".
type checker struct {
	problems []problem
	bad      map[string]bool

	hotelIDs, roomIDs, activityIDs, rentalIDs, spaceIDs, packageIDs, departureIDs map[int64]string
}

func newChecker() *checker {
	return &checker{
		bad:          map[string]bool{},
		hotelIDs:     map[int64]string{},
		roomIDs:      map[int64]string{},
		activityIDs:  map[int64]string{},
		rentalIDs:    map[int64]string{},
		spaceIDs:     map[int64]string{},
		packageIDs:   map[int64]string{},
		departureIDs: map[int64]string{},
	}
}

// addBad records a structural problem and marks path as bad.
func (c *checker) addBad(path, format string, args ...any) {
	c.bad[path] = true
	c.problems = append(c.problems, problem{path, fmt.Sprintf(format, args...)})
}

// add records a semantic problem unless path or one of its ancestors is already bad.
func (c *checker) add(path, format string, args ...any) {
	if c.isBad(path) {
		return
	}
	c.problems = append(c.problems, problem{path, fmt.Sprintf(format, args...)})
}

// isBad reports whether path or any ancestor of it ("a.b[2].c" → "a.b[2]" → "a.b" → "a")
// carries a structural problem.
func (c *checker) isBad(path string) bool {
	if len(c.bad) == 0 {
		return false
	}
	for {
		if c.bad[path] {
			return true
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			return false
		}
		path = path[:i]
	}
}

func (c *checker) strings() []string {
	out := make([]string, len(c.problems))
	for i, p := range c.problems {
		out[i] = p.String()
	}
	return out
}

// Validate checks the document against the rules of the catalog format and returns every
// problem as "path: message"; an empty result means the document is valid. Parse applies
// the same rules, so documents built in code (Generate, Demo) are held to the same standard
// as imported files. The rules:
//
//   - ids are positive and unique within their kind: hotel, activity, rental and package
//     ids each among their own kind; room ids across all hotels; space ids across all
//     rentals; departure ids across all packages; addon ids within their package;
//   - name and city are not blank; country, where the type has one, is a two-letter
//     upper-case code; markets keys are two-letter upper-case codes with a percent above
//     -100 and at most +1000 (MaxMarketBP);
//   - currency is a known upper-case ISO 4217 code, and a room's or space's currency equals
//     that of its hotel or rental (an activity's pricing.currency is checked by Parse);
//   - image_url and every photo are absolute http or https URLs;
//   - star_rating is 0–5; guest_rating, average_rating and reviews_count are not negative;
//   - a hotel has at least one room and a rental at least one space;
//   - max_adults ≥ 1, max_children ≥ 0, max_guests ≥ 1, duration_hours > 0,
//     duration_nights ≥ 0, itinerary days ≥ 1 with a title;
//   - check_in_time and check_out_time are HH:MM between 00:00 and 23:59;
//   - every amount is ≥ 0 and at most MaxAmount minor units of its currency
//     (1000000000.00 EUR); every allotment and capacity is ≥ 0;
//   - dates are valid YYYY-MM-DD; a range has end ≥ start and spans at most MaxRangeDays
//     days; ranges may overlap (the later entry wins);
//   - a package's kind is "fixed", with at least one departure and neither travel_dates nor
//     pricing, or "open", with travel_dates and pricing and no departures.
func (d *Document) Validate() []string {
	c := newChecker()
	for i := range d.Hotels {
		c.hotel(fmt.Sprintf("hotels[%d]", i), &d.Hotels[i])
	}
	for i := range d.Activities {
		c.activity(fmt.Sprintf("activities[%d]", i), &d.Activities[i])
	}
	for i := range d.Rentals {
		c.rental(fmt.Sprintf("rentals[%d]", i), &d.Rentals[i])
	}
	for i := range d.Packages {
		c.pkg(fmt.Sprintf("packages[%d]", i), &d.Packages[i])
	}
	return c.strings()
}

// id checks that id is positive and not yet in seen, then records it.
func (c *checker) id(path string, id int64, seen map[int64]string, kind string) {
	if c.isBad(path) {
		return
	}
	if id <= 0 {
		c.add(path, "must be a positive integer")
		return
	}
	if first, dup := seen[id]; dup {
		c.add(path, "duplicate %s id %d (first used at %s)", kind, id, first)
		return
	}
	seen[id] = path
}

func (c *checker) nonBlank(path, s string) {
	if strings.TrimSpace(s) == "" {
		c.add(path, "must not be empty")
	}
}

// ValidCountry reports whether s is a two-letter upper-case (ISO 3166-1 alpha-2 shaped)
// country code. The booking rules check nationality codes with it too.
func ValidCountry(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}

func (c *checker) country(path, s string) {
	if !ValidCountry(s) {
		c.add(path, "%q is not a two-letter upper-case country code", s)
	}
}

// currency checks code and, when parent is a valid currency, that code equals it.
func (c *checker) currency(path, code, parent, parentKind string) {
	if !money.ValidCurrency(code) {
		c.add(path, "%q is not an ISO 4217 code", code)
		return
	}
	if parentKind != "" && money.ValidCurrency(parent) && code != parent {
		c.add(path, "%q differs from the %s currency %q", code, parentKind, parent)
	}
}

// validURL reports whether s is an absolute http or https URL with a host.
func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

func (c *checker) url(path, s string) {
	if !validURL(s) {
		c.add(path, "%q is not an absolute http(s) URL", s)
	}
}

func (c *checker) photos(path string, photos []string) {
	for i, p := range photos {
		c.url(fmt.Sprintf("%s[%d]", path, i), p)
	}
}

// amount checks an amount in minor units of currency: 0 to MaxAmount.
func (c *checker) amount(path string, n int64, currency string) {
	switch {
	case n < 0:
		c.add(path, "must not be negative")
	case n > MaxAmount:
		if money.ValidCurrency(currency) {
			c.add(path, "at most %s %s", money.Format(MaxAmount, currency), currency)
		} else {
			c.add(path, "at most %s in the currency's minor units", money.Format(MaxAmount, currency))
		}
	}
}

// rating checks a non-money number that must be finite and not negative.
func (c *checker) rating(path string, v float64) {
	if !(v >= 0) || math.IsInf(v, 0) {
		c.add(path, "must not be negative")
	}
}

func (c *checker) prices(path string, p PersonPrices, currency string) {
	c.amount(path+".adult", p.Adult, currency)
	c.amount(path+".child", p.Child, currency)
	c.amount(path+".infant", p.Infant, currency)
}

// ParseDate parses a canonical YYYY-MM-DD date (tradewind.DateLayout): a real calendar
// day, written exactly so. The catalog and the booking rules read dates with it.
func ParseDate(s string) (time.Time, bool) {
	if y, m, d, ok := canonicalDate(s); ok { // every request's dates: no layout to interpret
		return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC), true
	}
	t, err := time.Parse(tradewind.DateLayout, s)
	return t, err == nil && t.Format(tradewind.DateLayout) == s
}

// canonicalDate reads s when it is a real day written YYYY-MM-DD, as time.Parse with
// DateLayout accepts it and Format writes it back; false otherwise (ParseDate then
// answers as time.Parse does).
func canonicalDate(s string) (y, m, d int, ok bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, 0, 0, false
	}
	for i := 0; i < 10; i++ {
		if i != 4 && i != 7 && (s[i] < '0' || s[i] > '9') {
			return 0, 0, 0, false
		}
	}
	num := func(b string) int {
		n := 0
		for i := 0; i < len(b); i++ {
			n = n*10 + int(b[i]-'0')
		}
		return n
	}
	y, m, d = num(s[0:4]), num(s[5:7]), num(s[8:10])
	if m < 1 || m > 12 || d < 1 || d > daysIn(m, y) {
		return 0, 0, 0, false
	}
	return y, m, d, true
}

// DayNumber is the day of a date written YYYY-MM-DD counted from 1970-01-01 (the Unix
// day), false when s is not such a date (as ParseDate). It reads the digits itself,
// without time.Parse: imports and the read model's build convert millions of dates.
func DayNumber(s string) (int64, bool) {
	y, m, d, ok := canonicalDate(s)
	if !ok {
		return 0, false
	}
	// Days from civil (H. Hinnant): the proleptic Gregorian calendar, March-based years.
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := m + 9
	if m > 2 {
		mp = m - 3
	}
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era*146097 + doe - 719468), true
}

// daysIn is the number of days of month m (1–12) of year y, proleptic Gregorian.
func daysIn(m, y int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func (c *checker) date(path, s string) bool {
	if _, ok := ParseDate(s); !ok {
		c.add(path, "%q is not a valid date (YYYY-MM-DD)", s)
		return false
	}
	return true
}

// dateRange checks start and end of one inclusive range.
func (c *checker) dateRange(path, start, end string) {
	okStart := c.date(path+".start", start)
	okEnd := c.date(path+".end", end)
	if !okStart || !okEnd {
		return
	}
	n, ok := rangeDays(start, end)
	switch {
	case !ok:
		c.add(path+".end", "before start")
	case n > MaxRangeDays:
		c.add(path+".end", "range of %d days is longer than %d days", n, MaxRangeDays)
	}
}

// validClock reports whether s is HH:MM between 00:00 and 23:59.
func validClock(s string) bool {
	if len(s) != 5 || s[2] != ':' {
		return false
	}
	for _, i := range [...]int{0, 1, 3, 4} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	h := int(s[0]-'0')*10 + int(s[1]-'0')
	m := int(s[3]-'0')*10 + int(s[4]-'0')
	return h <= 23 && m <= 59
}

func (c *checker) clock(path, s string) {
	if !validClock(s) {
		c.add(path, "%q is not a time of day HH:MM (00:00–23:59)", s)
	}
}

func (c *checker) hotel(path string, h *Hotel) {
	c.id(path+".id", h.ID, c.hotelIDs, "hotel")
	c.nonBlank(path+".name", h.Name)
	if h.StarRating < 0 || h.StarRating > 5 {
		c.add(path+".star_rating", "must be between 0 and 5")
	}
	c.nonBlank(path+".city", h.City)
	c.country(path+".country", h.Country)
	c.rating(path+".guest_rating", h.GuestRating)
	if h.ReviewsCount < 0 {
		c.add(path+".reviews_count", "must not be negative")
	}
	c.rating(path+".average_rating", h.AverageRating)
	c.currency(path+".currency", h.Currency, "", "")
	c.url(path+".image_url", h.ImageURL)
	c.photos(path+".photos", h.Photos)
	for _, code := range sortedKeys(h.Markets) {
		mp := path + ".markets." + code
		if !ValidCountry(code) {
			c.add(mp, "%q is not a two-letter upper-case country code", code)
		}
		switch pct := h.Markets[code]; {
		case pct <= -10000:
			c.add(mp, "percent must be greater than -100")
		case pct > MaxMarketBP:
			c.add(mp, "percent must be at most 1000")
		}
	}
	if len(h.Rooms) == 0 {
		c.add(path+".rooms", "must hold at least one room")
	}
	for i := range h.Rooms {
		r := &h.Rooms[i]
		rp := fmt.Sprintf("%s.rooms[%d]", path, i)
		c.id(rp+".id", r.ID, c.roomIDs, "room")
		c.nonBlank(rp+".name", r.Name)
		if r.MaxAdults < 1 {
			c.add(rp+".max_adults", "must be at least 1")
		}
		if r.MaxChildren < 0 {
			c.add(rp+".max_children", "must not be negative")
		}
		cur := itemCurrency(r.Currency, h.Currency)
		c.amount(rp+".price_per_night", r.PricePerNight, cur)
		c.currency(rp+".currency", r.Currency, h.Currency, "hotel")
		for j, n := range r.Inventory {
			np := fmt.Sprintf("%s.inventory[%d]", rp, j)
			c.dateRange(np, n.Start, n.End)
			if n.Allotment < 0 {
				c.add(np+".allotment", "must not be negative")
			}
			c.amount(np+".price", n.Price, cur)
		}
	}
}

func (c *checker) activity(path string, a *Activity) {
	c.id(path+".id", a.ID, c.activityIDs, "activity")
	c.nonBlank(path+".name", a.Name)
	c.nonBlank(path+".city", a.City)
	if !(a.DurationHours > 0) || math.IsInf(a.DurationHours, 0) {
		c.add(path+".duration_hours", "must be greater than 0")
	}
	c.currency(path+".currency", a.Currency, "", "")
	c.url(path+".image_url", a.ImageURL)
	c.photos(path+".photos", a.Photos)
	c.prices(path+".pricing", a.Pricing, a.Currency)
	for j, d := range a.Availability {
		dp := fmt.Sprintf("%s.availability[%d]", path, j)
		c.dateRange(dp, d.Start, d.End)
		if d.Capacity < 0 {
			c.add(dp+".capacity", "must not be negative")
		}
	}
}

func (c *checker) rental(path string, r *Rental) {
	c.id(path+".id", r.ID, c.rentalIDs, "rental")
	c.nonBlank(path+".name", r.Name)
	c.nonBlank(path+".city", r.City)
	c.clock(path+".check_in_time", r.CheckInTime)
	c.clock(path+".check_out_time", r.CheckOutTime)
	c.currency(path+".currency", r.Currency, "", "")
	c.url(path+".image_url", r.ImageURL)
	c.photos(path+".photos", r.Photos)
	if len(r.Spaces) == 0 {
		c.add(path+".spaces", "must hold at least one space")
	}
	for i := range r.Spaces {
		s := &r.Spaces[i]
		sp := fmt.Sprintf("%s.spaces[%d]", path, i)
		c.id(sp+".id", s.ID, c.spaceIDs, "space")
		c.nonBlank(sp+".name", s.Name)
		if s.MaxGuests < 1 {
			c.add(sp+".max_guests", "must be at least 1")
		}
		cur := itemCurrency(s.Currency, r.Currency)
		c.amount(sp+".from_price", s.FromPrice, cur)
		c.currency(sp+".currency", s.Currency, r.Currency, "rental")
		c.photos(sp+".photos", s.Photos)
		for j, n := range s.Availability {
			np := fmt.Sprintf("%s.availability[%d]", sp, j)
			c.dateRange(np, n.Start, n.End)
			c.amount(np+".price", n.Price, cur)
		}
	}
}

func (c *checker) pkg(path string, p *Package) {
	c.id(path+".id", p.ID, c.packageIDs, "package")
	c.nonBlank(path+".name", p.Name)
	c.nonBlank(path+".city", p.City)
	c.country(path+".country", p.Country)
	if p.DurationNights < 0 {
		c.add(path+".duration_nights", "must not be negative")
	}
	c.currency(path+".currency", p.Currency, "", "")
	c.url(path+".image_url", p.ImageURL)
	c.photos(path+".photos", p.Photos)
	for i, d := range p.Itinerary {
		ip := fmt.Sprintf("%s.itinerary[%d]", path, i)
		if d.Day < 1 {
			c.add(ip+".day", "must be at least 1")
		}
		c.nonBlank(ip+".title", d.Title)
	}
	addonIDs := map[int64]string{}
	for i, a := range p.Addons {
		ap := fmt.Sprintf("%s.addons[%d]", path, i)
		c.id(ap+".id", a.ID, addonIDs, "addon")
		c.nonBlank(ap+".name", a.Name)
		c.amount(ap+".price_per_person", a.PricePerPerson, p.Currency)
	}
	switch p.Kind {
	case PackageFixed:
		if len(p.Departures) == 0 {
			c.add(path+".departures", "a fixed package needs at least one departure")
		}
		if len(p.TravelDates) > 0 {
			c.add(path+".travel_dates", "not allowed on a fixed package")
		}
		if p.Pricing != nil {
			c.add(path+".pricing", "not allowed on a fixed package (each departure has its own)")
		}
	case PackageOpen:
		if len(p.Departures) > 0 {
			c.add(path+".departures", "not allowed on an open package")
		}
		if len(p.TravelDates) == 0 {
			c.add(path+".travel_dates", "an open package needs at least one range")
		}
		if p.Pricing == nil {
			c.add(path+".pricing", "required on an open package")
		}
	default:
		c.add(path+".kind", "%q must be %q or %q", p.Kind, PackageFixed, PackageOpen)
	}
	for i, d := range p.Departures {
		dp := fmt.Sprintf("%s.departures[%d]", path, i)
		c.id(dp+".id", d.ID, c.departureIDs, "departure")
		c.date(dp+".date", d.Date)
		if d.Capacity < 0 {
			c.add(dp+".capacity", "must not be negative")
		}
		c.prices(dp+".pricing", d.Pricing, p.Currency)
	}
	for i, t := range p.TravelDates {
		tp := fmt.Sprintf("%s.travel_dates[%d]", path, i)
		c.dateRange(tp, t.Start, t.End)
		if t.Capacity < 0 {
			c.add(tp+".capacity", "must not be negative")
		}
	}
	if p.Pricing != nil {
		c.prices(path+".pricing", *p.Pricing, p.Currency)
	}
}
