package client

import (
	"context"
	"net/http"
	"strconv"
)

// RentalSearchRequest is the body of POST /rentals/search; zero values take the server's
// defaults (1 guest).
type RentalSearchRequest struct {
	Destination string `json:"destination,omitempty"` // required
	CheckIn     string `json:"check_in"`
	CheckOut    string `json:"check_out"`
	Guests      int    `json:"guests,omitempty"`
	Page        int    `json:"page,omitempty"`
	PerPage     int    `json:"per_page,omitempty"`
}

// RentalHit is one rental search result, at its cheapest free space for the whole stay.
type RentalHit struct {
	RentalID        int64  `json:"rental_id"`
	Name            string `json:"name"`
	PropertyType    string `json:"property_type"`
	City            string `json:"city"`
	ImageURL        string `json:"image_url"`
	InstantBooking  bool   `json:"instant_booking"`
	AvailableSpaces int    `json:"available_spaces"`
	FromPrice       Amount `json:"from_price"`
	Currency        string `json:"currency"`
}

// RentalSearchResult is the answer of a rental search: one page of hits, cheapest first.
type RentalSearchResult struct {
	Destination string      `json:"destination"`
	CheckIn     string      `json:"check_in"`
	CheckOut    string      `json:"check_out"`
	Nights      int         `json:"nights"`
	Guests      int         `json:"guests"`
	PricingMode string      `json:"pricing_mode"`
	Rentals     []RentalHit `json:"rentals"`
	Page        Page        `json:"-"`
	// Hint is the server's words when the answer is empty for a reason a person should
	// know (a city with nothing of this product; a party no room takes); "" otherwise.
	// For people, not programs: the text may change.
	Hint string `json:"-"`
}

// SearchRentals searches the rental properties of a destination with a space free for a
// stay (POST /rentals/search).
func (c *Client) SearchRentals(ctx context.Context, req *RentalSearchRequest) (*RentalSearchResult, error) {
	var out RentalSearchResult
	return orNil(&out, c.readHinted(ctx, http.MethodPost, "/rentals/search", req, &out, &out.Page, &out.Hint))
}

// Rental is the catalog record of a rental property (GET /rentals/{id}).
type Rental struct {
	ID             int64         `json:"id"`
	Type           string        `json:"type"` // "rental"
	Name           string        `json:"name"`
	PropertyType   string        `json:"property_type"`
	City           string        `json:"city"`
	CheckInTime    string        `json:"check_in_time"`   // HH:MM
	CheckOutTime   string        `json:"check_out_time"`  // HH:MM
	InstantBooking bool          `json:"instant_booking"` // false: bookings are pending until the host accepts
	Currency       string        `json:"currency"`
	ImageURL       string        `json:"image_url"`
	Photos         []string      `json:"photos"`
	Spaces         []RentalSpace `json:"spaces"`
}

// RentalSpace is a bookable space of a rental property.
type RentalSpace struct {
	ID        int64    `json:"id"`
	Name      string   `json:"name"`
	SpaceType string   `json:"space_type"`
	MaxGuests int      `json:"max_guests"`
	FromPrice Amount   `json:"from_price"` // indicative, per night
	Currency  string   `json:"currency"`
	Photos    []string `json:"photos"`
}

// GetRental reads a rental property's record (GET /rentals/{id}).
func (c *Client) GetRental(ctx context.Context, id int64) (*Rental, error) {
	var out Rental
	return orNil(&out, c.read(ctx, http.MethodGet, "/rentals/"+strconv.FormatInt(id, 10), nil, &out, nil))
}

// RentalAvailabilityRequest is the body of POST /rentals/availability; zero values take
// the server's defaults (1 guest).
type RentalAvailabilityRequest struct {
	RentalID int64  `json:"rental_id"`
	CheckIn  string `json:"check_in"`
	CheckOut string `json:"check_out"`
	Guests   int    `json:"guests,omitempty"`
}

// SpaceOffer is a space free for the whole stay.
type SpaceOffer struct {
	SpaceID    int64  `json:"space_id"`
	Name       string `json:"name"`
	SpaceType  string `json:"space_type"`
	MaxGuests  int    `json:"max_guests"`
	Nights     int    `json:"nights"`
	TotalPrice Amount `json:"total_price"` // the whole stay
	Currency   string `json:"currency"`
}

// RentalAvailability is a rental property's live availability for a stay.
type RentalAvailability struct {
	RentalID        int64        `json:"rental_id"`
	CheckIn         string       `json:"check_in"`
	CheckOut        string       `json:"check_out"`
	Nights          int          `json:"nights"`
	Guests          int          `json:"guests"`
	InstantBooking  bool         `json:"instant_booking"`
	AvailableSpaces []SpaceOffer `json:"available_spaces"` // cheapest first; empty when none
	PricingMode     string       `json:"pricing_mode"`
	// Hint is the server's words when no space takes the guests (it names the largest);
	// "" otherwise. For people, not programs: the text may change.
	Hint string `json:"-"`
}

// RentalAvailability reads a rental property's spaces free for a stay (POST /rentals/availability).
func (c *Client) RentalAvailability(ctx context.Context, req *RentalAvailabilityRequest) (*RentalAvailability, error) {
	var out RentalAvailability
	return orNil(&out, c.readHinted(ctx, http.MethodPost, "/rentals/availability", req, &out, nil, &out.Hint))
}
