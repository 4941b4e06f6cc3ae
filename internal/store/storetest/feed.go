package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// The conformance cases of the booking filters, the event feed, the pause of webhook
// subscriptions and the sandbox timers (issue 14).

func exerciseBookingFilters(t *testing.T, s store.Store) {
	ctx := context.Background()
	p, q := newPartner(t, s, "acme"), newPartner(t, s, "globex")
	mk := func(p *tradewind.Partner, ref string, edit func(b *tradewind.Booking)) {
		b := newBooking(p, ref, "", "")
		edit(b)
		if err := s.BookingCreate(ctx, b); err != nil {
			t.Fatalf("BookingCreate %s: %v", ref, err)
		}
	}
	mk(p, "HTL-AAAAAAAA", func(b *tradewind.Booking) { b.PartnerReference = "PO-1" })
	mk(p, "ACT-BBBBBBBB", func(b *tradewind.Booking) {
		b.ProductType, b.Test, b.StartDate, b.EndDate = "activity", true, "2027-02-01", "2027-02-01"
		b.CreatedAt = now.Add(time.Hour)
	})
	mk(p, "RNT-CCCCCCCC", func(b *tradewind.Booking) {
		b.ProductType, b.Status, b.StartDate, b.EndDate = "rental", tradewind.StatusPending, "2027-03-01", "2027-03-05"
		b.CreatedAt = now.Add(48 * time.Hour)
	})
	mk(q, "HTL-DDDDDDDD", func(b *tradewind.Booking) { b.PartnerReference = "PO-1" })
	yes, no := true, false
	for _, c := range []struct {
		f    store.BookingFilter
		want string
	}{
		{store.BookingFilter{PartnerID: p.ID}, "RNT-CCCCCCCC ACT-BBBBBBBB HTL-AAAAAAAA"},
		{store.BookingFilter{PartnerID: p.ID, ProductType: "activity"}, "ACT-BBBBBBBB"},
		{store.BookingFilter{PartnerID: p.ID, Test: &yes}, "ACT-BBBBBBBB"},
		{store.BookingFilter{PartnerID: p.ID, Test: &no}, "RNT-CCCCCCCC HTL-AAAAAAAA"},
		{store.BookingFilter{PartnerID: p.ID, Statuses: []store.StatusTerm{{Status: tradewind.StatusPending}}}, "RNT-CCCCCCCC"},
		{store.BookingFilter{PartnerID: p.ID, Statuses: []store.StatusTerm{{Status: tradewind.StatusPending}, {Status: tradewind.StatusConfirmed}}},
			"RNT-CCCCCCCC ACT-BBBBBBBB HTL-AAAAAAAA"},
		{store.BookingFilter{PartnerID: p.ID, CreatedFrom: now.Add(time.Hour)}, "RNT-CCCCCCCC ACT-BBBBBBBB"},
		{store.BookingFilter{PartnerID: p.ID, CreatedBefore: now.Add(time.Hour)}, "HTL-AAAAAAAA"},
		{store.BookingFilter{PartnerID: p.ID, ServiceFrom: "2027-01-03", ServiceTo: "2027-02-01"}, "ACT-BBBBBBBB HTL-AAAAAAAA"},
		{store.BookingFilter{PartnerID: p.ID, ServiceFrom: "2027-03-05"}, "RNT-CCCCCCCC"},
		{store.BookingFilter{PartnerID: p.ID, ServiceTo: "2026-12-31"}, ""},
		{store.BookingFilter{PartnerID: p.ID, PartnerReference: "PO-1"}, "HTL-AAAAAAAA"},
		{store.BookingFilter{PartnerID: p.ID, Limit: 1, Offset: 1}, "ACT-BBBBBBBB"},
	} {
		list, total, err := s.BookingList(ctx, c.f)
		var refs []string
		for _, b := range list {
			refs = append(refs, b.Reference)
		}
		wantTotal := len(strings.Fields(c.want))
		if c.f.Limit > 0 {
			wantTotal = 3
		}
		if err != nil || strings.Join(refs, " ") != c.want || total != wantTotal {
			t.Errorf("BookingList(%+v) = %v (total %d), %v; want %s", c.f, refs, total, err, c.want)
		}
	}
	// Keyset paging: below an id.
	all, _, _ := s.BookingList(ctx, store.BookingFilter{PartnerID: p.ID})
	below, _, err := s.BookingList(ctx, store.BookingFilter{PartnerID: p.ID, BeforeID: all[0].ID, Limit: 1})
	if err != nil || len(below) != 1 || below[0].ID != all[1].ID {
		t.Errorf("BeforeID: %v, %v", below, err)
	}
}

func exerciseEventFeed(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := newPartner(t, s, "acme"), newPartner(t, s, "globex")
	var ids []string
	emit := func(partnerID int64, typ tradewind.EventType, data string) string {
		id := fmt.Sprintf("evt_%03d", len(ids))
		if err := s.EventCreate(ctx, &tradewind.Event{ID: id, PartnerID: partnerID, Type: typ, Data: []byte(data),
			CreatedAt: now.Add(time.Duration(len(ids)) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		return id
	}
	e0 := emit(a.ID, tradewind.EventBookingConfirmed, `{"reference":"HTL-AAAAAAAA","product_type":"hotel","test":true}`)
	emit(b.ID, tradewind.EventBookingConfirmed, `{"reference":"HTL-BBBBBBBB","product_type":"hotel"}`)
	e2 := emit(store.FeedPartnerID, tradewind.EventAvailabilityChanged, `{"product_type":"hotel","item_id":1}`)
	e3 := emit(store.FeedPartnerID, tradewind.EventAvailabilityChanged, `{"product_type":"activity","item_id":2}`)
	emit(a.ID, tradewind.EventAvailabilityChanged, `{"product_type":"hotel","item_id":1}`) // a's webhook copy
	e5 := emit(a.ID, tradewind.EventBookingCancelled, `{"reference":"HTL-AAAAAAAA","product_type":"hotel"}`)

	feed := func(p store.EventFeedParams) string {
		t.Helper()
		list, err := s.EventFeed(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range list {
			out = append(out, e.ID)
		}
		return strings.Join(out, " ")
	}
	base := store.EventFeedParams{PartnerID: a.ID, Products: []tradewind.ProductType{"hotel"}, Limit: 10}
	if got := feed(base); got != "" {
		t.Errorf("unsequenced events are listed: %s", got)
	}
	sequence := func(limit int) int {
		var n int
		if err := s.InTx(ctx, func(q store.Querier) (err error) {
			n, err = q.EventSequence(ctx, limit)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if pending, err := s.EventsUnsequenced(ctx); err != nil || !pending {
		t.Errorf("EventsUnsequenced before = %v, %v", pending, err)
	}
	if n := sequence(4); n != 4 {
		t.Errorf("EventSequence(4) = %d", n)
	}
	if n := sequence(10); n != 2 {
		t.Errorf("EventSequence(10) = %d, want the 2 left", n)
	}
	if n := sequence(10); n != 0 {
		t.Errorf("EventSequence again = %d", n)
	}
	if pending, err := s.EventsUnsequenced(ctx); err != nil || pending {
		t.Errorf("EventsUnsequenced after = %v, %v", pending, err)
	}
	if got := feed(base); got != e0+" "+e2+" "+e5 {
		t.Errorf("feed = %s", got)
	}
	first, err := s.FeedEventGet(ctx, e2)
	if err != nil || first.Seq == 0 || first.PartnerID != store.FeedPartnerID || string(first.Data) != `{"product_type":"hotel","item_id":1}` {
		t.Fatalf("EventGet = %+v, %v", first, err)
	}
	after := base
	after.After = first.Seq
	if got := feed(after); got != e5 {
		t.Errorf("after %s: %s", e2, got)
	}
	for name, c := range map[string]struct {
		edit func(p *store.EventFeedParams)
		want string
	}{
		"no products": {func(p *store.EventFeedParams) { p.Products = nil }, e0 + " " + e5},
		"types":       {func(p *store.EventFeedParams) { p.Types = []tradewind.EventType{tradewind.EventBookingCancelled} }, e5},
		"reference":   {func(p *store.EventFeedParams) { p.BookingReference = "HTL-AAAAAAAA" }, e0 + " " + e5},
		"since":       {func(p *store.EventFeedParams) { p.Since = now.Add(2 * time.Minute) }, e2 + " " + e5},
		"limit":       {func(p *store.EventFeedParams) { p.Limit = 1 }, e0},
		// A page that ends between the partner's own events and the shared ones.
		"limit across": {func(p *store.EventFeedParams) { p.Limit = 2 }, e0 + " " + e2},
		// The shared availability events only, never the partner's own webhook copy.
		"availability": {func(p *store.EventFeedParams) { p.Types = []tradewind.EventType{tradewind.EventAvailabilityChanged} }, e2},
		"availability, no products": {func(p *store.EventFeedParams) {
			p.Types, p.Products = []tradewind.EventType{tradewind.EventAvailabilityChanged}, nil
		}, ""},
		"products": {func(p *store.EventFeedParams) { p.Products = []tradewind.ProductType{"hotel", "activity"} }, e0 + " " + e2 + " " + e3 + " " + e5},
	} {
		p := base
		c.edit(&p)
		if got := feed(p); got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}
	if _, err := s.FeedEventGet(ctx, "evt_none"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("EventGet(unknown) = %v", err)
	}
}

func exerciseSubscriptionPause(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newPartner(t, s, "acme")
	dead := newSubscription(t, s, a.ID, "https://dead.example", tradewind.EventBookingConfirmed)
	alive := newSubscription(t, s, a.ID, "https://alive.example", tradewind.EventBookingConfirmed)
	event := func(id string, at time.Time) {
		if err := s.EventCreate(ctx, &tradewind.Event{ID: id, PartnerID: a.ID, Type: tradewind.EventBookingConfirmed, Data: []byte(`{}`), CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	attempt := func(at time.Time, final bool) {
		claimed, err := s.DeliveryClaimDue(ctx, store.DeliveryClaimParams{Now: at, Lease: time.Minute, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range claimed {
			p := store.DeliveryAttemptParams{DeliveryID: d.ID, ClaimToken: d.ClaimToken, At: at, StatusCode: 200, Status: store.DeliverySucceeded}
			if d.SubscriptionID == dead.ID {
				p.StatusCode, p.Status, p.NextAttemptAt = 500, store.DeliveryPending, at.Add(time.Minute)
				if final {
					p.Status = store.DeliveryFailed
				}
			}
			if err := s.InTx(ctx, func(q store.Querier) error { _, err := q.DeliveryRecordAttempt(ctx, p); return err }); err != nil {
				t.Fatal(err)
			}
		}
	}
	event("evt_1", now)
	attempt(now, false)
	attempt(now.Add(time.Hour), true)
	failing, err := s.SubscriptionsFailing(ctx, now.Add(30*time.Minute))
	if err != nil || len(failing) != 1 || failing[0].ID != dead.ID || !failing[0].Since.Equal(now.Truncate(time.Microsecond)) {
		t.Fatalf("SubscriptionsFailing = %+v, %v", failing, err)
	}
	if failing, _ := s.SubscriptionsFailing(ctx, now.Add(-time.Minute)); len(failing) != 0 {
		t.Errorf("failing before the first failure: %+v", failing)
	}
	if ok, err := s.SubscriptionPause(ctx, store.SubscriptionPauseParams{ID: dead.ID, At: now.Add(2 * time.Hour), Reason: "failing", FailingSince: now}); !ok || err != nil {
		t.Fatalf("SubscriptionPause = %v, %v", ok, err)
	}
	if ok, _ := s.SubscriptionPause(ctx, store.SubscriptionPauseParams{ID: dead.ID, At: now}); ok {
		t.Error("paused twice")
	}
	if ok, _ := s.SubscriptionPause(ctx, store.SubscriptionPauseParams{ID: alive.ID, PartnerID: a.ID + 1, At: now}); ok {
		t.Error("another partner paused it")
	}
	if failing, _ := s.SubscriptionsFailing(ctx, now.Add(30*time.Minute)); len(failing) != 0 {
		t.Errorf("a paused subscription is listed as failing: %+v", failing)
	}
	got, err := s.SubscriptionGetByID(ctx, dead.ID)
	if err != nil || got.PausedAt.IsZero() || got.PauseReason != "failing" || !got.FailingSince.Equal(now.Truncate(time.Microsecond)) {
		t.Errorf("SubscriptionGet = %+v, %v", got, err)
	}
	// A paused subscription's deliveries wait.
	event("evt_2", now.Add(3*time.Hour))
	claimed, _ := s.DeliveryClaimDue(ctx, store.DeliveryClaimParams{Now: now.Add(3 * time.Hour), Lease: time.Minute, Limit: 10})
	if len(claimed) != 1 || claimed[0].SubscriptionID != alive.ID {
		t.Errorf("claimed while paused: %+v", claimed)
	}
	var n int
	var resumed bool
	err = s.InTx(ctx, func(q store.Querier) (err error) {
		n, resumed, err = q.SubscriptionResume(ctx, store.SubscriptionResumeParams{ID: dead.ID, Now: now.Add(4 * time.Hour)})
		return err
	})
	if err != nil || !resumed || n != 2 { // evt_2 waiting, evt_1 failed
		t.Fatalf("SubscriptionResume = %d, %v, %v", n, resumed, err)
	}
	claimed, _ = s.DeliveryClaimDue(ctx, store.DeliveryClaimParams{Now: now.Add(4 * time.Hour), Lease: time.Minute, Limit: 10})
	events := map[string]bool{}
	for _, d := range claimed {
		if d.SubscriptionID == dead.ID {
			events[d.Event.ID] = true
		}
	}
	if len(events) != 2 || !events["evt_1"] || !events["evt_2"] {
		t.Errorf("claimed for the resumed subscription: %v", events)
	}
	err = s.InTx(ctx, func(q store.Querier) (err error) {
		_, resumed, err = q.SubscriptionResume(ctx, store.SubscriptionResumeParams{ID: dead.ID, Now: now})
		return err
	})
	if err != nil || resumed {
		t.Errorf("resume of an active subscription = %v, %v", resumed, err)
	}
	if _, err := s.SubscriptionGetByID(ctx, 999999); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SubscriptionGet(unknown) = %v", err)
	}
}

func exerciseSandboxTimers(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	b := newBooking(p, "HTL-AAAAAAAA", "", "")
	b.Status = tradewind.StatusOnRequest
	if err := s.BookingCreate(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.SandboxTimerCreate(ctx, store.SandboxTimer{BookingID: b.ID, Action: tradewind.StatusConfirmed, DueAt: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if due, err := s.SandboxTimersDue(ctx, now, 10); err != nil || len(due) != 0 {
		t.Errorf("due early: %+v, %v", due, err)
	}
	due, err := s.SandboxTimersDue(ctx, now.Add(time.Minute), 10)
	if err != nil || len(due) != 1 || due[0].Reference != b.Reference || due[0].Status != tradewind.StatusOnRequest || due[0].Action != tradewind.StatusConfirmed {
		t.Fatalf("due = %+v, %v", due, err)
	}
	if err := s.SandboxTimerDelete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if due, _ := s.SandboxTimersDue(ctx, now.Add(time.Hour), 10); len(due) != 0 {
		t.Errorf("after delete: %+v", due)
	}
}

// exerciseSampleEvents: at most maxPending sample events wait for one subscription (the
// next is ErrTooMany, other events and other subscriptions not counted); a deleted
// subscription takes none; the feed never lists a sample, sequenced or not.
func exerciseSampleEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := newPartner(t, s, "acme")
	sub := newSubscription(t, s, a.ID, "https://a.example/1", tradewind.EventBookingConfirmed)
	other := newSubscription(t, s, a.ID, "https://a.example/2", tradewind.EventBookingConfirmed)
	sample := func(id string, subID int64) error {
		return s.InTx(ctx, func(q store.Querier) error {
			return q.EventCreateTest(ctx, &tradewind.Event{ID: id, PartnerID: a.ID, Type: tradewind.EventBookingConfirmed,
				Data: []byte(`{}`), CreatedAt: now}, subID, 3)
		})
	}
	// A real event's delivery does not count.
	if err := s.EventCreate(ctx, &tradewind.Event{ID: "evt_real", PartnerID: a.ID, Type: tradewind.EventBookingConfirmed, Data: []byte(`{}`), CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := sample(fmt.Sprintf("evt_s%d", i), sub.ID); err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
	}
	if err := sample("evt_s3", sub.ID); !errors.Is(err, store.ErrTooMany) {
		t.Errorf("a fourth pending sample with maxPending 3 = %v, want ErrTooMany", err)
	}
	if err := sample("evt_o0", other.ID); err != nil {
		t.Errorf("another subscription's first sample: %v", err)
	}
	if err := s.SubscriptionDelete(ctx, store.SubscriptionDeleteParams{PartnerID: a.ID, ID: other.ID, At: now}); err != nil {
		t.Fatal(err)
	}
	if err := sample("evt_o1", other.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a sample to a deleted subscription = %v, want ErrNotFound", err)
	}
	if err := s.InTx(ctx, func(q store.Querier) error { _, err := q.EventSequence(ctx, 100); return err }); err != nil {
		t.Fatal(err)
	}
	list, err := s.EventFeed(ctx, store.EventFeedParams{PartnerID: a.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	if !slices.Equal(ids, []string{"evt_real"}) {
		t.Errorf("the feed lists %v, want the real event alone", ids)
	}
}
