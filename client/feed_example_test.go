package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tradewind/tradewind/client"
)

// ExampleClient_Events catches up on the event feed from a stored cursor: after a
// restart it resumes exactly where it stopped.
func ExampleClient_Events() {
	baseURL, key, stop := demoServer()
	defer stop()
	ctx := context.Background()
	c := client.New(baseURL, key)
	book := func(ref string) {
		q := client.Quote{ProductType: client.ProductActivity, ActivityID: 2001, Date: day(3), Adults: 1}
		if _, err := c.Book(ctx, &client.BookRequest{Quote: q, PartnerReference: ref, Guest: client.Guest{Name: "Ana Silva"}}); err != nil {
			log.Fatal(err)
		}
	}
	catchUp := func(cursor string) string {
		for ev, err := range c.Events(ctx, cursor, client.WithEventTypes(client.EventBookingConfirmed)) {
			if err != nil {
				log.Fatal(err)
			}
			b, err := ev.BookingEvent()
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println(ev.Type, b.Booking.PartnerReference, "test:", b.Booking.Test)
			cursor = ev.ID // persist it with what the event changed
		}
		return cursor
	}

	book("PO-1")
	book("PO-2")
	cursor := catchUp("") // "" reads from the oldest event kept (30 days)
	book("PO-3")
	fmt.Println("-- resumed")
	catchUp(cursor)
	// Output:
	// booking.confirmed PO-1 test: true
	// booking.confirmed PO-2 test: true
	// -- resumed
	// booking.confirmed PO-3 test: true
}
