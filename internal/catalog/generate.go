package catalog

import (
	"fmt"
	"github.com/tradewind/tradewind"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// GenerateOptions sizes a synthetic catalog. Zero values take defaults: Cities 40 (the
// built-in list), Days 365, Start 2027-01-01 (a fixed date, so output depends only on
// the options).
type GenerateOptions struct {
	Hotels, Activities, Rentals, Packages, Cities, Days int
	Seed                                                int64
	Start                                               time.Time
	// ChangePercent (0–100) changes that percent of the items of each kind, spread
	// evenly, against the catalog the same options give with 0: the first inventory
	// range of the item's first unit has its price (rooms, spaces) or capacity
	// (activities, packages) raised by one. It makes the catalog of a re-import.
	ChangePercent int
}

// Id bases of generated items. Rooms are hotelID*100+n, spaces rentalID*100+n,
// departures packageID*100+n and addons packageID*10+n, so no two items of a kind
// share an id at any size.
const (
	genHotelBase    = 1_000_001
	genActivityBase = 2_000_001
	genRentalBase   = 3_000_001
	genPackageBase  = 4_000_001
)

// genCurrency is the currency of every generated item.
const genCurrency = "EUR"

type city struct{ name, country string }

// genCities are real destinations; beyond them Generate adds numbered variants ("Lisbon 2").
var genCities = []city{
	{"Lisbon", "PT"}, {"Porto", "PT"}, {"Faro", "PT"}, {"Barcelona", "ES"}, {"Madrid", "ES"},
	{"Seville", "ES"}, {"Valencia", "ES"}, {"Paris", "FR"}, {"Nice", "FR"}, {"Lyon", "FR"},
	{"Rome", "IT"}, {"Florence", "IT"}, {"Venice", "IT"}, {"Milan", "IT"}, {"Naples", "IT"},
	{"Berlin", "DE"}, {"Munich", "DE"}, {"Hamburg", "DE"}, {"Amsterdam", "NL"}, {"Brussels", "BE"},
	{"Vienna", "AT"}, {"Prague", "CZ"}, {"Budapest", "HU"}, {"Krakow", "PL"}, {"Athens", "GR"},
	{"Dubrovnik", "HR"}, {"Copenhagen", "DK"}, {"Stockholm", "SE"}, {"Oslo", "NO"}, {"Helsinki", "FI"},
	{"Dublin", "IE"}, {"Edinburgh", "GB"}, {"London", "GB"}, {"Reykjavik", "IS"}, {"Istanbul", "TR"},
	{"Marrakesh", "MA"}, {"Zurich", "CH"}, {"Geneva", "CH"}, {"Valletta", "MT"}, {"Ljubljana", "SI"},
}

var (
	genHotelAdjectives = []string{"Grand", "Royal", "Old Town", "Riverside", "Harbour", "Garden", "Park", "Central", "Plaza", "Boutique"}
	genHotelNouns      = []string{"Hotel", "Inn", "Suites", "Residence", "Palace", "Lodge"}
	genPropertyTypes   = []string{"hotel", "boutique_hotel", "hostel", "resort", "guesthouse"}
	genFacilities      = []string{"wifi", "pool", "gym", "spa", "restaurant", "bar", "parking", "airport_shuttle"}
	genBoards          = []string{"room_only", "breakfast", "half_board", "full_board"}
	genMarkets         = []struct {
		code string
		bp   Percent
	}{{"GB", 500}, {"US", 300}, {"IN", -800}, {"DE", -300}, {"FR", 200}, {"BR", -500}}
	genRoomTypes = []struct {
		name             string
		adults, children int
	}{
		{"Single Room", 1, 0}, {"Double Room", 2, 1}, {"Twin Room", 2, 0}, {"Triple Room", 3, 1},
		{"Junior Suite", 2, 2}, {"Family Room", 2, 3}, {"Deluxe Double", 2, 1}, {"Superior King", 2, 1},
	}
	genActivityKinds = []struct {
		category, pattern string
		hours             float64
	}{
		{"tour", "%s old town walking tour", 3}, {"food", "%s food and wine tasting", 3.5},
		{"museum", "%s museum pass", 4}, {"cruise", "%s sunset cruise", 2},
		{"outdoor", "%s bike tour", 3}, {"show", "Evening show in %s", 2},
		{"tour", "Day trip from %s", 8.5}, {"class", "%s cooking class", 3},
	}
	genLanguages     = []string{"en", "es", "fr", "de", "it", "pt"}
	genRentalTypes   = []struct{ kind, noun string }{{"apartment", "Apartments"}, {"villa", "Villas"}, {"house", "Houses"}, {"loft", "Lofts"}, {"studio", "Studios"}}
	genRentalPrefix  = []string{"Riverside", "Old Town", "Sunny", "Harbour View", "City Centre", "Quiet Corner"}
	genSpaceTypes    = []string{"entire_place", "entire_place", "private_room"}
	genPackageThemes = []string{"Highlights of %s", "%s city break", "Taste of %s", "%s culture and cuisine", "Discover %s"}
	genAddons        = []struct {
		name  string
		price int64
	}{{"Airport transfer", 3500}, {"Guided food tour", 5500}, {"Museum pass", 4000}, {"Travel insurance", 2900}}
)

// generator carries the random source and derived settings of one Generate call.
type generator struct {
	rng    *rand.Rand
	o      GenerateOptions
	start  time.Time
	ranges [][2]string // Start..Start+Days-1 cut into pieces of at most MaxRangeDays
}

// Generate builds a synthetic catalog that passes Validate, of any size, identical for
// identical options: realistic names in o.Cities cities, inventory for every day from
// o.Start for o.Days days, a mix of instant and on-request items, refundable and
// non-refundable rooms, 1–4 rooms per hotel, 1–3 spaces per rental, fixed and open
// packages and some hotel markets, all priced in EUR.
func Generate(o GenerateOptions) *Document {
	if o.Cities <= 0 {
		o.Cities = len(genCities)
	}
	if o.Days <= 0 {
		o.Days = 365
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	y, m, d := o.Start.Date()
	g := &generator{
		rng:   rand.New(rand.NewPCG(uint64(o.Seed), 0x7472616465776e64)),
		o:     o,
		start: time.Date(y, m, d, 0, 0, 0, 0, time.UTC),
	}
	for off := 0; off < o.Days; off += MaxRangeDays {
		g.ranges = append(g.ranges, [2]string{g.date(off), g.date(min(off+MaxRangeDays, o.Days) - 1)})
	}
	doc := &Document{}
	for i := range o.Hotels {
		doc.Hotels = append(doc.Hotels, g.hotel(int64(genHotelBase+i)))
	}
	for i := range o.Activities {
		doc.Activities = append(doc.Activities, g.activity(int64(genActivityBase+i)))
	}
	for i := range o.Rentals {
		doc.Rentals = append(doc.Rentals, g.rental(int64(genRentalBase+i)))
	}
	for i := range o.Packages {
		doc.Packages = append(doc.Packages, g.pkg(int64(genPackageBase+i)))
	}
	changeItems(doc, o.ChangePercent)
	return doc
}

// changeItems applies GenerateOptions.ChangePercent to doc.
func changeItems(doc *Document, percent int) {
	if percent <= 0 {
		return
	}
	// Item i is changed when i·percent/100 steps: exactly ⌊n·percent/100⌋ items of n, evenly spread.
	pick := func(i int) bool { return (i+1)*percent/100 != i*percent/100 }
	for i := range doc.Hotels {
		if h := &doc.Hotels[i]; pick(i) && len(h.Rooms) > 0 && len(h.Rooms[0].Inventory) > 0 {
			h.Rooms[0].Inventory[0].Price++
		}
	}
	for i := range doc.Activities {
		if a := &doc.Activities[i]; pick(i) && len(a.Availability) > 0 {
			a.Availability[0].Capacity++
		}
	}
	for i := range doc.Rentals {
		if r := &doc.Rentals[i]; pick(i) && len(r.Spaces) > 0 && len(r.Spaces[0].Availability) > 0 {
			r.Spaces[0].Availability[0].Price++
		}
	}
	for i := range doc.Packages {
		p := &doc.Packages[i]
		switch {
		case !pick(i):
		case len(p.Departures) > 0:
			p.Departures[0].Capacity++
		case len(p.TravelDates) > 0:
			p.TravelDates[0].Capacity++
		}
	}
}

// date returns the date offset days after the start.
func (g *generator) date(offset int) string {
	return g.start.AddDate(0, 0, offset).Format(tradewind.DateLayout)
}

func (g *generator) city() city {
	k := g.rng.IntN(g.o.Cities)
	c := genCities[k%len(genCities)]
	if k >= len(genCities) {
		c.name += " " + strconv.Itoa(k/len(genCities)+1)
	}
	return c
}

func pick[T any](g *generator, list []T) T { return list[g.rng.IntN(len(list))] }

// euros returns a price between lo and hi euros, in cents, ending in .00, .50 or .90.
func (g *generator) euros(lo, hi int) int64 {
	cents := [...]int64{0, 50, 90}
	return int64(lo+g.rng.IntN(hi-lo+1))*100 + cents[g.rng.IntN(len(cents))]
}

// peak returns a short range inside the covered period, or ok false when it is too short.
func (g *generator) peak() (start, end string, ok bool) {
	if g.o.Days < 14 || g.rng.IntN(2) == 0 {
		return "", "", false
	}
	n := 3 + g.rng.IntN(5)
	off := g.rng.IntN(g.o.Days - n + 1)
	return g.date(off), g.date(off + n - 1), true
}

// bump raises a price by 20–60 %.
func (g *generator) bump(price int64) int64 {
	return price * int64(120+g.rng.IntN(41)) / 100
}

func (g *generator) photos(prefix string, id int64, n int) []string {
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("https://img.example.com/%s/%d/%d.jpg", prefix, id, i+1)
	}
	return out
}

func (g *generator) hotel(id int64) Hotel {
	c := g.city()
	stars := 1 + g.rng.IntN(5)
	h := Hotel{
		ID:                  id,
		Name:                fmt.Sprintf("%s %s %s", pick(g, genHotelAdjectives), c.name, pick(g, genHotelNouns)),
		PropertyType:        pick(g, genPropertyTypes),
		StarRating:          stars,
		City:                c.name,
		Country:             c.country,
		Address:             fmt.Sprintf("%d %s Street, %s", 1+g.rng.IntN(200), pick(g, genHotelAdjectives), c.name),
		BoardType:           pick(g, genBoards),
		Amenities:           map[string]any{"wifi": "free", "parking": pick(g, []string{"free", "paid", "none"})},
		MealPlans:           []string{"room_only", "breakfast"},
		GuestRating:         float64(60+g.rng.IntN(41)) / 10,
		ReviewsCount:        g.rng.IntN(5000),
		AverageRating:       float64(30+g.rng.IntN(21)) / 10,
		InstantConfirmation: g.rng.IntN(4) != 0,
		Currency:            genCurrency,
		ImageURL:            fmt.Sprintf("https://img.example.com/h/%d/cover.jpg", id),
		Photos:              g.photos("h", id, g.rng.IntN(4)),
	}
	h.Description = fmt.Sprintf("%d-star %s in %s", stars, h.PropertyType, c.name)
	for _, f := range genFacilities {
		if g.rng.IntN(2) == 0 {
			h.Facilities = append(h.Facilities, f)
		}
	}
	if g.rng.IntN(5) == 0 {
		h.Markets = map[string]Percent{}
		for range 1 + g.rng.IntN(3) {
			mk := pick(g, genMarkets)
			h.Markets[mk.code] = mk.bp
		}
	}
	types := g.rng.Perm(len(genRoomTypes))[:1+g.rng.IntN(4)]
	for n, t := range types {
		rt := genRoomTypes[t]
		price := g.euros(30+stars*20, 60+stars*40)
		r := Room{
			ID:            id*100 + int64(n+1),
			Name:          rt.name,
			BoardType:     pick(g, genBoards),
			MaxAdults:     rt.adults,
			MaxChildren:   rt.children,
			Refundable:    g.rng.IntN(3) != 0,
			PricePerNight: price,
			Currency:      genCurrency,
		}
		for _, rg := range g.ranges {
			r.Inventory = append(r.Inventory, RoomNights{Start: rg[0], End: rg[1], Allotment: 1 + g.rng.IntN(10), Price: price})
		}
		if s, e, ok := g.peak(); ok {
			r.Inventory = append(r.Inventory, RoomNights{Start: s, End: e, Allotment: 1 + g.rng.IntN(3), Price: g.bump(price)})
		}
		h.Rooms = append(h.Rooms, r)
	}
	return h
}

func (g *generator) activity(id int64) Activity {
	c := g.city()
	k := pick(g, genActivityKinds)
	adult := g.euros(15, 120)
	a := Activity{
		ID:                  id,
		Name:                fmt.Sprintf(k.pattern, c.name),
		Category:            k.category,
		City:                c.name,
		Description:         fmt.Sprintf("A %.1f-hour %s in %s", k.hours, k.category, c.name),
		DurationHours:       k.hours,
		Languages:           []string{"en", pick(g, genLanguages[1:])},
		InstantConfirmation: g.rng.IntN(4) != 0,
		Currency:            genCurrency,
		ImageURL:            fmt.Sprintf("https://img.example.com/a/%d/cover.jpg", id),
		Photos:              g.photos("a", id, g.rng.IntN(3)),
		Pricing:             PersonPrices{Adult: adult, Child: adult / 2, Infant: 0},
	}
	for _, rg := range g.ranges {
		a.Availability = append(a.Availability, ActivityDays{Start: rg[0], End: rg[1], Capacity: 5 + g.rng.IntN(36)})
	}
	if s, e, ok := g.peak(); ok { // a few closed days
		a.Availability = append(a.Availability, ActivityDays{Start: s, End: e, Capacity: 0})
	}
	return a
}

func (g *generator) rental(id int64) Rental {
	c := g.city()
	t := pick(g, genRentalTypes)
	r := Rental{
		ID:             id,
		Name:           fmt.Sprintf("%s %s %s", c.name, pick(g, genRentalPrefix), t.noun),
		PropertyType:   t.kind,
		City:           c.name,
		CheckInTime:    pick(g, []string{"14:00", "15:00", "16:00"}),
		CheckOutTime:   pick(g, []string{"10:00", "11:00"}),
		InstantBooking: g.rng.IntN(3) != 0,
		Currency:       genCurrency,
		ImageURL:       fmt.Sprintf("https://img.example.com/r/%d/cover.jpg", id),
		Photos:         g.photos("r", id, g.rng.IntN(3)),
	}
	for n := range 1 + g.rng.IntN(3) {
		sid := id*100 + int64(n+1)
		price := g.euros(50, 250)
		s := Space{
			ID:        sid,
			Name:      fmt.Sprintf("%s %d", t.noun[:len(t.noun)-1], n+1),
			SpaceType: pick(g, genSpaceTypes),
			MaxGuests: 2 + g.rng.IntN(5),
			FromPrice: price,
			Currency:  genCurrency,
			Photos:    g.photos("s", sid, g.rng.IntN(2)),
		}
		for _, rg := range g.ranges {
			s.Availability = append(s.Availability, SpaceNights{Start: rg[0], End: rg[1], Price: price})
		}
		if st, e, ok := g.peak(); ok {
			s.Availability = append(s.Availability, SpaceNights{Start: st, End: e, Price: g.bump(price)})
		}
		r.Spaces = append(r.Spaces, s)
	}
	return r
}

func (g *generator) pkg(id int64) Package {
	c := g.city()
	nights := 2 + g.rng.IntN(6)
	adult := g.euros(250, 1800)
	prices := PersonPrices{Adult: adult, Child: adult * 7 / 10, Infant: 0}
	p := Package{
		ID:                  id,
		Name:                fmt.Sprintf(pick(g, genPackageThemes), c.name) + fmt.Sprintf(", %d days", nights+1),
		City:                c.name,
		Country:             c.country,
		Description:         fmt.Sprintf("%d nights in %s with hotel, guided visits and transfers", nights, c.name),
		DurationNights:      nights,
		InstantConfirmation: g.rng.IntN(4) != 0,
		Currency:            genCurrency,
		ImageURL:            fmt.Sprintf("https://img.example.com/p/%d/cover.jpg", id),
		Photos:              g.photos("p", id, g.rng.IntN(3)),
	}
	for day := 1; day <= nights+1; day++ {
		title := "Free day in " + c.name
		switch day {
		case 1:
			title = "Arrival and transfer to the hotel"
		case nights + 1:
			title = "Departure"
		}
		p.Itinerary = append(p.Itinerary, ItineraryDay{Day: day, Title: title})
	}
	for n, k := range g.rng.Perm(len(genAddons))[:g.rng.IntN(3)] {
		p.Addons = append(p.Addons, Addon{ID: id*10 + int64(n+1), Name: genAddons[k].name, PricePerPerson: genAddons[k].price})
	}
	if g.rng.IntN(2) == 0 {
		p.Kind = PackageFixed
		offsets := make([]int, 2+g.rng.IntN(3))
		for i := range offsets {
			offsets[i] = g.rng.IntN(g.o.Days)
		}
		slices.Sort(offsets)
		for n, off := range offsets {
			p.Departures = append(p.Departures, Departure{
				ID: id*100 + int64(n+1), Date: g.date(off), Capacity: 8 + g.rng.IntN(23), Pricing: prices,
			})
		}
	} else {
		p.Kind = PackageOpen
		for _, rg := range g.ranges {
			p.TravelDates = append(p.TravelDates, ActivityDays{Start: rg[0], End: rg[1], Capacity: 4 + g.rng.IntN(17)})
		}
		p.Pricing = &prices
	}
	return p
}
