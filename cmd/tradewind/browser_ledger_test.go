package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestPortalLedgerInBrowser: a booking's page shows the booking as a reader wants it,
// not its stored JSON (reference, status, lead guest, traveller names, items by name,
// amount, timeline); the Credit page shows the live booking's draw and release and says
// that it is live only; the Bookings page and its CSV export follow the test/live
// switch; the navigation holds on one line at 1280 px and stays usable at 400 px.
// Screenshots are named ledger-*.
func TestPortalLedgerInBrowser(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ledgerFlow(t, o.DSN(t), artefactDir(t, o.Name))
		})
	}
}

// apiCall sends a JSON request to the partner API with key and decodes its data.
func apiCall(t *testing.T, method, url, key, idem, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("auth-api-key", key)
	req.Header.Set("Content-Type", "application/json")
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Data map[string]any `json:"data"`
	}
	raw, _ := io.ReadAll(resp.Body)
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber() // amounts as written
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, raw)
	}
	return resp.StatusCode, env.Data
}

func ledgerFlow(t *testing.T, dsn, shots string) {
	doc := apitest.Catalog()
	products := apitest.ProductsCatalog()
	doc.Activities, doc.Rentals, doc.Packages = products.Activities, products.Rentals, products.Packages
	if r := runTradewind(t, dsn, "", "catalog", "import", writeCatalog(t, doc)); r.err != nil {
		t.Fatal(r.err)
	}
	info, s := startServeJSON(t, dsn)
	const partner = "blue-lagoon-travel-and-tours-of-portugal" // a long name, shown in the navigation
	portalURL := info["portal_url"].(string)
	if r := runTradewind(t, dsn, "", "partner", "create", "--name", partner, "--credit-limit", "5000"); r.err != nil {
		t.Fatal(r.err)
	}
	keys := map[string]string{}
	for _, mode := range []string{"live", "test"} {
		var k map[string]any
		mustJSON(t, dsn, &k, "key", "issue", "--partner", partner, "--mode", mode)
		keys[mode] = k["key"].(string)
	}
	var link map[string]any
	mustJSON(t, dsn, &link, "portal", "user", "invite", "--partner", partner, "--email", "ann@acme.example", "--role", "owner",
		"--portal-url", portalURL)
	owner := newTab(t, portalURL, shots)
	owner.do(chromedp.Navigate(link["link"].(string)), chromedp.WaitReady(chromedp.CSS("main form")))
	owner.fill(map[string]string{"#name": "Ann Owner", "#password": "a long enough password 1"}, "main form button")
	owner.expect("Overview")

	// A live package with two named travellers and an add-on; a test hotel booking.
	pkg := fmt.Sprintf(`{"product_type":"package","package_id":%d,"departure_id":%d,"adults":2,"addon_ids":[%d],
		"travellers":[{"type":"adult","first_name":"Ada","last_name":"Lovelace","nationality":"GB"},{"type":"adult","first_name":"Alan","last_name":"Turing"}],
		"guest":{"name":"Ada Lovelace","email":"ada@example.com","special_requests":"Window seats"},"partner_reference":"PO-77"}`,
		apitest.PackageFixed, apitest.DepartureLater, apitest.AddonFado)
	status, live := apiCall(t, http.MethodPost, s.base+"/bookings", keys["live"], "ledger-live", pkg)
	if status != http.StatusCreated {
		t.Fatalf("live package booking: %d %v", status, live)
	}
	ref, amount := live["reference"].(string), string(live["total_price"].(json.Number))+" "+live["currency"].(string)
	hotel := fmt.Sprintf(`{"product_type":"hotel","hotel_id":%d,"room_id":%d,"check_in":%q,"check_out":%q,"rooms":1,"adults":1,"guest":{"name":"Tess Test"}}`,
		apitest.HotelLisbon, apitest.RoomSmall, dayFromNow(3), dayFromNow(4))
	status, test := apiCall(t, http.MethodPost, s.base+"/bookings", keys["test"], "ledger-test", hotel)
	if status != http.StatusCreated {
		t.Fatalf("test hotel booking: %d %v", status, test)
	}
	testRef := test["reference"].(string)

	// The booking's page: every part readable, no stored JSON.
	owner.open("/bookings/" + ref)
	owner.expect("Booking "+ref, "PO-77", "Lisbon highlights (#801)", "leaving "+apitest.Day(40)+" (#80102)", "Fado dinner (#80111)", "Window seats",
		"Lovelace", "Turing", "GB", "Booked", "the API, live key", "Confirmed", "instant confirmation", "booking.confirmed")
	for sel, want := range map[string]string{"#booking-reference": ref, "#booking-status": "confirmed", "#booking-total": amount,
		"#guest-name": "Ada Lovelace"} {
		if got := strings.TrimSpace(owner.text(sel)); got != want {
			t.Errorf("%s shows %q, want %q", sel, got, want)
		}
	}
	travellers := owner.text("#booking-travellers")
	for _, name := range []string{"Ada", "Lovelace", "Alan", "Turing"} {
		if !strings.Contains(travellers, name) {
			t.Errorf("travellers table lacks %s:\n%s", name, travellers)
		}
	}
	if main := owner.text("main"); strings.Contains(main, `"first_name"`) || strings.Contains(main, `{`) {
		t.Errorf("the booking's page shows stored JSON:\n%s", main)
	}
	owner.check("ledger-booking")

	// Cancelled through the API: the Credit page shows the draw and the release.
	if status, _ := apiCall(t, http.MethodPost, s.base+"/bookings/"+ref+"/cancel", keys["live"], "", `{}`); status != http.StatusOK {
		t.Fatalf("cancel: %d", status)
	}
	owner.open("/bookings/" + ref)
	owner.expect("Cancelled", "your team", "booking.cancelled")
	owner.open("/credit")
	owner.expect("Live data only", "0.00 EUR")
	rows := owner.text("#ledger tbody")
	if !strings.Contains(rows, "release") || !strings.Contains(rows, "draw") || strings.Count(rows, ref) != 2 ||
		strings.Index(rows, "release") > strings.Index(rows, "draw") || strings.Contains(rows, testRef) {
		t.Errorf("ledger rows, newest first, want the release then the draw of %s only:\n%s", ref, rows)
	}
	owner.check("ledger-credit")

	// The test/live switch: the Bookings page and its CSV export show one mode.
	for _, c := range []struct{ mode, shown, hidden string }{{"live", ref, testRef}, {"test", testRef, ref}} {
		owner.open("/bookings?mode=" + c.mode)
		if got := owner.text("#data-mode"); got != c.mode {
			t.Errorf("switch shows %q, want %q", got, c.mode)
		}
		list := owner.text("#results")
		if !strings.Contains(list, c.shown) || strings.Contains(list, c.hidden) {
			t.Errorf("%s bookings list:\n%s", c.mode, list)
		}
		// The page's own export link, fetched with the page's session.
		csv, err := chromedp.Run(owner.ctx, chromedp.Evaluate[string](`fetch(document.querySelector('a[href^="/bookings/export.csv"]').href)
			.then(r => r.text())`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(csv, c.shown) || strings.Contains(csv, c.hidden) || !strings.Contains(csv, ","+c.mode+",") {
			t.Errorf("%s CSV export: %q", c.mode, csv)
		}
	}
	owner.open("/")
	owner.do(chromedp.Click(chromedp.CSS(`nav.mode-switch a[href*="mode=test"]`)), chromedp.WaitReady(chromedp.CSS("#data-mode")))
	if got := owner.text("#data-mode"); got != "test" || !strings.Contains(owner.location(), "mode=test") {
		t.Errorf("Overview's switch to test: %q at %s", got, owner.location())
	}
	owner.check("ledger-overview-test")

	// The navigation: one line at 1280 px, with a good part of the long partner name
	// shown under the brand; at 400 px every entry inside the screen.
	navSpread := `(() => { const c = [...document.querySelectorAll("header nav a, header nav ul:first-of-type li, header nav button")]
		.map(e => { const r = e.getBoundingClientRect(); return r.top + r.height / 2 });
		return Math.max(...c) - Math.min(...c) })()`
	owner.do(chromedp.EmulateViewport(1280, 900))
	owner.open("/bookings")
	if spread, err := chromedp.Run(owner.ctx, chromedp.Evaluate[float64](navSpread)); err != nil || spread > 8 {
		t.Errorf("navigation at 1280 px spans %.0f px of height (%v); want one line", spread, err)
	}
	// The brand and the partner's name (at least 100 px of it) end before the first link.
	brand := `(() => { const b = document.querySelector("header nav ul:first-of-type li").getBoundingClientRect();
		const n = document.querySelector("header nav .partner-name").getBoundingClientRect();
		const a = document.querySelector("header nav ul.nav-links a").getBoundingClientRect();
		return Math.max(b.right, n.right) <= a.left && n.width >= 100 && document.documentElement.scrollWidth <= 1280 })()`
	if ok, err := chromedp.Run(owner.ctx, chromedp.Evaluate[bool](brand)); err != nil || !ok {
		t.Errorf("at 1280 px the brand or the partner's name overlaps the links, the name is cut under 100 px or the page scrolls sideways (%v)", err)
	}
	owner.check("ledger-nav-1280")
	owner.do(chromedp.EmulateViewport(400, 900))
	owner.open("/") // a page without wide tables: nothing may push it sideways
	inside := `(() => [...document.querySelectorAll("header nav a, header nav button")].every(e => {
		const r = e.getBoundingClientRect(); return r.left >= 0 && r.right <= 400 && r.width > 0 })
		&& document.documentElement.scrollWidth <= 400)()`
	if ok, err := chromedp.Run(owner.ctx, chromedp.Evaluate[bool](inside)); err != nil || !ok {
		t.Errorf("navigation at 400 px: an entry is off screen or the page scrolls sideways (%v)", err)
	}
	owner.check("ledger-nav-400")
	owner.do(chromedp.EmulateViewport(1280, 900))
}
