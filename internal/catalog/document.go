// Package catalog reads, validates and generates the operator's inventory documents
// (shared/spec/catalog-format.md). Amounts are held in minor units of the item's
// currency; dates are canonical "YYYY-MM-DD" strings.
//
// The catalog's facts are defined here once and the booking rules use them: the package
// kinds (PackageFixed, PackageOpen), date parsing (ParseDate, tradewind.DateLayout) and
// the country-code shape (ValidCountry).
//
// Parse and Write (and Document's UnmarshalJSON and MarshalJSON) handle the catalog format
// with its decimal amounts. The json tags on the item types below only name their fields:
// encoding one item on its own writes amounts in minor units, not in the catalog format.
package catalog

// Document is one catalog file: any mix of the four product types.
type Document struct {
	Hotels     []Hotel    `json:"hotels,omitempty"`
	Activities []Activity `json:"activities,omitempty"`
	Rentals    []Rental   `json:"rentals,omitempty"`
	Packages   []Package  `json:"packages,omitempty"`
}

// Hotel is a hotel and its room types.
type Hotel struct {
	ID                  int64              `json:"id"`
	Name                string             `json:"name"`
	Description         string             `json:"description"`
	PropertyType        string             `json:"property_type"`
	StarRating          int                `json:"star_rating"`
	City                string             `json:"city"`
	Country             string             `json:"country"`
	Address             string             `json:"address"`
	BoardType           string             `json:"board_type"`
	Facilities          []string           `json:"facilities"`
	Amenities           map[string]any     `json:"amenities"`
	MealPlans           []string           `json:"meal_plans"`
	GuestRating         float64            `json:"guest_rating"`
	ReviewsCount        int                `json:"reviews_count"`
	AverageRating       float64            `json:"average_rating"`
	InstantConfirmation bool               `json:"instant_confirmation"`
	Currency            string             `json:"currency"`
	ImageURL            string             `json:"image_url"`
	Photos              []string           `json:"photos"`
	Markets             map[string]Percent `json:"markets,omitempty"` // country code → adjustment
	Rooms               []Room             `json:"rooms"`
}

// Percent is a percentage in basis points (5.0 % = 500).
type Percent int64

// Room is a hotel room type with its per-night inventory.
type Room struct {
	ID            int64        `json:"id"`
	Name          string       `json:"name"`
	BoardType     string       `json:"board_type"`
	MaxAdults     int          `json:"max_adults"`
	MaxChildren   int          `json:"max_children"`
	Refundable    bool         `json:"refundable"`
	PricePerNight int64        `json:"price_per_night"` // minor units
	Currency      string       `json:"currency"`
	Inventory     []RoomNights `json:"inventory"`
}

// RoomNights sells Allotment rooms per night, nights Start..End inclusive, at Price per room-night.
type RoomNights struct {
	Start     string `json:"start"`
	End       string `json:"end"`
	Allotment int    `json:"allotment"`
	Price     int64  `json:"price"` // minor units
}

// Activity is a bookable day activity.
type Activity struct {
	ID                  int64          `json:"id"`
	Name                string         `json:"name"`
	Category            string         `json:"category"`
	City                string         `json:"city"`
	Description         string         `json:"description"`
	DurationHours       float64        `json:"duration_hours"`
	Languages           []string       `json:"languages"`
	InstantConfirmation bool           `json:"instant_confirmation"`
	Currency            string         `json:"currency"`
	ImageURL            string         `json:"image_url"`
	Photos              []string       `json:"photos"`
	Pricing             PersonPrices   `json:"pricing"`
	Availability        []ActivityDays `json:"availability"`
}

// PersonPrices are per-person net prices in minor units.
type PersonPrices struct {
	Adult  int64 `json:"adult"`
	Child  int64 `json:"child"`
	Infant int64 `json:"infant"`
}

// ActivityDays offers Capacity seats on each day Start..End inclusive.
type ActivityDays struct {
	Start    string `json:"start"`
	End      string `json:"end"`
	Capacity int    `json:"capacity"`
}

// Rental is a rental property with its bookable spaces.
type Rental struct {
	ID             int64    `json:"id"`
	Name           string   `json:"name"`
	PropertyType   string   `json:"property_type"`
	City           string   `json:"city"`
	CheckInTime    string   `json:"check_in_time"`
	CheckOutTime   string   `json:"check_out_time"`
	InstantBooking bool     `json:"instant_booking"`
	Currency       string   `json:"currency"`
	ImageURL       string   `json:"image_url"`
	Photos         []string `json:"photos"`
	Spaces         []Space  `json:"spaces"`
}

// Space is a single rentable unit; a booked night is gone for every other booking.
type Space struct {
	ID           int64         `json:"id"`
	Name         string        `json:"name"`
	SpaceType    string        `json:"space_type"`
	MaxGuests    int           `json:"max_guests"`
	FromPrice    int64         `json:"from_price"` // minor units
	Currency     string        `json:"currency"`
	Photos       []string      `json:"photos"`
	Availability []SpaceNights `json:"availability"`
}

// SpaceNights makes nights Start..End inclusive bookable at Price per night.
type SpaceNights struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Price int64  `json:"price"` // minor units
}

// Package is a fixed-departure or open-date package.
type Package struct {
	ID                  int64          `json:"id"`
	Name                string         `json:"name"`
	City                string         `json:"city"`
	Country             string         `json:"country"`
	Description         string         `json:"description"`
	DurationNights      int            `json:"duration_nights"`
	InstantConfirmation bool           `json:"instant_confirmation"`
	Currency            string         `json:"currency"`
	ImageURL            string         `json:"image_url"`
	Photos              []string       `json:"photos"`
	Itinerary           []ItineraryDay `json:"itinerary"`
	Addons              []Addon        `json:"addons"`
	Kind                string         `json:"kind"`                   // PackageFixed or PackageOpen
	Departures          []Departure    `json:"departures,omitempty"`   // fixed
	TravelDates         []ActivityDays `json:"travel_dates,omitempty"` // open: capacity per day
	Pricing             *PersonPrices  `json:"pricing,omitempty"`      // open
}

// Package kinds (catalog-format.md).
const (
	PackageFixed = "fixed" // sold by departures, each with its own seats and prices
	PackageOpen  = "open"  // sold for any travel date in its travel_dates, at one price list
)

// ItineraryDay is one day of a package's programme.
type ItineraryDay struct {
	Day         int    `json:"day"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// Addon is an optional extra priced per person (adults and children; infants free).
type Addon struct {
	ID             int64  `json:"id"`
	Name           string `json:"name"`
	PricePerPerson int64  `json:"price_per_person"` // minor units
}

// Departure is one dated departure of a fixed package.
type Departure struct {
	ID       int64        `json:"id"`
	Date     string       `json:"date"`
	Capacity int          `json:"capacity"`
	Pricing  PersonPrices `json:"pricing"`
}
