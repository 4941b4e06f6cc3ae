package web_test

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

var exportLink = regexp.MustCompile(`href="(/bookings/export\.csv\?[^"]*)"`)

// TestModeSwitch: every page with both kinds of data shows one mode at a time (Overview,
// Bookings and the CSV export the Bookings page links to, with its mode); the Credit
// page, live only, says so and has no switch; the ledger lists the live booking's draw
// and release, never a test booking.
func TestModeSwitch(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		p, owner := e.newPartner(t, "acme")
		live := e.bookHotel(t, p.LiveKey, "live-1")
		test := e.bookHotel(t, p.TestKey, "test-1")
		e.api.Post(p.LiveKey, "/bookings/"+live+"/cancel", map[string]any{}).Expect(t, http.StatusOK, "")
		for _, c := range []struct{ mode, shown, hidden string }{{"live", live, test}, {"test", test, live}} {
			res := owner.get("/bookings?mode=" + c.mode)
			if res.status != http.StatusOK || !strings.Contains(res.body, c.shown) || strings.Contains(res.body, c.hidden) ||
				!strings.Contains(res.body, `id="data-mode">`+c.mode+`<`) {
				t.Fatalf("%s bookings: %d", c.mode, res.status)
			}
			m := exportLink.FindStringSubmatch(res.body)
			if m == nil {
				t.Fatalf("%s bookings: no export link", c.mode)
			}
			csv := owner.get(html.UnescapeString(m[1])).body
			if !strings.Contains(csv, c.shown+",") || strings.Contains(csv, c.hidden) || !strings.Contains(csv, ","+c.mode+",") {
				t.Fatalf("%s export (%s):\n%s", c.mode, m[1], csv)
			}
			if o := owner.get("/?mode=" + c.mode).body; !strings.Contains(o, `id="bookings-30d">1<`) || !strings.Contains(o, `id="data-mode">`+c.mode+`<`) {
				t.Fatalf("%s overview does not count its one booking", c.mode)
			}
		}
		credit := owner.get("/credit").body
		if !strings.Contains(credit, "Live data only") || strings.Contains(credit, `aria-label="Data mode"`) {
			t.Fatal("the Credit page does not say it is live only, or offers a switch")
		}
		ledger := credit[strings.Index(credit, `id="ledger"`):]
		if strings.Count(ledger, ">"+live+"<") != 2 || strings.Contains(ledger, test) || !strings.Contains(ledger, "release") || !strings.Contains(ledger, "draw") {
			t.Fatalf("ledger:\n%s", ledger)
		}
	})
}
