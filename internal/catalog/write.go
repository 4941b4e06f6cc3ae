package catalog

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/tradewind/tradewind/internal/money"
)

// Write writes d in the catalog format, indented: amounts as JSON numbers with exactly
// their currency's decimals, market percents as decimals (5.0), fields in the order of
// catalog-format.md and empty optional lists as []. Parse reads the result back into a
// Document equal to d (with nil for empty collections). Write does not validate d.
func Write(w io.Writer, d *Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(wireDocument(d))
}

// MarshalJSON renders the document in the catalog format (see Write).
func (d Document) MarshalJSON() ([]byte, error) {
	return json.Marshal(wireDocument(&d))
}

// percentJSON marshals basis points as a decimal percent with at least one decimal.
type percentJSON int64

func (p percentJSON) MarshalJSON() ([]byte, error) {
	s := money.FormatPercentBP(int64(p))
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return []byte(s), nil
}

// The wire types below fix the field order and number rendering of the format.

type docJSON struct {
	Hotels     []hotelJSON    `json:"hotels,omitempty"`
	Activities []activityJSON `json:"activities,omitempty"`
	Rentals    []rentalJSON   `json:"rentals,omitempty"`
	Packages   []packageJSON  `json:"packages,omitempty"`
}

type hotelJSON struct {
	ID                  int64                  `json:"id"`
	Name                string                 `json:"name"`
	Description         string                 `json:"description"`
	PropertyType        string                 `json:"property_type"`
	StarRating          int                    `json:"star_rating"`
	City                string                 `json:"city"`
	Country             string                 `json:"country"`
	Address             string                 `json:"address"`
	BoardType           string                 `json:"board_type"`
	Facilities          []string               `json:"facilities"`
	Amenities           map[string]any         `json:"amenities"`
	MealPlans           []string               `json:"meal_plans"`
	GuestRating         float64                `json:"guest_rating"`
	ReviewsCount        int                    `json:"reviews_count"`
	AverageRating       float64                `json:"average_rating"`
	InstantConfirmation bool                   `json:"instant_confirmation"`
	Currency            string                 `json:"currency"`
	ImageURL            string                 `json:"image_url"`
	Photos              []string               `json:"photos"`
	Markets             map[string]percentJSON `json:"markets,omitempty"`
	Rooms               []roomJSON             `json:"rooms"`
}

type roomJSON struct {
	ID            int64            `json:"id"`
	Name          string           `json:"name"`
	BoardType     string           `json:"board_type"`
	MaxAdults     int              `json:"max_adults"`
	MaxChildren   int              `json:"max_children"`
	Refundable    bool             `json:"refundable"`
	PricePerNight money.Amount     `json:"price_per_night"`
	Currency      string           `json:"currency"`
	Inventory     []roomNightsJSON `json:"inventory"`
}

type roomNightsJSON struct {
	Start     string       `json:"start"`
	End       string       `json:"end"`
	Allotment int          `json:"allotment"`
	Price     money.Amount `json:"price"`
}

type activityJSON struct {
	ID                  int64              `json:"id"`
	Name                string             `json:"name"`
	Category            string             `json:"category"`
	City                string             `json:"city"`
	Description         string             `json:"description"`
	DurationHours       float64            `json:"duration_hours"`
	Languages           []string           `json:"languages"`
	InstantConfirmation bool               `json:"instant_confirmation"`
	Currency            string             `json:"currency"`
	ImageURL            string             `json:"image_url"`
	Photos              []string           `json:"photos"`
	Pricing             activityPricesJSON `json:"pricing"`
	Availability        []ActivityDays     `json:"availability"`
}

type pricesJSON struct {
	Adult  money.Amount `json:"adult"`
	Child  money.Amount `json:"child"`
	Infant money.Amount `json:"infant"`
}

type activityPricesJSON struct {
	pricesJSON
	Currency string `json:"currency"`
}

type rentalJSON struct {
	ID             int64       `json:"id"`
	Name           string      `json:"name"`
	PropertyType   string      `json:"property_type"`
	City           string      `json:"city"`
	CheckInTime    string      `json:"check_in_time"`
	CheckOutTime   string      `json:"check_out_time"`
	InstantBooking bool        `json:"instant_booking"`
	Currency       string      `json:"currency"`
	ImageURL       string      `json:"image_url"`
	Photos         []string    `json:"photos"`
	Spaces         []spaceJSON `json:"spaces"`
}

type spaceJSON struct {
	ID           int64             `json:"id"`
	Name         string            `json:"name"`
	SpaceType    string            `json:"space_type"`
	MaxGuests    int               `json:"max_guests"`
	FromPrice    money.Amount      `json:"from_price"`
	Currency     string            `json:"currency"`
	Photos       []string          `json:"photos"`
	Availability []spaceNightsJSON `json:"availability"`
}

type spaceNightsJSON struct {
	Start string       `json:"start"`
	End   string       `json:"end"`
	Price money.Amount `json:"price"`
}

type packageJSON struct {
	ID                  int64           `json:"id"`
	Name                string          `json:"name"`
	City                string          `json:"city"`
	Country             string          `json:"country"`
	Description         string          `json:"description"`
	DurationNights      int             `json:"duration_nights"`
	InstantConfirmation bool            `json:"instant_confirmation"`
	Currency            string          `json:"currency"`
	ImageURL            string          `json:"image_url"`
	Photos              []string        `json:"photos"`
	Itinerary           []ItineraryDay  `json:"itinerary"`
	Addons              []addonJSON     `json:"addons"`
	Kind                string          `json:"kind"`
	Departures          []departureJSON `json:"departures,omitempty"`
	TravelDates         []ActivityDays  `json:"travel_dates,omitempty"`
	Pricing             *pricesJSON     `json:"pricing,omitempty"`
}

type addonJSON struct {
	ID             int64        `json:"id"`
	Name           string       `json:"name"`
	PricePerPerson money.Amount `json:"price_per_person"`
}

type departureJSON struct {
	ID       int64      `json:"id"`
	Date     string     `json:"date"`
	Capacity int        `json:"capacity"`
	Pricing  pricesJSON `json:"pricing"`
}

// orEmpty turns a nil slice into an empty one so that it is written as [].
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func wirePrices(p PersonPrices, currency string) pricesJSON {
	return pricesJSON{
		Adult:  money.Amount{Minor: p.Adult, Currency: currency},
		Child:  money.Amount{Minor: p.Child, Currency: currency},
		Infant: money.Amount{Minor: p.Infant, Currency: currency},
	}
}

func wireDocument(d *Document) docJSON {
	var w docJSON
	if d == nil {
		return w
	}
	for _, h := range d.Hotels {
		w.Hotels = append(w.Hotels, wireHotel(h))
	}
	for _, a := range d.Activities {
		w.Activities = append(w.Activities, wireActivity(a))
	}
	for _, r := range d.Rentals {
		w.Rentals = append(w.Rentals, wireRental(r))
	}
	for _, p := range d.Packages {
		w.Packages = append(w.Packages, wirePackage(p))
	}
	return w
}

func wireHotel(h Hotel) hotelJSON {
	amenities := h.Amenities
	if amenities == nil {
		amenities = map[string]any{}
	}
	var markets map[string]percentJSON
	if len(h.Markets) > 0 {
		markets = make(map[string]percentJSON, len(h.Markets))
		for k, v := range h.Markets {
			markets[k] = percentJSON(v)
		}
	}
	rooms := make([]roomJSON, len(h.Rooms))
	for i, r := range h.Rooms {
		cur := itemCurrency(r.Currency, h.Currency)
		inv := make([]roomNightsJSON, len(r.Inventory))
		for j, n := range r.Inventory {
			inv[j] = roomNightsJSON{n.Start, n.End, n.Allotment, money.Amount{Minor: n.Price, Currency: cur}}
		}
		rooms[i] = roomJSON{
			ID: r.ID, Name: r.Name, BoardType: r.BoardType, MaxAdults: r.MaxAdults,
			MaxChildren: r.MaxChildren, Refundable: r.Refundable,
			PricePerNight: money.Amount{Minor: r.PricePerNight, Currency: cur},
			Currency:      r.Currency, Inventory: inv,
		}
	}
	return hotelJSON{
		ID: h.ID, Name: h.Name, Description: h.Description, PropertyType: h.PropertyType,
		StarRating: h.StarRating, City: h.City, Country: h.Country, Address: h.Address,
		BoardType: h.BoardType, Facilities: orEmpty(h.Facilities), Amenities: amenities,
		MealPlans: orEmpty(h.MealPlans), GuestRating: h.GuestRating, ReviewsCount: h.ReviewsCount,
		AverageRating: h.AverageRating, InstantConfirmation: h.InstantConfirmation,
		Currency: h.Currency, ImageURL: h.ImageURL, Photos: orEmpty(h.Photos),
		Markets: markets, Rooms: rooms,
	}
}

func wireActivity(a Activity) activityJSON {
	return activityJSON{
		ID: a.ID, Name: a.Name, Category: a.Category, City: a.City, Description: a.Description,
		DurationHours: a.DurationHours, Languages: orEmpty(a.Languages),
		InstantConfirmation: a.InstantConfirmation, Currency: a.Currency, ImageURL: a.ImageURL,
		Photos:       orEmpty(a.Photos),
		Pricing:      activityPricesJSON{wirePrices(a.Pricing, a.Currency), a.Currency},
		Availability: orEmpty(a.Availability),
	}
}

func wireRental(r Rental) rentalJSON {
	spaces := make([]spaceJSON, len(r.Spaces))
	for i, s := range r.Spaces {
		cur := itemCurrency(s.Currency, r.Currency)
		av := make([]spaceNightsJSON, len(s.Availability))
		for j, n := range s.Availability {
			av[j] = spaceNightsJSON{n.Start, n.End, money.Amount{Minor: n.Price, Currency: cur}}
		}
		spaces[i] = spaceJSON{
			ID: s.ID, Name: s.Name, SpaceType: s.SpaceType, MaxGuests: s.MaxGuests,
			FromPrice: money.Amount{Minor: s.FromPrice, Currency: cur}, Currency: s.Currency,
			Photos: orEmpty(s.Photos), Availability: av,
		}
	}
	return rentalJSON{
		ID: r.ID, Name: r.Name, PropertyType: r.PropertyType, City: r.City,
		CheckInTime: r.CheckInTime, CheckOutTime: r.CheckOutTime, InstantBooking: r.InstantBooking,
		Currency: r.Currency, ImageURL: r.ImageURL, Photos: orEmpty(r.Photos), Spaces: spaces,
	}
}

func wirePackage(p Package) packageJSON {
	addons := make([]addonJSON, len(p.Addons))
	for i, a := range p.Addons {
		addons[i] = addonJSON{a.ID, a.Name, money.Amount{Minor: a.PricePerPerson, Currency: p.Currency}}
	}
	var deps []departureJSON
	for _, d := range p.Departures {
		deps = append(deps, departureJSON{d.ID, d.Date, d.Capacity, wirePrices(d.Pricing, p.Currency)})
	}
	var pricing *pricesJSON
	if p.Pricing != nil {
		pr := wirePrices(*p.Pricing, p.Currency)
		pricing = &pr
	}
	return packageJSON{
		ID: p.ID, Name: p.Name, City: p.City, Country: p.Country, Description: p.Description,
		DurationNights: p.DurationNights, InstantConfirmation: p.InstantConfirmation,
		Currency: p.Currency, ImageURL: p.ImageURL, Photos: orEmpty(p.Photos),
		Itinerary: orEmpty(p.Itinerary), Addons: addons, Kind: p.Kind,
		Departures: deps, TravelDates: p.TravelDates, Pricing: pricing,
	}
}
