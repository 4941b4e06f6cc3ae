package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// subscribe creates a subscription of p to booking.confirmed through the API, paused
// by the operator when paused, and returns its id.
func (e *env) subscribe(t *testing.T, p *apitest.Partner, paused bool) int64 {
	t.Helper()
	var v booking.SubscriptionView
	e.api.Post(p.LiveKey, "/webhooks", map[string]any{"url": "https://hooks.example/" + p.Name, "event_types": []string{"booking.confirmed"}}).
		Expect(t, http.StatusCreated, "").Decode(t, &v)
	if paused {
		if err := e.api.Service.PauseSubscription(context.Background(), 0, v.ID, booking.PauseReasonOperator, booking.ActorOperator); err != nil {
			t.Fatal(err)
		}
	}
	return v.ID
}

// TestWebhookPauseResume: the portal pauses and resumes a subscription; the Webhooks
// page shows who paused it, since when and why (the automatic pause included); each pause
// and resume is in the audit log; resuming redelivers what failed meanwhile.
func TestWebhookPauseResume(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		ctx := context.Background()
		a, owner := e.newPartner(t, "acme")
		dev, _ := e.member(t, "acme", "dev@acme.example", "developer")
		id := e.subscribe(t, a, false)
		row := func(c *client) string {
			t.Helper()
			res := c.get("/webhooks")
			body := res.body
			start := strings.Index(body, fmt.Sprintf(`id="subscription-%d"`, id))
			if start < 0 {
				t.Fatalf("the subscription is not listed: %d %s\n%s", res.status, res.header.Get("Location"), body)
			}
			return body[start : start+strings.Index(body[start:], "</tr>")]
		}
		if r := row(dev); !strings.Contains(r, ">active<") || !strings.Contains(r, "/pause") {
			t.Fatalf("an active subscription's row: %s", r)
		}

		// Three days of failed deliveries: the periodic job pauses it; the page says so.
		e.bookHotel(t, a.LiveKey, "hooks-1")
		if len(e.api.AttemptAll(t, nil, true)) != 1 {
			t.Fatal("no delivery to fail")
		}
		failedAt := e.api.Clock.Now()
		e.api.Clock.Advance(booking.FailingPauseAfter + time.Minute)
		e.bookHotel(t, a.LiveKey, "hooks-2")
		e.api.AttemptAll(t, nil, true)
		if paused, err := e.api.Service.PauseFailingSubscriptions(ctx); err != nil || len(paused) != 1 {
			t.Fatalf("automatic pause: %+v, %v", paused, err)
		}
		// Three days on, the sessions have expired: sign in again.
		owner, dev = e.signin(t, "owner@acme.example"), e.signin(t, "dev@acme.example")
		r := row(dev)
		if !strings.Contains(r, "paused</strong> automatically since") || !strings.Contains(r, "every delivery failed since") ||
			!strings.Contains(r, failedAt.UTC().Format(time.RFC3339)) || !strings.Contains(r, "/resume") {
			t.Errorf("the automatic pause is not shown: %s", r)
		}
		audit := owner.get("/audit").body
		if !strings.Contains(audit, "<td>system</td><td>webhook.paused</td>") || !strings.Contains(audit, "paused automatically") {
			t.Errorf("the audit log lacks the automatic pause:\n%s", audit)
		}

		// A developer resumes it: both failed events are due again, once each.
		res := dev.post(fmt.Sprintf("/webhooks/%d/resume", id), nil)
		if res.status != http.StatusSeeOther || res.header.Get("Location") != "/webhooks?resumed=2" {
			t.Fatalf("resume: %d %s", res.status, res.header.Get("Location"))
		}
		if body := dev.get(res.header.Get("Location")).body; !strings.Contains(body, "2 delivery(ies) are due") {
			t.Error("the resume's notice is missing")
		}
		pending, err := e.api.Store.DeliveryList(ctx, store.DeliveryFilter{PartnerID: a.ID, SubscriptionID: id, Status: store.DeliveryPending})
		if err != nil || len(pending) != 2 || pending[0].EventID == pending[1].EventID {
			t.Fatalf("redeliveries after resume: %d, %v", len(pending), err)
		}
		if r := row(dev); !strings.Contains(r, ">active<") {
			t.Errorf("resumed but shown as: %s", r)
		}

		// Paused by hand, from the portal: shown as the partner's pause.
		if res := dev.post(fmt.Sprintf("/webhooks/%d/pause", id), nil); res.status != http.StatusSeeOther {
			t.Fatalf("pause: %d %s", res.status, res.body)
		}
		if r := row(owner); !strings.Contains(r, "paused</strong> by the partner since") || strings.Contains(r, "every delivery failed") {
			t.Errorf("the manual pause is not shown: %s", r)
		}
		if res := dev.post(fmt.Sprintf("/webhooks/%d/pause", id), nil); res.status != http.StatusUnprocessableEntity ||
			!strings.Contains(res.body, "already paused") {
			t.Errorf("second pause: %d", res.status)
		}
		if res := dev.post(fmt.Sprintf("/webhooks/%d/resume", id), nil); res.status != http.StatusSeeOther {
			t.Fatalf("resume: %d", res.status)
		}
		if res := dev.post(fmt.Sprintf("/webhooks/%d/resume", id), nil); res.status != http.StatusUnprocessableEntity ||
			!strings.Contains(res.body, "not paused") {
			t.Errorf("second resume: %d", res.status)
		}
		entries, err := e.api.Store.AuditList(ctx, a.ID, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, en := range entries {
			if strings.HasPrefix(en.Action, "webhook.") {
				got = append(got, en.Actor+" "+en.Action+" "+en.ClientAddr)
			}
		}
		want := []string{"dev@acme.example webhook.resumed 127.0.0.1", "dev@acme.example webhook.paused 127.0.0.1",
			"dev@acme.example webhook.resumed 127.0.0.1", "system webhook.paused "}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("audit entries:\n%q\nwant\n%q", got, want)
		}
	})
}

// TestDeliveriesModeSwitch: a subscription's page lists the deliveries of live bookings
// in live mode and those of test bookings in test mode, each with every attempt; long
// URLs and ids are elided with their full value in the title.
func TestDeliveriesModeSwitch(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		ctx := context.Background()
		a, owner := e.newPartner(t, "acme")
		id := e.subscribe(t, a, false)
		live := e.bookHotel(t, a.LiveKey, "mode-live")
		test := e.bookHotel(t, a.TestKey, "mode-test")
		e.api.AttemptAll(t, nil, true)
		eventOf := func(ref string) string {
			evs, err := e.api.Store.EventListByBooking(ctx, a.ID, ref)
			if err != nil || len(evs) != 1 {
				t.Fatalf("events of %s: %d, %v", ref, len(evs), err)
			}
			return evs[0].ID
		}
		liveEvent, testEvent := eventOf(live), eventOf(test)
		path := fmt.Sprintf("/webhooks/%d", id)
		for _, c := range []struct {
			query      string
			has, lacks string
		}{{"", liveEvent, testEvent}, {"?mode=live", liveEvent, testEvent}, {"?mode=test", testEvent, liveEvent}} {
			body := owner.get(path + c.query).body
			if !strings.Contains(body, `title="`+c.has+`"`) || strings.Contains(body, c.lacks) {
				t.Errorf("%s%s: want %s, not %s", path, c.query, c.has, c.lacks)
			}
			if !strings.Contains(body, "HTTP 500") || strings.Count(body, `class="delivery"`) != 1 {
				t.Errorf("%s%s: the delivery or its attempt is missing", path, c.query)
			}
			if !strings.Contains(body, `<div class="table-scroll" tabindex="0" role="region" aria-label="Webhook deliveries"><table class="deliveries">`) {
				t.Errorf("%s%s: the deliveries table does not scroll in its container", path, c.query)
			}
		}
		if body := owner.get(path + "?mode=test").body; !strings.Contains(body, `href="/webhooks/`+fmt.Sprint(id)+`?mode=live"`) {
			t.Error("no switch back to live")
		}
		// Redelivering from the test side comes back to the test side.
		res := owner.post("/events/"+testEvent+"/redeliver", url.Values{"back": {path}, "mode": {"test"}})
		if res.status != http.StatusSeeOther || res.header.Get("Location") != path+"?mode=test&redelivered=1" {
			t.Errorf("redeliver from the test side: %d %s", res.status, res.header.Get("Location"))
		}
	})
}
