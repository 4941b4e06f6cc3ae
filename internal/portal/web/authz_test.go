package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestRoleMatrix tries every action of portal.md's matrix as every role: the server
// allows exactly what the matrix allows, whatever the page shows.
func TestRoleMatrix(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		actions := []struct {
			name    string
			action  portal.Action
			ok      int
			attempt func(t *testing.T, c *client, p *apitest.Partner, otherID int64) result
		}{
			{"see bookings", portal.ActView, http.StatusOK, func(t *testing.T, c *client, p *apitest.Partner, _ int64) result {
				return c.get("/bookings")
			}},
			{"see credit", portal.ActView, http.StatusOK, func(t *testing.T, c *client, p *apitest.Partner, _ int64) result {
				return c.get("/credit")
			}},
			{"use the test console", portal.ActDevelop, http.StatusOK, func(t *testing.T, c *client, p *apitest.Partner, _ int64) result {
				if res := c.get("/console"); res.status != http.StatusOK {
					return res
				}
				return c.post("/console", consoleForm(e.testKeyID(t, p), "GET", "/meta/ping", "", ""))
			}},
			{"create a webhook", portal.ActDevelop, http.StatusCreated, func(t *testing.T, c *client, p *apitest.Partner, _ int64) result {
				return c.post("/webhooks", url.Values{"url": {"https://hooks.example/" + p.Name}, "event_types": {"booking.confirmed"}})
			}},
			{"pause a webhook", portal.ActDevelop, http.StatusSeeOther, func(t *testing.T, c *client, p *apitest.Partner, _ int64) result {
				return c.post(fmt.Sprintf("/webhooks/%d/pause", e.subscribe(t, p, false)), nil)
			}},
			{"resume a webhook", portal.ActDevelop, http.StatusSeeOther, func(t *testing.T, c *client, p *apitest.Partner, _ int64) result {
				return c.post(fmt.Sprintf("/webhooks/%d/resume", e.subscribe(t, p, true)), nil)
			}},
			{"export bookings", portal.ActCancel, http.StatusOK, func(t *testing.T, c *client, p *apitest.Partner, _ int64) result {
				return c.get("/bookings/export.csv")
			}},
			{"cancel a booking", portal.ActCancel, http.StatusSeeOther, func(t *testing.T, c *client, p *apitest.Partner, _ int64) result {
				return c.post("/bookings/"+e.bookHotel(t, p.TestKey, "matrix-"+p.Name)+"/cancel", nil)
			}},
			{"invite a member", portal.ActManageTeam, http.StatusCreated, func(t *testing.T, c *client, p *apitest.Partner, _ int64) result {
				return c.post("/team/invitations", url.Values{"email": {"new@" + p.Name + ".example"}, "role": {"viewer"}})
			}},
			{"change a member's role", portal.ActManageTeam, http.StatusSeeOther, func(t *testing.T, c *client, p *apitest.Partner, other int64) result {
				return c.post(fmt.Sprintf("/team/%d/role", other), url.Values{"role": {"developer"}})
			}},
			{"see the audit log", portal.ActManageTeam, http.StatusOK, func(t *testing.T, c *client, p *apitest.Partner, _ int64) result {
				return c.get("/audit")
			}},
			{"transfer ownership", portal.ActOwn, http.StatusSeeOther, func(t *testing.T, c *client, p *apitest.Partner, other int64) result {
				return c.post(fmt.Sprintf("/team/%d/transfer", other), nil)
			}},
		}
		for _, role := range portal.Roles {
			for i, a := range actions {
				t.Run(role+"/"+a.name, func(t *testing.T) {
					// A partner of its own for each case: the actions change the team.
					name := fmt.Sprintf("%s-%d", role, i)
					p, _ := e.newPartner(t, name)
					c, _ := e.member(t, name, role+"-user@"+name+".example", role)
					_, other := e.member(t, name, "other@"+name+".example", portal.RoleViewer)
					res := a.attempt(t, c, p, other)
					want := http.StatusForbidden
					if portal.Allowed(role, a.action) {
						want = a.ok
					}
					if res.status != want {
						t.Fatalf("%s as %s: %d, want %d\n%s", a.name, role, res.status, want, res.body)
					}
				})
			}
		}
	})
}

// TestOwnerRules: an admin cannot touch an owner nor grant the owner role; the last
// owner cannot step down.
func TestOwnerRules(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		e.newPartner(t, "acme")
		ownerID := mustUser(t, e, "owner@acme.example").ID
		admin, adminID := e.member(t, "acme", "admin@acme.example", portal.RoleAdmin)
		_, viewerID := e.member(t, "acme", "viewer@acme.example", portal.RoleViewer)
		for _, c := range []struct {
			name string
			path string
			form url.Values
		}{
			{"demote the owner", fmt.Sprintf("/team/%d/role", ownerID), url.Values{"role": {"viewer"}}},
			{"remove the owner", fmt.Sprintf("/team/%d/remove", ownerID), nil},
			{"grant owner", fmt.Sprintf("/team/%d/role", viewerID), url.Values{"role": {"owner"}}},
			{"invite an owner", "/team/invitations", url.Values{"email": {"x@acme.example"}, "role": {"owner"}}},
		} {
			if res := admin.post(c.path, c.form); res.status != http.StatusForbidden {
				t.Errorf("admin may %s: %d", c.name, res.status)
			}
		}
		if u := mustUser(t, e, "owner@acme.example"); u.Role != portal.RoleOwner {
			t.Fatalf("the owner became %s", u.Role)
		}
		// The only owner cannot step down.
		owner := e.client(t)
		owner.post("/signin", url.Values{"email": {"owner@acme.example"}, "password": {password}})
		res := owner.post(fmt.Sprintf("/team/%d/role", ownerID), url.Values{"role": {"admin"}})
		if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "at least one owner") {
			t.Fatalf("last owner stepped down: %d", res.status)
		}
		// An owner transfers ownership: the admin becomes owner, the owner admin.
		if res := owner.post(fmt.Sprintf("/team/%d/transfer", adminID), nil); res.status != http.StatusSeeOther {
			t.Fatalf("transfer: %d %s", res.status, res.body)
		}
		if mustUser(t, e, "admin@acme.example").Role != portal.RoleOwner || mustUser(t, e, "owner@acme.example").Role != portal.RoleAdmin {
			t.Fatal("ownership was not transferred")
		}
	})
}

func mustUser(t *testing.T, e *env, email string) *store.PortalUser {
	t.Helper()
	u, err := e.api.Store.PortalUserGetByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestOtherPartnersIDs: another partner's booking, subscription, event, user and
// session answer 404, whatever the URL.
func TestOtherPartnersIDs(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		ctx := context.Background()
		a, aOwner := e.newPartner(t, "acme")
		_, bOwner := e.newPartner(t, "globex")
		ref := e.bookHotel(t, a.LiveKey, "other-1")
		res := aOwner.post("/webhooks", url.Values{"url": {"https://hooks.example/a"}, "event_types": {"booking.cancelled"}})
		if res.status != http.StatusCreated {
			t.Fatalf("create webhook: %d", res.status)
		}
		subs, _ := e.api.Store.SubscriptionList(ctx, a.ID)
		paused := e.subscribe(t, a, true)
		aUser := mustUser(t, e, "owner@acme.example")
		sessions, _ := e.api.Store.PortalSessionList(ctx, aUser.ID)
		if aOwner.post("/bookings/"+ref+"/cancel", nil).status != http.StatusSeeOther {
			t.Fatal("the owner could not cancel its own booking")
		}
		events, _ := e.api.Store.EventListByBooking(ctx, a.ID, ref)
		if len(subs) != 1 || subs[0].ID == paused || len(sessions) == 0 || len(events) == 0 {
			t.Fatalf("setup: %d subscriptions, %d sessions, %d events", len(subs), len(sessions), len(events))
		}
		for _, c := range []struct {
			method, path string
			form         url.Values
		}{
			{"GET", "/bookings/" + ref, nil},
			{"GET", "/bookings/" + ref + "/cancel", nil},
			{"POST", "/bookings/" + ref + "/cancel", nil},
			{"GET", fmt.Sprintf("/webhooks/%d", subs[0].ID), nil},
			{"POST", fmt.Sprintf("/webhooks/%d/delete", subs[0].ID), nil},
			{"POST", fmt.Sprintf("/webhooks/%d/test", subs[0].ID), url.Values{"event_type": {"booking.confirmed"}}},
			{"POST", fmt.Sprintf("/webhooks/%d/roll", subs[0].ID), nil},
			{"POST", fmt.Sprintf("/webhooks/%d/pause", subs[0].ID), nil},
			{"POST", fmt.Sprintf("/webhooks/%d/resume", paused), nil},
			{"POST", "/events/" + events[0].ID + "/redeliver", nil},
			{"POST", fmt.Sprintf("/team/%d/role", aUser.ID), url.Values{"role": {"viewer"}}},
			{"POST", fmt.Sprintf("/team/%d/remove", aUser.ID), nil},
			{"POST", fmt.Sprintf("/team/%d/transfer", aUser.ID), nil},
			{"POST", fmt.Sprintf("/account/sessions/%d/end", sessions[0].ID), nil},
		} {
			var res result
			if c.method == "GET" {
				res = bOwner.get(c.path)
			} else {
				res = bOwner.post(c.path, c.form)
			}
			if res.status != http.StatusNotFound {
				t.Errorf("%s %s as another partner: %d, want 404", c.method, c.path, res.status)
			}
		}
		if sub, err := e.api.Store.SubscriptionGet(ctx, a.ID, subs[0].ID); err != nil || !sub.PausedAt.IsZero() {
			t.Errorf("the subscription is gone or paused: %+v, %v", sub, err)
		}
		if sub, err := e.api.Store.SubscriptionGet(ctx, a.ID, paused); err != nil || sub.PausedAt.IsZero() {
			t.Errorf("another partner resumed the subscription: %+v, %v", sub, err)
		}
		if u := mustUser(t, e, "owner@acme.example"); u.Role != portal.RoleOwner {
			t.Errorf("another partner changed the owner's role to %s", u.Role)
		}
		// The bookings list and CSV of globex hold nothing of acme.
		if strings.Contains(bOwner.get("/bookings?mode=live").body, ref) || strings.Contains(bOwner.get("/bookings/export.csv?mode=live").body, ref) {
			t.Error("another partner's booking is listed")
		}
	})
}

// TestCrossSitePost: a state change sent by another site is refused, and nothing changes.
func TestCrossSitePost(t *testing.T) {
	o := storetest.Openers()[0]
	e := newEnv(t, o)
	a, owner := e.newPartner(t, "acme")
	ref := e.bookHotel(t, a.LiveKey, "xsite")
	for _, h := range []map[string]string{{"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://evil.example"}} {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/bookings/"+ref+"/cancel", nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		if res := owner.do(req); res.status != http.StatusForbidden {
			t.Errorf("cross-site POST with %v: %d, want 403", h, res.status)
		}
	}
	b, _ := e.api.Store.BookingGetByReference(context.Background(), a.ID, ref)
	if b.Status != tradewind.StatusConfirmed {
		t.Fatalf("the booking is %s after refused cross-site posts", b.Status)
	}
}

// TestDeadSessions: the cookie of an ended session, or of a disabled user, is refused.
func TestDeadSessions(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		_, owner := e.newPartner(t, "acme")
		if res := owner.get("/"); res.status != http.StatusOK {
			t.Fatalf("overview: %d", res.status)
		}
		// A second browser of the same user; the first signs out.
		second := e.client(t)
		second.post("/signin", url.Values{"email": {"owner@acme.example"}, "password": {password}})
		stolen := owner.http.Jar.Cookies(mustURL(e.srv.URL))
		owner.post("/signout", nil)
		replay := e.client(t)
		replay.http.Jar.SetCookies(mustURL(e.srv.URL), stolen)
		if res := replay.get("/"); res.status != http.StatusSeeOther || !strings.HasPrefix(res.header.Get("Location"), "/signin") {
			t.Fatalf("an ended session's cookie: %d %s", res.status, res.header.Get("Location"))
		}
		if res := second.get("/"); res.status != http.StatusOK {
			t.Fatalf("the other session ended too: %d", res.status)
		}
		if _, err := e.portal.SetDisabled(context.Background(), "owner@acme.example", true); err != nil {
			t.Fatal(err)
		}
		if res := second.get("/"); res.status != http.StatusSeeOther {
			t.Fatalf("a disabled user's cookie: %d", res.status)
		}
		if res := e.client(t).post("/signin", url.Values{"email": {"owner@acme.example"}, "password": {password}}); res.status != http.StatusUnauthorized ||
			!strings.Contains(res.body, "E-mail or password is wrong.") {
			t.Fatalf("a disabled user signed in: %d", res.status)
		}
		// Idle timeout: two hours without a request.
		if _, err := e.portal.SetDisabled(context.Background(), "owner@acme.example", false); err != nil {
			t.Fatal(err)
		}
		idle := e.client(t)
		idle.post("/signin", url.Values{"email": {"owner@acme.example"}, "password": {password}})
		e.api.Clock.Advance(portal.SessionIdle + 1)
		if res := idle.get("/"); res.status != http.StatusSeeOther {
			t.Fatalf("an idle session: %d", res.status)
		}
	})
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
