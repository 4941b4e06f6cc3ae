package apitest

import (
	"context"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/store"
)

// AttemptAll claims every due delivery at the clock's time and records one attempt
// each, answered by the subscription's receiver: ok[subscriptionID] tells whether it
// acknowledged. A failure is retried an hour later, or fails for good when final. It
// returns how many were attempted per subscription.
func (e *Env) AttemptAll(t testing.TB, ok map[int64]bool, final bool) map[int64]int {
	t.Helper()
	now := e.Clock.Now()
	return e.AnswerDue(t, func(d *store.ClaimedDelivery) store.DeliveryAttemptParams {
		if ok[d.SubscriptionID] {
			return store.DeliveryAttemptParams{StatusCode: 200, Status: store.DeliverySucceeded}
		}
		p := store.DeliveryAttemptParams{StatusCode: 500, Error: "HTTP 500", Status: store.DeliveryPending, NextAttemptAt: now.Add(time.Hour)}
		if final {
			p.Status = store.DeliveryFailed
		}
		return p
	})
}

// AnswerDue claims every due delivery at the clock's time and records one attempt each,
// as answer says it went (its delivery, lease and time are filled in). It returns how
// many were attempted per subscription.
func (e *Env) AnswerDue(t testing.TB, answer func(*store.ClaimedDelivery) store.DeliveryAttemptParams) map[int64]int {
	t.Helper()
	ctx := context.Background()
	now := e.Clock.Now()
	claimed, err := e.Store.DeliveryClaimDue(ctx, store.DeliveryClaimParams{Now: now, Lease: time.Minute, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	per := map[int64]int{}
	for _, d := range claimed {
		per[d.SubscriptionID]++
		p := answer(d)
		p.DeliveryID, p.ClaimToken, p.At = d.ID, d.ClaimToken, now
		if err := e.Store.InTx(ctx, func(q store.Querier) error {
			_, err := q.DeliveryRecordAttempt(ctx, p)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	return per
}
