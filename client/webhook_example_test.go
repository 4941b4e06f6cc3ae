package client_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"github.com/tradewind/tradewind/client"
)

// seen remembers processed event ids; a real receiver keeps them in its database.
type seen struct {
	mu  sync.Mutex
	ids map[string]bool
}

// first reports whether id is new, and remembers it.
func (s *seen) first(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids[id] {
		return false
	}
	s.ids[id] = true
	return true
}

// deliver builds a signed delivery as Tradewind sends it and serves it to h.
func deliver(h http.Handler, secret, id, typ string) int {
	body := []byte(`{"id":"` + id + `","type":"` + typ + `","created_at":"2026-03-01T10:00:00Z","partner":"acme","data":{"reference":"TW-1"}}`)
	ts := time.Now().Unix()
	r := httptest.NewRequest(http.MethodPost, "/tradewind/webhooks", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(client.HeaderEvent, typ)
	r.Header.Set(client.HeaderEventID, id)
	r.Header.Set(client.HeaderTimestamp, strconv.FormatInt(ts, 10))
	r.Header.Set(client.HeaderSignature, client.SignWebhook(secret, ts, body))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

// ExampleVerifyWebhook verifies the raw body first, then de-duplicates by X-Partner-Event-Id.
func ExampleVerifyWebhook() {
	const secret = "whsec_example" // returned once by POST /webhooks
	done := &seen{ids: map[string]bool{}}

	receiver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if err := client.VerifyWebhook(secret, r.Header, body, client.DefaultWebhookTolerance, time.Now()); err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		id := r.Header.Get(client.HeaderEventID)
		if !done.first(id) {
			fmt.Println("duplicate", id, "acknowledged again")
			w.WriteHeader(http.StatusOK) // any 2xx stops the retries
			return
		}
		fmt.Println("processing", r.Header.Get(client.HeaderEvent), id)
		w.WriteHeader(http.StatusNoContent)
	})

	fmt.Println(deliver(receiver, secret, "evt_1", "booking.confirmed"))
	fmt.Println(deliver(receiver, secret, "evt_1", "booking.confirmed")) // a retry
	fmt.Println(deliver(receiver, "whsec_forged", "evt_2", "booking.confirmed"))
	// Output:
	// processing booking.confirmed evt_1
	// 204
	// duplicate evt_1 acknowledged again
	// 200
	// 401
}

// ExampleParseWebhook verifies and decodes in one call; the event's ID equals X-Partner-Event-Id.
func ExampleParseWebhook() {
	const secret = "whsec_example"
	done := &seen{ids: map[string]bool{}}

	receiver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, err := client.ParseWebhook(r, secret)
		switch {
		case errors.Is(err, client.ErrWebhookTooLarge):
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			http.Error(w, "rejected", http.StatusUnauthorized)
			return
		}
		if !done.first(ev.ID) {
			w.WriteHeader(http.StatusOK)
			return
		}
		fmt.Printf("%s %s for %s: %s\n", ev.Type, ev.ID, ev.Partner, ev.Data)
		w.WriteHeader(http.StatusNoContent)
	})

	fmt.Println(deliver(receiver, secret, "evt_7", "booking.cancelled"))
	fmt.Println(deliver(receiver, secret, "evt_7", "booking.cancelled"))
	// Output:
	// booking.cancelled evt_7 for acme: {"reference":"TW-1"}
	// 204
	// 200
}
