package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/store"
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
		// The credit line and its ledger are live whatever the switch says.
		for _, path := range []string{"/credit", "/credit?mode=test"} {
			credit := owner.get(path).body
			if !strings.Contains(credit, "Live data only") {
				t.Fatalf("%s does not say the credit line is live only", path)
			}
			ledger := credit[strings.Index(credit, `id="ledger"`):]
			if strings.Count(ledger, ">"+live+"<") != 2 || strings.Contains(ledger, test) || !strings.Contains(ledger, "release") || !strings.Contains(ledger, "draw") {
				t.Fatalf("%s ledger:\n%s", path, ledger)
			}
		}
	})
}

var olderEntries = regexp.MustCompile(`href="(/credit\?mode=live&amp;before=\d+)#ledger"`)

// TestCreditLedgerPages: the Credit page lists the ledger newest first, a page at a
// time, with a link to the older entries; another partner's entries never appear.
func TestCreditLedgerPages(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		ctx := context.Background()
		p, owner := e.newPartner(t, "acme")
		other := e.api.NewPartner("globex", booking.PartnerParams{})
		add := func(partnerID int64, ref string, i int) {
			at := apitest.Start.Add(time.Duration(i) * time.Minute)
			b := &tradewind.Booking{Reference: ref, PartnerID: partnerID, ProductType: "hotel", Status: tradewind.StatusConfirmed,
				PricingMode: "net", TotalPrice: 100, CreditDrawn: 100, Currency: "EUR", ItemID: apitest.HotelLisbon,
				StartDate: apitest.Day(3), EndDate: apitest.Day(4), Quote: []byte(`{}`), Guest: []byte(`{}`), Details: []byte(`{}`),
				CreatedAt: at, UpdatedAt: at}
			if err := e.api.Store.InTx(ctx, func(q store.Querier) error {
				if err := q.BookingCreate(ctx, b); err != nil {
					return err
				}
				if ok, err := q.CreditMove(ctx, &store.LedgerEntry{PartnerID: partnerID, BookingID: b.ID, Reference: ref,
					Kind: store.LedgerDraw, Amount: 100, Currency: "EUR", At: at}); err != nil || !ok {
					return fmt.Errorf("draw: %v %w", ok, err)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		n := portal.PageSize + 3
		for i := range n {
			add(p.ID, fmt.Sprintf("HTL-PAGE%04d", i), i)
		}
		add(other.ID, "HTL-OTHER001", 0)
		first := owner.get("/credit").body
		if c := strings.Count(first, `<td>draw</td>`); c != portal.PageSize || !strings.Contains(first, fmt.Sprintf(">HTL-PAGE%04d<", n-1)) ||
			strings.Contains(first, "HTL-OTHER001") {
			t.Fatalf("first page: %d entries", c)
		}
		m := olderEntries.FindStringSubmatch(first)
		if m == nil {
			t.Fatal("no link to the older entries")
		}
		older := owner.get(html.UnescapeString(m[1])).body
		if c := strings.Count(older, `<td>draw</td>`); c != 3 || !strings.Contains(older, ">HTL-PAGE0000<") ||
			!strings.Contains(older, "1.00 EUR") || olderEntries.MatchString(older) {
			t.Fatalf("second page: %d entries\n%s", c, older)
		}
	})
}
