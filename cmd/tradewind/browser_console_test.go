package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/database"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestConsoleInBrowser: a developer books a test booking from the test console (the
// endpoint's example loaded, the body edited, sent with htmx); the answer shows 201 and a
// curl command without the secret; the booking is in Bookings (test), in the request log
// marked as a console call (in the store and on the Request logs pages), on the usage
// chart and its table, and in the Overview's request figures. Screenshots and axe-core
// on every page.
func TestConsoleInBrowser(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			consoleFlow(t, o.DSN(t), artefactDir(t, o.Name))
		})
	}
}

func consoleFlow(t *testing.T, dsn, shots string) {
	if r := runTradewind(t, dsn, "", "catalog", "import", writeCatalog(t, apitest.Catalog())); r.err != nil {
		t.Fatal(r.err)
	}
	if r := runTradewind(t, dsn, "", "partner", "create", "--name", "gulfstream", "--credit-limit", "5000"); r.err != nil {
		t.Fatal(r.err)
	}
	var key map[string]any
	mustJSON(t, dsn, &key, "key", "issue", "--partner", "gulfstream", "--mode", "test")
	secret := key["key"].(string)
	doc, _ := startServeJSON(t, dsn)
	portalURL := doc["portal_url"].(string)
	var link map[string]any
	mustJSON(t, dsn, &link, "portal", "user", "invite", "--partner", "gulfstream", "--email", "dev@gulfstream.example",
		"--role", "developer", "--portal-url", portalURL)

	dev := newTab(t, portalURL, shots)
	dev.do(chromedp.Navigate(link["link"].(string)), chromedp.WaitReady(chromedp.CSS("main form")))
	dev.fill(map[string]string{"#name": "Dee Developer", "#password": "a developer's long password"}, "main form button")
	dev.expect("Overview")

	// The console: load POST /bookings' example, make it a booking of the test catalog.
	dev.do(chromedp.Click(chromedp.CSS(`a[href="/console"]`)), chromedp.WaitReady(chromedp.CSS("#console-form")))
	dev.expect("Test console", "never acts on live data")
	dev.check("console")
	dev.setValue("#pick-endpoint", "POST /bookings")
	dev.do(chromedp.Click(chromedp.CSS(`main form.filters button`)), chromedp.Sleep(300*time.Millisecond), chromedp.WaitReady(chromedp.CSS("#console-form")))
	if body := dev.value("#body"); !strings.Contains(body, `"guest"`) {
		t.Fatalf("POST /bookings' example is not loaded: %s", body)
	}
	if headers := dev.value("#headers"); !strings.Contains(headers, "Idempotency-Key: console-") {
		t.Fatalf("headers prefilled: %q", headers)
	}
	body := fmt.Sprintf(`{"product_type":"hotel","hotel_id":%d,"room_id":%d,"check_in":%q,"check_out":%q,"rooms":1,"adults":1,"guest":{"name":"Console Carla"}}`,
		apitest.HotelLisbon, apitest.RoomSmall, dayFromNow(3), dayFromNow(4))
	dev.setValue("#body", body)
	dev.do(chromedp.Click(chromedp.CSS(`#console-form button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS("#console-status")))
	if st := dev.text("#console-status"); !strings.HasPrefix(st, "201") {
		t.Fatalf("console answer: %s\n%s", st, dev.text("main"))
	}
	var answer struct {
		Data struct {
			Reference string `json:"reference"`
			Test      bool   `json:"test"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(dev.text("#console-body")), &answer); err != nil || answer.Data.Reference == "" || !answer.Data.Test {
		t.Fatalf("console body: %v %+v", err, answer)
	}
	ref := answer.Data.Reference
	curl := dev.value("#console-curl")
	if !strings.Contains(curl, `auth-api-key: $TRADEWIND_API_KEY`) || !strings.Contains(curl, "/api/partner/v1/bookings") || strings.Contains(curl, secret) {
		t.Fatalf("curl: %s", curl)
	}
	dev.check("console-answer")

	// The booking is in Bookings (test).
	dev.open("/bookings?mode=test")
	dev.expect(ref, "confirmed")
	dev.check("console-bookings")

	// The request log has the call, marked as a console call.
	st, err := database.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	partner, err := st.PartnerGetByName(context.Background(), "gulfstream")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the console call in the request log", func() bool {
		entries, err := st.RequestLogList(context.Background(), store.RequestLogFilter{PartnerID: partner.ID, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Console && e.Route == "POST /bookings" && e.Status == 201 {
				return true
			}
		}
		return false
	})

	// … and in the portal's Request logs, where its page says where it came from.
	dev.open("/logs?mode=test")
	dev.expect("POST /api/partner/v1/bookings (console)", "201")
	dev.check("console-logs")
	dev.do(chromedp.Click(chromedp.CSS(`a[href^="/logs/"]`)), chromedp.WaitReady(chromedp.CSS("main table")))
	dev.expect("the portal's test console", ref)

	// The usage chart counts it once the counters are written (every 10 seconds).
	deadline := time.Now().Add(60 * time.Second)
	for {
		dev.open("/credit?mode=test&days=7")
		if n, _ := strconv.Atoi(dev.text("#usage-total")); n >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the usage page never counted the console call:\n%s", dev.text("main"))
		}
		time.Sleep(time.Second)
	}
	dev.expect("POST /bookings", "Requests per day by outcome", "Bookings per day", "80.00 EUR")
	if n := dev.count(`#chart-requests-title`); n != 1 {
		t.Fatalf("%d request charts", n)
	}
	if got := dev.text(`#usage-endpoints tbody`); !strings.Contains(got, "POST /bookings") {
		t.Fatalf("calls per endpoint: %s", got)
	}
	dev.check("usage")
	dev.open("/?mode=test")
	if n, _ := strconv.Atoi(dev.text("#requests-today")); n < 1 {
		t.Fatalf("overview requests today: %s", dev.text("#requests-today"))
	}
	dev.check("overview-requests")
}

// value returns the value of the form control matching the CSS selector.
func (b *tab) value(sel string) string {
	b.t.Helper()
	return evaluate[string](b, sel, "document.querySelector(%s).value")
}

// count returns how many elements match the CSS selector.
func (b *tab) count(sel string) int {
	b.t.Helper()
	return evaluate[int](b, sel, "document.querySelectorAll(%s).length")
}

// evaluate runs the script js, whose %s is the CSS selector sel as a string, and returns
// its value.
func evaluate[T any](b *tab, sel, js string) T {
	b.t.Helper()
	s, _ := json.Marshal(sel)
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](fmt.Sprintf(js, s)))
	if err != nil {
		b.t.Fatalf("%s: %v", fmt.Sprintf(js, s), err)
	}
	return v
}
