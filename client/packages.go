package client

import (
	"context"
	"net/http"
	"strconv"
)

// Package kinds.
const (
	PackageFixed = "fixed" // PackageFixed is sold by dated departures; book it with a DepartureID.
	PackageOpen  = "open"  // PackageOpen is sold for any travel date of its TravelDates; book it with a TravelDate.
)

// PackageSearchRequest is the body of POST /packages/search; zero values take the
// server's defaults (2 adults, travel dates from today through 500 days ahead).
type PackageSearchRequest struct {
	Destination string `json:"destination,omitempty"` // required
	DateFrom    string `json:"date_from,omitempty"`
	DateTo      string `json:"date_to,omitempty"`
	Adults      int    `json:"adults,omitempty"`
	Children    int    `json:"children,omitempty"`
	Infants     int    `json:"infants,omitempty"`
	Page        int    `json:"page,omitempty"`
	PerPage     int    `json:"per_page,omitempty"`
}

// PackageHit is one package search result, at its cheapest option in the window for the
// whole party without add-ons.
type PackageHit struct {
	PackageID           int64  `json:"package_id"`
	Name                string `json:"name"`
	City                string `json:"city"`
	Country             string `json:"country"`
	Kind                string `json:"kind"` // PackageFixed or PackageOpen
	DurationNights      int    `json:"duration_nights"`
	ImageURL            string `json:"image_url"`
	InstantConfirmation bool   `json:"instant_confirmation"`
	DepartureID         *int64 `json:"departure_id"` // nil for an open package
	TravelDate          string `json:"travel_date"`
	FromPrice           Amount `json:"from_price"`
	Currency            string `json:"currency"`
}

// PackageSearchResult is the answer of a package search: one page of hits, cheapest first.
type PackageSearchResult struct {
	Destination string       `json:"destination"`
	DateFrom    string       `json:"date_from"`
	DateTo      string       `json:"date_to"`
	Adults      int          `json:"adults"`
	Children    int          `json:"children"`
	Infants     int          `json:"infants"`
	PricingMode string       `json:"pricing_mode"`
	Packages    []PackageHit `json:"packages"`
	Page        Page         `json:"-"`
	// Hint is the server's words when the answer is empty for a reason a person should
	// know (a city with nothing of this product; a party no room takes); "" otherwise.
	// For people, not programs: the text may change.
	Hint string `json:"-"`
}

// SearchPackages searches the packages of a destination with seats in a window of travel
// dates (POST /packages/search).
func (c *Client) SearchPackages(ctx context.Context, req *PackageSearchRequest) (*PackageSearchResult, error) {
	var out PackageSearchResult
	return orNil(&out, c.readHinted(ctx, http.MethodPost, "/packages/search", req, &out, &out.Page, &out.Hint))
}

// Package is the catalog record of a package (GET /packages/{id}). A fixed package lists
// its upcoming Departures; an open package its TravelDates and Pricing.
type Package struct {
	ID                  int64              `json:"id"`
	Type                string             `json:"type"` // "package"
	Name                string             `json:"name"`
	City                string             `json:"city"`
	Country             string             `json:"country"`
	Description         string             `json:"description"`
	DurationNights      int                `json:"duration_nights"`
	Kind                string             `json:"kind"`
	InstantConfirmation bool               `json:"instant_confirmation"`
	Currency            string             `json:"currency"`
	ImageURL            string             `json:"image_url"`
	Photos              []string           `json:"photos"`
	Itinerary           []ItineraryDay     `json:"itinerary"`
	Addons              []PackageAddon     `json:"addons"`
	Departures          []PackageDeparture `json:"departures"`
	TravelDates         []DateRange        `json:"travel_dates"`
	Pricing             *PersonPricing     `json:"pricing"` // nil for a fixed package
}

// ItineraryDay is one day of a package's programme.
type ItineraryDay struct {
	Day         int    `json:"day"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// PackageAddon is an optional extra of a package, priced per person (infants free).
type PackageAddon struct {
	ID             int64  `json:"id"`
	Name           string `json:"name"`
	PricePerPerson Amount `json:"price_per_person"`
	Currency       string `json:"currency"`
}

// PackageDeparture is an upcoming departure of a fixed package.
type PackageDeparture struct {
	ID        int64         `json:"id"`
	Date      string        `json:"date"`
	EndDate   string        `json:"end_date"`
	SeatsLeft int           `json:"seats_left"`
	Pricing   PersonPricing `json:"pricing"`
}

// DateRange is an inclusive range of dates.
type DateRange struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// GetPackage reads a package's record (GET /packages/{id}).
func (c *Client) GetPackage(ctx context.Context, id int64) (*Package, error) {
	var out Package
	return orNil(&out, c.read(ctx, http.MethodGet, "/packages/"+strconv.FormatInt(id, 10), nil, &out, nil))
}

// PackageAvailabilityRequest is the body of POST /packages/availability: one option
// (DepartureID of a fixed package or TravelDate of an open one), the party and add-ons.
type PackageAvailabilityRequest struct {
	PackageID   int64   `json:"package_id"`
	DepartureID int64   `json:"departure_id,omitempty"`
	TravelDate  string  `json:"travel_date,omitempty"`
	Adults      int     `json:"adults,omitempty"`
	Children    int     `json:"children,omitempty"`
	Infants     int     `json:"infants,omitempty"`
	AddonIDs    []int64 `json:"addon_ids,omitempty"`
}

// AddonLine is an add-on priced for a party.
type AddonLine struct {
	ID             int64  `json:"id"`
	Name           string `json:"name"`
	PricePerPerson Amount `json:"price_per_person"`
	Persons        int    `json:"persons"` // adults and children; infants are free
	TotalPrice     Amount `json:"total_price"`
	Currency       string `json:"currency"`
}

// PackageAvailability is a priced preview of a package option for a party and add-ons.
type PackageAvailability struct {
	PackageID           int64         `json:"package_id"`
	Kind                string        `json:"kind"`
	DepartureID         *int64        `json:"departure_id"` // nil for an open package
	TravelDate          string        `json:"travel_date"`
	EndDate             string        `json:"end_date"`
	DurationNights      int           `json:"duration_nights"`
	Adults              int           `json:"adults"`
	Children            int           `json:"children"`
	Infants             int           `json:"infants"`
	Available           bool          `json:"available"`
	SeatsLeft           int           `json:"seats_left"`
	InstantConfirmation bool          `json:"instant_confirmation"`
	Pricing             PersonPricing `json:"pricing"`
	PackagePrice        Amount        `json:"package_price"` // the party without add-ons
	Addons              []AddonLine   `json:"addons"`
	TotalPrice          Amount        `json:"total_price"`
	Currency            string        `json:"currency"`
	PricingMode         string        `json:"pricing_mode"`
}

// PackageAvailability prices a package option for a party and add-ons
// (POST /packages/availability).
func (c *Client) PackageAvailability(ctx context.Context, req *PackageAvailabilityRequest) (*PackageAvailability, error) {
	var out PackageAvailability
	return orNil(&out, c.read(ctx, http.MethodPost, "/packages/availability", req, &out, nil))
}
