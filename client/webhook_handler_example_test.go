package client_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/tradewind/tradewind/client"
)

// signedDelivery builds a delivery as Tradewind sends it: X-Partner-Signature made with
// secret and, when next is not empty, X-Partner-Signature-Next made with next (a roll).
func signedDelivery(secret, next, id, typ, data string) *http.Request {
	body := []byte(`{"id":"` + id + `","type":"` + typ + `","created_at":"2027-01-04T09:31:12Z","partner":"acme","data":` + data + `}`)
	ts := time.Now().Unix()
	r := httptest.NewRequest(http.MethodPost, "/tradewind/events", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(client.HeaderEvent, typ)
	r.Header.Set(client.HeaderEventID, id)
	r.Header.Set(client.HeaderTimestamp, strconv.FormatInt(ts, 10))
	r.Header.Set(client.HeaderSignature, client.SignWebhook(secret, ts, body))
	if next != "" {
		r.Header.Set(client.HeaderSignatureNext, client.SignWebhook(next, ts, body))
	}
	return r
}

func serve(h http.Handler, r *http.Request) int {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

// ExampleWebhookHandler is a complete webhook receiver: signature, timestamp, duplicates
// and typed dispatch are the handler's; the partner writes only what each event means.
func ExampleWebhookHandler() {
	const secret = "whsec_example" // returned once by POST /webhooks

	receiver := &client.WebhookHandler{Secrets: []string{secret},
		OnBookingConfirmed: func(ctx context.Context, e *client.BookingEvent) error {
			fmt.Println("confirmed", e.Booking.Reference, e.Booking.TotalPrice, e.Booking.Currency, "test:", e.Booking.Test)
			return nil
		},
		OnBookingCancelled: func(ctx context.Context, e *client.BookingEvent) error {
			fmt.Println("cancelled", e.Booking.Reference, "because", e.Booking.Reason)
			return nil
		},
		OnAvailabilityChanged: func(ctx context.Context, e *client.AvailabilityEvent) error {
			fmt.Println("re-read availability of", e.Availability.ProductType, e.Availability.ItemID, "from", e.Availability.Start)
			return nil
		},
	}
	// In a program: http.Handle("/tradewind/events", receiver); http.ListenAndServe(…)

	confirmed := `{"reference":"HTL-7K2M9Q4X","partner_reference":"PO-1","status":"confirmed","total_price":240.1,"currency":"EUR","test":true,"product_type":"hotel"}`
	fmt.Println(serve(receiver, signedDelivery(secret, "", "evt_1", "booking.confirmed", confirmed)))
	fmt.Println(serve(receiver, signedDelivery(secret, "", "evt_1", "booking.confirmed", confirmed))) // a retry: acknowledged, not processed
	fmt.Println(serve(receiver, signedDelivery(secret, "", "evt_2", "availability.changed",
		`{"product_type":"hotel","item_id":1001,"start":"2027-03-01","end":"2027-03-03"}`)))
	fmt.Println(serve(receiver, signedDelivery("whsec_forged", "", "evt_3", "booking.confirmed", confirmed)))

	// During a secret roll the old secret signs X-Partner-Signature and the new one
	// X-Partner-Signature-Next; a receiver that already switched to the new secret accepts it.
	switched := &client.WebhookHandler{Secrets: []string{"whsec_new"},
		OnBookingCancelled: receiver.OnBookingCancelled}
	fmt.Println(serve(switched, signedDelivery(secret, "whsec_new", "evt_4", "booking.cancelled",
		`{"reference":"HTL-7K2M9Q4X","status":"cancelled","reason":"supplier_rejected","cancelled_at":"2027-01-05T14:02:09Z"}`)))
	// Output:
	// confirmed HTL-7K2M9Q4X 240.1 EUR test: true
	// 204
	// 200
	// re-read availability of hotel 1001 from 2027-03-01
	// 204
	// 401
	// cancelled HTL-7K2M9Q4X because supplier_rejected
	// 204
}
