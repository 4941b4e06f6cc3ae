package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// The portal's store methods (store/portal.go).

func exercisePartnerStatus(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	if p.Status != tradewind.PartnerActive {
		t.Fatalf("a partner created without a status is %q, want active", p.Status)
	}
	pending := &tradewind.Partner{Name: "newco", PricingMode: "net", Currency: "EUR", RateLimit: 120, Status: tradewind.PartnerPending, CreatedAt: now}
	if err := s.PartnerCreate(ctx, pending); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PartnerCountByStatus(ctx, tradewind.PartnerPending); err != nil || n != 1 {
		t.Fatalf("PartnerCountByStatus = %d, %v; want 1", n, err)
	}
	if ok, err := s.PartnerSetStatus(ctx, pending.ID, tradewind.PartnerActive, tradewind.PartnerRejected, "x"); err != nil || ok {
		t.Fatalf("PartnerSetStatus from the wrong status = %v, %v; want false", ok, err)
	}
	if ok, err := s.PartnerSetStatus(ctx, pending.ID, tradewind.PartnerPending, tradewind.PartnerRejected, "no fit"); err != nil || !ok {
		t.Fatalf("PartnerSetStatus = %v, %v; want true", ok, err)
	}
	got, err := s.PartnerGetByID(ctx, pending.ID)
	if err != nil || got.Status != tradewind.PartnerRejected || got.StatusReason != "no fit" {
		t.Fatalf("after reject: %+v, %v", got, err)
	}
	got.RequireTwoFactor = true
	if err := s.PartnerUpdate(ctx, got); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.PartnerGetByID(ctx, pending.ID); !got.RequireTwoFactor || got.Status != tradewind.PartnerRejected {
		t.Fatalf("PartnerUpdate lost the portal fields: %+v", got)
	}
	if err := s.InTx(ctx, func(q store.Querier) error { return q.PartnerLock(ctx, p.ID) }); err != nil {
		t.Fatalf("PartnerLock: %v", err)
	}
	if err := s.PartnerLock(ctx, 999999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("PartnerLock of no partner = %v, want ErrNotFound", err)
	}
}

func newPortalUser(t *testing.T, s store.Store, partnerID int64, email, role string) *store.PortalUser {
	t.Helper()
	u := &store.PortalUser{PartnerID: partnerID, Email: email, Name: "N " + email, Role: role, PasswordHash: "h", CreatedAt: now, UpdatedAt: now}
	if err := s.PortalUserCreate(context.Background(), u); err != nil {
		t.Fatalf("PortalUserCreate: %v", err)
	}
	return u
}

func exercisePortalUsers(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	q := newPartner(t, s, "globex")
	u := newPortalUser(t, s, p.ID, "Ann@Example.com", "owner")
	newPortalUser(t, s, p.ID, "bob@example.com", "viewer")
	newPortalUser(t, s, q.ID, "cy@example.com", "owner")
	if err := s.PortalUserCreate(ctx, &store.PortalUser{PartnerID: q.ID, Email: "ANN@example.com", Role: "owner", CreatedAt: now, UpdatedAt: now}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a second user with the same e-mail in another case = %v, want ErrConflict", err)
	}
	got, err := s.PortalUserGetByEmail(ctx, "ann@EXAMPLE.com")
	if err != nil || got.ID != u.ID || got.Email != "ann@example.com" || got.TimeZone != "UTC" || !got.CreatedAt.Equal(now.Truncate(time.Microsecond)) {
		t.Fatalf("PortalUserGetByEmail = %+v, %v", got, err)
	}
	if _, err := s.PortalUserGetByID(ctx, 999999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("PortalUserGetByID of nobody = %v", err)
	}
	if l, err := s.PortalUserList(ctx, p.ID); err != nil || len(l) != 2 || l[0].Email != "ann@example.com" {
		t.Fatalf("PortalUserList(acme) = %d users, %v", len(l), err)
	}
	if l, err := s.PortalUserList(ctx, 0); err != nil || len(l) != 3 {
		t.Fatalf("PortalUserList(all) = %d users, %v", len(l), err)
	}
	got.Name, got.Role, got.TimeZone, got.Disabled, got.PasswordHash = "Ann B", "admin", "Europe/Paris", true, "h2"
	if err := s.PortalUserUpdate(ctx, got); err != nil {
		t.Fatal(err)
	}
	if err := s.PortalUserSetTwoFactor(ctx, got.ID, "SECRET", []string{"c1", "c2"}, now); err != nil {
		t.Fatal(err)
	}
	again, _ := s.PortalUserGetByID(ctx, u.ID)
	if again.Name != "Ann B" || again.Role != "admin" || again.TimeZone != "Europe/Paris" || !again.Disabled || again.TOTPSecret != "SECRET" || again.PasswordHash != "h2" ||
		len(again.RecoveryCodes) != 2 || again.RecoveryCodes[1] != "c2" {
		t.Fatalf("PortalUserUpdate did not write every field: %+v", again)
	}
	if n, err := s.PortalUserCountRole(ctx, p.ID, "admin"); err != nil || n != 0 {
		t.Fatalf("PortalUserCountRole counts a disabled user: %d, %v", n, err)
	}
	if n, err := s.PortalUserCountRole(ctx, p.ID, "viewer"); err != nil || n != 1 {
		t.Fatalf("PortalUserCountRole(viewer) = %d, %v", n, err)
	}
	sess := &store.PortalSession{TokenHash: "t1", UserID: u.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := s.PortalSessionCreate(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if err := s.PortalUserDelete(ctx, q.ID, u.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleting another partner's user = %v, want ErrNotFound", err)
	}
	if _, err := s.PortalSessionGet(ctx, "t1"); err != nil {
		t.Fatalf("another partner's delete ended the session: %v", err)
	}
	if err := s.PortalUserDelete(ctx, p.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PortalSessionGet(ctx, "t1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the deleted user's session remains: %v", err)
	}
}

func exercisePortalSessions(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	u := newPortalUser(t, s, p.ID, "ann@example.com", "owner")
	v := newPortalUser(t, s, p.ID, "bob@example.com", "viewer")
	mk := func(hash string, user int64, created time.Time) *store.PortalSession {
		ps := &store.PortalSession{TokenHash: hash, UserID: user, ClientAddr: "192.0.2.1", UserAgent: "UA", CreatedAt: created,
			LastSeenAt: created, ExpiresAt: created.Add(7 * 24 * time.Hour)}
		if err := s.PortalSessionCreate(ctx, ps); err != nil {
			t.Fatal(err)
		}
		return ps
	}
	a := mk("a", u.ID, now)
	b := mk("b", u.ID, now.Add(time.Minute))
	c := mk("c", u.ID, now.Add(-3*time.Hour))
	other := mk("d", v.ID, now)
	if err := s.PortalSessionCreate(ctx, &store.PortalSession{TokenHash: "a", UserID: u.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a duplicate token hash = %v, want ErrConflict", err)
	}
	got, err := s.PortalSessionGet(ctx, "a")
	if err != nil || got.ID != a.ID || got.UserID != u.ID || got.ClientAddr != "192.0.2.1" || !got.ExpiresAt.Equal(a.ExpiresAt.Truncate(time.Microsecond)) {
		t.Fatalf("PortalSessionGet = %+v, %v", got, err)
	}
	later := now.Add(30 * time.Minute)
	if err := s.PortalSessionTouch(ctx, a.ID, later); err != nil {
		t.Fatal(err)
	}
	if err := s.PortalSessionTouch(ctx, a.ID, now); err != nil { // never moves back
		t.Fatal(err)
	}
	if got, _ = s.PortalSessionGet(ctx, "a"); !got.LastSeenAt.Equal(later.Truncate(time.Microsecond)) {
		t.Fatalf("last seen %v, want %v", got.LastSeenAt, later)
	}
	if l, err := s.PortalSessionList(ctx, u.ID); err != nil || len(l) != 3 || l[0].ID != c.ID {
		t.Fatalf("PortalSessionList = %d, %v", len(l), err)
	}
	if err := s.PortalSessionDelete(ctx, u.ID, other.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ending another user's session = %v, want ErrNotFound", err)
	}
	// Idle for 2 h at now+1h: c (last seen now-3h) goes; a, b and other stay.
	if n, err := s.PortalSessionDeleteExpired(ctx, now.Add(-2*time.Hour), now.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("PortalSessionDeleteExpired = %d, %v; want 1", n, err)
	}
	if err := s.PortalSessionDeleteUser(ctx, u.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.PortalSessionList(ctx, u.ID); len(l) != 1 || l[0].ID != b.ID {
		t.Fatalf("PortalSessionDeleteUser kept %d sessions, want only b", len(l))
	}
	if err := s.PortalSessionDelete(ctx, u.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PortalSessionGet(ctx, "d"); err != nil {
		t.Fatalf("another user's session was ended: %v", err)
	}
}

func exercisePortalInvitations(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	inv := &store.PortalInvitation{TokenHash: "h1", Kind: store.InvitationInvite, PartnerID: p.ID, Email: "New@Example.com",
		Role: "viewer", CreatedBy: "operator", CreatedAt: now, ExpiresAt: now.Add(72 * time.Hour)}
	if err := s.PortalInvitationCreate(ctx, inv); err != nil {
		t.Fatal(err)
	}
	if got, err := s.PortalInvitationGet(ctx, "h1", now); err != nil || got.Email != "new@example.com" || got.Role != "viewer" {
		t.Fatalf("PortalInvitationGet = %+v, %v", got, err)
	}
	if _, err := s.PortalInvitationUse(ctx, "h1", now.Add(73*time.Hour)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an expired link was used: %v", err)
	}
	got, err := s.PortalInvitationUse(ctx, "h1", now.Add(time.Hour))
	if err != nil || got.ID != inv.ID || got.PartnerID != p.ID || got.UsedAt.IsZero() {
		t.Fatalf("PortalInvitationUse = %+v, %v", got, err)
	}
	if _, err := s.PortalInvitationUse(ctx, "h1", now.Add(time.Hour)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a link worked twice: %v", err)
	}
	if _, err := s.PortalInvitationGet(ctx, "h1", now); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a used link is still found: %v", err)
	}
	live := &store.PortalInvitation{TokenHash: "h2", Kind: store.InvitationReset, PartnerID: p.ID, Email: "a@example.com",
		Role: "viewer", CreatedBy: "operator", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := s.PortalInvitationCreate(ctx, live); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PortalInvitationDeleteDone(ctx, now.Add(time.Minute)); err != nil || n != 0 {
		t.Fatalf("PortalInvitationDeleteDone = %d, %v; want 0 (the used one went with the creation)", n, err)
	}
	if n, err := s.PortalInvitationDeleteDone(ctx, now.Add(2*time.Hour)); err != nil || n != 1 {
		t.Fatalf("PortalInvitationDeleteDone after expiry = %d, %v; want 1", n, err)
	}
}

func exerciseThrottle(t *testing.T, s store.Store) {
	ctx := context.Background()
	w := 15 * time.Minute
	for i := 1; i <= 3; i++ {
		hits, last, err := s.ThrottleHit(ctx, "k", now.Add(time.Duration(i)*time.Minute), w)
		if err != nil || hits != i || !last.Equal(now.Add(time.Duration(i)*time.Minute).Truncate(time.Microsecond)) {
			t.Fatalf("hit %d = %d, %v, %v", i, hits, last, err)
		}
	}
	if hits, _, err := s.ThrottleGet(ctx, "k", now.Add(10*time.Minute), w); err != nil || hits != 3 {
		t.Fatalf("ThrottleGet = %d, %v; want 3", hits, err)
	}
	if hits, _, err := s.ThrottleGet(ctx, "k", now.Add(time.Hour), w); err != nil || hits != 0 {
		t.Fatalf("ThrottleGet after the window = %d, %v; want 0", hits, err)
	}
	if hits, _, err := s.ThrottleHit(ctx, "k", now.Add(time.Hour), w); err != nil || hits != 1 {
		t.Fatalf("a hit after the window = %d, %v; want 1 (a new window)", hits, err)
	}
	if hits, _, _ := s.ThrottleGet(ctx, "other", now, w); hits != 0 {
		t.Fatalf("an unknown key has %d hits", hits)
	}
	if n, err := s.ThrottleDeleteBefore(ctx, now.Add(30*time.Minute)); err != nil || n != 0 {
		t.Fatalf("ThrottleDeleteBefore deleted a live key: %d, %v", n, err)
	}
	if n, err := s.ThrottleDeleteBefore(ctx, now.Add(2*time.Hour)); err != nil || n != 1 {
		t.Fatalf("ThrottleDeleteBefore = %d, %v; want 1", n, err)
	}
	if err := s.ThrottleReset(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	if hits, _, _ := s.ThrottleGet(ctx, "k", now.Add(time.Hour), w); hits != 0 {
		t.Fatalf("after reset: %d hits", hits)
	}
}

func exerciseAudit(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	q := newPartner(t, s, "globex")
	for i := 0; i < 5; i++ {
		if err := s.AuditAdd(ctx, &store.AuditEntry{PartnerID: p.ID, Actor: "ann@example.com", Action: "signin",
			ClientAddr: "192.0.2.1", CreatedAt: now.AddDate(0, 0, -100*i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AuditAdd(ctx, &store.AuditEntry{PartnerID: q.ID, Actor: "x", Action: "signin", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	page, err := s.AuditList(ctx, p.ID, 0, 3)
	if err != nil || len(page) != 3 || page[0].Actor != "ann@example.com" || page[0].ID < page[1].ID {
		t.Fatalf("AuditList = %d, %v", len(page), err)
	}
	rest, err := s.AuditList(ctx, p.ID, page[2].ID, 3)
	if err != nil || len(rest) != 2 {
		t.Fatalf("AuditList page 2 = %d, %v; want 2", len(rest), err)
	}
	if n, err := s.AuditDeleteBefore(ctx, now.AddDate(-1, 0, 0)); err != nil || n != 1 {
		t.Fatalf("AuditDeleteBefore = %d, %v; want 1 (the entry 400 days old)", n, err)
	}
}

func exercisePortalBookingFilters(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	q := newPartner(t, s, "globex")
	mk := func(partner *tradewind.Partner, ref, pref, guest string, test bool, product tradewind.ProductType, start string, at time.Time) {
		b := newBooking(partner, ref, pref, "")
		b.Guest, b.Test, b.ProductType, b.StartDate, b.EndDate, b.CreatedAt = []byte(guest), test, product, start, start, at
		if err := s.BookingCreate(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	mk(p, "HTL-FILTER01", "PO_1", `{"first_name":"Ada","last_name":"Lovelace"}`, false, "hotel", "2027-02-01", now)
	mk(p, "ACT-FILTER02", "", `{"first_name":"Alan","last_name":"Turing"}`, true, "activity", "2027-03-01", now.Add(time.Hour))
	mk(p, "HTL-FILTER03", "PO-3", `{"first_name":"Grace","last_name":"Hopper"}`, false, "hotel", "2027-04-01", now.Add(2*time.Hour))
	mk(q, "HTL-FILTER04", "PO-4", `{"first_name":"Ada","last_name":"Other"}`, false, "hotel", "2027-02-01", now)
	mk(q, "HTL-FILTER05", "", `{"first_name":"Zoë","last_name":"Ñandú"}`, false, "hotel", "2027-02-01", now)
	live, test := false, true
	refs := func(f store.BookingFilter) []string {
		t.Helper()
		l, _, err := s.BookingList(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, b := range l {
			out = append(out, b.Reference)
		}
		return out
	}
	cases := []struct {
		name string
		f    store.BookingFilter
		want []string
	}{
		{"live", store.BookingFilter{PartnerID: p.ID, Test: &live}, []string{"HTL-FILTER03", "HTL-FILTER01"}},
		{"test", store.BookingFilter{PartnerID: p.ID, Test: &test}, []string{"ACT-FILTER02"}},
		{"product", store.BookingFilter{PartnerID: p.ID, ProductType: "activity"}, []string{"ACT-FILTER02"}},
		{"guest name", store.BookingFilter{PartnerID: p.ID, Search: "lovelace"}, []string{"HTL-FILTER01"}},
		{"reference", store.BookingFilter{PartnerID: p.ID, Search: "filter03"}, []string{"HTL-FILTER03"}},
		{"partner reference, _ is no wildcard", store.BookingFilter{PartnerID: p.ID, Search: "po_"}, []string{"HTL-FILTER01"}},
		// Case is folded beyond ASCII on both databases (SQLite's own lower() is ASCII only).
		{"guest name, any case", store.BookingFilter{PartnerID: q.ID, Search: "ñandú"}, []string{"HTL-FILTER05"}},
		{"guest name, upper case", store.BookingFilter{PartnerID: q.ID, Search: "ZOË ÑAND"}, []string{}},
		{"guest name, upper case, one field", store.BookingFilter{PartnerID: q.ID, Search: "ÑANDÚ"}, []string{"HTL-FILTER05"}},
		{"guest name, as stored", store.BookingFilter{PartnerID: q.ID, Search: "Zoë"}, []string{"HTL-FILTER05"}},
		{"created", store.BookingFilter{PartnerID: p.ID, CreatedFrom: now.Add(30 * time.Minute), CreatedBefore: now.Add(90 * time.Minute)}, []string{"ACT-FILTER02"}},
		{"service period overlaps", store.BookingFilter{PartnerID: p.ID, ServiceFrom: "2027-02-15", ServiceTo: "2027-04-01"}, []string{"HTL-FILTER03", "ACT-FILTER02"}},
		{"keyset", store.BookingFilter{PartnerID: p.ID, Limit: 2}, []string{"HTL-FILTER03", "ACT-FILTER02"}},
	}
	for _, c := range cases {
		if got := refs(c.f); !equalStrings(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	first, _, _ := s.BookingList(ctx, store.BookingFilter{PartnerID: p.ID, Limit: 2})
	if got := refs(store.BookingFilter{PartnerID: p.ID, Limit: 2, BeforeID: first[1].ID}); !equalStrings(got, []string{"HTL-FILTER01"}) {
		t.Errorf("keyset page 2: %v", got)
	}
	if n, err := s.BookingCount(ctx, store.BookingFilter{PartnerID: p.ID, Test: &live, BeforeID: 1}); err != nil || n != 2 {
		t.Errorf("BookingCount = %d, %v; want 2", n, err)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func exercisePortalEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	q := newPartner(t, s, "globex")
	for i, e := range []tradewind.Event{
		{ID: "evt_1", PartnerID: p.ID, Type: tradewind.EventBookingConfirmed, Data: []byte(`{"reference":"HTL-EVENTS01"}`)},
		{ID: "evt_2", PartnerID: p.ID, Type: tradewind.EventBookingCancelled, Data: []byte(`{"reference":"HTL-EVENTS01","reason":"x"}`)},
		{ID: "evt_3", PartnerID: p.ID, Type: tradewind.EventBookingConfirmed, Data: []byte(`{"reference":"HTL-EVENTS02"}`)},
		{ID: "evt_4", PartnerID: q.ID, Type: tradewind.EventBookingConfirmed, Data: []byte(`{"reference":"HTL-EVENTS01"}`)},
	} {
		e.CreatedAt = now.Add(time.Duration(i) * time.Second)
		if err := s.EventCreate(ctx, &e); err != nil {
			t.Fatal(err)
		}
	}
	l, err := s.EventListByBooking(ctx, p.ID, "HTL-EVENTS01")
	if err != nil || len(l) != 2 || l[0].ID != "evt_1" || l[1].ID != "evt_2" {
		t.Fatalf("EventListByBooking = %v, %v", l, err)
	}
	if _, err := s.EventGet(ctx, q.ID, "evt_1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("EventGet of another partner's event = %v", err)
	}
	if e, err := s.EventGet(ctx, p.ID, "evt_1"); err != nil || e.Type != string(tradewind.EventBookingConfirmed) {
		t.Fatalf("EventGet = %+v, %v", e, err)
	}
	sub := newSubscription(t, s, p.ID, "https://a.example/h", tradewind.EventBookingConfirmed)
	if _, err := s.SubscriptionGet(ctx, q.ID, sub.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("SubscriptionGet of another partner's = %v", err)
	}
	if got, err := s.SubscriptionGet(ctx, p.ID, sub.ID); err != nil || got.URL != sub.URL {
		t.Fatalf("SubscriptionGet = %+v, %v", got, err)
	}
	other := newSubscription(t, s, p.ID, "https://b.example/h", tradewind.EventBookingConfirmed)
	if err := s.EventCreate(ctx, &tradewind.Event{ID: "evt_5", PartnerID: p.ID, Type: tradewind.EventBookingConfirmed, Data: []byte(`{}`), CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	ds, err := s.DeliveryList(ctx, store.DeliveryFilter{PartnerID: p.ID, SubscriptionID: other.ID})
	if err != nil || len(ds) != 1 || ds[0].SubscriptionID != other.ID {
		t.Fatalf("DeliveryList by subscription = %d, %v", len(ds), err)
	}
	// A test event goes to the one subscription named, and only the partner's.
	te := &tradewind.Event{ID: "evt_test", PartnerID: p.ID, Type: tradewind.EventBookingCancelled, Data: []byte(`{}`), CreatedAt: now}
	if err := s.EventCreateTest(ctx, te, sub.ID, 5); err != nil {
		t.Fatal(err)
	}
	if ds, _ := s.DeliveryList(ctx, store.DeliveryFilter{EventID: "evt_test"}); len(ds) != 1 || ds[0].SubscriptionID != sub.ID {
		t.Fatalf("test event deliveries = %d", len(ds))
	}
	claimed := claim(t, s, now.Add(time.Hour), time.Minute, 100)
	var sawTest bool
	for _, c := range claimed {
		if c.Event.ID == "evt_test" {
			sawTest = c.Event.TestEvent
		} else if c.Event.TestEvent {
			t.Errorf("event %s claimed as a test event", c.Event.ID)
		}
	}
	if !sawTest {
		t.Error("the claimed test event is not marked as one")
	}
	qsub := newSubscription(t, s, q.ID, "https://q.example/h", tradewind.EventBookingConfirmed)
	// A secret roll: the next secret and its time reach the dispatcher; a roll whose
	// time has come is completed by the next one.
	if err := s.SubscriptionRollSecret(ctx, q.ID, sub.ID, "whsec_next", now, now.Add(time.Hour)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("rolling another partner's secret = %v", err)
	}
	if err := s.SubscriptionRollSecret(ctx, p.ID, sub.ID, "whsec_next", now, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SubscriptionGet(ctx, p.ID, sub.ID); !got.NextSecretFrom.Equal(now.Add(time.Hour).Truncate(time.Microsecond)) || got.Secret != sub.Secret {
		t.Fatalf("after a roll: %+v", got)
	}
	if err := s.EventCreateTest(ctx, &tradewind.Event{ID: "evt_roll", PartnerID: p.ID, Type: "booking.confirmed", Data: []byte(`{}`), CreatedAt: now}, sub.ID, 5); err != nil {
		t.Fatal(err)
	}
	for _, c := range claim(t, s, now.Add(2*time.Hour), time.Minute, 100) {
		if c.Event.ID == "evt_roll" && (c.Secret != sub.Secret || c.NextSecret != "whsec_next" || !c.NextSecretFrom.Equal(now.Add(time.Hour).Truncate(time.Microsecond))) {
			t.Fatalf("claimed during a roll: %+v", c)
		}
	}
	if err := s.SubscriptionRollSecret(ctx, p.ID, sub.ID, "whsec_third", now.Add(2*time.Hour), now.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SubscriptionGet(ctx, p.ID, sub.ID); got.Secret != "whsec_next" {
		t.Fatalf("a completed roll was not kept: secret %q", got.Secret)
	}
	if err := s.EventCreateTest(ctx, &tradewind.Event{ID: "evt_test2", PartnerID: p.ID, Type: "booking.confirmed", Data: []byte(`{}`), CreatedAt: now}, qsub.ID, 5); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a test event to another partner's subscription = %v", err)
	}
	// By mode: sample events and test bookings' events are test, every other one live.
	tb := newBooking(p, "HTL-MODEDLV1", "", "")
	tb.Test = true
	if err := s.BookingCreate(ctx, tb); err != nil {
		t.Fatal(err)
	}
	if err := s.EventCreate(ctx, &tradewind.Event{ID: "evt_testbooking", PartnerID: p.ID, Type: tradewind.EventBookingConfirmed,
		Data: []byte(`{"reference":"HTL-MODEDLV1","test":true}`), CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	byMode := func(test bool) map[string]bool {
		t.Helper()
		ds, err := s.DeliveryList(ctx, store.DeliveryFilter{PartnerID: p.ID, SubscriptionID: sub.ID, Test: &test})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, d := range ds {
			ids[d.EventID] = true
		}
		return ids
	}
	if got := byMode(true); !got["evt_test"] || !got["evt_testbooking"] || !got["evt_roll"] || got["evt_5"] {
		t.Errorf("test deliveries = %v", got)
	}
	if got := byMode(false); got["evt_test"] || got["evt_testbooking"] || got["evt_roll"] || !got["evt_5"] {
		t.Errorf("live deliveries = %v", got)
	}
	all, _ := s.DeliveryList(ctx, store.DeliveryFilter{PartnerID: p.ID})
	if older, err := s.DeliveryList(ctx, store.DeliveryFilter{PartnerID: p.ID, BeforeID: all[0].ID}); err != nil || len(older) != len(all)-1 {
		t.Fatalf("DeliveryList keyset = %d, %v; want %d", len(older), err, len(all)-1)
	}
}
