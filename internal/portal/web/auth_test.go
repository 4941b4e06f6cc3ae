package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/portal/web"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store/postgres"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestSignupReview: a sign-up is a pending partner without API access whose owner sees
// that it awaits approval; approved, the team works; rejected, it sees it was declined.
func TestSignupReview(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		ctx := context.Background()
		e.api.NewPartner("acme-travel", booking.PartnerParams{}) // the derived name is taken
		c := e.client(t)
		res := c.post("/signup", url.Values{"company": {"Acme Travel!"}, "name": {"Ann"}, "email": {"Ann@Acme.example"}, "password": {password}})
		if res.status != http.StatusSeeOther || res.header.Get("Location") != "/pending" {
			t.Fatalf("signup: %d %s", res.status, res.body)
		}
		p, err := e.api.Store.PartnerGetByName(ctx, "acme-travel-2")
		if err != nil || p.Status != "pending" {
			t.Fatalf("pending partner: %+v, %v", p, err)
		}
		if res := c.get("/pending"); !strings.Contains(res.body, "awaits approval") {
			t.Fatalf("pending page: %s", res.body)
		}
		if res := c.get("/bookings"); res.status != http.StatusSeeOther || res.header.Get("Location") != "/pending" {
			t.Fatalf("a pending partner's bookings: %d", res.status)
		}
		// A key issued by mistake gives no API access while pending.
		key := e.api.NewKey("acme-travel-2", booking.KeyParams{Mode: "test"})
		e.api.Get(key, "/meta/ping").Expect(t, http.StatusUnauthorized, "unauthorized")
		if _, err := e.portal.Approve(ctx, "acme-travel-2", booking.PartnerParams{}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.portal.Approve(ctx, "acme-travel-2", booking.PartnerParams{}); err == nil || !strings.Contains(err.Error(), "not pending") {
			t.Fatalf("approving an active partner: %v", err)
		}
		e.api.Get(key, "/meta/ping").Expect(t, http.StatusOK, "")
		if res := c.get("/bookings"); res.status != http.StatusOK {
			t.Fatalf("approved partner's bookings: %d", res.status)
		}
		// A second sign-up, declined.
		d := e.client(t)
		d.post("/signup", url.Values{"company": {"Shady Ltd"}, "name": {"Bo"}, "email": {"bo@shady.example"}, "password": {password}})
		if _, err := e.portal.Reject(ctx, "shady-ltd", "not a travel company"); err != nil {
			t.Fatal(err)
		}
		if res := d.get("/pending"); !strings.Contains(res.body, "declined") || !strings.Contains(res.body, "not a travel company") {
			t.Fatalf("rejected page: %s", res.body)
		}
		// Problems are listed, all of them.
		res = e.client(t).post("/signup", url.Values{"company": {""}, "email": {"nope"}, "password": {"short"}})
		for _, want := range []string{"company:", "name:", "e-mail:", "password: at least 12"} {
			if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, want) {
				t.Errorf("signup problems lack %q: %d", want, res.status)
			}
		}
	})
}

// TestSignupLimits: sign-ups per client address are throttled and the pending ones capped.
func TestSignupLimits(t *testing.T) {
	e := newEnv(t, storetest.Openers()[0])
	signup := func(i int) result {
		return e.client(t).post("/signup", url.Values{"company": {"Co " + string(rune('a'+i))}, "name": {"N"},
			"email": {"u" + string(rune('a'+i)) + "@x.example"}, "password": {password}})
	}
	for i := 0; i < 3; i++ { // MaxPending is 3 in these tests
		if res := signup(i); res.status != http.StatusSeeOther {
			t.Fatalf("signup %d: %d %s", i, res.status, res.body)
		}
	}
	if res := signup(3); res.status != http.StatusServiceUnavailable || !strings.Contains(res.body, "Sign-ups are paused") {
		t.Fatalf("signup past the cap: %d", res.status)
	}
	if _, err := e.portal.Reject(context.Background(), "co-a", ""); err != nil {
		t.Fatal(err)
	}
	if res := signup(4); res.status != http.StatusSeeOther {
		t.Fatalf("signup after a review freed a place: %d", res.status)
	}
	if res := signup(5); res.status != http.StatusTooManyRequests { // the 6th from this address in the hour
		t.Fatalf("signup past the address's limit: %d", res.status)
	}
}

// TestSignInThrottledAcrossServers: failed attempts on one server slow sign-in on
// another server of the same PostgreSQL database, with one message for every failure,
// and the back-off ends.
func TestSignInThrottledAcrossServers(t *testing.T) {
	e := newEnv(t, storetest.Openers()[1])
	e.newPartner(t, "acme")
	if e.api.DB != "postgres" {
		t.Fatal("want postgres")
	}
	// A second server: its own connection pool and portal over the same database.
	second := openSecondServer(t, e)
	const wrong = "E-mail or password is wrong."
	signin := func(base, email, pw string) result {
		c := e.client(t)
		c.base = base
		return c.post("/signin", url.Values{"email": {email}, "password": {pw}})
	}
	if res := signin(e.srv.URL, "nobody@acme.example", "whatever pass"); res.status != http.StatusUnauthorized || !strings.Contains(res.body, wrong) {
		t.Fatalf("unknown e-mail: %d", res.status)
	}
	for i := 0; i < 5; i++ {
		if res := signin(e.srv.URL, "owner@acme.example", "wrong password!"); res.status != http.StatusUnauthorized || !strings.Contains(res.body, wrong) {
			t.Fatalf("wrong password %d: %d", i, res.status)
		}
	}
	// The right password, on the other server, during the back-off: the same answer.
	if res := signin(second.URL, "owner@acme.example", password); res.status != http.StatusUnauthorized || !strings.Contains(res.body, wrong) {
		t.Fatalf("sign-in during the back-off on the second server: %d", res.status)
	}
	e.api.Clock.Advance(2 * time.Second)
	c := e.client(t)
	c.base = second.URL
	if res := c.post("/signin", url.Values{"email": {"owner@acme.example"}, "password": {password}}); res.status != http.StatusSeeOther {
		t.Fatalf("sign-in after the back-off: %d %s", res.status, res.body)
	}
	// The session opened on the second server works on the first (cookies ignore ports).
	c.base = e.srv.URL
	if res := c.get("/keys"); res.status != http.StatusOK {
		t.Fatalf("the session on the other server: %d", res.status)
	}
	audit, _ := e.api.Store.AuditList(context.Background(), mustUser(t, e, "owner@acme.example").PartnerID, 0, 50)
	var failed int
	for _, a := range audit {
		if a.Action == "signin.failed" {
			failed++
		}
	}
	if failed != 5 {
		t.Errorf("audit has %d failed sign-ins, want 5", failed)
	}
}

// openSecondServer starts another portal on its own connection to e's PostgreSQL schema.
func openSecondServer(t *testing.T, e *env) *httptest.Server {
	t.Helper()
	var schema string
	if err := e.api.Store.SQL().QueryRow(`SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	dsn := storetest.PostgresURL()
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	st, err := postgres.Open(context.Background(), dsn+sep+"search_path="+schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ps := portal.New(booking.New(st, e.api.Clock, nil), portal.Config{Hash: portal.TestParams})
	srv := httptest.NewServer(web.New(web.Config{Portal: ps}))
	t.Cleanup(srv.Close)
	return srv
}

// TestPagesShowThePartnersData: the pages show what the partner has, in its mode.
func TestPagesShowThePartnersData(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		a, owner := e.newPartner(t, "acme")
		live := e.bookHotel(t, a.LiveKey, "pages-live")
		test := e.bookHotel(t, a.TestKey, "pages-test")
		if body := owner.get("/bookings").body; !strings.Contains(body, live) || strings.Contains(body, test) {
			t.Error("live bookings page")
		}
		if body := owner.get("/bookings?mode=test").body; strings.Contains(body, live) || !strings.Contains(body, test) {
			t.Error("test bookings page")
		}
		if body := owner.get("/bookings?mode=live&q=lovelace").body; !strings.Contains(body, live) {
			t.Error("search by guest name")
		}
		if res := owner.get("/bookings?mode=live&created_from=yesterday"); res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "created_from") {
			t.Errorf("bad filter: %d", res.status)
		}
		if body := owner.get("/").body; !strings.Contains(body, `id="bookings-24h">1<`) || !strings.Contains(body, "80.00 EUR") {
			t.Errorf("overview:\n%s", body)
		}
		csv := owner.get("/bookings/export.csv?mode=live").body
		if !strings.HasPrefix(csv, "reference,partner_reference") || !strings.Contains(csv, live) {
			t.Errorf("csv:\n%s", csv)
		}
		if body := owner.get("/credit").body; !strings.Contains(body, live) || !strings.Contains(body, "draw") {
			t.Error("credit ledger")
		}
		if res := owner.post("/bookings/"+live+"/cancel", nil); res.status != http.StatusSeeOther {
			t.Fatalf("cancel: %d", res.status)
		}
		// The API shows it cancelled and the credit released.
		if st := e.api.Get(a.LiveKey, "/bookings/"+live).Map(t)["status"]; st != "cancelled" {
			t.Errorf("API status %v", st)
		}
		if body := owner.get("/credit").body; !strings.Contains(body, "release") || !strings.Contains(body, `id="credit-used">0.00 EUR`) {
			t.Error("credit after the cancel")
		}
		if res := owner.post("/bookings/"+live+"/cancel", nil); res.status != http.StatusConflict || !strings.Contains(res.body, "cannot be cancelled") {
			t.Errorf("second cancel: %d", res.status)
		}
		if body := owner.get("/bookings/" + live).body; !strings.Contains(body, "booking.cancelled") {
			t.Error("timeline lacks booking.cancelled")
		}
		if res := owner.get("/bookings/" + strings.ToLower(live)); res.status != http.StatusOK || !strings.Contains(res.body, live) {
			t.Errorf("the booking's page by its reference in lower case: %d", res.status)
		}
		if body := owner.get("/keys").body; !strings.Contains(body, a.LiveKey[:12]) || strings.Contains(body, a.LiveKey) {
			t.Error("keys page")
		}
		owner.post("/webhooks", url.Values{"url": {"https://hooks.example/t"}, "event_types": {"booking.confirmed"}})
		subs, _ := e.api.Store.SubscriptionList(context.Background(), a.ID)
		path := fmt.Sprintf("/webhooks/%d", subs[0].ID)
		res := owner.post(path+"/test", url.Values{"event_type": {"availability.changed"}})
		if res.status != http.StatusSeeOther || res.header.Get("Location") != path+"?mode=test&tested=1" {
			t.Fatalf("test event: %d %s", res.status, res.header.Get("Location"))
		}
		// A sample event is test data: listed with the test deliveries, not the live ones.
		if body := owner.get(path + "?mode=test").body; !strings.Contains(body, "availability.changed") || !strings.Contains(body, "pending") {
			t.Errorf("the test event's delivery is not listed:\n%s", body)
		}
		if body := owner.get(path).body; strings.Contains(body, `class="delivery"`) {
			t.Errorf("the test event's delivery is listed with the live ones:\n%s", body)
		}
		if res := owner.post(path+"/test", url.Values{"event_type": {"nope"}}); res.status != http.StatusUnprocessableEntity {
			t.Errorf("unknown test event type: %d", res.status)
		}
		res = owner.post(path+"/roll", nil)
		if res.status != http.StatusOK || !strings.Contains(res.body, `id="new-secret">whsec_`) || !strings.Contains(res.body, "X-Partner-Signature-Next") {
			t.Errorf("roll: %d", res.status)
		}
		if body := owner.get(path).body; !strings.Contains(body, `id="secret-roll"`) || strings.Contains(body, `id="new-secret"`) {
			t.Error("the roll is not shown, or its secret is shown again")
		}
		res = owner.post("/webhooks", url.Values{"url": {"http://insecure.example"}})
		if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "url: must use https") || !strings.Contains(res.body, "event_types") {
			t.Errorf("webhook problems: %d", res.status)
		}
	})
}

// TestCookies: the session cookie is HttpOnly and SameSite=Lax, and Secure when the page
// came over HTTPS through a trusted proxy.
func TestCookies(t *testing.T) {
	e := newEnv(t, storetest.Openers()[0])
	e.newPartner(t, "acme")
	trust, err := security.ParseTrustedProxies([]string{"127.0.0.1/32"})
	if err != nil {
		t.Fatal(err)
	}
	behindProxy := httptest.NewServer(web.New(web.Config{Portal: e.portal, Trust: trust}))
	defer behindProxy.Close()
	for _, c := range []struct {
		base, proto string
		secure      bool
	}{{e.srv.URL, "https", false}, {behindProxy.URL, "", false}, {behindProxy.URL, "https", true}} {
		req, _ := http.NewRequest(http.MethodPost, c.base+"/signin",
			strings.NewReader(url.Values{"email": {"owner@acme.example"}, "password": {password}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if c.proto != "" {
			req.Header.Set("X-Forwarded-Proto", c.proto)
		}
		res := e.client(t).do(req)
		cookie := res.header.Get("Set-Cookie")
		if !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Lax") || strings.Contains(cookie, "Secure") != c.secure {
			t.Errorf("%s with X-Forwarded-Proto %q: Set-Cookie %q, want Secure %v", c.base, c.proto, cookie, c.secure)
		}
		csp := res.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("CSP %q", csp)
		}
	}
}
