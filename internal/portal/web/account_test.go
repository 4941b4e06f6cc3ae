package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestAccount: name and time zone, a password change that ends the other sessions,
// and ending a session from the list.
func TestAccount(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		a, owner := e.newPartner(t, "acme")
		e.bookHotel(t, a.LiveKey, "account-1")
		if res := owner.post("/account", url.Values{"name": {"Ann"}, "time_zone": {"Mars/Olympus"}}); res.status != http.StatusUnprocessableEntity {
			t.Fatalf("bad time zone: %d", res.status)
		}
		if res := owner.post("/account", url.Values{"name": {"Ann"}, "time_zone": {"Asia/Tokyo"}}); res.status != http.StatusSeeOther {
			t.Fatalf("account: %d %s", res.status, res.body)
		}
		// apitest's clock is 09:30 UTC: 18:30 in Tokyo, with UTC on hover.
		body := owner.get("/bookings").body
		if !strings.Contains(body, "18:30 JST") || !strings.Contains(body, `title="2027-01-04 09:30:00 UTC"`) {
			t.Errorf("times are not in the member's zone:\n%s", body)
		}
		other := e.client(t)
		other.post("/signin", url.Values{"email": {"owner@acme.example"}, "password": {password}})
		third := e.client(t)
		third.post("/signin", url.Values{"email": {"owner@acme.example"}, "password": {password}})
		// End the third session from the first's list.
		ids := regexp.MustCompile(`/account/sessions/(\d+)/end`).FindAllStringSubmatch(owner.get("/account").body, -1)
		if len(ids) != 3 { // the invitation's, other's and third's, newest first
			t.Fatalf("%d other sessions listed, want 3", len(ids))
		}
		if res := owner.post("/account/sessions/"+ids[0][1]+"/end", nil); res.status != http.StatusSeeOther {
			t.Fatalf("end a session: %d", res.status)
		}
		if third.get("/").status != http.StatusSeeOther {
			t.Error("the ended (newest) session still works")
		}
		if res := owner.post("/account/password", url.Values{"current": {"not it at all"}, "new": {"a brand new password"}}); res.status != http.StatusUnprocessableEntity {
			t.Fatalf("wrong current password: %d", res.status)
		}
		if res := owner.post("/account/password", url.Values{"current": {password}, "new": {"a brand new password"}}); res.status != http.StatusSeeOther {
			t.Fatalf("password change: %d %s", res.status, res.body)
		}
		if other.get("/").status != http.StatusSeeOther {
			t.Error("a password change left another session alive")
		}
		if owner.get("/").status != http.StatusOK {
			t.Error("the password change ended its own session")
		}
		if res := e.client(t).post("/signin", url.Values{"email": {"owner@acme.example"}, "password": {"a brand new password"}}); res.status != http.StatusSeeOther {
			t.Errorf("sign-in with the new password: %d", res.status)
		}
		if body := owner.get("/audit").body; !strings.Contains(body, "password.changed") || !strings.Contains(body, "signin") {
			t.Error("the audit log lacks the password change")
		}
	})
}
