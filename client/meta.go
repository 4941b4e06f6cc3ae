package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Product types.
const (
	ProductHotel    = "hotel"    // ProductHotel is a hotel room stay.
	ProductActivity = "activity" // ProductActivity is a day activity.
	ProductRental   = "rental"   // ProductRental is a space of a rental property.
	ProductPackage  = "package"  // ProductPackage is a fixed-departure or open-date package.
)

// Booking states.
const (
	StatusConfirmed = "confirmed"  // StatusConfirmed is a booking the supplier has confirmed.
	StatusPending   = "pending"    // StatusPending is a rental booking awaiting the host.
	StatusOnRequest = "on_request" // StatusOnRequest is a booking awaiting the supplier.
	StatusCancelled = "cancelled"  // StatusCancelled is a cancelled or rejected booking.
	StatusCompleted = "completed"  // StatusCompleted is a confirmed booking whose service has ended.
)

// Page is the pagination block of a list or search answer.
type Page struct {
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
	Total      int `json:"total"`       // items in all pages
	TotalPages int `json:"total_pages"` // 0 when there is none
}

// Ping is the answer of GET /meta/ping: who the key belongs to and what it may do.
type Ping struct {
	Partner     string    `json:"partner"`
	Status      string    `json:"status"`       // active or blocked
	PricingMode string    `json:"pricing_mode"` // net or markup
	Mode        string    `json:"mode"`         // test or live
	Sandbox     bool      `json:"sandbox"`      // true for a test key
	Products    []string  `json:"products"`     // the product types the key enables
	Scopes      []string  `json:"scopes"`
	ServerTime  time.Time `json:"server_time"`
	// KeyExpiresAt is when the key stops working; nil when it does not expire.
	KeyExpiresAt *time.Time `json:"key_expires_at"`
}

// Ping verifies the credentials (GET /meta/ping).
func (c *Client) Ping(ctx context.Context) (*Ping, error) {
	var out Ping
	return orNil(&out, c.read(ctx, http.MethodGet, "/meta/ping", nil, &out, nil))
}

// Credit is the partner's credit line (GET /meta/credit).
type Credit struct {
	Currency    string `json:"currency"`
	CreditLimit Amount `json:"credit_limit"`
	Available   Amount `json:"available"`
	Utilized    Amount `json:"utilized"`
	Blocked     bool   `json:"blocked"` // the account is on hold
}

// Credit reads the credit line (GET /meta/credit).
func (c *Client) Credit(ctx context.Context) (*Credit, error) {
	var out Credit
	return orNil(&out, c.read(ctx, http.MethodGet, "/meta/credit", nil, &out, nil))
}

// read runs a call without side effects, so safe to retry, decoding its data into out
// and its meta into meta (nil: ignored).
func (c *Client) read(ctx context.Context, method, path string, body, out, meta any) error {
	return c.readHinted(ctx, method, path, body, out, meta, nil)
}

// readHinted is read that also sets *hint, when hint is not nil, to the answer's message
// (the server's words on an empty search or availability; "" when null).
func (c *Client) readHinted(ctx context.Context, method, path string, body, out, meta any, hint *string) error {
	res, err := c.do(ctx, call{method: method, path: path, body: body, safe: true}, out, meta)
	if err == nil && hint != nil && res != nil && res.message != nil {
		*hint = *res.message
	}
	return err
}

// orNil returns v, or nil when err is not.
func orNil[T any](v *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// pagedPath is path with the query opts set and a list's page and perPage (0 leaves each
// to the server's default).
func pagedPath[O ~func(url.Values)](path string, opts []O, page, perPage int) string {
	q := url.Values{}
	for _, o := range opts {
		o(q)
	}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if perPage > 0 {
		q.Set("per_page", strconv.Itoa(perPage))
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return path
}
