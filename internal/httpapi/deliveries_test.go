package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// deliveriesPage reads GET /webhooks/{id}/deliveries?query, expecting 200.
func deliveriesPage(t *testing.T, env *apitest.Env, key string, id int64, query string) ([]booking.DeliveryView, booking.DeliveryPageMeta, *apitest.Response) {
	t.Helper()
	r := env.Get(key, fmt.Sprintf("/webhooks/%d/deliveries?%s", id, query)).Expect(t, http.StatusOK, "")
	var list []booking.DeliveryView
	var meta booking.DeliveryPageMeta
	r.Decode(t, &list)
	if err := json.Unmarshal(r.Meta, &meta); err != nil {
		t.Fatal(err)
	}
	return list, meta, r
}

// deliveryEvents lists the event ids of deliveries, in their order.
func deliveryEvents(list []booking.DeliveryView) []string {
	var out []string
	for _, d := range list {
		out = append(out, d.EventID)
	}
	return out
}

// TestWebhookDeliveries: GET /webhooks/{id}/deliveries shows a partner the deliveries to
// one of its subscriptions, newest first, each with its attempts and why they failed, in
// its key's mode; paged by before, filtered by status and event_id; another partner's
// subscription is 404 as on delete; every bad query value is listed in one 400.
func TestWebhookDeliveries(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		ctx := context.Background()
		globex := env.NewPartner("globex", booking.PartnerParams{})
		var sub, other, theirs booking.SubscriptionView
		env.Post(p.TestKey, "/webhooks", webhookBody("https://hooks.acme.example/tw", "booking.confirmed", "booking.cancelled")).
			Expect(t, http.StatusCreated, "").Decode(t, &sub)
		env.Post(p.TestKey, "/webhooks", webhookBody("https://other.acme.example/tw", "booking.confirmed")).
			Expect(t, http.StatusCreated, "").Decode(t, &other)
		env.Post(globex.TestKey, "/webhooks", webhookBody("https://hooks.globex.example/tw", "booking.confirmed")).
			Expect(t, http.StatusCreated, "").Decode(t, &theirs)
		eventOf := func(ref string) string {
			t.Helper()
			evs, err := env.Store.EventListByBooking(ctx, p.ID, ref)
			if err != nil || len(evs) != 1 {
				t.Fatalf("events of %s: %d, %v", ref, len(evs), err)
			}
			return evs[0].ID
		}

		// A test booking's delivery: the first attempt gets no HTTP answer, the retry a 503
		// and is the last. The other subscription acknowledges at once.
		first := eventOf(bookOK(t, env, p.TestKey, "d1", hotelQuote(1, 2, 1, 1))["reference"].(string))
		bookOK(t, env, globex.TestKey, "g1", hotelQuote(1, 2, 1, 1))
		t0 := env.Clock.Now()
		env.AnswerDue(t, func(d *store.ClaimedDelivery) store.DeliveryAttemptParams {
			if d.SubscriptionID != sub.ID {
				return store.DeliveryAttemptParams{StatusCode: 204, Duration: 3 * time.Millisecond, Status: store.DeliverySucceeded}
			}
			return store.DeliveryAttemptParams{Error: "timeout after 10s", Duration: 10 * time.Second, Status: store.DeliveryPending,
				NextAttemptAt: t0.Add(time.Minute)}
		})
		list, meta, _ := deliveriesPage(t, env, p.TestKey, sub.ID, "")
		timeout := booking.AttemptView{AttemptedAt: t0, DurationMS: 10000, Error: ptr("timeout after 10s")}
		retry := t0.Add(time.Minute)
		want := []booking.DeliveryView{{ID: list[0].ID, EventID: first, EventType: "booking.confirmed", Status: "pending", Attempts: 1,
			NextAttemptAt: &retry, LastError: ptr("timeout after 10s"), CreatedAt: t0, UpdatedAt: t0, AttemptLog: []booking.AttemptView{timeout}}}
		if diff := cmp.Diff(want, list); diff != "" {
			t.Fatalf("after one attempt: mismatch (-want +got):\n%s", diff)
		}
		if meta != (booking.DeliveryPageMeta{PerPage: 25}) {
			t.Errorf("meta = %+v", meta)
		}

		env.Clock.Advance(time.Minute)
		t1 := env.Clock.Now()
		env.AnswerDue(t, func(*store.ClaimedDelivery) store.DeliveryAttemptParams {
			return store.DeliveryAttemptParams{StatusCode: 503, Error: "status 503", ResponseSnippet: `{"error":"maintenance"}`,
				Duration: 84 * time.Millisecond, Status: store.DeliveryFailed}
		})
		// Three more test bookings' first attempts are refused (a retry waits); a live
		// booking's is acknowledged.
		var waiting []string
		for i := range 3 {
			waiting = append(waiting, eventOf(bookOK(t, env, p.TestKey, fmt.Sprint("w", i), hotelQuote(2, 3, 1, 1))["reference"].(string)))
		}
		env.Clock.Advance(time.Second)
		live := eventOf(bookOK(t, env, p.LiveKey, "l1", hotelQuote(3, 4, 1, 1))["reference"].(string))
		env.AnswerDue(t, func(d *store.ClaimedDelivery) store.DeliveryAttemptParams {
			if d.Event.ID != live {
				return store.DeliveryAttemptParams{Error: "dial tcp: connection refused", Status: store.DeliveryPending, NextAttemptAt: t1.Add(time.Hour)}
			}
			return store.DeliveryAttemptParams{StatusCode: 200, Duration: 12 * time.Millisecond, Status: store.DeliverySucceeded}
		})

		// The test key sees its test deliveries, newest first, with every attempt.
		list, meta, r := deliveriesPage(t, env, p.TestKey, sub.ID, "")
		wantEvents := []string{waiting[2], waiting[1], waiting[0], first}
		if diff := cmp.Diff(wantEvents, deliveryEvents(list)); diff != "" || meta.HasMore || meta.NextBefore != nil {
			t.Fatalf("test deliveries: mismatch (-want +got):\n%s\nmeta %+v", diff, meta)
		}
		failed := list[3]
		want = []booking.DeliveryView{{ID: failed.ID, EventID: first, EventType: "booking.confirmed", Status: "failed", Attempts: 2,
			LastError: ptr("status 503"), CreatedAt: t0, UpdatedAt: t1, AttemptLog: []booking.AttemptView{timeout,
				{AttemptedAt: t1, StatusCode: ptr(503), DurationMS: 84, Error: ptr("status 503"), ResponseExcerpt: ptr(`{"error":"maintenance"}`)}}}}
		if diff := cmp.Diff(want, list[3:]); diff != "" {
			t.Errorf("the failed delivery: mismatch (-want +got):\n%s", diff)
		}
		for _, d := range list[:3] {
			if d.Status != "pending" || d.Attempts != 1 || len(d.AttemptLog) != 1 || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(t1.Add(time.Hour)) ||
				d.LastError == nil || *d.LastError != "dial tcp: connection refused" || d.AttemptLog[0].StatusCode != nil || d.AttemptLog[0].ResponseExcerpt != nil {
				t.Errorf("waiting delivery = %+v", d)
			}
		}
		// Nothing of the subscription's secret or url, nor of the other subscription.
		if strings.Contains(string(r.Raw), "hooks.acme.example") || strings.Contains(string(r.Raw), "secret") ||
			strings.Contains(string(r.Raw), "whsec_") {
			t.Errorf("the list reveals the subscription: %s", r.Raw)
		}
		if list, _, _ := deliveriesPage(t, env, p.TestKey, other.ID, ""); !slices.Equal(deliveryEvents(list), []string{waiting[2], waiting[1], waiting[0], first}) ||
			list[3].Status != "succeeded" || *list[3].AttemptLog[0].StatusCode != 204 || list[3].AttemptLog[0].Error != nil {
			t.Errorf("the other subscription's deliveries = %+v", list)
		}

		// The live key sees the live delivery only, and the test key never sees it.
		list, _, _ = deliveriesPage(t, env, p.LiveKey, sub.ID, "")
		if !slices.Equal(deliveryEvents(list), []string{live}) || list[0].Status != "succeeded" || list[0].NextAttemptAt != nil ||
			list[0].LastError != nil || *list[0].AttemptLog[0].StatusCode != 200 || *list[0].AttemptLog[0].ResponseExcerpt != "" {
			t.Errorf("live deliveries = %+v", list)
		}
		if list, _, _ := deliveriesPage(t, env, p.TestKey, sub.ID, "event_id="+live); len(list) != 0 {
			t.Errorf("the test key sees the live delivery: %+v", list)
		}

		// Keyset pages: before and has_more.
		page1, meta1, _ := deliveriesPage(t, env, p.TestKey, sub.ID, "per_page=2")
		if !slices.Equal(deliveryEvents(page1), wantEvents[:2]) || !meta1.HasMore || meta1.PerPage != 2 || meta1.NextBefore == nil || *meta1.NextBefore != page1[1].ID {
			t.Fatalf("page 1 = %v, meta %+v", deliveryEvents(page1), meta1)
		}
		page2, meta2, _ := deliveriesPage(t, env, p.TestKey, sub.ID, fmt.Sprintf("per_page=2&before=%d", *meta1.NextBefore))
		if !slices.Equal(deliveryEvents(page2), wantEvents[2:]) || meta2.HasMore || meta2.NextBefore != nil {
			t.Errorf("page 2 = %v, meta %+v", deliveryEvents(page2), meta2)
		}
		if list, meta, _ := deliveriesPage(t, env, p.TestKey, sub.ID, fmt.Sprintf("before=%d", failed.ID)); len(list) != 0 || meta.HasMore {
			t.Errorf("before the oldest = %+v, %+v", list, meta)
		}
		// A bound past int64 is above every id: the newest page.
		if list, _, _ := deliveriesPage(t, env, p.TestKey, sub.ID, "per_page=2&before=999999999999999999999"); !slices.Equal(deliveryEvents(list), wantEvents[:2]) {
			t.Errorf("before past int64 = %v, want the newest page", deliveryEvents(list))
		}

		// Filters: status and event_id, alone and together.
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"status=failed", []string{first}},
			{"status=pending", wantEvents[:3]},
			{"status=succeeded", nil},
			{"event_id=" + first, []string{first}},
			{"event_id=" + first + "&status=pending", nil},
			{"status=pending&per_page=1&before=" + fmt.Sprint(page1[1].ID), wantEvents[2:3]},
		} {
			if list, _, _ := deliveriesPage(t, env, p.TestKey, sub.ID, c.query); !slices.Equal(deliveryEvents(list), c.want) {
				t.Errorf("%s: %v, want %v", c.query, deliveryEvents(list), c.want)
			}
		}

		// Another partner's subscription, an unknown one and a deleted one are 404, as
		// DELETE answers them: nothing tells them apart.
		notFound := deleteWebhook(env, globex.TestKey, sub.ID).Expect(t, http.StatusNotFound, "not_found")
		for _, c := range []struct {
			key string
			id  int64
		}{{globex.TestKey, sub.ID}, {globex.LiveKey, sub.ID}, {p.TestKey, theirs.ID}, {p.LiveKey, 999999}} {
			r := env.Get(c.key, fmt.Sprintf("/webhooks/%d/deliveries", c.id)).Expect(t, http.StatusNotFound, "not_found")
			if *r.Message != *notFound.Message || !slices.Equal(r.Errors, notFound.Errors) {
				t.Errorf("%d: %s; DELETE says %s", c.id, r.Raw, notFound.Raw)
			}
		}
		if list, _, _ := deliveriesPage(t, env, globex.TestKey, theirs.ID, ""); len(list) != 1 || list[0].EventID == first {
			t.Errorf("globex's own deliveries = %+v", list)
		}

		// Every problem of the query is listed at once, with a bad path id's.
		const takes = "it takes per_page, before, status, event_id"
		path := fmt.Sprintf("/webhooks/%d/deliveries", sub.ID)
		for _, c := range []struct {
			path string
			want []string
		}{
			{path + "?per_page=0&before=x&status=bogus&event_id=nope", []string{"per_page: must be 1–100", "before: must be a positive integer",
				`status: "bogus" is not one of pending, succeeded, failed`, "event_id: must be an event id (evt_…)"}},
			{path + "?per_page=101&before=-3", []string{"per_page: must be 1–100", "before: must be a positive integer"}},
			{path + "?per_page=ten&before=%2B5", []string{"per_page: must be an integer", "before: must be a positive integer"}},
			{path + "?status=failed&status=pending", []string{"status: given 2 times; give it once"}},
			{path + "?page=2&status=sent", []string{"page: not a query parameter of GET /webhooks/{id}/deliveries; " + takes,
				`status: "sent" is not one of pending, succeeded, failed`}},
			{path + "?after=evt_x", []string{"after: not a query parameter of GET /webhooks/{id}/deliveries; " + takes}},
			{"/webhooks/abc/deliveries?per_page=0", []string{"id: must be a positive integer", "per_page: must be 1–100"}},
			// Refused before the subscription is read: the same for another partner's.
			{fmt.Sprintf("/webhooks/%d/deliveries?status=bogus", theirs.ID), []string{`status: "bogus" is not one of pending, succeeded, failed`}},
		} {
			r := env.Get(p.TestKey, c.path).Expect(t, http.StatusBadRequest, "bad_request")
			got, want := slices.Sorted(slices.Values(r.Errors)), slices.Sorted(slices.Values(c.want))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: errors mismatch (-want +got):\n%s", c.path, diff)
			}
		}

		// An unknown parameter with a subscription that is not the caller's: the 404 stands
		// alone, for another partner's as for an unknown id.
		for _, id := range []int64{theirs.ID, 999999} {
			env.Get(p.TestKey, fmt.Sprintf("/webhooks/%d/deliveries?page=2", id)).Expect(t, http.StatusNotFound, "not_found")
		}

		// The scope is webhook:manage.
		noScope := env.NewKey("acme", booking.KeyParams{Mode: "test", Scopes: []string{"booking:read", "booking:write"}})
		env.Get(noScope, path).Expect(t, http.StatusForbidden, "insufficient_scope")

		// A deleted subscription is gone from the list, as from GET /webhooks.
		deleteWebhook(env, p.TestKey, sub.ID).Expect(t, http.StatusOK, "")
		env.Get(p.TestKey, path).Expect(t, http.StatusNotFound, "not_found")
	})
}

// TestSampleEventsBounded: at most booking.MaxPendingSamples sample events wait for one
// subscription; the next is 429 rate_limited with a Retry-After, and nothing more is
// queued. A deleted subscription's samples are 404.
func TestSampleEventsBounded(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		sub := env.Post(p.TestKey, "/webhooks", map[string]any{"url": "https://partner.example.com/hooks",
			"event_types": []string{"booking.confirmed"}}).Expect(t, 201, "").Map(t)
		path := fmt.Sprintf("/webhooks/%v/test", sub["id"])
		for range booking.MaxPendingSamples {
			env.Post(p.TestKey, path, nil).Expect(t, 202, "")
		}
		r := env.Post(p.TestKey, path, nil).Expect(t, 429, "rate_limited")
		if r.Header.Get("Retry-After") != "60" {
			t.Errorf("Retry-After %q, want 60", r.Header.Get("Retry-After"))
		}
		list := env.Get(p.TestKey, fmt.Sprintf("/webhooks/%v/deliveries", sub["id"])).Expect(t, 200, "").Maps(t)
		if len(list) != booking.MaxPendingSamples {
			t.Errorf("%d deliveries queued, want %d", len(list), booking.MaxPendingSamples)
		}
		env.Do(apitest.Request{Method: "DELETE", Path: fmt.Sprintf("/webhooks/%v", sub["id"]), Key: p.TestKey}).Expect(t, 200, "")
		env.Post(p.TestKey, path, nil).Expect(t, 404, "not_found")

		// A paused subscription takes the sample, and the answer says it waits.
		paused := env.Post(p.TestKey, "/webhooks", map[string]any{"url": "https://partner.example.com/paused",
			"event_types": []string{"booking.confirmed"}}).Expect(t, 201, "").Map(t)
		pausedID := int64(paused["id"].(float64))
		if r := env.Post(p.TestKey, fmt.Sprintf("/webhooks/%d/test", pausedID), nil).Expect(t, 202, ""); strings.Contains(*r.Message, "paused") {
			t.Errorf("an active subscription's sample: %q", *r.Message)
		}
		if err := env.Service.PauseSubscription(context.Background(), 0, pausedID, booking.PauseReasonOperator, booking.ActorOperator); err != nil {
			t.Fatal(err)
		}
		r = env.Post(p.TestKey, fmt.Sprintf("/webhooks/%d/test", pausedID), nil).Expect(t, 202, "")
		if want := fmt.Sprintf("webhook subscription %d, which is paused since %s: nothing is sent to it, the sample included, until it is resumed",
			pausedID, env.Clock.Now().UTC().Format(time.RFC3339)); !strings.Contains(*r.Message, want) {
			t.Errorf("a paused subscription's sample: %q, want it to say %q", *r.Message, want)
		}
	})
}
