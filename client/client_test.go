package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// script is a fake API: it answers the n-th request with answers[n] and records requests.
type script struct {
	mu       sync.Mutex
	answers  []func(w http.ResponseWriter, r *http.Request)
	requests []*http.Request
	bodies   []string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, r)
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	if n >= len(s.answers) {
		http.Error(w, "no more answers", http.StatusTeapot)
		return
	}
	s.answers[n](w, r)
}

func (s *script) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func answer(status int, body string, header ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// hangUp closes the connection without an answer: a network error for the client.
func hangUp(w http.ResponseWriter, r *http.Request) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

const (
	pingOK    = `{"success":true,"message":"pong","data":{"partner":"acme","status":"active","pricing_mode":"net","mode":"test","sandbox":true,"products":["hotel"],"scopes":[],"server_time":"2027-01-04T09:30:00Z"}}`
	rateLimit = `{"success":false,"message":"slow down","code":"rate_limited","errors":[]}`
	busy      = `{"success":false,"message":"busy","code":"service_unavailable","errors":[]}`
)

func bookingJSON(ref string) string {
	return `{"reference":"` + ref + `","partner_reference":null,"product_type":"hotel","status":"confirmed","total_price":240.10,"currency":"EUR","pricing_mode":"net","test":true,"details":{"hotel_id":1,"guest_name":"Ana"},"created_at":"2027-01-04T09:30:00Z"}`
}

// fake starts a scripted server and a client of it whose sleeps are recorded, not slept.
func fake(t *testing.T, answers ...func(http.ResponseWriter, *http.Request)) (*Client, *script, *[]time.Duration) {
	t.Helper()
	s := &script{answers: answers}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c := New(srv.URL, "tw_test_key")
	var slept []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error {
		slept = append(slept, d)
		return ctx.Err()
	}
	return c, s, &slept
}

func TestRetryRateLimitedHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	c, s, slept := fake(t, answer(429, rateLimit, "Retry-After", "7"), answer(200, pingOK))
	ping, err := c.Ping(context.Background())
	if err != nil || ping.Partner != "acme" {
		t.Fatalf("Ping = %+v, %v", ping, err)
	}
	if s.count() != 2 || len(*slept) != 1 || (*slept)[0] != 7*time.Second {
		t.Errorf("requests %d, slept %v; want 2 and [7s]", s.count(), *slept)
	}
	if got := s.requests[0].Header.Get("auth-api-key"); got != "tw_test_key" {
		t.Errorf("auth-api-key = %q", got)
	}
	if got := s.requests[0].Header.Get("User-Agent"); got != DefaultUserAgent {
		t.Errorf("User-Agent = %q", got)
	}
}

func TestRetryRateLimitedEvenUnsafe(t *testing.T) {
	t.Parallel()
	// A 429 is answered before the request has any effect, so even a cancel is retried.
	c, s, _ := fake(t, answer(429, rateLimit, "Retry-After", "1"), answer(200, `{"success":true,"message":null,"data":{"reference":"HTL-1","status":"cancelled"}}`))
	if _, err := c.CancelBooking(context.Background(), "HTL-1", ""); err != nil || s.count() != 2 {
		t.Fatalf("CancelBooking: %v after %d requests", err, s.count())
	}
}

func TestRetryGivesUpAtMaxAttempts(t *testing.T) {
	t.Parallel()
	c, s, _ := fake(t, answer(429, rateLimit, "Retry-After", "1"), answer(429, rateLimit, "Retry-After", "1"), answer(429, rateLimit, "Retry-After", "1"))
	_, err := c.Ping(context.Background())
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeRateLimited || e.RetryAfter != time.Second || s.count() != DefaultMaxAttempts {
		t.Fatalf("err %v after %d requests", err, s.count())
	}
	c1, s1, _ := fake(t, answer(429, rateLimit, "Retry-After", "1"))
	WithRetry(1)(c1)
	if _, err := c1.Ping(context.Background()); !IsCode(err, CodeRateLimited) || s1.count() != 1 {
		t.Fatalf("WithRetry(1): %v after %d requests", err, s1.count())
	}
}

func TestRetryNotBeyondDeadline(t *testing.T) {
	t.Parallel()
	c, s, slept := fake(t, answer(429, rateLimit, "Retry-After", "3600"), answer(200, pingOK))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.Ping(ctx); !IsCode(err, CodeRateLimited) || s.count() != 1 || len(*slept) != 0 {
		t.Fatalf("err %v after %d requests, slept %v", err, s.count(), *slept)
	}
}

func TestRetryUnavailableOnlyWhenSafe(t *testing.T) {
	t.Parallel()
	c, s, slept := fake(t, answer(503, busy), answer(200, pingOK))
	if _, err := c.Ping(context.Background()); err != nil || s.count() != 2 || len(*slept) != 1 || (*slept)[0] <= 0 {
		t.Fatalf("Ping: %v after %d requests, slept %v", err, s.count(), *slept)
	}
	// A 503 that is not the API's service_unavailable (a proxy's) may come after the
	// cancel took effect: not retried.
	c, s, _ = fake(t, answer(503, `<html>Service Unavailable</html>`), answer(200, `{}`))
	if _, err := c.CancelBooking(context.Background(), "HTL-1", "x"); err == nil || s.count() != 1 {
		t.Fatalf("CancelBooking after a proxy's 503: %v after %d requests", err, s.count())
	}
}

// TestRetryServiceUnavailableEvenUnsafe: the API's own 503 service_unavailable (its replay
// ledger could not answer) changed nothing, so a cancel and a webhook creation are
// retried after its Retry-After, signed afresh.
func TestRetryServiceUnavailableEvenUnsafe(t *testing.T) {
	t.Parallel()
	cancelled := `{"success":true,"message":"Cancelled.","data":` + bookingJSON("HTL-AAAA1111") + `}`
	c, s, slept := fake(t, answer(503, busy, "Retry-After", "1"), answer(200, cancelled))
	WithSigningSecret("tws_secret")(c)
	if _, err := c.CancelBooking(context.Background(), "HTL-AAAA1111", "x"); err != nil || s.count() != 2 {
		t.Fatalf("CancelBooking: %v after %d requests", err, s.count())
	}
	if len(*slept) != 1 || (*slept)[0] != time.Second {
		t.Errorf("slept %v; want [1s] (Retry-After)", *slept)
	}
	if a, b := s.requests[0].Header.Get(HeaderSignature), s.requests[1].Header.Get(HeaderSignature); a == "" || a == b {
		t.Errorf("the retry repeats the signature %q", a)
	}
}

func TestRetryNetworkErrorOnlyWhenSafe(t *testing.T) {
	t.Parallel()
	c, s, _ := fake(t, hangUp, answer(200, pingOK))
	if _, err := c.Ping(context.Background()); err != nil || s.count() != 2 {
		t.Fatalf("Ping: %v after %d requests", err, s.count())
	}
	c, s, _ = fake(t, hangUp, answer(200, `{}`))
	err := c.DeleteWebhook(context.Background(), 3)
	var e *Error
	if err == nil || errors.As(err, &e) || s.count() != 1 {
		t.Fatalf("DeleteWebhook: %v after %d requests; want a network error, not retried", err, s.count())
	}
}

func TestBookReusesIdempotencyKey(t *testing.T) {
	t.Parallel()
	created := `{"success":true,"message":"Booking HTL-AAAA1111 is confirmed.","data":` + bookingJSON("HTL-AAAA1111") + `}`
	c, s, _ := fake(t, hangUp, answer(503, busy), answer(201, created), answer(200, created))
	req := &BookRequest{PrebookToken: "pbk_x", Guest: Guest{Name: "Ana"}}
	b, err := c.Book(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if b.Replayed || b.Reference != "HTL-AAAA1111" || b.TotalPrice != "240.10" || b.Message == "" || b.Details.HotelID != 1 {
		t.Errorf("Book = %+v", b)
	}
	key := req.IdempotencyKey
	if key == "" || b.IdempotencyKey != key {
		t.Fatalf("key %q, result key %q", key, b.IdempotencyKey)
	}
	// The same request again replays with the same key.
	b, err = c.Book(context.Background(), req)
	if err != nil || !b.Replayed {
		t.Fatalf("second Book = %+v, %v", b, err)
	}
	for i, r := range s.requests {
		if got := r.Header.Get(HeaderIdempotencyKey); got != key {
			t.Errorf("request %d: Idempotency-Key %q, want %q", i, got, key)
		}
		if s.bodies[i] != s.bodies[0] || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("request %d: body %s, content type %q", i, s.bodies[i], r.Header.Get("Content-Type"))
		}
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(s.bodies[0]), &body); err != nil || body["prebook_token"] != "pbk_x" || len(body) != 2 {
		t.Errorf("body = %s", s.bodies[0])
	}
	// A key of one's own is sent as is.
	c, s, _ = fake(t, answer(201, created))
	if _, err := c.Book(context.Background(), &BookRequest{IdempotencyKey: "mine-1", Guest: Guest{Name: "Ana"}}); err != nil || s.requests[0].Header.Get(HeaderIdempotencyKey) != "mine-1" {
		t.Fatalf("own key: %v", err)
	}
}

func TestErrorWithoutEnvelope(t *testing.T) {
	t.Parallel()
	c, _, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_1")
		http.Error(w, "<html>bad gateway</html>", http.StatusBadGateway)
	}, answer(200, pingOK))
	WithRetry(1)(c)
	_, err := c.Ping(context.Background())
	var e *Error
	if !errors.As(err, &e) || e.HTTPStatus != 502 || e.Code != "" || e.RequestID != "req_1" || !IsTemporary(err) {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(e.Error(), "502") || !strings.Contains(e.Error(), "req_1") {
		t.Errorf("Error() = %q", e.Error())
	}
}

func TestSignsPathQueryAndBody(t *testing.T) {
	t.Parallel()
	c, s, _ := fake(t, answer(200, `{"success":true,"message":null,"data":[],"meta":{"page":2,"per_page":5,"total":0,"total_pages":0}}`),
		answer(200, `{"success":true,"message":null,"data":{"hotel_id":1,"check_in":"","check_out":"","nights":1,"available_rooms":[],"pricing_mode":"net"}}`))
	WithSigningSecret("tws_secret")(c)
	c.now = func() time.Time { return time.Unix(1767225600, 0) }
	if _, err := c.ListBookings(context.Background(), 2, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := c.HotelAvailability(context.Background(), &HotelAvailabilityRequest{HotelID: 1}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"1767225600.GET./api/partner/v1/bookings?page=2&per_page=5.", "1767225600.POST./api/partner/v1/hotels/availability." + s.bodies[1]} {
		m := hmac.New(sha256.New, []byte("tws_secret"))
		m.Write([]byte(want))
		r := s.requests[i]
		if r.Header.Get(HeaderTimestamp) != "1767225600" || r.Header.Get(HeaderSignature) != hex.EncodeToString(m.Sum(nil)) {
			t.Errorf("request %d (%s): timestamp %q, signature %q; want the signature of %q", i, r.RequestURI,
				r.Header.Get(HeaderTimestamp), r.Header.Get(HeaderSignature), want)
		}
	}
}

func TestAllBookingsPages(t *testing.T) {
	t.Parallel()
	page := func(n, pages int, refs ...string) func(http.ResponseWriter, *http.Request) {
		items := make([]string, len(refs))
		for i, r := range refs {
			items[i] = bookingJSON(r)
		}
		return answer(200, fmt.Sprintf(`{"success":true,"message":null,"data":[%s],"meta":{"page":%d,"per_page":100,"total":%d,"total_pages":%d}}`,
			strings.Join(items, ","), n, pages*2, pages))
	}
	// A booking created during the walk shifts B onto page 2: it is yielded once.
	c, s, _ := fake(t, page(1, 3, "A", "B"), page(2, 3, "B", "C"), page(3, 3, "D"))
	var got []string
	for b, err := range c.AllBookings(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b.Reference)
	}
	if strings.Join(got, ",") != "A,B,C,D" || s.count() != 3 {
		t.Errorf("got %v in %d requests", got, s.count())
	}
	if q := s.requests[1].URL.Query(); q.Get("page") != "2" || q.Get("per_page") != "100" {
		t.Errorf("second request %s", s.requests[1].URL)
	}
	// Breaking early reads no more pages; an error is yielded once.
	c, s, _ = fake(t, page(1, 3, "A", "B"), answer(404, `{"success":false,"message":"x","code":"not_found","errors":[]}`))
	for range c.AllBookings(context.Background()) {
		break
	}
	if s.count() != 1 {
		t.Errorf("break after the first booking read %d pages", s.count())
	}
	c, _, _ = fake(t, answer(401, `{"success":false,"message":"x","code":"unauthorized","errors":[]}`))
	n := 0
	for _, err := range c.AllBookings(context.Background()) {
		n++
		if !IsCode(err, CodeUnauthorized) {
			t.Errorf("err = %v", err)
		}
	}
	if n != 1 {
		t.Errorf("yielded %d times", n)
	}
}

func TestAmount(t *testing.T) {
	t.Parallel()
	var v struct {
		A, B, C Amount
		D       Amount `json:"d"`
	}
	if err := json.Unmarshal([]byte(`{"A":240.10,"B":"12","C":1e2,"d":null}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A != "240.10" || v.B != "12" || v.C != "1e2" || v.D != "" {
		t.Errorf("decoded %+v", v)
	}
	for _, tt := range []struct {
		a        Amount
		decimals int
		want     int64
		ok       bool
	}{{"240.10", 2, 24010, true}, {"240.1", 2, 24010, true}, {"1e2", 0, 100, true}, {"0.125", 3, 125, true}, {"0.125", 2, 0, false}, {"-3.5", 2, -350, true}, {"x", 2, 0, false}} {
		got, err := tt.a.MinorUnits(tt.decimals)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("%q.MinorUnits(%d) = %d, %v", tt.a, tt.decimals, got, err)
		}
	}
	out, err := json.Marshal(struct{ A Amount }{"240.10"})
	if err != nil || string(out) != `{"A":240.10}` {
		t.Errorf("marshal = %s, %v", out, err)
	}
	if _, err := json.Marshal(Amount("12abc")); err == nil {
		t.Error("a non-number marshalled")
	}
	if err := json.Unmarshal([]byte(`"abc"`), new(Amount)); err == nil {
		t.Error("a non-number decoded")
	}
}

func TestNewBaseURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://api.example.com":                  "https://api.example.com/api/partner/v1",
		"https://api.example.com/":                 "https://api.example.com/api/partner/v1",
		"https://api.example.com/api/partner/v1/":  "https://api.example.com/api/partner/v1",
		"http://127.0.0.1:8080/api/partner/v1?x=1": "http://127.0.0.1:8080/api/partner/v1",
	} {
		if c := New(in, "k"); c.base != want || c.baseErr != nil {
			t.Errorf("New(%q): base %q, %v; want %q", in, c.base, c.baseErr, want)
		}
	}
	for _, bad := range []string{"", "api.example.com", "ftp://x", "://"} {
		if c := New(bad, "k"); c.baseErr == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
}

// TestRetrySignsAfresh: every attempt of a call, and every identical call, carries a
// signature the client never sent before, even within one second (the server accepts a
// state-changing request's signature once).
func TestRetrySignsAfresh(t *testing.T) {
	t.Parallel()
	created := `{"success":true,"message":"Booking HTL-AAAA1111 is confirmed.","data":` + bookingJSON("HTL-AAAA1111") + `}`
	cancelled := `{"success":true,"message":"Cancelled.","data":` + bookingJSON("HTL-AAAA1111") + `}`
	c, s, _ := fake(t, hangUp, answer(503, busy), answer(201, created), answer(200, cancelled), answer(200, cancelled))
	WithSigningSecret("tws_secret")(c)
	const at = 1767225600
	c.now = func() time.Time { return time.Unix(at, 0) } // every attempt in the same second
	if _, err := c.Book(context.Background(), &BookRequest{PrebookToken: "pbk_x", Guest: Guest{Name: "Ana"}}); err != nil {
		t.Fatal(err)
	}
	for range 2 { // two identical cancellations
		if _, err := c.CancelBooking(context.Background(), "HTL-AAAA1111", "same"); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for i, r := range s.requests {
		sig, ts := r.Header.Get(HeaderSignature), r.Header.Get(HeaderTimestamp)
		if seen[sig] {
			t.Errorf("request %d (%s %s) repeats a signature", i, r.Method, r.RequestURI)
		}
		seen[sig] = true
		if n, err := strconv.ParseInt(ts, 10, 64); err != nil || n < at || n > at+2 {
			t.Errorf("request %d: timestamp %q, want within 2 s after %d", i, ts, at)
		}
	}
	// A later second starts afresh: the map of sent signatures does not grow forever.
	c.now = func() time.Time { return time.Unix(at+10, 0) }
	c.stamps.sign("tws_secret", at+10, "GET", "/x", nil)
	if n := len(c.stamps.used); n != 1 {
		t.Errorf("%d signatures remembered after the seconds passed, want 1", n)
	}
}
