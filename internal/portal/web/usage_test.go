package web_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// cell returns the text of the element with id in body, tags stripped.
func cell(t *testing.T, body, id string) string {
	t.Helper()
	m := regexp.MustCompile(`id="` + regexp.QuoteMeta(id) + `"[^>]*>(.*?)</`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no #%s in:\n%s", id, body)
	}
	return m[1]
}

// row returns the cells of the table row whose header is th, tags stripped, joined by |.
func row(t *testing.T, body, th string) string {
	t.Helper()
	m := regexp.MustCompile(`<tr><th scope="row">` + regexp.QuoteMeta(th) + `</th>(.*?)</tr>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no row %q in:\n%s", th, body)
	}
	return strings.Trim(regexp.MustCompile(`(</td>)?<td>`).ReplaceAllString(strings.ReplaceAll(m[1], "</td>", ""), "|"), "|")
}

// TestUsagePageShowsNumbers: the Credit and usage page draws the usage counters of the
// chosen mode and period (requests by outcome, per endpoint) and the bookings, and
// lists the same numbers in its tables; the Overview shows today's and the month's
// requests with their error rates. Another partner's counters and the other mode's are
// not counted.
func TestUsagePageShowsNumbers(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		p, owner := e.newPartner(t, "usage")
		other, _ := e.newPartner(t, "usage-other")
		today := e.api.Clock.Now().UTC().Truncate(24 * time.Hour)
		yesterday, longAgo := today.AddDate(0, 0, -1), today.AddDate(0, 0, -20)
		u := func(partner int64, mode tradewind.Mode, day time.Time, route string, status int, code string, n int64) tradewind.UsageRow {
			return tradewind.UsageRow{PartnerID: partner, Mode: mode, Day: day, Route: route, Status: status, ErrorCode: code, Count: n}
		}
		test, live := tradewind.ModeTest, tradewind.ModeLive
		if err := e.api.Store.UsageAdd(context.Background(), []tradewind.UsageRow{
			u(p.ID, test, today, "POST /bookings", 201, "", 3),
			u(p.ID, test, today, "GET /bookings/{reference}", 404, "not_found", 1),
			u(p.ID, test, today, "POST /bookings", 429, "rate_limited", 2),
			u(p.ID, test, today, "", 404, "not_found", 1),
			u(p.ID, test, today, "POST /hotels/search", 500, "internal_error", 1),
			u(p.ID, test, yesterday, "GET /meta/ping", 200, "", 5),
			u(p.ID, test, longAgo, "GET /meta/ping", 200, "", 30), // in 30 and 90 days only
			u(p.ID, live, today, "GET /meta/ping", 200, "", 9),
			u(other.ID, test, today, "GET /meta/ping", 200, "", 100),
		}); err != nil {
			t.Fatal(err)
		}
		e.bookHotel(t, p.TestKey, "usage-1")

		page := owner.get("/credit?mode=test&days=7")
		if page.status != 200 {
			t.Fatalf("credit: %d %s", page.status, page.body)
		}
		if got := cell(t, page.body, "usage-total"); got != "13" {
			t.Errorf("total requests %s, want 13", got)
		}
		for th, want := range map[string]string{
			"POST /bookings":            "5",
			"GET /meta/ping":            "5",
			"GET /bookings/{reference}": "1",
			"(no such endpoint)":        "1",
			"POST /hotels/search":       "1",
		} {
			if got := row(t, page.body, th); got != want {
				t.Errorf("calls of %s: %q, want %q", th, got, want)
			}
		}
		// Columns: requests, 2xx, 404 not_found, 429, 5xx, bookings, booked EUR.
		day := func(d time.Time) string { return d.Format("Jan 2") }
		if got, want := row(t, page.body, day(today)), "8|3|2|2|1|1|80.00 EUR"; got != want {
			t.Errorf("today: %q, want %q", got, want)
		}
		if got, want := row(t, page.body, day(yesterday)), "5|5|0|0|0|0|0.00 EUR"; got != want {
			t.Errorf("yesterday: %q, want %q", got, want)
		}
		if got, want := row(t, page.body, "Total"), "13|8|2|2|1|1|80.00 EUR"; got != want {
			t.Errorf("totals: %q, want %q", got, want)
		}
		for _, want := range []string{`<svg xmlns="http://www.w3.org/2000/svg" class="chart"`, "API requests per day by outcome, last 7 days",
			"Bookings per day", "Booked value per day in EUR", "Calls per endpoint", "404 not_found", "<title>" + day(today) + " · 2xx: 3</title>"} {
			if !strings.Contains(page.body, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
		if n := strings.Count(page.body, `<tr><th scope="row">`) - 6; n != 7 { // 5 endpoints and the total are not days
			t.Errorf("%d days listed, want 7", n)
		}
		if got := cell(t, owner.get("/credit?mode=test&days=30").body, "usage-total"); got != "43" {
			t.Errorf("30 days: %s requests, want 43", got)
		}
		if got := cell(t, owner.get("/credit?mode=live&days=unknown").body, "usage-total"); got != "9" {
			t.Errorf("live, default period: %s requests, want 9", got)
		}

		over := owner.get("/?mode=test").body
		for id, want := range map[string]string{"requests-today": "8", "errors-today": "62.5 %", "requests-30d": "43", "errors-30d": "11.6 %"} {
			if got := cell(t, over, id); got != want {
				t.Errorf("overview #%s = %q, want %q", id, got, want)
			}
		}
		if got := cell(t, owner.get("/?mode=live").body, "errors-today"); got != "0.0 %" {
			t.Errorf("live error rate today %q", got)
		}
	})
}
