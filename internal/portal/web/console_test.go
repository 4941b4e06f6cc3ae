package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/ratelimit"
	"github.com/tradewind/tradewind/internal/reqlog"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// withGuards installs the partner API's contract guards (IP allowlist, mTLS, signature,
// replay, rate limit on the environment's clock), as serve does.
func withGuards(cfg *httpapi.Config) {
	cfg.Guards = append(cfg.Guards, httpapi.PartnerGuards(cfg.Service, security.ProxyTrust{}, ratelimit.NewMemory(cfg.Clock.Now))...)
}

// keyID returns the id of the partner's key of mode with the given secret ("" for the
// first of that mode).
func (e *env) keyID(t *testing.T, p *apitest.Partner, secret string) int64 {
	t.Helper()
	keys, err := e.api.Store.KeyListByPartner(context.Background(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Hash == security.HashKey(secret) {
			return k.ID
		}
	}
	t.Fatalf("no key %s… of partner %s", secret[:12], p.Name)
	return 0
}

func (e *env) testKeyID(t *testing.T, p *apitest.Partner) int64 { return e.keyID(t, p, p.TestKey) }

func consoleForm(keyID int64, method, path, headers, body string) url.Values {
	return url.Values{"key": {strconv.FormatInt(keyID, 10)}, "method": {method}, "path": {path}, "headers": {headers}, "body": {body}}
}

// answerStatus is the API status the console page shows.
func answerStatus(t *testing.T, res result) string {
	t.Helper()
	_, after, ok := strings.Cut(res.body, `<span id="console-status">`)
	if !ok {
		t.Fatalf("no answer shown: %d\n%s", res.status, res.body)
	}
	status, _, _ := strings.Cut(after, " ")
	return status
}

// TestConsoleBooksWithTestKey: the console lists the document's endpoints with their
// examples, books with the chosen test key through the API (a test booking, logged as a
// console call), and shows status, headers, body and a curl command without the secret.
func TestConsoleBooksWithTestKey(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		var logs *reqlog.Logger
		e := newEnv(t, o, withGuards, func(cfg *httpapi.Config) {
			logs = reqlog.New(reqlog.Config{Store: cfg.Store, Logger: cfg.Logger})
			cfg.RequestLog = logs
		})
		t.Cleanup(func() { _ = logs.Close(context.Background()) })
		p, owner := e.newPartner(t, "console-book")
		page := owner.get("/console?endpoint=" + url.QueryEscape("POST /bookings"))
		for _, want := range []string{"POST /hotels/search", "GET /bookings/{reference}", "Idempotency-Key: console-", "&#34;guest&#34;",
			p.TestKey[:12]} {
			if !strings.Contains(page.body, want) {
				t.Fatalf("the console does not show %q:\n%s", want, page.body)
			}
		}
		if strings.Contains(page.body, p.LiveKey[:12]) {
			t.Fatal("the console offers a live key")
		}
		body := fmt.Sprintf(`{"product_type":"hotel","hotel_id":%d,"room_id":%d,"check_in":%q,"check_out":%q,"rooms":1,"adults":1,"guest":{"name":"Ada Console"}}`,
			apitest.HotelLisbon, apitest.RoomSmall, apitest.Day(3), apitest.Day(4))
		res := owner.post("/console", consoleForm(e.testKeyID(t, p), "POST", "/bookings",
			"Content-Type: application/json\nIdempotency-Key: console-1\nX-Request-Id: console-req-1", body))
		if got := answerStatus(t, res); got != "201" {
			t.Fatalf("console book: %s\n%s", got, res.body)
		}
		for _, want := range []string{"X-Request-Id", "console-req-1", "Ratelimit-Remaining", "&#34;reference&#34;", "Ada Console",
			`-H &#34;auth-api-key: $TRADEWIND_API_KEY&#34;`, "Idempotency-Key: console-1", apitest.Day(3)} {
			if !strings.Contains(res.body, want) {
				t.Errorf("the answer does not show %q:\n%s", want, res.body)
			}
		}
		if strings.Contains(res.body, p.TestKey) {
			t.Error("the page shows the key's secret")
		}
		list := e.api.Get(p.TestKey, "/bookings")
		if bs := list.Maps(t); len(bs) != 1 || bs[0]["test"] != true || !strings.Contains(string(list.Raw), "Ada Console") {
			t.Fatalf("bookings after the console: %s", list.Raw)
		}
		if text := e.api.LogText(); !strings.Contains(text, `"request_id":"console-req-1"`) || !strings.Contains(text, `"console":true`) {
			t.Errorf("the call is not logged as a console call:\n%s", text)
		}
		// A console call to a path of no endpoint is logged as the partner's too.
		if got := answerStatus(t, owner.post("/console", consoleForm(e.testKeyID(t, p), "GET", "/no-such-thing", "", ""))); got != "404" {
			t.Fatalf("console call of an unknown path: %s", got)
		}
		// The request log has both, marked as console calls, and the usage counters
		// count them (the Credit and usage page reads these).
		if err := logs.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		entries, err := e.api.Store.RequestLogList(context.Background(), store.RequestLogFilter{PartnerID: p.ID, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, en := range entries {
			if en.Console {
				got = append(got, fmt.Sprintf("%s %d %s", en.Route, en.Status, en.RequestID))
			}
		}
		if len(got) != 2 || got[1] != "POST /bookings 201 console-req-1" || !strings.HasPrefix(got[0], " 404 ") {
			t.Errorf("console entries in the request log: %q", got)
		}
		usage := owner.get("/credit?mode=test")
		if row := row(t, usage.body, "POST /bookings"); row != "1" {
			t.Errorf("the usage page counts %q calls of POST /bookings, want 1", row)
		}
	})
}

// TestConsoleCannotCancelLiveBooking: a live booking made through the API cannot be
// cancelled from the console (422 not_cancellable shown, the booking still confirmed),
// a live key cannot be chosen (404), and the API refuses a console call as a live key
// even if the portal let one through.
func TestConsoleCannotCancelLiveBooking(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o, withGuards)
		p, owner := e.newPartner(t, "console-live")
		ref := e.bookHotel(t, p.LiveKey, "live-1")
		res := owner.post("/console", consoleForm(e.testKeyID(t, p), "POST", "/bookings/"+ref+"/cancel", "", ""))
		if got := answerStatus(t, res); got != "422" || !strings.Contains(res.body, "not_cancellable") || !strings.Contains(res.body, "live booking") ||
			!strings.Contains(res.body, "live_booking") {
			t.Fatalf("console cancel of a live booking: %s\n%s", got, res.body)
		}
		if got := e.api.Get(p.LiveKey, "/bookings/"+ref).Map(t)["status"]; got != "confirmed" {
			t.Fatalf("the live booking is %v after the console's attempt", got)
		}
		if res := owner.post("/console", consoleForm(e.keyID(t, p, p.LiveKey), "POST", "/bookings/"+ref+"/cancel", "", "")); res.status != http.StatusNotFound {
			t.Fatalf("console as a live key: %d\n%s", res.status, res.body)
		}
		// Below the portal: the API itself runs console calls as test keys only.
		rec := httptest.NewRecorder()
		req, _ := http.NewRequest(http.MethodPost, httpapi.Prefix+"/bookings/"+ref+"/cancel", nil)
		e.api.API.ServeConsole(rec, req, p.ID, e.keyID(t, p, p.LiveKey))
		if rec.Code != http.StatusUnauthorized {
			t.Fatalf("ServeConsole as a live key: %d %s", rec.Code, rec.Body.String())
		}
		if got := e.api.Get(p.LiveKey, "/bookings/"+ref).Map(t)["status"]; got != "confirmed" {
			t.Fatalf("the live booking is %v", got)
		}
		// A test booking is cancelled from the console.
		test := e.bookHotel(t, p.TestKey, "test-1")
		res = owner.post("/console", consoleForm(e.testKeyID(t, p), "POST", "/bookings/"+test+"/cancel", "", `{"reason":"console"}`))
		if got := answerStatus(t, res); got != "200" {
			t.Fatalf("console cancel of a test booking: %s\n%s", got, res.body)
		}
	})
}

// TestConsoleOtherPartnersKey: another partner's key id, or a revoked key, is 404, and
// nothing is sent.
func TestConsoleOtherPartnersKey(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o, withGuards)
		_, owner := e.newPartner(t, "console-a")
		b, _ := e.newPartner(t, "console-b")
		ref := e.bookHotel(t, b.TestKey, "b-1")
		res := owner.post("/console", consoleForm(e.testKeyID(t, b), "POST", "/bookings/"+ref+"/cancel", "", ""))
		if res.status != http.StatusNotFound || strings.Contains(res.body, "console-status") {
			t.Fatalf("another partner's key: %d\n%s", res.status, res.body)
		}
		if got := e.api.Get(b.TestKey, "/bookings/"+ref).Map(t)["status"]; got != "confirmed" {
			t.Fatalf("the other partner's booking is %v", got)
		}
		a := &apitest.Partner{Name: "console-a"}
		a.ID = mustPartnerID(t, e, "console-a")
		revoked := e.api.NewKey("console-a", booking.KeyParams{Mode: "test"})
		id := e.keyID(t, a, revoked)
		if err := e.api.Store.KeyRevoke(context.Background(), id, e.api.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		if res := owner.post("/console", consoleForm(id, "GET", "/meta/ping", "", "")); res.status != http.StatusNotFound {
			t.Fatalf("a revoked key: %d", res.status)
		}
	})
}

func mustPartnerID(t *testing.T, e *env, name string) int64 {
	t.Helper()
	p, err := e.api.Store.PartnerGetByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// TestConsoleKeyRulesAndRateLimit: a console call has the chosen key's scopes and
// products and spends the partner's rate limit with its API calls; the session stands in
// for the IP allowlist and the signature the partner requires of API calls.
func TestConsoleKeyRulesAndRateLimit(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o, withGuards)
		limit, sign := 4, true
		p := e.api.NewPartner("console-rules", booking.PartnerParams{RateLimit: &limit, RequireSignature: &sign, AllowIPs: []string{"203.0.113.0/24"}})
		owner, _ := e.member(t, p.Name, "owner@console-rules.example", "owner")
		narrow := e.api.NewKey(p.Name, booking.KeyParams{Mode: "test", Scopes: []string{string(tradewind.ScopeAvailabilityRead)}, Products: []string{"activity"}})
		narrowID := e.keyID(t, p, narrow)

		// The API refuses an unsigned call from outside the allowlist (and it is not
		// counted against the limit: the guards before it refuse it).
		if res := e.api.Get(p.TestKey, "/meta/ping"); res.Status != http.StatusForbidden {
			t.Fatalf("direct API call: %d %s", res.Status, res.Raw)
		}
		// 1: the console's call passes both.
		if got := answerStatus(t, owner.post("/console", consoleForm(e.testKeyID(t, p), "GET", "/meta/ping", "", ""))); got != "200" {
			t.Fatalf("console ping: %s", got)
		}
		// 2: the narrow key lacks booking:read.
		res := owner.post("/console", consoleForm(narrowID, "GET", "/bookings", "", ""))
		if got := answerStatus(t, res); got != "403" || !strings.Contains(res.body, "insufficient_scope") {
			t.Fatalf("console without the scope: %s\n%s", got, res.body)
		}
		// 3: nor does it enable hotels.
		res = owner.post("/console", consoleForm(narrowID, "POST", "/hotels/search", "Content-Type: application/json", `{"destination":"Lisbon"}`))
		if got := answerStatus(t, res); got != "403" || !strings.Contains(res.body, "product_not_enabled") {
			t.Fatalf("console without the product: %s\n%s", got, res.body)
		}
		// 4 spends the last of the budget; 5 is refused.
		if got := answerStatus(t, owner.post("/console", consoleForm(narrowID, "GET", "/meta/ping", "", ""))); got != "200" {
			t.Fatalf("4th console call: %s", got)
		}
		res = owner.post("/console", consoleForm(e.testKeyID(t, p), "GET", "/meta/ping", "", ""))
		if got := answerStatus(t, res); got != "429" || !strings.Contains(res.body, "Retry-After") {
			t.Fatalf("5th console call: %s\n%s", got, res.body)
		}
	})
}

// TestConsoleForm: what the console refuses to send (422, every problem listed).
func TestConsoleForm(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		p, owner := e.newPartner(t, "console-form")
		for _, c := range []struct{ method, path, headers, want string }{
			{"GET", "/meta/ping", "auth-api-key: tw_test_x", "the console sends only"},
			{"GET", "/meta/ping", "X-Partner-Signature: 00", "the console sends only"},
			{"GET", "/../healthz", "", "without .. or //"},
			{"GET", "https://evil.example/x", "", "starts with /"},
			{"TRACE", "/meta/ping", "", "method: one of"},
			{"GET", "/meta/ping", "no colon", "is not &#34;Name: value&#34;"},
		} {
			res := owner.post("/console", consoleForm(e.testKeyID(t, p), c.method, c.path, c.headers, ""))
			if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, c.want) {
				t.Errorf("%s %s %q: %d, want 422 with %q\n%s", c.method, c.path, c.headers, res.status, c.want, res.body)
			}
		}
	})
}

// TestConsoleExampleDatesAhead: the console's example body carries dates from 30 days
// after today (the portal's clock), keeping the document's stay length, so that the
// example answers instead of being refused for a past date.
func TestConsoleExampleDatesAhead(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		_, owner := e.newPartner(t, "console-dates")
		e.api.Clock.Set(time.Date(2029, 6, 10, 15, 0, 0, 0, time.UTC))
		owner = e.signin(t, "owner@console-dates.example")
		page := owner.get("/console?endpoint=" + url.QueryEscape("POST /hotels/search"))
		// The document's example is 2027-03-01 to 2027-03-03.
		for _, want := range []string{"2029-07-10", "2029-07-12"} {
			if !strings.Contains(page.body, want) {
				t.Errorf("the example body does not carry %s:\n%s", want, page.body)
			}
		}
		if strings.Contains(page.body, "2027-03-0") {
			t.Errorf("the example body keeps the document's dates:\n%s", page.body)
		}
	})
}
