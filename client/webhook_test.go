package client

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

const testSecret = "whsec_test"

func TestSignWebhookKnownVector(t *testing.T) {
	t.Parallel()
	// printf '1700000000.{"id":"evt_1"}' | openssl dgst -sha256 -hmac whsec_test
	const want = "c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925"
	if got := SignWebhook(testSecret, 1700000000, []byte(`{"id":"evt_1"}`)); got != want {
		t.Fatalf("SignWebhook = %s, want %s", got, want)
	}
}

func signedHeader(secret string, ts int64, body []byte) http.Header {
	h := http.Header{}
	h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	h.Set(HeaderSignature, SignWebhook(secret, ts, body))
	return h
}

func TestVerifyWebhook(t *testing.T) {
	t.Parallel()
	now := time.Unix(1700000000, 0)
	body := []byte(`{"id":"evt_1","type":"booking.confirmed"}`)
	ts := now.Unix()

	tests := []struct {
		name      string
		header    http.Header
		body      []byte
		secret    string
		tolerance time.Duration
		want      error
	}{
		{"round trip", signedHeader(testSecret, ts, body), body, testSecret, 0, nil},
		{"upper-case hex", func() http.Header {
			h := signedHeader(testSecret, ts, body)
			h.Set(HeaderSignature, strings.ToUpper(h.Get(HeaderSignature)))
			return h
		}(), body, testSecret, 0, nil},
		{"4m59s old", signedHeader(testSecret, ts-299, body), body, testSecret, 0, nil},
		{"4m59s ahead", signedHeader(testSecret, ts+299, body), body, testSecret, 0, nil},
		{"tampered body", signedHeader(testSecret, ts, body), []byte(`{"id":"evt_2","type":"booking.confirmed"}`), testSecret, 0, ErrWebhookSignature},
		{"wrong secret", signedHeader("whsec_other", ts, body), body, testSecret, 0, ErrWebhookSignature},
		{"empty secret", signedHeader("", ts, body), body, "", 0, ErrWebhookSignature},
		{"signature not hex", func() http.Header {
			h := signedHeader(testSecret, ts, body)
			h.Set(HeaderSignature, "zz")
			return h
		}(), body, testSecret, 0, ErrWebhookSignature},
		{"truncated signature", func() http.Header {
			h := signedHeader(testSecret, ts, body)
			h.Set(HeaderSignature, h.Get(HeaderSignature)[:32])
			return h
		}(), body, testSecret, 0, ErrWebhookSignature},
		{"timestamp changed after signing", func() http.Header {
			h := signedHeader(testSecret, ts, body)
			h.Set(HeaderTimestamp, strconv.FormatInt(ts+1, 10))
			return h
		}(), body, testSecret, 0, ErrWebhookSignature},
		{"old timestamp", signedHeader(testSecret, ts-301, body), body, testSecret, 0, ErrWebhookTimestamp},
		{"future timestamp", signedHeader(testSecret, ts+301, body), body, testSecret, 0, ErrWebhookTimestamp},
		{"old within custom tolerance", signedHeader(testSecret, ts-3000, body), body, testSecret, time.Hour, nil},
		{"old beyond custom tolerance", signedHeader(testSecret, ts-61, body), body, testSecret, time.Minute, ErrWebhookTimestamp},
		{"absurd timestamp", signedHeader(testSecret, -1<<63, body), body, testSecret, 0, ErrWebhookTimestamp},
		{"non-integer timestamp", func() http.Header {
			h := signedHeader(testSecret, ts, body)
			h.Set(HeaderTimestamp, "1700000000.5")
			return h
		}(), body, testSecret, 0, ErrWebhookTimestamp},
		{"missing timestamp", func() http.Header {
			h := signedHeader(testSecret, ts, body)
			h.Del(HeaderTimestamp)
			return h
		}(), body, testSecret, 0, ErrWebhookTimestamp},
		{"missing signature", func() http.Header {
			h := signedHeader(testSecret, ts, body)
			h.Del(HeaderSignature)
			return h
		}(), body, testSecret, 0, ErrWebhookNoSignature},
		{"no headers at all", http.Header{}, body, testSecret, 0, ErrWebhookNoSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := VerifyWebhook(tt.secret, tt.header, tt.body, tt.tolerance, now)
			if tt.want == nil && err != nil {
				t.Fatalf("VerifyWebhook = %v, want nil", err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("VerifyWebhook = %v, want %v", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), testSecret) {
				t.Fatalf("error %q reveals the secret", err)
			}
		})
	}
}

func TestParseWebhook(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"evt_1","type":"booking.confirmed","created_at":"2026-03-01T10:00:00Z","partner":"acme","data":{"reference":"TW-1"}}`)

	newReq := func(body []byte, mutate func(http.Header)) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/hooks", bytes.NewReader(body))
		ts := time.Now().Unix()
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(HeaderEvent, "booking.confirmed")
		r.Header.Set(HeaderEventID, "evt_1")
		r.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
		r.Header.Set(HeaderSignature, SignWebhook(testSecret, ts, body))
		if mutate != nil {
			mutate(r.Header)
		}
		return r
	}
	big := append([]byte(`{"id":"evt_1","type":"booking.confirmed","data":"`), bytes.Repeat([]byte("x"), MaxWebhookBody)...)
	big = append(big, `"}`...)

	tests := []struct {
		name string
		req  *http.Request
		want error
	}{
		{"valid", newReq(body, nil), nil},
		{"missing signature", newReq(body, func(h http.Header) { h.Del(HeaderSignature) }), ErrWebhookNoSignature},
		{"missing timestamp", newReq(body, func(h http.Header) { h.Del(HeaderTimestamp) }), ErrWebhookTimestamp},
		{"old timestamp", newReq(body, func(h http.Header) {
			ts := time.Now().Add(-10 * time.Minute).Unix()
			h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
			h.Set(HeaderSignature, SignWebhook(testSecret, ts, body))
		}), ErrWebhookTimestamp},
		{"bad signature", newReq(body, func(h http.Header) { h.Set(HeaderSignature, SignWebhook("whsec_x", 1, body)) }), ErrWebhookSignature},
		{"event id header differs from body", newReq(body, func(h http.Header) { h.Set(HeaderEventID, "evt_2") }), ErrWebhookMalformed},
		{"event type header differs from body", newReq(body, func(h http.Header) { h.Set(HeaderEvent, "booking.cancelled") }), ErrWebhookMalformed},
		{"signed but not JSON", newReq([]byte("not json"), nil), ErrWebhookMalformed},
		{"signed but no id", newReq([]byte(`{"type":"booking.confirmed"}`), nil), ErrWebhookMalformed},
		{"too large", newReq(big, nil), ErrWebhookTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ParseWebhook(tt.req, testSecret)
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("ParseWebhook error = %v, want %v", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseWebhook: %v", err)
			}
			if ev.ID != "evt_1" || ev.Type != "booking.confirmed" || ev.Partner != "acme" ||
				!ev.CreatedAt.Equal(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)) || string(ev.Data) != `{"reference":"TW-1"}` {
				t.Fatalf("ParseWebhook = %+v", ev)
			}
		})
	}
}
