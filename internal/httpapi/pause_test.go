package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

func TestFailingSubscriptionPausedAndResumed(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		ctx := context.Background()
		var dead, alive booking.SubscriptionView
		env.Post(p.TestKey, "/webhooks", webhookBody("https://dead.acme.example/tw", "booking.confirmed")).Expect(t, 201, "").Decode(t, &dead)
		env.Post(p.TestKey, "/webhooks", webhookBody("https://alive.acme.example/tw", "booking.confirmed")).Expect(t, 201, "").Decode(t, &alive)
		receivers := map[int64]bool{dead.ID: false, alive.ID: true}
		book := func(i int) { bookOK(t, env, p.TestKey, fmt.Sprint("p", i), hotelQuote(5, 6, 1, 1)) }
		pause := func() []booking.PausedSubscription {
			t.Helper()
			paused, err := env.Service.PauseFailingSubscriptions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return paused
		}

		// Day 0: the first delivery to the dead endpoint fails, the other succeeds.
		book(0)
		env.AttemptAll(t, receivers, false)
		// Two days later, retries and a new event still fail: not 3 days yet.
		env.Clock.Advance(48 * time.Hour)
		book(1)
		env.AttemptAll(t, receivers, true) // the first one's retries are spent: failed
		if got := pause(); len(got) != 0 {
			t.Fatalf("paused after 2 days: %+v", got)
		}
		// Three days after the first failure, with no success since: paused, once.
		env.Clock.Advance(24*time.Hour + time.Minute)
		env.AttemptAll(t, receivers, true)
		got := pause()
		if len(got) != 1 || got[0].ID != dead.ID || !got[0].FailingSince.Equal(apitest.Start) {
			t.Fatalf("paused = %+v, want %d failing since %s", got, dead.ID, apitest.Start)
		}
		if again := pause(); len(again) != 0 {
			t.Errorf("paused twice: %+v", again)
		}
		// The partner's portal audit log holds the automatic pause, once, by Tradewind.
		audit := func(want int) []*store.AuditEntry {
			t.Helper()
			entries, err := env.Store.AuditList(ctx, p.ID, 0, 100)
			if err != nil || len(entries) != want {
				t.Fatalf("audit log = %d entries, %v; want %d", len(entries), err, want)
			}
			return entries
		}
		if e := audit(1)[0]; e.Actor != "system" || e.Action != "webhook.paused" || !e.CreatedAt.Equal(env.Clock.Now()) ||
			!strings.Contains(e.Detail, fmt.Sprintf("subscription %d paused automatically", dead.ID)) ||
			!strings.Contains(e.Detail, apitest.Start.Format(time.RFC3339)) {
			t.Errorf("audit entry of the automatic pause = %+v", e)
		}
		// The partner sees the pause in GET /webhooks.
		var subs []booking.SubscriptionView
		env.Get(p.TestKey, "/webhooks").Expect(t, 200, "").Decode(t, &subs)
		if len(subs) != 2 || subs[0].PausedAt == nil || subs[0].PauseReason != "failing" || subs[1].PausedAt != nil {
			t.Errorf("GET /webhooks = %+v", subs)
		}
		sub, err := env.Store.SubscriptionGetByID(ctx, dead.ID)
		if err != nil || sub.PausedAt.IsZero() || sub.PauseReason != booking.PauseReasonFailing || !sub.Active {
			t.Fatalf("paused subscription = %+v, %v", sub, err)
		}

		// While paused, new events wait for it; the live one keeps receiving.
		book(2)
		if per := env.AttemptAll(t, receivers, false); per[dead.ID] != 0 || per[alive.ID] != 1 {
			t.Errorf("while paused: attempts %v", per)
		}

		// Resuming sends what waited and redelivers the two events that failed.
		n, err := env.Service.ResumeSubscription(ctx, p.ID, dead.ID, booking.ActorOperator)
		if err != nil || n != 3 {
			t.Fatalf("resume = %d, %v; want 3 deliveries due", n, err)
		}
		receivers[dead.ID] = true
		if per := env.AttemptAll(t, receivers, false); per[dead.ID] != 3 {
			t.Errorf("after resume: attempts %v", per)
		}
		if e := audit(2)[0]; e.Actor != "operator" || e.Action != "webhook.resumed" || !strings.Contains(e.Detail, "3 delivery(ies) due") {
			t.Errorf("audit entry of the resume = %+v", e)
		}
		// Resumed and healthy: not paused again, even days later.
		env.Clock.Advance(4 * 24 * time.Hour)
		if got := pause(); len(got) != 0 {
			t.Errorf("paused after recovering: %+v", got)
		}

		// Pause and resume by hand follow the same rules; other partners get 404.
		if err := env.Service.PauseSubscription(ctx, 0, alive.ID, booking.PauseReasonOperator, booking.ActorOperator); err != nil {
			t.Fatal(err)
		}
		if err := env.Service.PauseSubscription(ctx, 0, alive.ID, booking.PauseReasonOperator, booking.ActorOperator); err == nil {
			t.Error("paused twice")
		}
		other := env.NewPartner("globex", booking.PartnerParams{})
		if _, err := env.Service.ResumeSubscription(ctx, other.ID, alive.ID, booking.ActorOperator); err == nil {
			t.Error("another partner resumed the subscription")
		}
		if n, err := env.Service.ResumeSubscription(ctx, 0, alive.ID, booking.ActorOperator); err != nil || n != 0 {
			t.Errorf("resume = %d, %v", n, err)
		}
		if _, err := env.Service.ResumeSubscription(ctx, 0, alive.ID, booking.ActorOperator); err == nil {
			t.Error("resumed a subscription that is not paused")
		}
		// One entry for each pause and resume that happened, none for the refused ones.
		if e := audit(4); e[1].Action != "webhook.paused" || e[1].Actor != "operator" || !strings.Contains(e[1].Detail, "paused by the operator") ||
			e[0].Action != "webhook.resumed" {
			t.Errorf("audit entries of the manual pause and resume = %+v, %+v", e[1], e[0])
		}
		deleteWebhook(env, p.TestKey, dead.ID).Expect(t, 200, "")
		if err := env.Service.PauseSubscription(ctx, 0, dead.ID, booking.PauseReasonOperator, booking.ActorOperator); err == nil {
			t.Error("paused a deleted subscription")
		}
	})
}
