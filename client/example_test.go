package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/tradewind/tradewind/client"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/store/sqlite"
)

// exampleDay is the date the examples' server lives on, so that their output is stable.
var exampleDay = time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC)

// demoServer starts the real partner API in-process over an in-memory SQLite database
// holding the demo catalog (its first 30 days) and a partner with 10 % markup pricing,
// on exampleDay. It returns the server's URL, a test key of the partner, and a func that
// stops it all.
func demoServer() (url, testKey string, stop func()) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	clock := apitest.NewClock(exampleDay)
	svc := booking.New(st, clock, nil)
	if _, err := svc.ImportCatalog(ctx, apitest.Demo(exampleDay, 30)); err != nil {
		log.Fatal(err)
	}
	mode, markup := "markup", "10"
	if _, err := svc.CreatePartner(ctx, "demo", booking.PartnerParams{PricingMode: &mode, MarkupPercent: &markup}); err != nil {
		log.Fatal(err)
	}
	_, key, err := svc.IssueKey(ctx, "demo", booking.KeyParams{Mode: "test"})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Config{Store: st, Service: svc, Clock: clock,
		Logger: slog.New(slog.DiscardHandler)}))
	return srv.URL, key, func() { srv.Close(); st.Close() }
}

// day returns the date n days after exampleDay.
func day(n int) string { return exampleDay.AddDate(0, 0, n).Format("2006-01-02") }

// The booking flow of a hotel: search, availability, prebook, book, read and cancel.
func Example() {
	baseURL, key, stop := demoServer()
	defer stop()
	ctx := context.Background()
	c := client.New(baseURL, key) // e.g. client.New("https://api.tradewind.example", os.Getenv("TRADEWIND_KEY"))

	ping, err := c.Ping(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("partner:", ping.Partner, "mode:", ping.Mode, "pricing:", ping.PricingMode)

	found, err := c.SearchHotels(ctx, &client.HotelSearchRequest{Destination: "Lisbon", CheckIn: day(7), CheckOut: day(9)})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range found.Hotels {
		fmt.Printf("%s from %s %s for %d nights\n", h.Name, h.FromPrice, h.Currency, found.Nights)
	}

	avail, err := c.HotelAvailability(ctx, &client.HotelAvailabilityRequest{HotelID: found.Hotels[0].HotelID, CheckIn: day(7), CheckOut: day(9)})
	if err != nil {
		log.Fatal(err)
	}
	room := avail.AvailableRooms[0]
	fmt.Printf("room %d %s: %s %s\n", room.RoomID, room.Name, room.TotalPrice, room.Currency)

	locked, err := c.Prebook(ctx, &client.Quote{ProductType: client.ProductHotel, HotelID: avail.HotelID, RoomID: room.RoomID,
		CheckIn: day(7), CheckOut: day(9), Rooms: 1, Adults: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("locked:", locked.TotalPrice, locked.Currency, "until", locked.ExpiresAt.Format(time.Kitchen), locked.CancellationPolicy)

	b, err := c.Book(ctx, &client.BookRequest{PrebookToken: locked.PrebookToken, PartnerReference: "PO-1001",
		Guest: client.Guest{Name: "Ana Silva", Email: "ana@example.com"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("booked:", strings.HasPrefix(b.Reference, "HTL-"), b.Status, b.TotalPrice, "test:", b.Test)

	got, err := c.GetBooking(ctx, b.Reference)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("read:", got.PartnerReference, got.Details.CheckIn, got.Details.CheckOut, got.Details.GuestName)

	cancelled, err := c.CancelBooking(ctx, b.Reference, "plans changed")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("cancelled:", cancelled.Status)
	// Output:
	// partner: demo mode: test pricing: markup
	// Alfama Garden Inn from 151.80 EUR for 2 nights
	// Casa do Rio from 264.00 EUR for 2 nights
	// room 100201 Small Double: 151.80 EUR
	// locked: 151.80 EUR until 9:15AM non_refundable
	// booked: true confirmed 151.80 test: true
	// read: PO-1001 2027-03-08 2027-03-10 Ana Silva
	// cancelled: cancelled
}

// Book sets a random Idempotency-Key when the request has none and reuses it on every
// retry; booking the same request again replays the first booking instead of making a
// second one.
func ExampleClient_Book() {
	baseURL, key, stop := demoServer()
	defer stop()
	ctx := context.Background()
	c := client.New(baseURL, key, client.WithRetry(5))

	req := &client.BookRequest{
		Quote: client.Quote{ProductType: client.ProductActivity, ActivityID: 2001, Date: day(3), Adults: 2, Children: 1},
		Guest: client.Guest{Name: "Ana Silva"},
	}
	first, err := c.Book(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	again, err := c.Book(ctx, req) // e.g. after a timeout whose answer was lost
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(first.Status, first.TotalPrice, first.Currency, "replayed:", first.Replayed)
	fmt.Println("same booking:", again.Reference == first.Reference, "replayed:", again.Replayed)
	// Output:
	// confirmed 165.00 EUR replayed: false
	// same booking: true replayed: true
}

// Errors of the API are *client.Error values; IsCode tells them apart.
func ExampleIsCode() {
	baseURL, key, stop := demoServer()
	defer stop()
	ctx := context.Background()
	c := client.New(baseURL, key)

	_, err := c.Prebook(ctx, &client.Quote{ProductType: client.ProductActivity, ActivityID: 2001, Date: day(3), Adults: 40})
	if client.IsCode(err, client.CodeBadRequest) {
		var e *client.Error
		if errors.As(err, &e) {
			fmt.Println(e.HTTPStatus, e.Code, e.Errors)
		}
	}
	_, err = c.Prebook(ctx, &client.Quote{ProductType: client.ProductActivity, ActivityID: 9999, Date: day(3), Adults: 2})
	fmt.Println("invalid quote:", client.IsCode(err, client.CodeInvalidQuote))
	// Output:
	// 400 bad_request [adults: 40 is outside 1–30]
	// invalid quote: true
}

// AllBookings walks every page of the partner's bookings, newest first.
func ExampleClient_AllBookings() {
	baseURL, key, stop := demoServer()
	defer stop()
	ctx := context.Background()
	c := client.New(baseURL, key)
	for _, id := range []int64{2001, 2003} {
		if _, err := c.Book(ctx, &client.BookRequest{Guest: client.Guest{Name: "Ana Silva"},
			Quote: client.Quote{ProductType: client.ProductActivity, ActivityID: id, Date: day(5), Adults: 1}}); err != nil {
			log.Fatal(err)
		}
	}
	for b, err := range c.AllBookings(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(b.Details.ActivityID, b.Status, b.TotalPrice)
	}
	// Output:
	// 2003 confirmed 51.70
	// 2001 confirmed 66.00
}
