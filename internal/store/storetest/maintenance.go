package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// rowCount counts the rows a query selects, through the store's database handle.
func rowCount(t *testing.T, s store.Store, query string, args ...any) int {
	t.Helper()
	db, ok := s.(interface{ SQL() *sql.DB })
	if !ok {
		t.Fatalf("%T does not expose its database", s)
	}
	var n int
	if err := db.SQL().QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// pruneAll runs prune in batches of limit, each in its own transaction, until a batch
// deletes fewer than limit, and returns the total and the size of every batch.
func pruneAll(t *testing.T, s store.Store, limit int, before time.Time,
	prune func(q store.Querier, p store.PruneParams) (int, error)) (int, []int) {
	t.Helper()
	total, batches := 0, []int{}
	for {
		var n int
		err := s.InTx(context.Background(), func(q store.Querier) (err error) {
			n, err = prune(q, store.PruneParams{Before: before, Limit: limit})
			return err
		})
		if err != nil {
			t.Fatalf("prune: %v", err)
		}
		total, batches = total+n, append(batches, n)
		if n < limit {
			return total, batches
		}
	}
}

func exerciseJobLeases(t *testing.T, s store.Store) {
	ctx := context.Background()
	lease := func(owner string, at time.Time) bool {
		t.Helper()
		ok, err := s.JobLeaseAcquire(ctx, store.JobLeaseParams{Name: "retention.events", Owner: owner, Now: at, Until: at.Add(time.Minute)})
		if err != nil {
			t.Fatalf("JobLeaseAcquire: %v", err)
		}
		return ok
	}
	if !lease("a", now) {
		t.Fatal("a job never seen is due at once")
	}
	if lease("b", now.Add(time.Second)) {
		t.Fatal("leased twice")
	}
	if ok, err := s.JobLeaseExtend(ctx, store.JobLeaseParams{Name: "retention.events", Owner: "b", Now: now, Until: now.Add(time.Hour)}); err != nil || ok {
		t.Errorf("extend by a non-owner = %v, %v", ok, err)
	}
	if ok, err := s.JobLeaseExtend(ctx, store.JobLeaseParams{Name: "retention.events", Owner: "a", Now: now, Until: now.Add(2 * time.Minute)}); err != nil || !ok {
		t.Errorf("extend by the owner = %v, %v", ok, err)
	}
	if lease("b", now.Add(90*time.Second)) {
		t.Fatal("taken before the extended lease expired")
	}
	// Released, the job is due again at NextRunAt and not before.
	if err := s.JobLeaseRelease(ctx, store.JobReleaseParams{Name: "retention.events", Owner: "a", At: now, NextRunAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if lease("b", now.Add(59*time.Minute)) {
		t.Fatal("leased before it was due")
	}
	if !lease("b", now.Add(time.Hour)) {
		t.Fatal("not leased when due")
	}
	// An expired lease is taken over; the old owner can neither extend nor release it.
	if !lease("c", now.Add(time.Hour+2*time.Minute)) {
		t.Fatal("an expired lease was not taken over")
	}
	if ok, _ := s.JobLeaseExtend(ctx, store.JobLeaseParams{Name: "retention.events", Owner: "b", Now: now, Until: now.Add(24 * time.Hour)}); ok {
		t.Error("the previous owner extended a lost lease")
	}
	if err := s.JobLeaseRelease(ctx, store.JobReleaseParams{Name: "retention.events", Owner: "b", At: now, NextRunAt: now}); err != nil {
		t.Fatal(err)
	}
	if lease("d", now.Add(time.Hour+2*time.Minute)) {
		t.Error("the previous owner's release freed the new owner's lease")
	}
	// Jobs are leased independently.
	if ok, err := s.JobLeaseAcquire(ctx, store.JobLeaseParams{Name: "other", Owner: "d", Now: now, Until: now.Add(time.Minute)}); err != nil || !ok {
		t.Errorf("another job = %v, %v", ok, err)
	}

	// Of many concurrent callers, exactly one gets a due job.
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.JobLeaseAcquire(ctx, store.JobLeaseParams{Name: "race", Owner: fmt.Sprint("r", i), Now: now, Until: now.Add(time.Minute)})
			if err != nil {
				t.Errorf("concurrent acquire: %v", err)
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d concurrent callers got the lease, want 1", wins.Load())
	}
}

// recordAttempt claims the event's due deliveries and records one attempt that leaves
// each in status.
func recordAttempt(t *testing.T, s store.Store, at time.Time, status string) {
	t.Helper()
	for _, c := range claim(t, s, at, time.Minute, 100) {
		err := s.InTx(context.Background(), func(q store.Querier) error {
			ok, err := q.DeliveryRecordAttempt(context.Background(), store.DeliveryAttemptParams{DeliveryID: c.ID, ClaimToken: c.ClaimToken,
				At: at, StatusCode: 500, Error: "status 500", Status: status, NextAttemptAt: now.Add(time.Hour)})
			if err == nil && !ok {
				err = fmt.Errorf("lease of delivery %d lost", c.ID)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func exerciseEventPrune(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newPartner(t, s, "acme")
	newSubscription(t, s, a.ID, "https://a.example/1", tradewind.EventBookingConfirmed)
	newSubscription(t, s, a.ID, "https://a.example/2", tradewind.EventBookingConfirmed)
	cutoff := now.Add(-30 * 24 * time.Hour)
	event := func(id string, at time.Time, typ tradewind.EventType) {
		t.Helper()
		if err := s.EventCreate(ctx, &tradewind.Event{ID: id, PartnerID: a.ID, Type: typ, Data: []byte(`{}`), CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	// Finished deliveries: one succeeded, one failed, each with an attempt.
	event("evt_old_done", cutoff.Add(-time.Hour), tradewind.EventBookingConfirmed)
	recordAttempt(t, s, cutoff.Add(-time.Hour), store.DeliveryFailed)
	event("evt_old_quiet", cutoff.Add(-time.Minute), tradewind.EventAvailabilityChanged) // no subscriber
	event("evt_old_pending", cutoff.Add(-time.Second), tradewind.EventBookingConfirmed)
	recordAttempt(t, s, cutoff.Add(-time.Second), store.DeliveryPending) // retrying
	event("evt_at_cutoff", cutoff, tradewind.EventAvailabilityChanged)
	event("evt_new", now, tradewind.EventBookingConfirmed)
	recordAttempt(t, s, now, store.DeliverySucceeded)
	if n := rowCount(t, s, `SELECT COUNT(*) FROM webhook_attempts`); n != 6 {
		t.Fatalf("setup: %d attempts, want 6", n)
	}

	total, batches := pruneAll(t, s, 1, cutoff, func(q store.Querier, p store.PruneParams) (int, error) { return q.EventPrune(ctx, p) })
	if total != 2 || len(batches) != 3 {
		t.Errorf("EventPrune deleted %d in batches %v, want 2 in batches of 1", total, batches)
	}
	for id, want := range map[string]int{"evt_old_done": 0, "evt_old_quiet": 0, "evt_old_pending": 1, "evt_at_cutoff": 1, "evt_new": 1} {
		if n := rowCount(t, s, `SELECT COUNT(*) FROM events WHERE id = $1`, id); n != want {
			t.Errorf("event %s: %d rows, want %d", id, n, want)
		}
	}
	if n := rowCount(t, s, `SELECT COUNT(*) FROM webhook_deliveries WHERE event_id = 'evt_old_done'`); n != 0 {
		t.Errorf("%d deliveries of a pruned event remain", n)
	}
	// The attempts of the pending and the new event's deliveries remain (2 + 2).
	if n := rowCount(t, s, `SELECT COUNT(*) FROM webhook_attempts`); n != 4 {
		t.Errorf("%d attempts remain, want 4", n)
	}
	if n := rowCount(t, s, `SELECT COUNT(*) FROM webhook_deliveries`); n != 4 {
		t.Errorf("%d deliveries remain, want 4", n)
	}
}

func exerciseSubscriptionPrune(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newPartner(t, s, "acme")
	cutoff := now.Add(-30 * 24 * time.Hour)
	del := func(sub *store.Subscription, at time.Time) {
		t.Helper()
		if err := s.SubscriptionDelete(ctx, store.SubscriptionDeleteParams{PartnerID: a.ID, ID: sub.ID, At: at}); err != nil {
			t.Fatal(err)
		}
	}
	oldFree := newSubscription(t, s, a.ID, "https://a.example/old-free", tradewind.EventBookingConfirmed)
	del(oldFree, cutoff.Add(-time.Hour))
	oldUsed := newSubscription(t, s, a.ID, "https://a.example/old-used", tradewind.EventBookingCancelled)
	if err := s.EventCreate(ctx, &tradewind.Event{ID: "evt_1", PartnerID: a.ID, Type: tradewind.EventBookingCancelled, Data: []byte(`{}`), CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	del(oldUsed, cutoff.Add(-time.Hour)) // its delivery of evt_1 refers to it
	recent := newSubscription(t, s, a.ID, "https://a.example/recent", tradewind.EventBookingConfirmed)
	del(recent, cutoff.Add(time.Hour))
	active := newSubscription(t, s, a.ID, "https://a.example/active", tradewind.EventBookingConfirmed)

	total, _ := pruneAll(t, s, 10, cutoff, func(q store.Querier, p store.PruneParams) (int, error) { return q.SubscriptionPrune(ctx, p) })
	if total != 1 {
		t.Errorf("SubscriptionPrune deleted %d, want 1", total)
	}
	for _, c := range []struct {
		sub  *store.Subscription
		want int
	}{{oldFree, 0}, {oldUsed, 1}, {recent, 1}, {active, 1}} {
		if n := rowCount(t, s, `SELECT COUNT(*) FROM webhook_subscriptions WHERE id = $1`, c.sub.ID); n != c.want {
			t.Errorf("subscription %s: %d rows, want %d", c.sub.URL, n, c.want)
		}
	}
}

func exercisePrebookPrune(t *testing.T, s store.Store) {
	ctx := context.Background()
	cutoff := now.Add(-24 * time.Hour)
	// The last was written after the others with the oldest expiry (a clock stepped
	// back): prebooks are not pruned in the order they were written.
	for i, exp := range []time.Time{cutoff.Add(-3 * time.Hour), cutoff.Add(-2 * time.Hour), cutoff.Add(-time.Hour), cutoff,
		now.Add(time.Minute), cutoff.Add(-4 * time.Hour)} {
		pb := &tradewind.Prebook{Token: fmt.Sprint("pbk_", i), PartnerID: 1, Mode: "live", Quote: []byte(`{}`), TotalPrice: 100,
			Currency: "EUR", ExpiresAt: exp, CreatedAt: exp.Add(-15 * time.Minute)}
		if err := s.PrebookCreate(ctx, pb); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := s.PrebookConsume(ctx, "pbk_0", 7); err != nil || !ok { // used ones go too
		t.Fatal(ok, err)
	}
	total, batches := pruneAll(t, s, 2, cutoff, func(q store.Querier, p store.PruneParams) (int, error) { return q.PrebookPrune(ctx, p) })
	if total != 4 || len(batches) != 3 || batches[0] != 2 || batches[1] != 2 {
		t.Errorf("PrebookPrune deleted %d in batches %v, want 4 in batches of 2", total, batches)
	}
	for i, want := range []int{0, 0, 0, 1, 1, 0} {
		if n := rowCount(t, s, `SELECT COUNT(*) FROM prebooks WHERE token = $1`, fmt.Sprint("pbk_", i)); n != want {
			t.Errorf("prebook %d: %d rows, want %d", i, n, want)
		}
	}
}

func exerciseIdempotencyPrune(t *testing.T, s store.Store) {
	ctx := context.Background()
	cutoff := now.Add(-7 * 24 * time.Hour)
	claims := []struct {
		partner int64
		mode    tradewind.Mode
		key     string
		at      time.Time
		kept    bool
	}{
		{1, tradewind.ModeLive, "old-1", cutoff.Add(-time.Hour), false},
		{1, tradewind.ModeLive, "old-2", cutoff.Add(-time.Microsecond), false},
		{2, tradewind.ModeLive, "old-1", cutoff.Add(-time.Minute), false},
		{1, tradewind.ModeLive, "edge", cutoff, true},
		{2, tradewind.ModeLive, "new", now, true},
		{2, tradewind.ModeTest, "old-1", now, true}, // the same key in the other mode, recent
	}
	for _, c := range claims {
		if err := s.IdempotencyClaim(ctx, store.IdempotencyRecord{PartnerID: c.partner, Mode: c.mode, Key: c.key, RequestHash: "h", CreatedAt: c.at}); err != nil {
			t.Fatal(err)
		}
	}
	total, _ := pruneAll(t, s, 2, cutoff, func(q store.Querier, p store.PruneParams) (int, error) { return q.IdempotencyPrune(ctx, p) })
	if total != 3 {
		t.Errorf("IdempotencyPrune deleted %d, want 3", total)
	}
	for _, c := range claims {
		want := 0
		if c.kept {
			want = 1
		}
		if n := rowCount(t, s, `SELECT COUNT(*) FROM idempotency_keys WHERE partner_id = $1 AND mode = $2 AND key = $3`, c.partner, string(c.mode), c.key); n != want {
			t.Errorf("idempotency record %d/%s/%s: %d rows, want %d", c.partner, c.mode, c.key, n, want)
		}
	}
	// A pruned key may be claimed again.
	if err := s.IdempotencyClaim(ctx, store.IdempotencyRecord{PartnerID: 1, Mode: tradewind.ModeLive, Key: "old-1", RequestHash: "h", CreatedAt: now}); err != nil {
		t.Errorf("claim of a pruned key: %v", err)
	}
}

func exerciseSigningSecretPrune(t *testing.T, s store.Store) {
	ctx := context.Background()
	rotated := func(name string, until time.Time) *tradewind.Partner {
		p := newPartner(t, s, name)
		p.SigningSecret, p.PrevSigningSecret, p.PrevSecretUntil = "tws_new_"+name, "tws_old_"+name, until
		if err := s.PartnerUpdate(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	over, current := rotated("over", now.Add(-time.Hour)), rotated("current", now.Add(time.Hour))
	total, _ := pruneAll(t, s, 10, now, func(q store.Querier, p store.PruneParams) (int, error) { return q.SigningSecretPrune(ctx, p) })
	if total != 1 {
		t.Errorf("SigningSecretPrune changed %d partners, want 1", total)
	}
	if got, _ := s.PartnerGetByID(ctx, over.ID); got.PrevSigningSecret != "" || !got.PrevSecretUntil.IsZero() || got.SigningSecret != "tws_new_over" {
		t.Errorf("after its overlap: %+v", got)
	}
	if got, _ := s.PartnerGetByID(ctx, current.ID); got.PrevSigningSecret != "tws_old_current" {
		t.Errorf("during its overlap: %+v", got)
	}
}
