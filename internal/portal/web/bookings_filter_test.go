package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

var bookingLink = regexp.MustCompile(`<a href="/bookings/([A-Z]{3}-[A-Z0-9]{8})">`)

// TestBookingFiltersAsTheAPI sends the same filter query to GET /bookings and to the
// portal's Bookings page: both parse it with booking.ParseBookingFilter and list the same
// bookings in the same order, and refuse the same bad filters.
func TestBookingFiltersAsTheAPI(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		a, owner := e.newPartner(t, "acme")
		live1 := e.bookHotelOn(t, a.LiveKey, "same-1", 3, 4)
		e.api.Clock.Advance(25 * time.Hour)
		owner = e.signin(t, "owner@acme.example") // the first session is idle for too long
		live2 := e.bookHotelOn(t, a.LiveKey, "same-2", 6, 8)
		test1 := e.bookHotelOn(t, a.TestKey, "same-3", 3, 4)
		if owner.post("/bookings/"+live2+"/cancel", nil).status != http.StatusSeeOther {
			t.Fatal("cancel")
		}
		e.bookHotel(t, e.api.NewPartner("globex", booking.PartnerParams{}).LiveKey, "same-4") // never listed
		apiRefs := func(query string) (int, []string) {
			res := e.api.Get(a.LiveKey, "/bookings?per_page=100&"+query)
			if res.Status != http.StatusOK {
				return res.Status, nil
			}
			var list []map[string]any
			res.Decode(t, &list)
			var out []string
			for _, b := range list {
				out = append(out, b["reference"].(string))
			}
			return res.Status, out
		}
		portalRefs := func(query string) (int, []string) {
			res := owner.get("/bookings?" + query)
			var out []string
			for _, m := range bookingLink.FindAllStringSubmatch(res.body, -1) {
				out = append(out, m[1])
			}
			return res.status, out
		}
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"mode=live", []string{live2, live1}},
			{"mode=test", []string{test1}},
			{"mode=live&status=cancelled", []string{live2}},
			{"mode=live&status=confirmed", []string{live1}},
			{"mode=live&product_type=hotel", []string{live2, live1}},
			{"mode=live&product_type=rental", nil},
			{"mode=live&created_from=" + apitest.Day(1), []string{live2}},
			{"mode=live&created_to=" + apitest.Day(0), []string{live1}},
			{"mode=live&service_from=" + apitest.Day(4) + "&service_to=" + apitest.Day(9), []string{live2, live1}},
			{"mode=live&service_from=" + apitest.Day(5), []string{live2}},
			{"mode=live&service_to=" + apitest.Day(5), []string{live1}},
			{"mode=live&service_from=" + apitest.Day(9), nil},
			{"mode=live&q=lovelace", []string{live2, live1}},
			{"mode=live&q=" + strings.ToLower(live1), []string{live1}},
			{"mode=test&partner_reference=none", nil},
		} {
			as, api := apiRefs(c.query)
			ps, page := portalRefs(c.query)
			if as != http.StatusOK || ps != http.StatusOK || strings.Join(api, ",") != strings.Join(c.want, ",") ||
				strings.Join(page, ",") != strings.Join(api, ",") {
				t.Errorf("?%s: API %d %v, portal %d %v, want %v", c.query, as, api, ps, page, c.want)
			}
		}
		// Keyset paging: one booking a page, each page's cursor leads to the next.
		f, err := booking.ParseBookingFilter(url.Values{"mode": {"live"}})
		if err != nil {
			t.Fatal(err)
		}
		var paged []string
		for before, pages := int64(0), 0; pages == 0 || before != 0; pages++ {
			list, next, err := e.api.Service.FindBookingsBefore(context.Background(), a.ID, f, before, 1)
			if err != nil || len(list) != 1 || pages > 2 {
				t.Fatalf("page %d: %d bookings, %v", pages, len(list), err)
			}
			paged, before = append(paged, list[0].Reference), next
		}
		if strings.Join(paged, ",") != live2+","+live1 {
			t.Errorf("keyset pages: %v", paged)
		}
		// The same bad filters are refused by both, each named.
		for _, q := range []string{"status=done", "product_type=boat", "created_from=yesterday", "service_to=x",
			"created_from=" + apitest.Day(2) + "&created_to=" + apitest.Day(1), "q=" + strings.Repeat("x", 101)} {
			as, _ := apiRefs(q)
			res := owner.get("/bookings?" + q)
			name := strings.SplitN(q, "=", 2)[0]
			if as != http.StatusBadRequest || res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, name) {
				t.Errorf("?%s: API %d, portal %d", q, as, res.status)
			}
		}
	})
}

// TestBookingsOlderLink follows the page's own "Older bookings" links: every booking is
// listed once, in order, with the filters kept across pages.
func TestBookingsOlderLink(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		a, owner := e.newPartner(t, "acme")
		want := map[string]bool{}
		for i := range portal.PageSize + 2 {
			want[e.bookHotelOn(t, a.LiveKey, fmt.Sprintf("page-%d", i), 2+i, 3+i)] = true
		}
		older := regexp.MustCompile(`href="(/bookings\?[^"]*)">Older bookings`)
		seen := map[string]bool{}
		path := "/bookings?mode=live&product_type=hotel"
		for pages := 0; path != ""; pages++ {
			res := owner.get(html.UnescapeString(path))
			if res.status != http.StatusOK || pages > 2 {
				t.Fatalf("%s: %d (page %d)", path, res.status, pages)
			}
			for _, m := range bookingLink.FindAllStringSubmatch(res.body, -1) {
				if seen[m[1]] {
					t.Errorf("%s listed twice", m[1])
				}
				seen[m[1]] = true
			}
			path = ""
			if m := older.FindStringSubmatch(res.body); m != nil {
				path = m[1]
				if !strings.Contains(path, "product_type=hotel") {
					t.Errorf("the next page's link drops the filter: %s", path)
				}
			}
		}
		if len(seen) != len(want) {
			t.Errorf("listed %d bookings over the pages, want %d", len(seen), len(want))
		}
	})
}

// TestBookingStatusOnThePortalClock: a confirmed booking whose stay has ended shows as
// completed on the list, its page and the CSV, by the service's (injected) clock.
func TestBookingStatusOnThePortalClock(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		a, _ := e.newPartner(t, "acme")
		ref := e.bookHotelOn(t, a.LiveKey, "stay", 2, 3)
		row := regexp.MustCompile(regexp.QuoteMeta(ref) + `</a></td><td>[^<]*</td><td>[^<]*</td>\s*<td>([a-z_]+)</td>`)
		status := func(c *client) (list, csv string, page bool) {
			res := c.get("/bookings?mode=live")
			if m := row.FindStringSubmatch(res.body); m != nil {
				list = m[1]
			}
			for _, line := range strings.Split(c.get("/bookings/export.csv?mode=live").body, "\n") {
				if strings.HasPrefix(line, ref+",") {
					csv = strings.Split(line, ",")[3]
				}
			}
			return list, csv, strings.Contains(c.get("/bookings/"+ref).body, `<dd id="booking-status">completed<`)
		}
		if list, csv, page := status(e.signin(t, "owner@acme.example")); list != "confirmed" || csv != "confirmed" || page {
			t.Fatalf("before the stay: list %q, csv %q, page shows completed %v", list, csv, page)
		}
		e.api.Clock.Advance(10 * 24 * time.Hour)
		if list, csv, page := status(e.signin(t, "owner@acme.example")); list != "completed" || csv != "completed" || !page {
			t.Fatalf("after the stay: list %q, csv %q, page shows completed %v; want completed everywhere", list, csv, page)
		}
	})
}
