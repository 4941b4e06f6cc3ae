package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestPortalWebhooksInBrowser: a developer pauses and resumes a failing subscription
// from the Webhooks page, which shows the pause, and the delivery that waited meanwhile
// goes out; the operator pauses it from the CLI;
// the admin's audit log shows all three; the deliveries switch shows the live booking's
// delivery in live mode and the test booking's in test mode, and the deliveries table,
// with a long endpoint URL, stays within the page at 1280 px. Each page is
// screenshotted and checked with axe-core.
func TestPortalWebhooksInBrowser(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			webhooksFlow(t, o.DSN(t), artefactDir(t, o.Name))
		})
	}
}

func webhooksFlow(t *testing.T, dsn, shots string) {
	live := catalogAndPartner(t, dsn, "live")["key"].(string)
	var key map[string]any
	mustJSON(t, dsn, &key, "key", "issue", "--partner", "acme", "--mode", "test")
	test := key["key"].(string)

	// A receiver whose certificate the server does not trust: every attempt fails.
	rcv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	rcv.Config.ErrorLog = log.New(io.Discard, "", 0)
	t.Cleanup(rcv.Close)
	doc, s := startServeJSON(t, dsn, "--webhook-allow-private", "--webhook-retry-schedule", "300ms")
	portalURL := doc["portal_url"].(string)

	// A subscription with a long URL, a live and a test booking; both deliveries fail.
	longURL := rcv.URL + "/hooks/" + strings.Repeat("a-very-long-path-segment/", 6) + "end"
	res := secCall(t, http.DefaultClient, http.MethodPost, s.base+"/webhooks", live,
		strings.NewReader(fmt.Sprintf(`{"url":%q,"event_types":["booking.confirmed"]}`, longURL)), map[string]string{"Content-Type": "application/json"})
	if res.status != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", res.status, res.body)
	}
	var created struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(res.body), &created); err != nil || created.Data.ID == 0 {
		t.Fatalf("subscription: %v %s", err, res.body)
	}
	id := created.Data.ID
	keys := map[string]string{"live": live, "test": test}
	book := func(key, idem string, in, out int) string {
		t.Helper()
		body := fmt.Sprintf(`{"product_type":"hotel","hotel_id":%d,"room_id":%d,"check_in":%q,"check_out":%q,"rooms":1,"adults":1,"guest":{"name":"Grace Hopper"}}`,
			apitest.HotelLisbon, apitest.RoomSmall, dayFromNow(in), dayFromNow(out))
		res := secCall(t, http.DefaultClient, http.MethodPost, s.base+"/bookings", key, strings.NewReader(body),
			map[string]string{"Content-Type": "application/json", "Idempotency-Key": idem})
		var b struct {
			Data struct {
				Reference string `json:"reference"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(res.body), &b); res.status != http.StatusCreated || err != nil {
			t.Fatalf("book %s: %d %s", idem, res.status, res.body)
		}
		return b.Data.Reference
	}
	refs := map[string]string{"live": book(live, "hooks-live", 3, 4), "test": book(test, "hooks-test", 3, 4)}
	var failed []map[string]any
	waitUntil(t, "both deliveries to fail", func() bool {
		mustJSON(t, dsn, &failed, "webhook", "deliveries", "--partner", "acme", "--status", "failed")
		return len(failed) == 2
	})
	// Each booking's event id, from the event feed.
	eventOf := map[string]string{}
	for mode, ref := range refs {
		status, feed := getJSON(t, s.base+"/events?reference="+ref, keys[mode])
		evs, _ := feed["data"].([]any)
		if status != http.StatusOK || len(evs) != 1 {
			t.Fatalf("events of %s: %d %v", ref, status, feed)
		}
		eventOf[mode] = evs[0].(map[string]any)["id"].(string)
	}

	// A developer and an admin of the team, each in a browser of their own.
	join := func(email, role string) *tab {
		t.Helper()
		var link map[string]any
		mustJSON(t, dsn, &link, "portal", "user", "invite", "--partner", "acme", "--email", email, "--role", role, "--portal-url", portalURL)
		b := newTab(t, portalURL, shots)
		b.do(chromedp.Navigate(link["link"].(string)), chromedp.WaitReady(chromedp.CSS("main form")))
		b.fill(map[string]string{"#name": "User " + role, "#password": "a long enough password " + role}, "main form button")
		b.expect("Overview")
		return b
	}
	dev := join("dev@acme.example", "developer")
	admin := join("ada@acme.example", "admin")

	// The Webhooks page: active, with a Pause button; the long URL elided, whole in its title.
	row := fmt.Sprintf("#subscription-%d", id)
	dev.open("/webhooks")
	if st := dev.text(row + " .subscription-status"); st != "active" {
		t.Fatalf("status shown: %q", st)
	}
	if title := evalIn[string](t, dev, fmt.Sprintf(`document.querySelector(%q).title`, row+" a.elide")); title != longURL {
		t.Errorf("the elided URL's title is %q, want %q", title, longURL)
	}
	fitsPage(t, dev, "webhooks")

	// Pause: the page says so, who paused it and since when.
	// Each answer is waited for by the button it brings (the old page had a notice too).
	dev.do(chromedp.Click(chromedp.CSS(row+` form[action$="/pause"] button`)), chromedp.WaitReady(chromedp.CSS(row+` form[action$="/resume"]`)))
	dev.expect("The subscription is paused")
	if st := dev.text(row + " .subscription-status"); !strings.Contains(st, "paused by the partner since") {
		t.Fatalf("status shown after the pause: %q", st)
	}
	dev.check("webhooks-paused")

	// While paused, a new booking's delivery waits: nothing is attempted.
	book(live, "hooks-waiting", 6, 7)
	var pending []map[string]any
	mustJSON(t, dsn, &pending, "webhook", "deliveries", "--partner", "acme", "--status", "pending")
	if len(pending) != 1 {
		t.Fatalf("pending deliveries while paused: %v", pending)
	}

	// Resume: what waited is due, and is attempted.
	dev.do(chromedp.Click(chromedp.CSS(row+` form[action$="/resume"] button`)), chromedp.WaitReady(chromedp.CSS(row+` form[action$="/pause"]`)))
	dev.expect("The subscription is resumed: 1 delivery(ies) are due")
	if st := dev.text(row + " .subscription-status"); st != "active" {
		t.Fatalf("status shown after the resume: %q", st)
	}
	dev.check("webhooks-resumed")

	waitUntil(t, "the delivery that waited to be attempted", func() bool {
		mustJSON(t, dsn, &failed, "webhook", "deliveries", "--partner", "acme", "--status", "failed")
		return len(failed) == 3
	})

	// The operator pauses it from the CLI; the page shows the operator's pause.
	if r := runTradewind(t, dsn, "", "webhook", "pause", fmt.Sprint(id)); r.err != nil {
		t.Fatal(r.err)
	}
	dev.open("/webhooks")
	if st := dev.text(row + " .subscription-status"); !strings.Contains(st, "paused by the Tradewind operator since") {
		t.Fatalf("status shown after the operator's pause: %q", st)
	}

	// The admin's audit log shows the three, newest first.
	admin.open("/audit")
	audit := admin.text("main table tbody")
	want := []string{"operator\twebhook.paused", "dev@acme.example\twebhook.resumed", "dev@acme.example\twebhook.paused"}
	at := 0
	for _, w := range want {
		i := strings.Index(audit[at:], w)
		if i < 0 {
			t.Fatalf("the audit log lacks %q after position %d:\n%s", w, at, audit)
		}
		at += i + len(w)
	}
	admin.check("audit-webhooks")

	// The deliveries switch: live shows the live booking's delivery, test the test one's.
	dev.open(fmt.Sprintf("/webhooks/%d", id))
	dev.expect("Deliveries of live events", "booking.confirmed", "no answer")
	liveEvents := dev.text("main table.deliveries tbody")
	fitsPage(t, dev, "webhook-deliveries-live")
	dev.do(chromedp.Click(chromedp.CSS(`a[href*="mode=test"]`)), chromedp.WaitReady(chromedp.CSS("table.deliveries")))
	dev.expect("Deliveries of test events", "booking.confirmed", "no answer")
	testEvents := dev.text("main table.deliveries tbody")
	fitsPage(t, dev, "webhook-deliveries-test")
	if liveEvents == testEvents {
		t.Errorf("the switch shows the same deliveries:\n%s", liveEvents)
	}
	// Each booking's event is on its own side only, its id elided with the whole in its title.
	for mode, shown := range map[string]string{"live": liveEvents, "test": testEvents} {
		other := map[string]string{"live": "test", "test": "live"}[mode]
		if !strings.Contains(shown, eventOf[mode]) || strings.Contains(shown, eventOf[other]) {
			t.Errorf("%s side: want event %s, not %s:\n%s", mode, eventOf[mode], eventOf[other], shown)
		}
	}
	if n := evalIn[int](t, dev, fmt.Sprintf(`document.querySelectorAll('small.elide[title=%q]').length`, eventOf["test"])); n != 1 {
		t.Errorf("the test event's id is shown %d times with its title", n)
	}
}

// fitsPage screenshots and checks the page, and fails when it is wider than the window
// (1280 px): wide tables scroll inside their container instead.
func fitsPage(t *testing.T, b *tab, name string) {
	t.Helper()
	b.check(name)
	if w := evalIn[[]int](t, b, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1] {
		t.Errorf("page %s is %d px wide in a window of %d", name, w[0], w[1])
	}
}

// evalIn evaluates a script expression in the tab and returns its value.
func evalIn[T any](t *testing.T, b *tab, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v (at %s)", expr, err, b.location())
	}
	return v
}
