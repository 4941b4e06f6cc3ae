package client

import (
	"context"
	"net/http"
)

// CalendarDate is one check-in date of a calendar: whether anything is free for the
// stay from it, and the cheapest total (empty Amount when nothing is).
type CalendarDate struct {
	CheckIn    string `json:"check_in"`
	CheckOut   string `json:"check_out"` // CheckIn + the calendar's nights
	Available  bool   `json:"available"`
	TotalPrice Amount `json:"total_price"` // the cheapest unit's, whole stay (all rooms); "" when not Available
}

// HotelCalendarRequest is the body of POST /hotels/calendar: the party of a hotel
// availability and a range of check-in dates (From to To inclusive, at most 62).
// Zero values take the server's defaults (1 night, 2 adults, 1 room).
type HotelCalendarRequest struct {
	HotelID         int64  `json:"hotel_id"`
	From            string `json:"from"`
	To              string `json:"to"`
	Nights          int    `json:"nights,omitempty"`
	Adults          int    `json:"adults,omitempty"`
	Children        int    `json:"children,omitempty"`
	Rooms           int    `json:"rooms,omitempty"`
	ChildAges       []int  `json:"child_ages,omitempty"`
	NationalityCode string `json:"nationality_code,omitempty"`
}

// HotelCalendarDate is a hotel calendar's date, with the cheapest room type to prebook.
type HotelCalendarDate struct {
	CalendarDate
	RoomID int64 `json:"room_id"` // 0 when not Available
}

// HotelCalendar is a hotel priced for every check-in date of a range.
type HotelCalendar struct {
	HotelID     int64               `json:"hotel_id"`
	From        string              `json:"from"`
	To          string              `json:"to"`
	Nights      int                 `json:"nights"`
	Rooms       int                 `json:"rooms"`
	Currency    string              `json:"currency"`
	PricingMode string              `json:"pricing_mode"`
	Dates       []HotelCalendarDate `json:"dates"` // every date from From to To, in order
	// Hint is the server's words when no date has a room because none takes the party;
	// "" otherwise. For people, not programs: the text may change.
	Hint string `json:"-"`
}

// HotelCalendar prices a hotel for every check-in date from req.From to req.To, each
// at its cheapest room for req.Nights nights (POST /hotels/calendar).
func (c *Client) HotelCalendar(ctx context.Context, req *HotelCalendarRequest) (*HotelCalendar, error) {
	var out HotelCalendar
	return orNil(&out, c.readHinted(ctx, http.MethodPost, "/hotels/calendar", req, &out, nil, &out.Hint))
}

// RentalCalendarRequest is the body of POST /rentals/calendar: the guests of a rental
// availability and a range of check-in dates (From to To inclusive, at most 62). Zero
// values take the server's defaults (1 night, 1 guest).
type RentalCalendarRequest struct {
	RentalID int64  `json:"rental_id"`
	From     string `json:"from"`
	To       string `json:"to"`
	Nights   int    `json:"nights,omitempty"`
	Guests   int    `json:"guests,omitempty"`
}

// RentalCalendarDate is a rental calendar's date, with the cheapest space to prebook.
type RentalCalendarDate struct {
	CalendarDate
	SpaceID int64 `json:"space_id"` // 0 when not Available
}

// RentalCalendar is a rental property priced for every check-in date of a range.
type RentalCalendar struct {
	RentalID       int64                `json:"rental_id"`
	From           string               `json:"from"`
	To             string               `json:"to"`
	Nights         int                  `json:"nights"`
	Guests         int                  `json:"guests"`
	InstantBooking bool                 `json:"instant_booking"`
	Currency       string               `json:"currency"`
	PricingMode    string               `json:"pricing_mode"`
	Dates          []RentalCalendarDate `json:"dates"` // every date from From to To, in order
	// Hint is the server's words when no space takes the guests (it names the largest);
	// "" otherwise. For people, not programs: the text may change.
	Hint string `json:"-"`
}

// RentalCalendar prices a rental property for every check-in date from req.From to
// req.To, each at its cheapest space for req.Nights nights (POST /rentals/calendar).
func (c *Client) RentalCalendar(ctx context.Context, req *RentalCalendarRequest) (*RentalCalendar, error) {
	var out RentalCalendar
	return orNil(&out, c.readHinted(ctx, http.MethodPost, "/rentals/calendar", req, &out, nil, &out.Hint))
}

// ActivityCalendarRequest is the body of POST /activities/calendar: the party of an
// activity availability and a range of dates (From to To inclusive, at most 62). Zero
// values take the server's defaults (1 adult).
type ActivityCalendarRequest struct {
	ActivityID int64  `json:"activity_id"`
	From       string `json:"from"`
	To         string `json:"to"`
	Adults     int    `json:"adults,omitempty"`
	Children   int    `json:"children,omitempty"`
	Infants    int    `json:"infants,omitempty"`
}

// ActivityCalendarDate is one date of an activity calendar.
type ActivityCalendarDate struct {
	Date           string `json:"date"`
	Available      bool   `json:"available"` // the seats left take the party
	SeatsAvailable int    `json:"seats_available"`
}

// ActivityCalendar is an activity's seats for every date of a range. Its price is per
// person, the same on every date: TotalPrice is the party's on any of them.
type ActivityCalendar struct {
	ActivityID          int64                  `json:"activity_id"`
	From                string                 `json:"from"`
	To                  string                 `json:"to"`
	Adults              int                    `json:"adults"`
	Children            int                    `json:"children"`
	Infants             int                    `json:"infants"`
	InstantConfirmation bool                   `json:"instant_confirmation"`
	Pricing             PersonPricing          `json:"pricing"`
	TotalPrice          Amount                 `json:"total_price"`
	Currency            string                 `json:"currency"`
	PricingMode         string                 `json:"pricing_mode"`
	Dates               []ActivityCalendarDate `json:"dates"` // every date from From to To, in order
}

// ActivityCalendar reads an activity's seats for every date from req.From to req.To
// (POST /activities/calendar).
func (c *Client) ActivityCalendar(ctx context.Context, req *ActivityCalendarRequest) (*ActivityCalendar, error) {
	var out ActivityCalendar
	return orNil(&out, c.read(ctx, http.MethodPost, "/activities/calendar", req, &out, nil))
}
