package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Quote names and sizes what is priced: the body of a prebook and the quote fields of a
// direct booking. Fields a product does not use stay zero and are left out.
//
// Required by product: hotel — HotelID, RoomID, CheckIn, CheckOut, Rooms, Adults
// (ChildAges when Children > 0); activity — ActivityID, Date, Adults; rental — RentalID,
// SpaceID, CheckIn, CheckOut, Guests, Adults; package — PackageID, Adults, and DepartureID
// (fixed) or TravelDate (open), with Travellers on book.
type Quote struct {
	ProductType     string      `json:"product_type,omitempty"` // ProductHotel, ProductActivity, ProductRental or ProductPackage
	HotelID         int64       `json:"hotel_id,omitempty"`
	RoomID          int64       `json:"room_id,omitempty"`
	ActivityID      int64       `json:"activity_id,omitempty"`
	RentalID        int64       `json:"rental_id,omitempty"`
	SpaceID         int64       `json:"space_id,omitempty"`
	PackageID       int64       `json:"package_id,omitempty"`
	DepartureID     int64       `json:"departure_id,omitempty"`
	TravelDate      string      `json:"travel_date,omitempty"`
	AddonIDs        []int64     `json:"addon_ids,omitempty"`
	CheckIn         string      `json:"check_in,omitempty"`
	CheckOut        string      `json:"check_out,omitempty"`
	Date            string      `json:"date,omitempty"`
	Adults          int         `json:"adults,omitempty"`
	Children        int         `json:"children,omitempty"`
	Infants         int         `json:"infants,omitempty"`
	Rooms           int         `json:"rooms,omitempty"`
	Guests          int         `json:"guests,omitempty"`
	ChildAges       []int       `json:"child_ages,omitempty"`
	NationalityCode string      `json:"nationality_code,omitempty"`
	Travellers      []Traveller `json:"travellers,omitempty"` // packages only: every person of the party
}

// Traveller is one person of a package party.
type Traveller struct {
	Type        string `json:"type"` // adult, child (under 18) or infant (under 2)
	FirstName   string `json:"first_name"`
	LastName    string `json:"last_name"`
	BirthDate   string `json:"birth_date,omitempty"`  // required for children and infants
	Nationality string `json:"nationality,omitempty"` // ISO 3166-1 alpha-2
}

// PrebookResult is a price locked for 15 minutes.
type PrebookResult struct {
	PrebookToken        string    `json:"prebook_token"`
	ExpiresAt           time.Time `json:"expires_at"`
	ProductType         string    `json:"product_type"`
	TotalPrice          Amount    `json:"total_price"`
	Currency            string    `json:"currency"`
	InstantConfirmation bool      `json:"instant_confirmation"`
	CancellationPolicy  string    `json:"cancellation_policy"` // refundable, non_refundable, moderate or see_policy
}

// Prebook re-checks availability and locks the quote's price for 15 minutes
// (POST /bookings/prebook). It holds no inventory and has no other effect, so it is
// retried like a read; each successful attempt issues a new token.
func (c *Client) Prebook(ctx context.Context, q *Quote) (*PrebookResult, error) {
	var out PrebookResult
	return orNil(&out, c.read(ctx, http.MethodPost, "/bookings/prebook", q, &out, nil))
}

// Guest is the lead guest of a booking.
type Guest struct {
	Name            string `json:"name"`
	Email           string `json:"email,omitempty"`
	Phone           string `json:"phone,omitempty"`
	SpecialRequests string `json:"special_requests,omitempty"`
}

// BookRequest is the body of POST /bookings: a PrebookToken (the locked price) or the
// quote fields (re-priced), with the Guest.
type BookRequest struct {
	Quote
	PrebookToken     string `json:"prebook_token,omitempty"`
	Guest            Guest  `json:"guest"`
	PartnerReference string `json:"partner_reference,omitempty"` // your reference, unique among your bookings
	// IdempotencyKey identifies the booking attempt. When empty, Book sets a random one,
	// so that calling Book again with the same request replays it instead of booking twice.
	IdempotencyKey string `json:"-"`
}

// Booking is a booking as the partner sees it.
type Booking struct {
	Reference        string         `json:"reference"` // HTL-, ACT-, RNT- or PKG- and 8 characters
	PartnerReference string         `json:"partner_reference"`
	ProductType      string         `json:"product_type"`
	Status           string         `json:"status"` // StatusConfirmed, StatusPending, StatusOnRequest, StatusCancelled or StatusCompleted
	TotalPrice       Amount         `json:"total_price"`
	Currency         string         `json:"currency"`
	PricingMode      string         `json:"pricing_mode"`
	Test             bool           `json:"test"` // made with a test key
	Details          BookingDetails `json:"details"`
	CreatedAt        time.Time      `json:"created_at"`
	// Cancellation is why and when a cancelled booking ended; nil for every other status.
	Cancellation *BookingCancellation `json:"cancellation"`
}

// BookingCancellation is why and when a booking was cancelled.
type BookingCancellation struct {
	// Reason is the reason given to CancelBooking ("cancelled_by_partner" when none was),
	// or exactly "supplier_rejected" when the supplier refused a pending or on-request
	// booking (the supplier's note is in the booking.cancelled event).
	Reason      string    `json:"reason"`
	CancelledAt time.Time `json:"cancelled_at"`
}

// BookingDetails says what was booked; the fields set depend on the product type.
type BookingDetails struct {
	GuestName        string      `json:"guest_name"`
	HotelID          int64       `json:"hotel_id,omitempty"`
	RoomID           int64       `json:"room_id,omitempty"`
	Rooms            int         `json:"rooms,omitempty"`
	ActivityID       int64       `json:"activity_id,omitempty"`
	Date             string      `json:"date,omitempty"`
	RentalPropertyID int64       `json:"rental_property_id,omitempty"`
	SpaceID          int64       `json:"space_id,omitempty"`
	PackageID        int64       `json:"package_id,omitempty"`
	DepartureID      int64       `json:"departure_id,omitempty"`
	TravelDate       string      `json:"travel_date,omitempty"`
	AddonIDs         []int64     `json:"addon_ids,omitempty"`
	Travellers       []Traveller `json:"travellers,omitempty"`
	CheckIn          string      `json:"check_in,omitempty"`
	CheckOut         string      `json:"check_out,omitempty"`
	Nights           int         `json:"nights,omitempty"`
	Adults           int         `json:"adults,omitempty"`
	Children         int         `json:"children,omitempty"`
	Infants          int         `json:"infants,omitempty"`
	Guests           int         `json:"guests,omitempty"`
}

// BookResult is the answer of Book.
type BookResult struct {
	Booking
	// Replayed is true when an earlier request with the same Idempotency-Key had
	// created the booking (HTTP 200 instead of 201): nothing was booked or charged now.
	Replayed       bool
	IdempotencyKey string // the key that was sent
	Message        string // the API's message, e.g. "Booking HTL-7K2M9Q4X is confirmed."
}

// Book creates a booking (POST /bookings). It sends req.IdempotencyKey, first setting it to
// a random key when empty, and reuses it on every retry: a retry after a lost answer
// returns the booking the first attempt made instead of booking twice.
func (c *Client) Book(ctx context.Context, req *BookRequest) (*BookResult, error) {
	if req.IdempotencyKey == "" {
		req.IdempotencyKey = newIdempotencyKey()
	}
	var out BookResult
	res, err := c.do(ctx, call{method: http.MethodPost, path: "/bookings", body: req, safe: true,
		header: http.Header{HeaderIdempotencyKey: {req.IdempotencyKey}}}, &out.Booking, nil)
	if err != nil {
		return nil, err
	}
	out.Replayed, out.IdempotencyKey = res.status == http.StatusOK, req.IdempotencyKey
	if res.message != nil {
		out.Message = *res.message
	}
	return &out, nil
}

// GetBooking reads one of the partner's bookings (GET /bookings/{reference}).
func (c *Client) GetBooking(ctx context.Context, reference string) (*Booking, error) {
	var out Booking
	return orNil(&out, c.read(ctx, http.MethodGet, "/bookings/"+url.PathEscape(reference), nil, &out, nil))
}

// BookingList is one page of bookings, newest first.
type BookingList struct {
	Bookings []Booking
	Page     Page
}

// ListOption narrows ListBookings and AllBookings to the bookings matching a filter;
// several options must all match.
type ListOption func(url.Values)

// WithStatus keeps bookings in one state, or in any of several: StatusConfirmed,
// StatusPending, StatusOnRequest, StatusCancelled or StatusCompleted (a confirmed booking
// whose service has ended; WithStatus(StatusConfirmed) then excludes it).
func WithStatus(statuses ...string) ListOption {
	return func(q url.Values) { q.Set("status", strings.Join(statuses, ",")) }
}

// WithProductType keeps bookings of one product type (ProductHotel, …).
func WithProductType(p string) ListOption { return func(q url.Values) { q.Set("product_type", p) } }

// WithMode keeps test ("test") or live ("live") bookings.
func WithMode(mode string) ListOption { return func(q url.Values) { q.Set("mode", mode) } }

// CreatedBetween keeps bookings created from from to to. Each is a date (YYYY-MM-DD; to
// includes its whole day, UTC) or an RFC 3339 date-time (to excluded); "" leaves that end
// open.
func CreatedBetween(from, to string) ListOption {
	return func(q url.Values) { setIf(q, "created_from", from); setIf(q, "created_to", to) }
}

// ServiceBetween keeps bookings whose service period (first to last day, the check-out
// day for stays) overlaps the dates from..to (YYYY-MM-DD, inclusive); "" leaves that end open.
func ServiceBetween(from, to string) ListOption {
	return func(q url.Values) { setIf(q, "service_from", from); setIf(q, "service_to", to) }
}

// WithPartnerReference keeps the booking with this partner reference.
func WithPartnerReference(ref string) ListOption {
	return func(q url.Values) { q.Set("partner_reference", ref) }
}

// Matching keeps bookings whose reference, partner reference or guest name contains text
// (case-insensitive), as the portal's search box does.
func Matching(text string) ListOption { return func(q url.Values) { q.Set("q", text) } }

func setIf(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// ListBookings reads one page of the partner's bookings, test and live, newest first
// (GET /bookings), narrowed by opts; page and perPage of 0 take the server's defaults
// (1 and 25). Reconciling one day's live bookings is one call:
//
//	c.ListBookings(ctx, 1, 100, client.WithMode("live"), client.CreatedBetween("2027-01-04", "2027-01-04"))
func (c *Client) ListBookings(ctx context.Context, page, perPage int, opts ...ListOption) (*BookingList, error) {
	out := BookingList{Bookings: []Booking{}}
	return orNil(&out, c.read(ctx, http.MethodGet, pagedPath("/bookings", opts, page, perPage), nil, &out.Bookings, &out.Page))
}

// AllBookings iterates over all the partner's bookings matching opts, newest first,
// reading pages of 100 as it goes. A booking created meanwhile can shift the pages; none
// is yielded twice. On an error it yields the error once and stops.
func (c *Client) AllBookings(ctx context.Context, opts ...ListOption) iter.Seq2[Booking, error] {
	return func(yield func(Booking, error) bool) {
		seen := map[string]bool{}
		for page := 1; ; page++ {
			list, err := c.ListBookings(ctx, page, 100, opts...)
			if err != nil {
				yield(Booking{}, err)
				return
			}
			for _, b := range list.Bookings {
				if seen[b.Reference] {
					continue
				}
				seen[b.Reference] = true
				if !yield(b, nil) {
					return
				}
			}
			if page >= list.Page.TotalPages || len(list.Bookings) == 0 {
				return
			}
		}
	}
}

// Cancellation is the answer of CancelBooking.
type Cancellation struct {
	Reference string `json:"reference"`
	Status    string `json:"status"` // StatusCancelled
}

// CancelBooking cancels one of the partner's bookings, with an optional reason
// (POST /bookings/{reference}/cancel). A cancelled or completed booking gives an *Error
// with CodeNotCancellable. It is not retried after a network error: check with
// GetBooking instead.
func (c *Client) CancelBooking(ctx context.Context, reference, reason string) (*Cancellation, error) {
	var body any
	if reason != "" {
		body = map[string]string{"reason": reason}
	}
	var out Cancellation
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/bookings/" + url.PathEscape(reference) + "/cancel", body: body}, &out, nil)
	return orNil(&out, err)
}
