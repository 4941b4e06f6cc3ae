package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// cliResult is what one in-process run of the command printed.
type cliResult struct {
	stdout, stderr string
	err            error
}

// runTradewind runs the command in-process with TRADEWIND_DB=dsn.
func runTradewind(t *testing.T, dsn string, stdin string, args ...string) cliResult {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if k == "TRADEWIND_DB" {
			return dsn
		}
		return ""
	}
	err := run(context.Background(), args, getenv, strings.NewReader(stdin), &out, &errOut)
	return cliResult{out.String(), errOut.String(), err}
}

// mustJSON runs a --json command and decodes its one JSON document.
func mustJSON(t *testing.T, dsn string, v any, args ...string) {
	t.Helper()
	r := runTradewind(t, dsn, "", append([]string{"--json"}, args...)...)
	if r.err != nil {
		t.Fatalf("tradewind %v: %v\n%s", args, r.err, r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("tradewind %v: not one JSON document: %v\n%s", args, err, r.stdout)
	}
}

func writeCatalog(t *testing.T, doc *catalog.Document) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catalog.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := catalog.Write(f, doc); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOperatorCommands(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			dsn := o.DSN(t)
			if r := runTradewind(t, dsn, "", "migrate"); r.err != nil || !strings.Contains(r.stdout, "Migrations applied") {
				t.Fatalf("migrate: %v %s", r.err, r.stdout)
			}
			// Import: the same file twice changes nothing the second time.
			doc := catalog.Demo(time.Now().UTC().Truncate(24 * time.Hour))
			path := writeCatalog(t, doc)
			var rep struct{ Created, Updated, Unchanged int }
			mustJSON(t, dsn, &rep, "catalog", "import", path)
			if rep.Created == 0 || rep.Updated != 0 {
				t.Errorf("first import = %+v", rep)
			}
			mustJSON(t, dsn, &rep, "catalog", "import", path)
			if rep.Created != 0 || rep.Updated != 0 || rep.Unchanged == 0 {
				t.Errorf("second import = %+v", rep)
			}
			// From standard input, and an invalid document is refused whole with every problem.
			r := runTradewind(t, dsn, `{"hotels":[{"id":-1}],"activities":[{"id":"x"}]}`, "catalog", "import", "-")
			if r.err == nil || !strings.Contains(r.err.Error(), "hotels[0]") || !strings.Contains(r.err.Error(), "activities[0]") {
				t.Errorf("invalid import: %v", r.err)
			}

			var p map[string]any
			mustJSON(t, dsn, &p, "partner", "create", "--name", "acme", "--pricing-mode", "markup", "--markup-percent", "12.5",
				"--credit-limit", "5000", "--rate-limit", "300", "--allow-ip", "10.0.0.0/8", "--allow-ip", "2001:db8::/32", "--require-signature")
			if p["pricing_mode"] != "markup" || p["markup_percent"] != "12.5" || p["credit_limit"] != "5000.00" ||
				!strings.HasPrefix(fmt.Sprint(p["signing_secret"]), "tws_") || len(p["allow_ips"].([]any)) != 2 {
				t.Errorf("partner create = %v", p)
			}
			if r := runTradewind(t, dsn, "", "partner", "create", "--name", "acme"); r.err == nil {
				t.Error("a duplicate partner must be refused")
			}
			if r := runTradewind(t, dsn, "", "partner", "create", "--name", "bad", "--currency", "EURO", "--pricing-mode", "net", "--credit-limit=-3"); r.err == nil ||
				!strings.Contains(r.err.Error(), "currency") || !strings.Contains(r.err.Error(), "credit-limit") {
				t.Errorf("bad partner: %v", r.err)
			}
			p = nil
			mustJSON(t, dsn, &p, "partner", "update", "acme", "--block", "--credit-limit", "7000")
			if p["blocked"] != true || p["credit_limit"] != "7000.00" || p["signing_secret"] != nil {
				t.Errorf("partner update = %v", p)
			}
			if r := runTradewind(t, dsn, "", "partner", "update", "acme", "--currency", "JPY"); r.err == nil || !strings.Contains(r.err.Error(), "credit-limit") {
				t.Errorf("a currency change without a limit must be refused: %v", r.err)
			}
			p = nil
			mustJSON(t, dsn, &p, "partner", "update", "acme", "--currency", "JPY", "--credit-limit", "700000")
			if p["currency"] != "JPY" || p["credit_limit"] != "700000" {
				t.Errorf("currency change = %v", p)
			}
			p = nil
			mustJSON(t, dsn, &p, "partner", "update", "acme", "--rotate-signing-secret")
			if !strings.HasPrefix(fmt.Sprint(p["signing_secret"]), "tws_") {
				t.Errorf("rotation shows the new secret once: %v", p)
			}
			var partners []map[string]any
			mustJSON(t, dsn, &partners, "partner", "list")
			if len(partners) != 1 || partners[0]["signing_secret"] != nil {
				t.Errorf("partner list = %v", partners)
			}
			if r := runTradewind(t, dsn, "", "partner", "show", "acme"); r.err != nil || !strings.Contains(r.stdout, "acme") {
				t.Errorf("partner show: %v %s", r.err, r.stdout)
			}
			// A markup given to a net partner is kept, and the operator told it prices nothing.
			if r := runTradewind(t, dsn, "", "partner", "create", "--name", "netty", "--pricing-mode", "net", "--markup-percent", "10"); r.err != nil ||
				!strings.Contains(r.stderr, "warning: --markup-percent 10 is kept but not applied: netty's pricing mode is net") ||
				!regexp.MustCompile(`Pricing +net\n`).MatchString(r.stdout) {
				t.Errorf("net with a markup: %v, stdout %q, stderr %q", r.err, r.stdout, r.stderr)
			}
			if r := runTradewind(t, dsn, "", "partner", "update", "netty", "--pricing-mode", "markup"); r.err != nil || r.stderr != "" ||
				!regexp.MustCompile(`Pricing +markup 10 %\n`).MatchString(r.stdout) {
				t.Errorf("then markup: %v, stdout %q, stderr %q", r.err, r.stdout, r.stderr)
			}

			var key map[string]any
			mustJSON(t, dsn, &key, "key", "issue", "--partner", "acme", "--mode", "live", "--scope", "catalog:read", "--product", "hotel", "--expires", "2099-01-01T00:00:00Z")
			if !strings.HasPrefix(fmt.Sprint(key["key"]), "tw_live_") || fmt.Sprint(key["scopes"]) != "[catalog:read]" {
				t.Errorf("key issue = %v", key)
			}
			if r := runTradewind(t, dsn, "", "key", "issue", "--partner", "acme", "--mode", "live", "--scope", "root"); r.err == nil {
				t.Error("an unknown scope must be refused")
			}
			var keys []map[string]any
			mustJSON(t, dsn, &keys, "key", "list", "--partner", "acme")
			if len(keys) != 1 || keys[0]["key"] != nil {
				t.Errorf("key list must not show secrets: %v", keys)
			}
			mustJSON(t, dsn, &key, "key", "revoke", fmt.Sprint(keys[0]["id"]))
			if r := runTradewind(t, dsn, "", "key", "revoke", "9999"); r.err == nil {
				t.Error("revoking a missing key must fail")
			}
			var bookings []any
			mustJSON(t, dsn, &bookings, "booking", "list", "--status", "completed")
			if r := runTradewind(t, dsn, "", "booking", "confirm", "HTL-NOPE0000"); r.err == nil {
				t.Error("confirming a missing booking must fail")
			}
			if r := runTradewind(t, dsn, "", "partner", "frobnicate"); r.err == nil {
				t.Error("an unknown command must fail")
			}
		})
	}
}

// TestCatalogImportRefusesUnitsOfOtherItems: a room, space or departure belongs to one
// item (inventory was keyed by kind, unit and day, so such an item would have taken the
// other's inventory over; since migration 00029 the store refuses its rows). The import
// is refused whole, before writing, every such id named with its path.
func TestCatalogImportRefusesUnitsOfOtherItems(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			dsn := o.DSN(t)
			if r := runTradewind(t, dsn, "", "migrate"); r.err != nil {
				t.Fatalf("migrate: %v", r.err)
			}
			demo := catalog.Demo(time.Now().UTC().Truncate(24 * time.Hour))
			demoPath := writeCatalog(t, demo)
			var rep struct{ Created, Updated, Unchanged int }
			mustJSON(t, dsn, &rep, "catalog", "import", demoPath)
			if rep.Created == 0 {
				t.Fatalf("demo import = %+v", rep)
			}

			// A new hotel with rooms of its own, which alone would import fine.
			fresh := demo.Hotels[1]
			fresh.ID = 9002
			fresh.Rooms = slices.Clone(fresh.Rooms)
			for i := range fresh.Rooms {
				fresh.Rooms[i].ID = 900201 + int64(i)
			}
			thief := demo.Hotels[0] // same rooms as hotel 1001 (100101, …)
			thief.ID = 9001
			rental := demo.Rentals[0] // spaces of rental 3001
			rental.ID = 9301
			pkg := demo.Packages[0] // departures of package 4001
			pkg.ID = 9401
			bad := &catalog.Document{Hotels: []catalog.Hotel{fresh, thief}, Rentals: []catalog.Rental{rental}, Packages: []catalog.Package{pkg}}

			r := runTradewind(t, dsn, "", "catalog", "import", writeCatalog(t, bad))
			if r.err == nil {
				t.Fatal("an import that takes over another item's rooms must be refused")
			}
			var want []string
			for j, room := range thief.Rooms {
				want = append(want, fmt.Sprintf("hotels[1].rooms[%d].id: room %d already belongs to hotel 1001", j, room.ID))
			}
			for j, sp := range rental.Spaces {
				want = append(want, fmt.Sprintf("rentals[0].spaces[%d].id: space %d already belongs to rental 3001", j, sp.ID))
			}
			for j, d := range pkg.Departures {
				want = append(want, fmt.Sprintf("packages[0].departures[%d].id: departure %d already belongs to package 4001", j, d.ID))
			}
			msg := r.err.Error()
			if !strings.Contains(msg, fmt.Sprintf("fix these %d problem(s)", len(want))) || !strings.Contains(msg, "nothing was written") {
				t.Errorf("refusal = %v, want %d problems", msg, len(want))
			}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("refusal does not say %q:\n%s", w, msg)
				}
			}
			if strings.Contains(msg, "hotels[0]") {
				t.Errorf("the new hotel's own rooms are fine:\n%s", msg)
			}

			// Nothing was written: the demo's inventory still belongs to its items, and
			// the new hotel is still new.
			mustJSON(t, dsn, &rep, "catalog", "import", demoPath)
			if rep.Created != 0 || rep.Updated != 0 || rep.Unchanged == 0 {
				t.Errorf("demo import after the refusal = %+v, want all unchanged", rep)
			}
			mustJSON(t, dsn, &rep, "catalog", "import", writeCatalog(t, &catalog.Document{Hotels: []catalog.Hotel{fresh}}))
			if rep.Created != 1 {
				t.Errorf("new hotel after the refusal = %+v, want created", rep)
			}
			// Re-importing an item with its own units is no problem.
			mustJSON(t, dsn, &rep, "catalog", "import", writeCatalog(t, &catalog.Document{Hotels: []catalog.Hotel{demo.Hotels[0]}}))
			if rep.Unchanged != 1 {
				t.Errorf("hotel 1001 again = %+v", rep)
			}
		})
	}
}

func TestCatalogGenerate(t *testing.T) {
	t.Parallel()
	args := []string{"catalog", "generate", "--hotels", "5", "--activities", "3", "--rentals", "2", "--packages", "2", "--cities", "2", "--days", "30", "--seed", "7", "--start", "2027-01-01"}
	a := runTradewind(t, "sqlite::memory:", "", args...)
	b := runTradewind(t, "sqlite::memory:", "", args...)
	if a.err != nil || a.stdout != b.stdout {
		t.Fatalf("generate is not deterministic: %v", a.err)
	}
	if r := runTradewind(t, "sqlite::memory:", "", "catalog", "generate", "--hotels", "2", "--start", "2027-01-01"); r.err != nil || strings.Contains(r.stdout, `"activities"`) {
		t.Errorf("counts not given are 0: %v", r.err)
	}
	if r := runTradewind(t, "sqlite::memory:", "", "catalog", "generate"); r.err == nil {
		t.Error("generate without counts must say what to give")
	}
	doc, err := catalog.Parse(strings.NewReader(a.stdout))
	if err != nil || len(doc.Hotels) != 5 || len(doc.Packages) != 2 {
		t.Fatalf("generated catalog: %v", err)
	}
	// --change-percent 20 changes one hotel of five: the rest of the document is the same.
	c := runTradewind(t, "sqlite::memory:", "", append(args, "--change-percent", "20")...)
	changed, err := catalog.Parse(strings.NewReader(c.stdout))
	if c.err != nil || err != nil || c.stdout == a.stdout {
		t.Fatalf("--change-percent 20: %v, %v", c.err, err)
	}
	diff := 0
	for i := range doc.Hotels {
		if !reflect.DeepEqual(doc.Hotels[i], changed.Hotels[i]) {
			diff++
		}
	}
	if diff != 1 {
		t.Errorf("--change-percent 20 changed %d hotels of 5, want 1", diff)
	}
	if r := runTradewind(t, "sqlite::memory:", "", append(args, "--change-percent", "101")...); r.err == nil {
		t.Error("--change-percent 101 must be refused")
	}
}

// server is a `tradewind serve` running in-process.
type runningServer struct {
	base   string // http://addr/api/partner/v1
	out    *syncBuffer
	cancel context.CancelFunc
	done   chan error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listening = regexp.MustCompile(`listening on (https?://\S+)`)

// startServe runs `tradewind serve` on a free port and waits for it to listen.
func startServe(t *testing.T, dsn string, args ...string) *runningServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	pr, pw := io.Pipe()
	s := &runningServer{out: out, cancel: cancel, done: make(chan error, 1)}
	getenv := func(k string) string {
		if k == "TRADEWIND_DB" {
			return dsn
		}
		return ""
	}
	go func() {
		err := run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--portal-addr", "127.0.0.1:0", "--log-level", "warn"}, args...), getenv, strings.NewReader(""), io.MultiWriter(out, pw), io.Discard)
		pw.Close()
		s.done <- err
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			s.base = m[1]
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if s.base == "" {
		cancel()
		t.Fatalf("serve did not start: %v\n%s", <-s.done, out.String())
	}
	t.Cleanup(s.stop)
	return s
}

func (s *runningServer) stop() {
	s.cancel()
	<-s.done
	s.done <- nil
}

func getJSON(t *testing.T, url, key string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("auth-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

var demoKeys = regexp.MustCompile(`(test|live) key: (tw_\w+)`)

func TestServeDemo(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLiteDSN(t)
	s := startServe(t, dsn, "--demo")
	keys := map[string]string{}
	for _, m := range demoKeys.FindAllStringSubmatch(s.out.String(), -1) {
		keys[m[1]] = m[2]
	}
	if keys["test"] == "" || keys["live"] == "" {
		t.Fatalf("demo keys not printed:\n%s", s.out.String())
	}
	status, body := getJSON(t, s.base+"/meta/ping", keys["live"])
	if status != 200 || body["data"].(map[string]any)["mode"] != "live" {
		t.Fatalf("ping = %d %v", status, body)
	}
	host := strings.TrimSuffix(s.base, "/api/partner/v1")
	if status, _ := getJSON(t, host+"/healthz", ""); status != 200 {
		t.Errorf("healthz = %d", status)
	}
	// Ready once the read model is built, which a worker does after the listener binds.
	waitUntil(t, "readyz", func() bool { status, _ := getJSON(t, host+"/readyz", ""); return status == 200 })
	// A second --demo start on the same database keeps the partner and prints new keys.
	s.stop()
	s2 := startServe(t, dsn, "--demo")
	if !strings.Contains(s2.out.String(), "test key: tw_test_") {
		t.Errorf("second demo start:\n%s", s2.out.String())
	}
}

// TestTwoServersOnePostgres books the last room through two servers sharing one
// PostgreSQL database: they behave as one service.
func TestTwoServersOnePostgres(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresDSN(t)
	cat := writeCatalog(t, apitest.Catalog())
	if r := runTradewind(t, dsn, "", "catalog", "import", cat); r.err != nil {
		t.Fatal(r.err)
	}
	runTradewind(t, dsn, "", "partner", "create", "--name", "acme", "--credit-limit", "10000")
	var key map[string]any
	mustJSON(t, dsn, &key, "key", "issue", "--partner", "acme", "--mode", "live")
	a, b := startServe(t, dsn), startServe(t, dsn)
	// The single room has 2 per night: 10 requests alternate between the servers.
	var wg sync.WaitGroup
	codes := make([]int, 10)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := a.base
			if i%2 == 1 {
				base = b.base
			}
			body := fmt.Sprintf(`{"product_type":"hotel","hotel_id":%d,"room_id":%d,"check_in":%q,"check_out":%q,"rooms":1,"adults":1,"guest":{"name":"X"}}`,
				apitest.HotelLisbon, apitest.RoomSmall, dayFromNow(3), dayFromNow(4))
			req, _ := http.NewRequest(http.MethodPost, base+"/bookings", strings.NewReader(body))
			req.Header.Set("auth-api-key", key["key"].(string))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", fmt.Sprint("two-", i))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	created := 0
	for _, c := range codes {
		if c == 201 {
			created++
		}
	}
	if created != 2 {
		t.Errorf("created %d bookings of a 2-room allotment through two servers: %v", created, codes)
	}
}

// dayFromNow is a date inside apitest.Catalog's inventory, relative to the real clock
// that `serve` uses.
func dayFromNow(n int) string {
	start := apitest.Start
	today := time.Now().UTC()
	if today.After(start) {
		start = today
	}
	return start.AddDate(0, 0, n).Format("2006-01-02")
}

// startServeJSON runs `tradewind --json serve` on a free port and returns its one JSON
// document, decoded as soon as it is printed, and the server; stop it to read the rest
// of its standard output.
func startServeJSON(t *testing.T, dsn string, args ...string) (map[string]any, *runningServer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	pr, pw := io.Pipe()
	s := &runningServer{out: out, cancel: cancel, done: make(chan error, 1)}
	getenv := func(k string) string {
		if k == "TRADEWIND_DB" {
			return dsn
		}
		return ""
	}
	go func() {
		err := run(ctx, append([]string{"--json", "serve", "--addr", "127.0.0.1:0", "--portal-addr", "127.0.0.1:0", "--log-level", "warn"}, args...), getenv, strings.NewReader(""), io.MultiWriter(out, pw), io.Discard)
		pw.Close()
		s.done <- err
	}()
	var doc map[string]any
	err := json.NewDecoder(pr).Decode(&doc)
	go io.Copy(io.Discard, pr)
	if err != nil {
		cancel()
		t.Fatalf("serve --json printed no JSON document: %v (%v)\n%s", err, <-s.done, out.String())
	}
	s.base, _ = doc["url"].(string)
	t.Cleanup(s.stop)
	return doc, s
}

// assertOneJSONDocument checks that out is exactly one JSON document.
func assertOneJSONDocument(t *testing.T, out string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("stdout is not a JSON document: %v\n%s", err, out)
	}
	if rest, _ := io.ReadAll(dec.Buffered()); strings.TrimSpace(string(rest)) != "" || dec.More() {
		t.Errorf("stdout holds more than one JSON document:\n%s", out)
	}
}

func TestServeJSON(t *testing.T) {
	t.Parallel()
	t.Run("demo and metrics", func(t *testing.T) {
		t.Parallel()
		dsn := storetest.SQLiteDSN(t)
		doc, s := startServeJSON(t, dsn, "--demo", "--admin-addr", "127.0.0.1:0")
		keys := make([]string, 0, len(doc))
		for k := range doc {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"demo", "metrics_url", "portal_url", "url"}) {
			t.Errorf("document fields = %v", keys)
		}
		if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/api/partner/v1$`).MatchString(s.base) {
			t.Errorf("url = %v", doc["url"])
		}
		demo, _ := doc["demo"].(map[string]any)
		live, _ := demo["live_key"].(string)
		if len(demo) != 6 || demo["partner"] != "demo" || !strings.HasPrefix(fmt.Sprint(demo["test_key"]), "tw_test_") || !strings.HasPrefix(live, "tw_live_") {
			t.Fatalf("demo = %v", demo)
		}
		// The listener is bound when the document is printed: the keys work at once.
		status, body := getJSON(t, s.base+"/meta/ping", live)
		if status != 200 || body["data"].(map[string]any)["mode"] != "live" {
			t.Errorf("ping = %d %v", status, body)
		}
		metricsURL, _ := doc["metrics_url"].(string)
		if !strings.HasPrefix(metricsURL, "http://127.0.0.1:") || !strings.HasSuffix(metricsURL, "/metrics") {
			t.Fatalf("metrics_url = %q", metricsURL)
		}
		resp, err := http.Get(metricsURL)
		if err != nil {
			t.Fatal(err)
		}
		scraped, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s = %d", metricsURL, resp.StatusCode)
		}
		for _, name := range []string{"tradewind_readmodel_lag_seconds", `tradewind_bookings_priced_ahead_total{outcome="kept"}`,
			`tradewind_prebooks_priced_total{from="model"}`} {
			if !strings.Contains(string(scraped), "\n"+name+" ") {
				t.Errorf("/metrics lacks %s", name)
			}
		}
		s.stop()
		out := s.out.String()
		assertOneJSONDocument(t, out)
		for _, human := range []string{"listening on", "Metrics served at", "test key:", "Try: curl"} {
			if strings.Contains(out, human) {
				t.Errorf("--json printed the human line %q:\n%s", human, out)
			}
		}
	})
	t.Run("plain", func(t *testing.T) {
		t.Parallel()
		doc, s := startServeJSON(t, storetest.SQLiteDSN(t))
		if len(doc) != 2 || doc["portal_url"] == nil || !strings.HasSuffix(s.base, "/api/partner/v1") {
			t.Errorf("document = %v, want only url and portal_url", doc)
		}
		s.stop()
		assertOneJSONDocument(t, s.out.String())
	})
	t.Run("flag after the command", func(t *testing.T) {
		t.Parallel()
		// `serve --demo --json`: the global flag may follow the command.
		dsn := storetest.SQLiteDSN(t)
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"--db", dsn, "serve", "--demo", "--json", "--addr", "127.0.0.1:0", "--portal-addr", "127.0.0.1:0", "--log-level", "warn"},
				func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
			pw.Close()
		}()
		var doc struct {
			URL  string
			Demo struct {
				TestKey string `json:"test_key"`
			}
		}
		err := json.NewDecoder(pr).Decode(&doc)
		go io.Copy(io.Discard, pr)
		cancel()
		if rerr := <-done; err != nil || rerr != nil || doc.URL == "" || !strings.HasPrefix(doc.Demo.TestKey, "tw_test_") {
			t.Errorf("serve --demo --json = %+v, %v, %v", doc, err, rerr)
		}
	})
}

// TestServeHumanOutput: without --json, serve keeps its lines for people.
func TestServeHumanOutput(t *testing.T) {
	t.Parallel()
	s := startServe(t, storetest.SQLiteDSN(t), "--demo", "--admin-addr", "127.0.0.1:0")
	out := s.out.String()
	for _, re := range []string{
		`(?m)^Demo partner "demo" \(pricing markup, credit line 50000\.00 EUR\), demo catalog loaded\.$`,
		`(?m)^  test key: tw_test_\w+$`,
		`(?m)^  live key: tw_live_\w+$`,
		`(?m)^Try: curl -s -H 'auth-api-key: tw_test_\w+' http://127\.0\.0\.1:\d+/api/partner/v1/meta/ping$`,
		`(?m)^Metrics served at http://127\.0\.0\.1:\d+/metrics$`,
		`(?m)^Partner API listening on http://127\.0\.0\.1:\d+/api/partner/v1$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, "{") {
		t.Errorf("human output holds JSON:\n%s", out)
	}
}

// TestServeEnvOnlyForServe: TRADEWIND_<FLAG> adds serve flags to the serve command only;
// the command is the first positional argument, so a value equal to "serve" is not it.
func TestServeEnvOnlyForServe(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLiteDSN(t)
	getenv := func(k string) string {
		switch k {
		case "TRADEWIND_DB":
			return dsn
		case "TRADEWIND_ADDR":
			return "127.0.0.1:0"
		case "TRADEWIND_DEMO":
			return "true"
		}
		return ""
	}
	cli := func(args ...string) cliResult {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, getenv, strings.NewReader(""), &out, &errOut)
		return cliResult{out.String(), errOut.String(), err}
	}
	if r := cli("partner", "create", "--name", "serve"); r.err != nil {
		t.Fatalf("partner create --name serve: %v\n%s", r.err, r.stderr)
	}
	var p map[string]any
	r := cli("--json", "partner", "show", "serve")
	if r.err != nil || json.Unmarshal([]byte(r.stdout), &p) != nil || p["name"] != "serve" {
		t.Errorf("partner show serve: %v %s", r.err, r.stdout)
	}
	if r := cli("--db", dsn, "--json", "partner", "update", "serve", "--rate-limit", "300"); r.err != nil {
		t.Errorf("partner update serve: %v", r.err)
	}

	env := func(k string) string {
		return map[string]string{"TRADEWIND_ADDR": "127.0.0.1:0", "TRADEWIND_DEMO": "1"}[k]
	}
	for _, tt := range []struct{ in, want []string }{
		{[]string{"serve"}, []string{"serve", "--addr=127.0.0.1:0", "--demo"}},
		{[]string{"--db", "sqlite:x.db", "--json", "serve", "--log-level", "warn"},
			[]string{"--db", "sqlite:x.db", "--json", "serve", "--addr=127.0.0.1:0", "--demo", "--log-level", "warn"}},
		{[]string{"--db=sqlite:x.db", "serve", "--addr", ":9"}, []string{"--db=sqlite:x.db", "serve", "--demo", "--addr", ":9"}},
		{[]string{"--db", "serve", "migrate"}, []string{"--db", "serve", "migrate"}}, // a database named serve
		{[]string{"partner", "create", "--name", "serve"}, []string{"partner", "create", "--name", "serve"}},
		{[]string{"--json", "catalog", "import", "serve"}, []string{"--json", "catalog", "import", "serve"}},
		{[]string{"--json"}, []string{"--json"}},
	} {
		if got := withServeEnv(tt.in, env); !slices.Equal(got, tt.want) {
			t.Errorf("withServeEnv(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
