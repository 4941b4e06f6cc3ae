package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// The portal in a real browser: Debian's chromium (scripts/browser.sh installs it),
// driven with chromedp, against `tradewind serve` running in-process. Every test shares
// one browser; each user browses in a browser context of its own (its own cookies).
// Screenshots go to $TRADEWIND_ARTIFACTS (default testdata-out/browser at the root).

//go:embed testdata/axe.min.js
var axeSource string

var browser struct {
	once   sync.Once
	ctx    context.Context
	cancel func()
	err    error
}

// sharedBrowser starts the one browser of the test binary.
func sharedBrowser(t *testing.T) context.Context {
	t.Helper()
	browser.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath("/usr/bin/chromium"), chromedp.NoSandbox,
			chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(alloc)
		// The first call starts the browser; no timeout on it (it would end the browser).
		browser.err = chromedp.Do(ctx)
		browser.ctx, browser.cancel = ctx, func() { cancel(); cancelAlloc() }
	})
	if browser.err != nil {
		t.Fatalf("start chromium (scripts/browser.sh installs it): %v", browser.err)
	}
	return browser.ctx
}

func TestMain(m *testing.M) {
	if os.Getenv(cliSubprocess) == "1" { // the test binary run as the operator's CLI
		os.Exit(cliMain())
	}
	code := m.Run()
	if browser.cancel != nil {
		browser.cancel()
	}
	os.Exit(code)
}

// tab is one user's browser tab.
type tab struct {
	t    *testing.T
	ctx  context.Context
	base string
	dir  string // screenshots
}

func newTab(t *testing.T, base, artefacts string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(sharedBrowser(t), chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	return &tab{t: t, ctx: ctx, base: base, dir: artefacts}
}

func (b *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("browser: %v (at %s)", err, b.location())
	}
}

func (b *tab) location() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	l, _ := chromedp.Run(ctx, chromedp.Location())
	return l
}

func (b *tab) open(path string) {
	b.t.Helper()
	b.do(chromedp.Navigate(b.base+path), chromedp.WaitReady(chromedp.CSS("main")))
}

// text returns the visible text of the first element matching the CSS selector.
func (b *tab) text(sel string) string {
	b.t.Helper()
	var err error
	for range 3 { // a page that just loaded may renumber its nodes once: ask again
		ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
		var s string
		s, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		cancel()
		if err == nil {
			return s
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.t.Fatalf("text of %s: %v (at %s)", sel, err, b.location())
	return ""
}

// expect fails unless the main part of the page shows each of want.
func (b *tab) expect(want ...string) {
	b.t.Helper()
	main := b.text("main")
	for _, w := range want {
		if !strings.Contains(main, w) {
			b.t.Fatalf("the page %s does not show %q:\n%s", b.location(), w, main)
		}
	}
}

// fill types values into the form fields named by CSS selector and submits with the
// button matching submit.
func (b *tab) fill(fields map[string]string, submit string) {
	b.t.Helper()
	var steps []chromedp.Action[chromedp.Void]
	for sel, v := range fields {
		b.setValue(sel, "")
		steps = append(steps, chromedp.SendKeys(chromedp.CSS(sel), v))
	}
	steps = append(steps, chromedp.Click(chromedp.CSS(submit)), chromedp.Sleep(300*time.Millisecond), chromedp.WaitReady(chromedp.CSS("main")))
	b.do(steps...)
}

// setValue sets a form control's value as a script would.
func (b *tab) setValue(sel, v string) {
	b.t.Helper()
	s, _ := json.Marshal(sel)
	val, _ := json.Marshal(v)
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { document.querySelector(%s).value = %s; return true })()`, s, val))); err != nil {
		b.t.Fatalf("set %s: %v", sel, err)
	}
}

// check screenshots the page and runs axe-core on it: no serious or critical violation.
func (b *tab) check(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	// DevTools evaluation is not subject to the page's Content-Security-Policy.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](axeSource+";true")); err != nil {
		b.t.Fatalf("inject axe: %v", err)
	}
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`axe.run(document, {resultTypes: ["violations"]}).then(r =>
		r.violations.filter(v => v.impact === "serious" || v.impact === "critical")
			.map(v => v.id + " (" + v.impact + "): " + v.help + " at " + v.nodes.map(n => n.target.join(" ")).join(", ")))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("axe: %v", err)
	}
	for _, f := range found {
		b.t.Errorf("page %s (%s): accessibility: %s", name, b.location(), f)
	}
}

func artefactDir(t *testing.T, db string) string {
	dir := os.Getenv("TRADEWIND_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata-out")
	}
	dir = filepath.Join(dir, "browser", db)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPortalInBrowser: sign up → the operator approves (CLI) → sign in → see a booking
// made through the API → cancel it in the portal → the API shows it cancelled and the
// credit released → the webhook subscription's failed and retried delivery appears with
// its attempts → redeliver it; an invited viewer cannot cancel. Every page is
// screenshotted and checked with axe-core.
func TestPortalInBrowser(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			portalFlow(t, o.DSN(t), artefactDir(t, o.Name))
		})
	}
}

func portalFlow(t *testing.T, dsn, shots string) {
	if r := runTradewind(t, dsn, "", "catalog", "import", writeCatalog(t, apitest.Catalog())); r.err != nil {
		t.Fatal(r.err)
	}
	// The webhook receiver: TLS with a certificate the server does not trust, so every
	// attempt fails and is retried once (--webhook-retry-schedule 300ms).
	var mu sync.Mutex
	hits := 0
	rcv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
	}))
	rcv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the point
	t.Cleanup(rcv.Close)
	doc, s := startServeJSON(t, dsn, "--webhook-allow-private", "--webhook-retry-schedule", "300ms")
	portalURL := doc["portal_url"].(string)
	owner := newTab(t, portalURL, shots)

	// Sign up.
	owner.open("/signup")
	owner.check("signup")
	owner.fill(map[string]string{"#company": "Blue Lagoon Travel", "#name": "Ann Owner", "#email": "ann@bluelagoon.example",
		"#password": "a long enough password 1"}, "main form button[type=submit]")
	owner.expect("Awaiting approval", "blue-lagoon-travel")
	owner.check("pending")

	// The operator approves and issues a live key.
	var pending []map[string]any
	mustJSON(t, dsn, &pending, "partner", "list", "--status", "pending")
	if len(pending) != 1 || pending[0]["name"] != "blue-lagoon-travel" {
		t.Fatalf("pending = %v", pending)
	}
	if r := runTradewind(t, dsn, "", "partner", "approve", "blue-lagoon-travel", "--credit-limit", "5000"); r.err != nil {
		t.Fatal(r.err)
	}
	var key map[string]any
	mustJSON(t, dsn, &key, "key", "issue", "--partner", "blue-lagoon-travel", "--mode", "live")
	live := key["key"].(string)

	// Sign out and in again.
	owner.open("/")
	owner.do(chromedp.Click(chromedp.CSS("header form button")), chromedp.WaitReady(chromedp.CSS("#email")))
	owner.check("signin")
	owner.fill(map[string]string{"#email": "ann@bluelagoon.example", "#password": "wrong password here"}, "main form button")
	owner.expect("E-mail or password is wrong.")
	owner.fill(map[string]string{"#email": "ann@bluelagoon.example", "#password": "a long enough password 1"}, "main form button")
	owner.expect("Overview", "5000.00 EUR")
	owner.check("overview")

	// A webhook subscription, its secret shown once.
	owner.open("/webhooks")
	owner.do(chromedp.Click(chromedp.CSS(`input[value="booking.confirmed"]`)), chromedp.Click(chromedp.CSS(`input[value="booking.cancelled"]`)))
	owner.fill(map[string]string{"#url": rcv.URL + "/hooks"}, "main form button[type=submit]")
	if secret := owner.text("#new-secret"); !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret shown: %q", secret)
	}
	owner.check("webhooks")

	// A booking made through the API appears.
	body := fmt.Sprintf(`{"product_type":"hotel","hotel_id":%d,"room_id":%d,"check_in":%q,"check_out":%q,"rooms":1,"adults":1,"guest":{"name":"Grace Hopper"}}`,
		apitest.HotelLisbon, apitest.RoomSmall, dayFromNow(3), dayFromNow(4))
	req, _ := http.NewRequest(http.MethodPost, s.base+"/bookings", strings.NewReader(body))
	req.Header.Set("auth-api-key", live)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "browser-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var booked struct {
		Data struct {
			Reference string `json:"reference"`
		} `json:"data"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&booked)
	resp.Body.Close()
	ref := booked.Data.Reference
	if resp.StatusCode != http.StatusCreated || ref == "" {
		t.Fatalf("book: %d", resp.StatusCode)
	}
	owner.open("/bookings")
	owner.expect(ref, "confirmed", "80.00 EUR")
	owner.check("bookings")
	owner.do(chromedp.Click(chromedp.CSS(`a[href="/bookings/`+ref+`"]`)), chromedp.WaitReady(chromedp.CSS("#booking-status")))
	owner.expect("Booking "+ref, "Grace Hopper", "booking.confirmed")
	owner.check("booking")
	// At 400 px the booking's page fits the screen: nothing scrolls sideways, and its
	// status and its cancel link are inside it.
	owner.do(chromedp.EmulateViewport(400, 900))
	owner.open("/bookings/" + ref)
	fits := `(() => ["#booking-status", "a[href$='/cancel']"].every(s => { const e = document.querySelector(s);
		if (!e) return false; const r = e.getBoundingClientRect(); return r.left >= 0 && r.right <= 400 && r.width > 0 })
		&& document.documentElement.scrollWidth <= 400)()`
	if ok, err := chromedp.Run(owner.ctx, chromedp.Evaluate[bool](fits)); err != nil || !ok {
		t.Errorf("the booking's page at 400 px: its status or cancel link is off screen, or the page scrolls sideways (%v)", err)
	}
	owner.check("booking-400")
	owner.do(chromedp.EmulateReset())

	// Cancel it, with a confirmation step.
	owner.do(chromedp.Click(chromedp.CSS(`a[href="/bookings/`+ref+`/cancel"]`)), chromedp.WaitReady(chromedp.CSS("main form")))
	owner.expect("Cancel booking "+ref+"?", "80.00 EUR of credit")
	owner.check("cancel")
	owner.do(chromedp.Click(chromedp.CSS("main form button")), chromedp.WaitReady(chromedp.CSS("#booking-status")))
	owner.expect("The booking was cancelled.", "booking.cancelled")
	if st := owner.text("#booking-status"); st != "cancelled" {
		t.Fatalf("status shown: %q", st)
	}
	// The API agrees, and the credit is released.
	status, got := getJSON(t, s.base+"/bookings/"+ref, live)
	if status != 200 || got["data"].(map[string]any)["status"] != "cancelled" {
		t.Fatalf("API after the portal's cancel: %d %v", status, got)
	}
	var partner map[string]any
	mustJSON(t, dsn, &partner, "partner", "show", "blue-lagoon-travel")
	if partner["credit_used"] != "0.00" {
		t.Fatalf("credit used after the cancel: %v", partner["credit_used"])
	}
	owner.open("/credit")
	owner.expect("draw", "release", ref)
	owner.check("credit")

	// The deliveries failed, each after a retry: two attempts shown, then redeliver.
	var subs []map[string]any
	mustJSON(t, dsn, &subs, "webhook", "deliveries", "--partner", "blue-lagoon-travel", "--status", "failed")
	waitUntil(t, "both deliveries to fail", func() bool {
		mustJSON(t, dsn, &subs, "webhook", "deliveries", "--partner", "blue-lagoon-travel", "--status", "failed")
		return len(subs) == 2
	})
	owner.open("/webhooks")
	owner.do(chromedp.Click(chromedp.CSS(`a[href^="/webhooks/"]`)), chromedp.WaitReady(chromedp.CSS("tr.delivery")))
	owner.expect("booking.confirmed", "booking.cancelled", "failed")
	if n := strings.Count(owner.text("tr.delivery ol.attempts"), "no answer"); n != 2 {
		t.Fatalf("attempts shown: %d, want 2:\n%s", n, owner.text("main"))
	}
	owner.check("webhook-deliveries")
	owner.do(chromedp.Click(chromedp.CSS("tr.delivery form button")), chromedp.WaitReady(chromedp.CSS("p.notice")))
	owner.expect("due again")
	waitUntil(t, "the redelivery's attempts", func() bool {
		mustJSON(t, dsn, &subs, "webhook", "deliveries", "--partner", "blue-lagoon-travel")
		return len(subs) == 3 && subs[0]["status"] == "failed"
	})
	owner.open(owner.location()[len(portalURL):strings.Index(owner.location(), "?")])
	if n := strings.Count(owner.text("main"), "booking.cancelled"); n < 2 {
		t.Errorf("the redelivery is not listed:\n%s", owner.text("main"))
	}

	owner.do(chromedp.Click(chromedp.CSS("#test-event button")), chromedp.WaitReady(chromedp.CSS("p.notice")))
	owner.expect("A test event is on its way", "booking.confirmed")
	owner.do(chromedp.Click(chromedp.CSS("#roll-secret button")), chromedp.WaitReady(chromedp.CSS("#new-secret")))
	owner.expect("New signing secret", "X-Partner-Signature-Next", "both signatures until")
	owner.check("webhook-roll")
	owner.open("/")
	owner.expect("Failing webhook endpoints", rcv.URL+"/hooks")

	// The team: an invited viewer sees bookings and cannot cancel.
	owner.open("/team")
	owner.setValue("#inv-role", "viewer")
	owner.fill(map[string]string{"#inv-email": "vic@bluelagoon.example"}, "#invite-form button")
	link := owner.text("#invitation-link")
	if !strings.Contains(link, "/invitations/") {
		t.Fatalf("invitation link: %q", link)
	}
	owner.check("team")
	viewer := newTab(t, portalURL, shots)
	viewer.do(chromedp.Navigate(link), chromedp.WaitReady(chromedp.CSS("main form")))
	viewer.expect("Join the team", "viewer")
	viewer.check("invitation")
	viewer.fill(map[string]string{"#name": "Vic Viewer", "#password": "another long password 2"}, "main form button")
	viewer.expect("Overview")
	viewer.open("/bookings/" + ref)
	viewer.expect("Booking " + ref)
	if strings.Contains(viewer.text("main"), "Cancel this booking") {
		t.Error("a viewer is offered to cancel")
	}
	viewer.open("/bookings/" + ref + "/cancel")
	viewer.expect("Your role does not allow this.")

	// Two-factor sign-in: enrol with the app's code, then sign in with a code.
	owner.open("/account/two-factor")
	secret := owner.text("#totp-secret")
	owner.check("two-factor-enrol")
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	owner.fill(map[string]string{"#code": code}, "main form button")
	owner.expect("Two-factor sign-in is on.", "Recovery codes")
	if n := strings.Count(owner.text("#recovery-codes"), "-"); n != 10 {
		t.Fatalf("%d recovery codes shown", n)
	}
	owner.do(chromedp.Click(chromedp.CSS("header form button")), chromedp.WaitReady(chromedp.CSS("#email")))
	owner.fill(map[string]string{"#email": "ann@bluelagoon.example", "#password": "a long enough password 1"}, "main form button")
	owner.expect("Two-factor sign-in", "authenticator app")
	owner.check("signin-code")
	// The enrolment's code is spent (a code works once): sign in with the next one,
	// which the server accepts a step early.
	code, _ = totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	owner.fill(map[string]string{"#code": code}, "main form button")
	owner.expect("Overview")

	// The remaining pages.
	for _, p := range []struct{ path, name, want string }{
		{"/keys", "keys", "live"},
		{"/account", "account", "this session"},
		{"/audit", "audit", "member.invited"},
		{"/bookings?mode=test", "bookings-test", "No bookings match."},
	} {
		owner.open(p.path)
		owner.expect(p.want)
		owner.check(p.name)
	}
	// At 400 px no page scrolls sideways: wide tables scroll inside their own region.
	owner.do(chromedp.EmulateViewport(400, 900))
	for _, p := range []struct{ path, name string }{
		{"/", "overview"}, {"/bookings", "bookings"}, {"/bookings/" + ref, "booking"}, {"/credit", "credit"}, {"/keys", "keys"},
		{"/console", "console"}, {"/logs", "logs"}, {"/webhooks", "webhooks"}, {"/team", "team"}, {"/audit", "audit"},
		{"/account", "account"},
	} {
		owner.open(p.path)
		if w, err := chromedp.Run(owner.ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)); err != nil || w > 400 {
			t.Errorf("%s at 400 px is %.0f px wide (%v); want no sideways scrolling", p.path, w, err)
		}
		owner.check(p.name + "-400")
	}
	owner.do(chromedp.EmulateReset())
}
