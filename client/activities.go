package client

import (
	"context"
	"net/http"
	"strconv"
)

// PersonPricing is a price per person in the partner's pricing mode.
type PersonPricing struct {
	Adult    Amount `json:"adult"`
	Child    Amount `json:"child"`
	Infant   Amount `json:"infant"`
	Currency string `json:"currency"`
}

// ActivitySearchRequest is the body of POST /activities/search; zero values take the
// server's defaults (2 adults).
type ActivitySearchRequest struct {
	Destination string `json:"destination,omitempty"` // required
	Date        string `json:"date"`
	Adults      int    `json:"adults,omitempty"`
	Children    int    `json:"children,omitempty"`
	Infants     int    `json:"infants,omitempty"`  // infants take no seat
	Category    string `json:"category,omitempty"` // only this category, case-insensitive
	Page        int    `json:"page,omitempty"`
	PerPage     int    `json:"per_page,omitempty"`
}

// ActivityHit is one activity search result, priced for the whole party.
type ActivityHit struct {
	ActivityID          int64   `json:"activity_id"`
	Name                string  `json:"name"`
	Category            string  `json:"category"`
	City                string  `json:"city"`
	DurationHours       float64 `json:"duration_hours"`
	ImageURL            string  `json:"image_url"`
	InstantConfirmation bool    `json:"instant_confirmation"`
	SeatsAvailable      int     `json:"seats_available"`
	FromPrice           Amount  `json:"from_price"`
	Currency            string  `json:"currency"`
}

// ActivitySearchResult is the answer of an activity search: one page of hits, cheapest first.
type ActivitySearchResult struct {
	Destination string        `json:"destination"`
	Date        string        `json:"date"`
	Adults      int           `json:"adults"`
	Children    int           `json:"children"`
	Infants     int           `json:"infants"`
	Category    string        `json:"category"` // "" when none was given
	PricingMode string        `json:"pricing_mode"`
	Activities  []ActivityHit `json:"activities"`
	Page        Page          `json:"-"`
	// Hint is the server's words when the answer is empty for a reason a person should
	// know (a city with nothing of this product; a party no room takes); "" otherwise.
	// For people, not programs: the text may change.
	Hint string `json:"-"`
}

// SearchActivities searches the activities of a destination with seats on a date
// (POST /activities/search).
func (c *Client) SearchActivities(ctx context.Context, req *ActivitySearchRequest) (*ActivitySearchResult, error) {
	var out ActivitySearchResult
	return orNil(&out, c.readHinted(ctx, http.MethodPost, "/activities/search", req, &out, &out.Page, &out.Hint))
}

// Activity is the catalog record of an activity (GET /activities/{id}).
type Activity struct {
	ID                  int64         `json:"id"`
	Type                string        `json:"type"` // "activity"
	Name                string        `json:"name"`
	Category            string        `json:"category"`
	City                string        `json:"city"`
	Description         string        `json:"description"`
	DurationHours       float64       `json:"duration_hours"`
	Languages           []string      `json:"languages"`
	InstantConfirmation bool          `json:"instant_confirmation"`
	Currency            string        `json:"currency"`
	ImageURL            string        `json:"image_url"`
	Photos              []string      `json:"photos"`
	Pricing             PersonPricing `json:"pricing"`
}

// GetActivity reads an activity's record (GET /activities/{id}).
func (c *Client) GetActivity(ctx context.Context, id int64) (*Activity, error) {
	var out Activity
	return orNil(&out, c.read(ctx, http.MethodGet, "/activities/"+strconv.FormatInt(id, 10), nil, &out, nil))
}

// ActivityAvailabilityRequest is the body of POST /activities/availability; zero values
// take the server's defaults (1 adult).
type ActivityAvailabilityRequest struct {
	ActivityID int64  `json:"activity_id"`
	Date       string `json:"date"`
	Adults     int    `json:"adults,omitempty"`
	Children   int    `json:"children,omitempty"`
	Infants    int    `json:"infants,omitempty"`
}

// ActivityAvailability tells whether an activity has seats for a party on a date, and
// prices the party.
type ActivityAvailability struct {
	ActivityID          int64         `json:"activity_id"`
	Date                string        `json:"date"`
	Adults              int           `json:"adults"`
	Children            int           `json:"children"`
	Infants             int           `json:"infants"`
	Available           bool          `json:"available"`
	SeatsAvailable      int           `json:"seats_available"`
	InstantConfirmation bool          `json:"instant_confirmation"`
	Pricing             PersonPricing `json:"pricing"`
	TotalPrice          Amount        `json:"total_price"`
	Currency            string        `json:"currency"`
	PricingMode         string        `json:"pricing_mode"`
}

// ActivityAvailability reads an activity's seats and price for a party on a date
// (POST /activities/availability).
func (c *Client) ActivityAvailability(ctx context.Context, req *ActivityAvailabilityRequest) (*ActivityAvailability, error) {
	var out ActivityAvailability
	return orNil(&out, c.read(ctx, http.MethodPost, "/activities/availability", req, &out, nil))
}
