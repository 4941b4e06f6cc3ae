package client

import (
	"context"
	"net/http"
	"strconv"
)

// HotelSearchRequest is the body of POST /hotels/search. Zero values are left out, so the
// server's defaults apply (2 adults, 0 children, 1 room, page 1 of 25).
type HotelSearchRequest struct {
	Destination     string `json:"destination,omitempty"` // a city, case-insensitive; required
	CheckIn         string `json:"check_in"`              // YYYY-MM-DD
	CheckOut        string `json:"check_out"`             // YYYY-MM-DD, 1–30 nights later
	Adults          int    `json:"adults,omitempty"`
	Children        int    `json:"children,omitempty"`
	Rooms           int    `json:"rooms,omitempty"`
	ChildAges       []int  `json:"child_ages,omitempty"`       // exactly Children ages, 0–17
	NationalityCode string `json:"nationality_code,omitempty"` // ISO country code: a market rate where the hotel has one
	Page            int    `json:"page,omitempty"`
	PerPage         int    `json:"per_page,omitempty"`
}

// HotelHit is one hotel search result, at its cheapest room type for the whole stay.
type HotelHit struct {
	HotelID             int64  `json:"hotel_id"`
	Name                string `json:"name"`
	City                string `json:"city"`
	Country             string `json:"country"`
	StarRating          int    `json:"star_rating"`
	ImageURL            string `json:"image_url"`
	BoardType           string `json:"board_type"`
	Refundable          bool   `json:"refundable"`
	InstantConfirmation bool   `json:"instant_confirmation"`
	FromPrice           Amount `json:"from_price"` // the whole stay, all rooms
	Currency            string `json:"currency"`
}

// HotelSearchResult is the answer of a hotel search: one page of hits, cheapest first.
type HotelSearchResult struct {
	Destination string     `json:"destination"`
	CheckIn     string     `json:"check_in"`
	CheckOut    string     `json:"check_out"`
	Nights      int        `json:"nights"`
	PricingMode string     `json:"pricing_mode"`
	Hotels      []HotelHit `json:"hotels"`
	Page        Page       `json:"-"` // the answer's meta
	// Hint is the server's words when the answer is empty for a reason a person should
	// know (a city with nothing of this product; a party no room takes); "" otherwise.
	// For people, not programs: the text may change.
	Hint string `json:"-"`
}

// SearchHotels searches the hotels of a destination available for a stay (POST /hotels/search).
func (c *Client) SearchHotels(ctx context.Context, req *HotelSearchRequest) (*HotelSearchResult, error) {
	var out HotelSearchResult
	return orNil(&out, c.readHinted(ctx, http.MethodPost, "/hotels/search", req, &out, &out.Page, &out.Hint))
}

// Hotel is the catalog record of a hotel (GET /hotels/{id}).
type Hotel struct {
	ID                  int64          `json:"id"`
	Type                string         `json:"type"` // "hotel"
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
	FromPrice           Amount         `json:"from_price"` // indicative, per night
	Rooms               []HotelRoom    `json:"rooms"`
}

// HotelRoom is a room type of a hotel record.
type HotelRoom struct {
	ID            int64  `json:"id"`
	Name          string `json:"name"`
	BoardType     string `json:"board_type"`
	MaxAdults     int    `json:"max_adults"`
	MaxChildren   int    `json:"max_children"`
	Refundable    bool   `json:"refundable"`
	PricePerNight Amount `json:"price_per_night"`
	Currency      string `json:"currency"`
}

// GetHotel reads a hotel's record (GET /hotels/{id}).
func (c *Client) GetHotel(ctx context.Context, id int64) (*Hotel, error) {
	var out Hotel
	return orNil(&out, c.read(ctx, http.MethodGet, "/hotels/"+strconv.FormatInt(id, 10), nil, &out, nil))
}

// HotelAvailabilityRequest is the body of POST /hotels/availability; zero values take the
// server's defaults.
type HotelAvailabilityRequest struct {
	HotelID         int64  `json:"hotel_id"`
	CheckIn         string `json:"check_in"`
	CheckOut        string `json:"check_out"`
	Adults          int    `json:"adults,omitempty"`
	Children        int    `json:"children,omitempty"`
	Rooms           int    `json:"rooms,omitempty"`
	ChildAges       []int  `json:"child_ages,omitempty"`
	NationalityCode string `json:"nationality_code,omitempty"`
}

// RoomOffer is a room type available for the whole stay.
type RoomOffer struct {
	RoomID     int64  `json:"room_id"`
	Name       string `json:"name"`
	BoardType  string `json:"board_type"`
	Refundable bool   `json:"refundable"`
	Nights     int    `json:"nights"`
	Rooms      int    `json:"rooms"`
	TotalPrice Amount `json:"total_price"` // the whole stay, all rooms
	Currency   string `json:"currency"`
}

// HotelAvailability is a hotel's live availability for a stay.
type HotelAvailability struct {
	HotelID        int64       `json:"hotel_id"`
	CheckIn        string      `json:"check_in"`
	CheckOut       string      `json:"check_out"`
	Nights         int         `json:"nights"`
	AvailableRooms []RoomOffer `json:"available_rooms"` // cheapest first; empty when none
	PricingMode    string      `json:"pricing_mode"`
	// Hint is the server's words when the answer is empty for a reason a person should
	// know (a city with nothing of this product; a party no room takes); "" otherwise.
	// For people, not programs: the text may change.
	Hint string `json:"-"`
}

// HotelAvailability reads a hotel's room types available for a stay (POST /hotels/availability).
func (c *Client) HotelAvailability(ctx context.Context, req *HotelAvailabilityRequest) (*HotelAvailability, error) {
	var out HotelAvailability
	return orNil(&out, c.readHinted(ctx, http.MethodPost, "/hotels/availability", req, &out, nil, &out.Hint))
}
