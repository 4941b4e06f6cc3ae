package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradewind/tradewind/client"
)

const bookingData = `{"reference":"HTL-AAAA1111","status":"confirmed","total_price":10,"currency":"EUR","test":false,"product_type":"hotel"}`

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestWebhookHandlerSignatures(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	h := &client.WebhookHandler{Secrets: []string{"whsec_old", "whsec_new"}, Logger: quiet(),
		OnBookingConfirmed: func(context.Context, *client.BookingEvent) error { calls.Add(1); return nil }}
	cases := []struct {
		name       string
		req        *http.Request
		wantStatus int
	}{
		{"old secret in X-Partner-Signature", signedDelivery("whsec_old", "", "evt_a", "booking.confirmed", bookingData), 204},
		{"new secret in X-Partner-Signature", signedDelivery("whsec_new", "", "evt_b", "booking.confirmed", bookingData), 204},
		{"roll: forged main header, new secret in -Next", signedDelivery("whsec_forged", "whsec_new", "evt_c", "booking.confirmed", bookingData), 204},
		{"both headers forged", signedDelivery("whsec_x", "whsec_y", "evt_d", "booking.confirmed", bookingData), 401},
	}
	for _, c := range cases {
		if got := serve(h, c.req); got != c.wantStatus {
			t.Errorf("%s: status %d, want %d", c.name, got, c.wantStatus)
		}
	}
	if calls.Load() != 3 {
		t.Errorf("calls = %d, want 3", calls.Load())
	}

	// Only the -Next header, verified by a receiver holding only the new secret.
	r := signedDelivery("whsec_old", "whsec_new", "evt_e", "booking.confirmed", bookingData)
	r.Header.Del(client.HeaderSignature)
	if got := serve(&client.WebhookHandler{Secrets: []string{"whsec_new"}, Logger: quiet()}, r); got != 204 {
		t.Errorf("-Next only: %d", got)
	}
	// No signature at all, an old timestamp, a GET.
	r = signedDelivery("whsec_old", "", "evt_f", "booking.confirmed", bookingData)
	r.Header.Del(client.HeaderSignature)
	if got := serve(h, r); got != 401 {
		t.Errorf("unsigned: %d", got)
	}
	stale := &client.WebhookHandler{Secrets: []string{"whsec_old"}, Logger: quiet(), Now: func() time.Time { return time.Now().Add(6 * time.Minute) }}
	if got := serve(stale, signedDelivery("whsec_old", "", "evt_g", "booking.confirmed", bookingData)); got != 401 {
		t.Errorf("stale timestamp: %d", got)
	}
	if got := serve(h, httptest.NewRequest(http.MethodGet, "/", nil)); got != 405 {
		t.Errorf("GET: %d", got)
	}
}

func TestWebhookHandlerDuplicatesAndFailures(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]int{}
	fail := true
	h := &client.WebhookHandler{Secrets: []string{"whsec_s"}, Logger: quiet(),
		OnBookingCancelled: func(_ context.Context, e *client.BookingEvent) error {
			mu.Lock()
			defer mu.Unlock()
			seen[e.ID]++
			if fail {
				fail = false
				return errors.New("database down")
			}
			return nil
		}}
	// The first attempt fails (500): the retry is processed, later copies are not.
	if got := serve(h, signedDelivery("whsec_s", "", "evt_1", "booking.cancelled", bookingData)); got != 500 {
		t.Errorf("failing handler: %d", got)
	}
	if got := serve(h, signedDelivery("whsec_s", "", "evt_1", "booking.cancelled", bookingData)); got != 204 {
		t.Errorf("retry: %d", got)
	}
	if got := serve(h, signedDelivery("whsec_s", "", "evt_1", "booking.cancelled", bookingData)); got != 200 {
		t.Errorf("duplicate: %d", got)
	}
	if seen["evt_1"] != 2 {
		t.Errorf("processed %d times, want 2 (the failure and the retry)", seen["evt_1"])
	}

	// Many concurrent copies of one event: processed once.
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { serve(h, signedDelivery("whsec_s", "", "evt_2", "booking.cancelled", bookingData)) })
	}
	wg.Wait()
	if seen["evt_2"] != 1 {
		t.Errorf("concurrent copies processed %d times", seen["evt_2"])
	}

	// Undecodable data is 400; an event type without a function is acknowledged.
	if got := serve(h, signedDelivery("whsec_s", "", "evt_3", "booking.cancelled", `{"total_price":"abc"}`)); got != 400 {
		t.Errorf("bad data: %d", got)
	}
	if got := serve(h, signedDelivery("whsec_s", "", "evt_4", "booking.updated", `{}`)); got != 204 {
		t.Errorf("unknown type: %d", got)
	}
	// A body that is not JSON but correctly signed is 400.
	body := []byte("not json")
	ts := time.Now().Unix()
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	r.Header.Set(client.HeaderTimestamp, strconv.FormatInt(ts, 10))
	r.Header.Set(client.HeaderSignature, client.SignWebhook("whsec_s", ts, body))
	if got := serve(h, r); got != 400 {
		t.Errorf("not json: %d", got)
	}
	// Over the size limit: 413.
	r = httptest.NewRequest(http.MethodPost, "/", io.LimitReader(zeros{}, client.MaxWebhookBody+10))
	r.Header.Set(client.HeaderTimestamp, strconv.FormatInt(ts, 10))
	r.Header.Set(client.HeaderSignature, "00")
	if got := serve(h, r); got != 413 {
		t.Errorf("too large: %d", got)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestWebhookHandlerOtherAndCustomStore(t *testing.T) {
	t.Parallel()
	store := &countingStore{MemoryDedupe: client.NewMemoryDedupe(0)}
	var got []string
	h := &client.WebhookHandler{Secrets: []string{"whsec_s"}, Dedupe: store, Logger: quiet(),
		OnOther: func(_ context.Context, e *client.WebhookEvent) error { got = append(got, e.Type); return nil }}
	serve(h, signedDelivery("whsec_s", "", "evt_1", "booking.confirmed", bookingData))
	serve(h, signedDelivery("whsec_s", "", "evt_2", "availability.changed", `{}`))
	serve(h, signedDelivery("whsec_s", "", "evt_2", "availability.changed", `{}`))
	if fmt.Sprint(got) != "[booking.confirmed availability.changed]" || store.claims != 3 {
		t.Errorf("OnOther got %v, claims %d", got, store.claims)
	}
	// A failing store answers 503 so that Tradewind retries.
	store.fail = true
	if code := serve(h, signedDelivery("whsec_s", "", "evt_3", "booking.confirmed", bookingData)); code != 503 {
		t.Errorf("failing store: %d", code)
	}
}

type countingStore struct {
	*client.MemoryDedupe
	claims int
	fail   bool
}

func (c *countingStore) Claim(ctx context.Context, id string) (bool, error) {
	if c.fail {
		return false, errors.New("unreachable")
	}
	c.claims++
	return c.MemoryDedupe.Claim(ctx, id)
}

func TestMemoryDedupeBounded(t *testing.T) {
	t.Parallel()
	m := client.NewMemoryDedupe(3)
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c", "d"} {
		if ok, _ := m.Claim(ctx, id); !ok {
			t.Errorf("claim %s: duplicate", id)
		}
	}
	if m.Len() != 3 {
		t.Errorf("len = %d", m.Len())
	}
	if ok, _ := m.Claim(ctx, "d"); ok {
		t.Error("d claimed twice")
	}
	if ok, _ := m.Claim(ctx, "a"); !ok {
		t.Error("a, the oldest, should have been forgotten")
	}
	_ = m.Release(ctx, "a")
	if ok, _ := m.Claim(ctx, "a"); !ok {
		t.Error("released a should be claimable")
	}
}
