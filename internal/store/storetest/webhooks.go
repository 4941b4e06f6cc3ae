package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

func newSubscription(t *testing.T, s store.Store, partnerID int64, url string, types ...tradewind.EventType) *store.Subscription {
	t.Helper()
	sub, err := s.SubscriptionCreate(context.Background(), store.SubscriptionCreateParams{PartnerID: partnerID, URL: url,
		EventTypes: types, Secret: "whsec_" + url, CreatedAt: now})
	if err != nil {
		t.Fatalf("SubscriptionCreate: %v", err)
	}
	return sub
}

func exerciseSubscriptions(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := newPartner(t, s, "acme"), newPartner(t, s, "globex")
	create := func(partnerID int64, url string, max int) (*store.Subscription, error) {
		var sub *store.Subscription
		err := s.InTx(ctx, func(q store.Querier) (err error) {
			sub, err = q.SubscriptionCreate(ctx, store.SubscriptionCreateParams{PartnerID: partnerID, URL: url,
				EventTypes: []tradewind.EventType{tradewind.EventBookingConfirmed, tradewind.EventBookingCancelled}, Secret: "whsec_x",
				CreatedAt: now, MaxActive: max})
			return err
		})
		return sub, err
	}
	s1, err := create(a.ID, "https://a.example/1", 2)
	if err != nil || s1.ID == 0 || !s1.Active || !s1.CreatedAt.Equal(now.Truncate(time.Microsecond)) {
		t.Fatalf("SubscriptionCreate = %+v, %v", s1, err)
	}
	s2, err := create(a.ID, "https://a.example/2", 2)
	if err != nil {
		t.Fatalf("second SubscriptionCreate: %v", err)
	}
	if _, err := create(a.ID, "https://a.example/3", 2); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("SubscriptionCreate over MaxActive: %v, want ErrConflict", err)
	}
	if _, err := create(b.ID, "https://b.example/1", 2); err != nil {
		t.Fatalf("another partner's limit is its own: %v", err)
	}

	list, err := s.SubscriptionList(ctx, a.ID)
	if err != nil || len(list) != 2 || list[0].ID != s1.ID || list[1].ID != s2.ID {
		t.Fatalf("SubscriptionList = %v, %v", list, err)
	}
	got := list[0]
	if got.PartnerID != a.ID || got.URL != "https://a.example/1" || got.Secret != "whsec_x" || !got.Active ||
		!slices.Equal(got.EventTypes, []tradewind.EventType{tradewind.EventBookingConfirmed, tradewind.EventBookingCancelled}) ||
		!got.CreatedAt.Equal(now.Truncate(time.Microsecond)) {
		t.Errorf("SubscriptionList[0] = %+v", got)
	}
	if n, err := s.SubscriptionCountActive(ctx, a.ID); err != nil || n != 2 {
		t.Errorf("SubscriptionCountActive = %d, %v; want 2", n, err)
	}

	del := func(partnerID, id int64) error {
		return s.SubscriptionDelete(ctx, store.SubscriptionDeleteParams{PartnerID: partnerID, ID: id, At: now.Add(time.Hour)})
	}
	if err := del(b.ID, s1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting another partner's subscription: %v, want ErrNotFound", err)
	}
	if err := del(a.ID, s1.ID); err != nil {
		t.Fatalf("SubscriptionDelete: %v", err)
	}
	if err := del(a.ID, s1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting twice: %v, want ErrNotFound", err)
	}
	if err := del(a.ID, 999999); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting an unknown id: %v, want ErrNotFound", err)
	}
	if list, _ := s.SubscriptionList(ctx, a.ID); len(list) != 1 || list[0].ID != s2.ID {
		t.Errorf("SubscriptionList after delete = %v", list)
	}
	if _, err := create(a.ID, "https://a.example/3", 2); err != nil {
		t.Errorf("a deleted subscription frees its place: %v", err)
	}
	if ids, err := s.SubscriberPartnerIDs(ctx, tradewind.EventBookingCancelled); err != nil || !slices.Equal(ids, []int64{a.ID, b.ID}) {
		t.Errorf("SubscriberPartnerIDs = %v, %v", ids, err)
	}
	if ids, _ := s.SubscriberPartnerIDs(ctx, tradewind.EventAvailabilityChanged); len(ids) != 0 {
		t.Errorf("SubscriberPartnerIDs(availability.changed) = %v, want none", ids)
	}

	// Concurrent creations never pass the limit.
	c := newPartner(t, s, "initech")
	var wg sync.WaitGroup
	var mu sync.Mutex
	created := 0
	for i := range 8 {
		wg.Go(func() {
			_, err := create(c.ID, fmt.Sprintf("https://c.example/%d", i), 3)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				created++
			case !errors.Is(err, store.ErrConflict):
				t.Errorf("concurrent SubscriptionCreate: %v", err)
			}
		})
	}
	wg.Wait()
	if n, _ := s.SubscriptionCountActive(ctx, c.ID); created != 3 || n != 3 {
		t.Errorf("concurrent creations with MaxActive 3: %d created, %d active", created, n)
	}
}

func claim(t *testing.T, s store.Store, at time.Time, lease time.Duration, limit int) []*store.ClaimedDelivery {
	t.Helper()
	got, err := s.DeliveryClaimDue(context.Background(), store.DeliveryClaimParams{Now: at, Lease: lease, Limit: limit})
	if err != nil {
		t.Fatalf("DeliveryClaimDue: %v", err)
	}
	return got
}

func claimedIDs(cs []*store.ClaimedDelivery) []int64 {
	var out []int64
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func exerciseDeliveries(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newPartner(t, s, "acme")
	s1 := newSubscription(t, s, a.ID, "https://a.example/1", tradewind.EventBookingConfirmed)
	s2 := newSubscription(t, s, a.ID, "https://a.example/2", tradewind.EventAvailabilityChanged, tradewind.EventBookingConfirmed)
	s3 := newSubscription(t, s, a.ID, "https://a.example/3", tradewind.EventBookingConfirmed)
	if err := s.SubscriptionDelete(ctx, store.SubscriptionDeleteParams{PartnerID: a.ID, ID: s3.ID, At: now}); err != nil {
		t.Fatal(err)
	}
	ev := &tradewind.Event{ID: "evt_d1", PartnerID: a.ID, Type: tradewind.EventBookingConfirmed, Data: []byte(`{"reference":"HTL-1"}`), CreatedAt: now}
	if err := s.EventCreate(ctx, ev); err != nil {
		t.Fatalf("EventCreate: %v", err)
	}
	list, err := s.DeliveryList(ctx, store.DeliveryFilter{EventID: ev.ID})
	if err != nil || len(list) != 2 {
		t.Fatalf("DeliveryList = %v, %v; want one delivery per active matching subscription", list, err)
	}
	d2, d1 := list[0], list[1] // newest first
	if d1.SubscriptionID != s1.ID || d2.SubscriptionID != s2.ID || d1.Status != store.DeliveryPending || d1.Attempts != 0 ||
		d1.EventType != ev.Type || d1.PartnerID != a.ID || d1.URL != s1.URL || !d1.NextAttemptAt.Equal(now.Truncate(time.Microsecond)) {
		t.Fatalf("deliveries = %+v, %+v", d1, d2)
	}

	if got := claim(t, s, now.Add(-time.Second), time.Minute, 10); len(got) != 0 {
		t.Fatalf("claimed %v before it was due", claimedIDs(got))
	}
	c1 := claim(t, s, now, time.Minute, 1)
	if len(c1) != 1 || c1[0].ID != d1.ID {
		t.Fatalf("claim with limit 1 = %v, want [%d]", claimedIDs(c1), d1.ID)
	}
	got := c1[0]
	if got.ClaimToken == "" || got.Attempts != 0 || got.SubscriptionID != s1.ID || got.URL != s1.URL || got.Secret != s1.Secret ||
		got.PartnerName != "acme" || got.Event.ID != ev.ID || got.Event.Type != ev.Type || got.Event.PartnerID != a.ID ||
		string(got.Event.Data) != string(ev.Data) || !got.Event.CreatedAt.Equal(now.Truncate(time.Microsecond)) {
		t.Fatalf("claimed delivery = %+v", got)
	}
	if c2 := claim(t, s, now, time.Minute, 10); len(c2) != 1 || c2[0].ID != d2.ID {
		t.Fatalf("second claim = %v, want only the unleased [%d]", claimedIDs(c2), d2.ID)
	}
	if c := claim(t, s, now.Add(30*time.Second), time.Minute, 10); len(c) != 0 {
		t.Fatalf("claimed %v while leased", claimedIDs(c))
	}
	c3 := claim(t, s, now.Add(time.Minute), 10*time.Minute, 10)
	if !slices.Equal(claimedIDs(c3), []int64{d1.ID, d2.ID}) || c3[0].ClaimToken == c1[0].ClaimToken {
		t.Fatalf("claim after the leases expired = %v", claimedIDs(c3))
	}

	record := func(c *store.ClaimedDelivery, token string, at time.Time, status string, next time.Time) bool {
		t.Helper()
		var kept bool
		err := s.InTx(ctx, func(q store.Querier) (err error) {
			kept, err = q.DeliveryRecordAttempt(ctx, store.DeliveryAttemptParams{DeliveryID: c.ID, ClaimToken: token, At: at,
				StatusCode: 500, Error: "status 500", ResponseSnippet: "boom", Duration: 1500 * time.Millisecond,
				Status: status, NextAttemptAt: next})
			return err
		})
		if err != nil {
			t.Fatalf("DeliveryRecordAttempt: %v", err)
		}
		return kept
	}
	if record(c1[0], c1[0].ClaimToken, now.Add(time.Minute), store.DeliveryPending, now.Add(2*time.Minute)) {
		t.Error("an expired lease's attempt moved the delivery")
	}
	if !record(c3[0], c3[0].ClaimToken, now.Add(time.Minute), store.DeliveryPending, now.Add(5*time.Minute)) {
		t.Fatal("DeliveryRecordAttempt lost a held lease")
	}
	if !record(c3[1], c3[1].ClaimToken, now.Add(time.Minute), store.DeliverySucceeded, time.Time{}) {
		t.Fatal("DeliveryRecordAttempt lost a held lease")
	}
	if record(c3[1], c3[1].ClaimToken, now.Add(time.Minute), store.DeliveryFailed, time.Time{}) {
		t.Error("a released lease recorded twice")
	}
	if c := claim(t, s, now.Add(4*time.Minute), time.Minute, 10); len(c) != 0 {
		t.Fatalf("claimed %v before the retry was due", claimedIDs(c))
	}
	c4 := claim(t, s, now.Add(5*time.Minute), time.Minute, 10)
	if !slices.Equal(claimedIDs(c4), []int64{d1.ID}) || c4[0].Attempts != 1 {
		t.Fatalf("retry claim = %+v, want d1 after 1 attempt", c4)
	}
	record(c4[0], c4[0].ClaimToken, now.Add(5*time.Minute), store.DeliveryFailed, time.Time{})
	if c := claim(t, s, now.Add(time.Hour), time.Minute, 10); len(c) != 0 {
		t.Fatalf("claimed finished deliveries %v", claimedIDs(c))
	}

	byStatus := func(f store.DeliveryFilter) []int64 {
		t.Helper()
		l, err := s.DeliveryList(ctx, f)
		if err != nil {
			t.Fatalf("DeliveryList(%+v): %v", f, err)
		}
		var ids []int64
		for _, d := range l {
			ids = append(ids, d.ID)
		}
		return ids
	}
	if ids := byStatus(store.DeliveryFilter{Status: store.DeliveryFailed}); !slices.Equal(ids, []int64{d1.ID}) {
		t.Errorf("failed deliveries = %v", ids)
	}
	if ids := byStatus(store.DeliveryFilter{Status: store.DeliverySucceeded, PartnerID: a.ID}); !slices.Equal(ids, []int64{d2.ID}) {
		t.Errorf("succeeded deliveries = %v", ids)
	}
	if ids := byStatus(store.DeliveryFilter{PartnerID: a.ID + 1000}); len(ids) != 0 {
		t.Errorf("another partner's deliveries = %v", ids)
	}
	if ids := byStatus(store.DeliveryFilter{Limit: 1}); !slices.Equal(ids, []int64{d2.ID}) {
		t.Errorf("newest delivery = %v", ids)
	}
	l, _ := s.DeliveryList(ctx, store.DeliveryFilter{EventID: ev.ID})
	if l[1].Attempts != 2 || l[1].LastError != "status 500" || l[0].Attempts != 1 || l[0].Status != store.DeliverySucceeded {
		t.Errorf("deliveries after attempts = %+v, %+v", l[1], l[0])
	}

	attempts, err := s.AttemptList(ctx, []int64{d1.ID, d2.ID})
	if err != nil || len(attempts) != 5 {
		t.Fatalf("AttemptList = %d attempts, %v; want all 5, including those whose lease was lost", len(attempts), err)
	}
	at := attempts[0]
	if at.DeliveryID != d1.ID || at.StatusCode != 500 || at.Error != "status 500" || at.ResponseSnippet != "boom" ||
		at.Duration != 1500*time.Millisecond || !at.AttemptedAt.Equal(now.Add(time.Minute).Truncate(time.Microsecond)) {
		t.Errorf("attempt = %+v", at)
	}
	if l, err := s.AttemptList(ctx, nil); err != nil || len(l) != 0 {
		t.Errorf("AttemptList(nil) = %v, %v", l, err)
	}

	redeliver := func(id string) (int, error) {
		return s.DeliveryRedeliver(ctx, store.DeliveryRedeliverParams{EventID: id, Now: now.Add(time.Hour)})
	}
	if n, err := redeliver(ev.ID); err != nil || n != 2 {
		t.Fatalf("DeliveryRedeliver = %d, %v; want 2", n, err)
	}
	if n, err := redeliver(ev.ID); err != nil || n != 2 {
		t.Fatalf("DeliveryRedeliver again = %d, %v; want the same 2 made due", n, err)
	}
	if ids := byStatus(store.DeliveryFilter{EventID: ev.ID, Status: store.DeliveryPending}); len(ids) != 2 {
		t.Fatalf("pending after redeliver = %v, want 2", ids)
	}
	if c := claim(t, s, now.Add(time.Hour), time.Minute, 10); len(c) != 2 || c[0].Attempts != 0 {
		t.Fatalf("redelivered claim = %v", claimedIDs(c))
	}
	if err := s.SubscriptionDelete(ctx, store.SubscriptionDeleteParams{PartnerID: a.ID, ID: s1.ID, At: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if ids := byStatus(store.DeliveryFilter{EventID: ev.ID, Status: store.DeliveryPending}); len(ids) != 1 {
		t.Errorf("a deleted subscription's pending deliveries stay pending: %v", ids)
	}
	if n, err := redeliver(ev.ID); err != nil || n != 1 {
		t.Errorf("DeliveryRedeliver after a deletion = %d, %v; want 1", n, err)
	}
	if _, err := redeliver("evt_nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeliveryRedeliver(unknown) = %v, want ErrNotFound", err)
	}
	if _, err := s.DeliveryClaimDue(ctx, store.DeliveryClaimParams{Now: now, Lease: time.Minute}); err == nil {
		t.Error("DeliveryClaimDue without a limit succeeded")
	}
}

// exerciseDeliveryClaimLast: the subscriptions a claim names Last are served after the
// others, whose deliveries were due later, and still fill what the others leave.
func exerciseDeliveryClaimLast(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := newPartner(t, s, "acme"), newPartner(t, s, "globex")
	subA := newSubscription(t, s, a.ID, "https://a.example/1", tradewind.EventBookingConfirmed)
	newSubscription(t, s, b.ID, "https://b.example/1", tradewind.EventBookingConfirmed)
	for i, p := range []int64{a.ID, a.ID, a.ID, a.ID, b.ID, b.ID} {
		e := &tradewind.Event{ID: fmt.Sprintf("evt_%d", i), PartnerID: p, Type: tradewind.EventBookingConfirmed, Data: []byte(`{}`),
			CreatedAt: now.Add(time.Duration(i) * time.Second)}
		if err := s.EventCreate(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	last := func(limit int) []string {
		got, err := s.DeliveryClaimDue(ctx, store.DeliveryClaimParams{Now: now.Add(time.Minute), Lease: time.Hour, Limit: limit, Last: []int64{subA.ID}})
		if err != nil {
			t.Fatalf("DeliveryClaimDue: %v", err)
		}
		var events []string
		for _, c := range got {
			events = append(events, c.Event.ID)
		}
		slices.Sort(events)
		return events
	}
	if got := last(3); !slices.Equal(got, []string{"evt_0", "evt_4", "evt_5"}) {
		t.Errorf("claim of 3 with acme's subscription last: %v; want globex's two and acme's oldest", got)
	}
	if got := last(10); !slices.Equal(got, []string{"evt_1", "evt_2", "evt_3"}) {
		t.Errorf("then: %v; want acme's three left", got)
	}
}

// exerciseDeliveryClaims claims from many goroutines at once: each delivery is leased
// once, whether a claim names the subscription Last or not. Half of the claimed are
// recorded at once as failed and due again in an hour, as a dispatcher does: a claim
// that read them due before that record committed must still refuse them, not send them
// again at once.
func exerciseDeliveryClaims(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newPartner(t, s, "acme")
	sub := newSubscription(t, s, a.ID, "https://a.example/1", tradewind.EventBookingConfirmed)
	const events = 400
	for i := range events {
		e := &tradewind.Event{ID: fmt.Sprintf("evt_%d", i), PartnerID: a.ID, Type: tradewind.EventBookingConfirmed, Data: []byte(`{}`), CreatedAt: now}
		if err := s.EventCreate(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			p := store.DeliveryClaimParams{Now: now, Lease: time.Hour, Limit: 3}
			if i%2 == 1 {
				p.Last = []int64{sub.ID}
			}
			for {
				got, err := s.DeliveryClaimDue(ctx, p)
				if err != nil {
					t.Errorf("DeliveryClaimDue: %v", err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, c := range got {
					seen[c.ID]++
				}
				mu.Unlock()
				for _, c := range got {
					if c.ID%2 == 1 {
						continue // leased for the hour
					}
					if err := s.InTx(ctx, func(q store.Querier) error {
						_, err := q.DeliveryRecordAttempt(ctx, store.DeliveryAttemptParams{DeliveryID: c.ID, ClaimToken: c.ClaimToken, At: now,
							StatusCode: 500, Error: "status 500", Status: store.DeliveryPending, NextAttemptAt: now.Add(time.Hour)})
						return err
					}); err != nil {
						t.Errorf("DeliveryRecordAttempt: %v", err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if len(seen) != events {
		t.Errorf("%d deliveries claimed, want %d", len(seen), events)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("delivery %d claimed %d times", id, n)
		}
	}
}
