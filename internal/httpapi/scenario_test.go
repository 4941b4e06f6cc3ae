package httpapi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// withScenario sends r with a Tradewind-Scenario header.
func withScenario(env *apitest.Env, r apitest.Request, scenario string) *apitest.Response {
	env.TB.Helper()
	if r.Header == nil {
		r.Header = map[string]string{}
	}
	r.Header["Tradewind-Scenario"] = scenario
	return env.Do(r)
}

func prebookReq(key string, q map[string]any) apitest.Request {
	return apitest.Request{Method: "POST", Path: "/bookings/prebook", Key: key, Body: q}
}

func bookReq(key, idem string, body map[string]any) apitest.Request {
	return apitest.Request{Method: "POST", Path: "/bookings", Key: key, Body: body, Header: map[string]string{"Idempotency-Key": idem}}
}

func TestScenarios(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		q := hotelQuote(1, 3, 1, 2)

		// sold_out: prebook and book are 422 invalid_quote; nothing is booked.
		withScenario(env, prebookReq(p.TestKey, q), "sold_out").Expect(t, 422, "invalid_quote").Because(t, "sold_out")
		withScenario(env, bookReq(p.TestKey, "s1", withGuest(q)), "sold_out").Expect(t, 422, "invalid_quote").Because(t, "sold_out")

		// price_changed: the locked price is not availability's; booking charges the lock.
		avail := env.Post(p.TestKey, "/hotels/availability", map[string]any{"hotel_id": apitest.HotelLisbon,
			"check_in": apitest.Day(1), "check_out": apitest.Day(3), "adults": 2}).Expect(t, 200, "").Map(t)
		shown := avail["available_rooms"].([]any)[0].(map[string]any)["total_price"].(float64)
		up := withScenario(env, prebookReq(p.TestKey, q), "price_changed").Expect(t, 200, "").Map(t)
		down := withScenario(env, prebookReq(p.TestKey, q), "price_changed; percent=-20").Expect(t, 200, "").Map(t)
		if up["total_price"].(float64) <= shown || down["total_price"].(float64) >= shown {
			t.Errorf("availability %v, price_changed %v and %v", shown, up["total_price"], down["total_price"])
		}
		b := bookOK(t, env, p.TestKey, "pc", map[string]any{"prebook_token": up["prebook_token"]})
		if b["total_price"] != up["total_price"] || b["test"] != true {
			t.Errorf("booked from the changed price: %v", b)
		}
		withScenario(env, bookReq(p.TestKey, "pc2", withGuest(q)), "price_changed").Expect(t, 400, "bad_request") // prebook only

		// Credit refusals.
		withScenario(env, bookReq(p.TestKey, "c1", withGuest(q)), "insufficient_credit").Expect(t, 402, "insufficient_credit")
		withScenario(env, bookReq(p.TestKey, "c2", withGuest(q)), "credit_blocked").Expect(t, 402, "credit_blocked")
		// The key of a refused request may be used again: nothing was remembered.
		withScenario(env, bookReq(p.TestKey, "c1", withGuest(q)), "pending").Expect(t, 201, "")
		if got := statusOf(t, env, p.TestKey, env.Get(p.TestKey, "/bookings?status=pending").Maps(t)[0]["reference"].(string)); got != "pending" {
			t.Errorf("pending scenario: %v", got)
		}

		// on_request without a timer stays on_request, and is an ordinary test booking:
		// listed, and cancellable.
		or := withScenario(env, bookReq(p.TestKey, "or", withGuest(q)), "on_request").Expect(t, 201, "").Map(t)
		if or["status"] != "on_request" || or["test"] != true {
			t.Errorf("on_request = %v", or)
		}
		cancelBooking(env, p.TestKey, or["reference"].(string)).Expect(t, 200, "")

		// rate_limited and unavailable, on any endpoint, with Retry-After.
		r := withScenario(env, apitest.Request{Method: "GET", Path: "/meta/ping", Key: p.TestKey}, "rate_limited").Expect(t, 429, "rate_limited")
		if r.Header.Get("Retry-After") != "1" {
			t.Errorf("Retry-After = %q", r.Header.Get("Retry-After"))
		}
		r = withScenario(env, apitest.Request{Method: "GET", Path: "/bookings", Key: p.TestKey}, "rate_limited; retry_after=7").Expect(t, 429, "rate_limited")
		if r.Header.Get("Retry-After") != "7" {
			t.Errorf("Retry-After = %q", r.Header.Get("Retry-After"))
		}
		r = withScenario(env, apitest.Request{Method: "POST", Path: "/hotels/search", Key: p.TestKey,
			Body: map[string]any{"destination": "Lisbon", "check_in": apitest.Day(1), "check_out": apitest.Day(2)}}, "unavailable; retry_after=30").Expect(t, 503, "service_unavailable")
		if r.Header.Get("Retry-After") != "30" {
			t.Errorf("Retry-After = %q", r.Header.Get("Retry-After"))
		}

		// slow: the same answer, later.
		start := time.Now()
		withScenario(env, apitest.Request{Method: "GET", Path: "/meta/ping", Key: p.TestKey}, "slow=60").Expect(t, 200, "")
		withScenario(env, apitest.Request{Method: "GET", Path: "/meta/ping", Key: p.TestKey}, "slow; ms=60").Expect(t, 200, "")
		if d := time.Since(start); d < 120*time.Millisecond {
			t.Errorf("slow answered in %s", d)
		}

		// A live key with the header is refused, whatever the scenario.
		r = withScenario(env, apitest.Request{Method: "GET", Path: "/meta/ping", Key: p.LiveKey}, "slow=1").Expect(t, 400, "bad_request")
		wantErrors(t, r, "test keys only")
		withScenario(env, bookReq(p.LiveKey, "live", withGuest(q)), "sold_out").Expect(t, 400, "bad_request")

		// Unknown, or not for this endpoint: the list of scenarios and where they apply.
		for _, c := range []struct{ path, scenario, want string }{
			{"/meta/ping", "volcano", `unknown scenario "volcano"`},
			{"/bookings", "sold_out", "sold_out does not apply to this endpoint"},
		} {
			r = withScenario(env, apitest.Request{Method: "GET", Path: c.path, Key: p.TestKey}, c.scenario).Expect(t, 400, "bad_request")
			wantErrors(t, r, c.want, "sold_out (POST /bookings/prebook, POST /bookings)", "on_request (POST /bookings)",
				"slow (every endpoint)", "unavailable (every endpoint)", "rate_limited (every endpoint)")
		}
		// Bad parameters.
		for scenario, want := range map[string]string{
			"on_request; confirm_after=3601":              "0 to 3600 seconds",
			"on_request; confirm_after=1; reject_after=2": "give one of them",
			"on_request; confirm=1":                       "takes confirm_after or reject_after",
			"sold_out; x=1":                               "takes no parameters",
			"slow=10001":                                  "0 to 10000",
			"slow":                                        "milliseconds",
			"rate_limited; retry_after=0":                 "retry_after: 1 to 3600",
			"price_changed; percent=0":                    "percent",
			"on_request; confirm_after=soon":              "must be an integer",
		} {
			req := bookReq(p.TestKey, "bad", withGuest(q))
			if strings.HasPrefix(scenario, "price_changed") {
				req = prebookReq(p.TestKey, q)
			}
			r = withScenario(env, req, scenario).Expect(t, 400, "bad_request")
			wantErrors(t, r, want)
		}
		// No booking was made by any refused request.
		if n := len(env.Get(p.LiveKey, "/bookings?per_page=100").Maps(t)); n != 3 {
			t.Errorf("%d bookings, want 3 (price_changed, pending, on_request)", n)
		}
	})
}

// TestScenarioTimedChanges: on_request / pending with confirm_after or reject_after
// change on their own when the periodic job runs past their time, with their webhooks.
func TestScenarioTimedChanges(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		ctx := context.Background()
		env.Post(p.TestKey, "/webhooks", webhookBody("https://hooks.acme.example/tw", "booking.confirmed", "booking.cancelled")).Expect(t, 201, "")
		q := hotelQuote(1, 3, 1, 2)
		confirmed := withScenario(env, bookReq(p.TestKey, "t1", withGuest(q)), "on_request; confirm_after=30").Expect(t, 201, "").Map(t)["reference"].(string)
		rejected := withScenario(env, bookReq(p.TestKey, "t2", withGuest(q)), "pending; reject_after=3600").Expect(t, 201, "").Map(t)["reference"].(string)
		cancelled := withScenario(env, bookReq(p.TestKey, "t3", withGuest(q)), "on_request; confirm_after=10").Expect(t, 201, "").Map(t)["reference"].(string)
		cancelBooking(env, p.TestKey, cancelled).Expect(t, 200, "") // the partner cancels before the timer
		run := func() int {
			n, err := env.Service.RunSandboxTimers(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		env.Clock.Advance(29 * time.Second)
		if n := run(); n != 0 || statusOf(t, env, p.TestKey, confirmed) != "on_request" {
			t.Errorf("at 29 s: %d changed, %v", n, statusOf(t, env, p.TestKey, confirmed))
		}
		env.Clock.Advance(2 * time.Second)
		if n := run(); n != 1 || statusOf(t, env, p.TestKey, confirmed) != "confirmed" || statusOf(t, env, p.TestKey, cancelled) != "cancelled" {
			t.Errorf("at 31 s: %d changed", n)
		}
		if statusOf(t, env, p.TestKey, rejected) != "pending" {
			t.Error("the rejection came early")
		}
		env.Clock.Advance(time.Hour)
		if n := run(); n != 1 || statusOf(t, env, p.TestKey, rejected) != "cancelled" {
			t.Errorf("after an hour: %d changed, %v", n, statusOf(t, env, p.TestKey, rejected))
		}
		if n := run(); n != 0 {
			t.Errorf("timers ran twice: %d", n)
		}
		// The changes are in the feed, and their webhooks are queued.
		list, _ := feedPage(t, env, p.TestKey, "per_page=100&type=booking.confirmed,booking.cancelled&reference="+confirmed)
		if describe(list) != "booking.confirmed "+confirmed+" test=true" {
			t.Errorf("feed of %s: %s", confirmed, describe(list))
		}
		list, _ = feedPage(t, env, p.TestKey, "per_page=100&reference="+rejected)
		if len(list) != 1 || list[0].Data["reason"] != "supplier_rejected" {
			t.Errorf("feed of %s: %+v", rejected, list)
		}
		for _, e := range []string{list[0].ID} {
			ds, err := env.Store.DeliveryList(ctx, store.DeliveryFilter{EventID: e})
			if err != nil || len(ds) != 1 || ds[0].Status != store.DeliveryPending {
				t.Errorf("deliveries of %s: %+v %v", e, ds, err)
			}
		}
	})
}
