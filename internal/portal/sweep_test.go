package portal_test

import (
	"context"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestSweep: the portal's retention, as serve runs it: expired sessions, done links,
// old throttle counts and year-old audit entries go; the rest stays.
func TestSweep(t *testing.T) {
	ctx := context.Background()
	st := storetest.OpenSQLite(t)
	clock := apitest.NewClock(apitest.Start)
	svc := booking.New(st, clock, nil)
	ps := portal.New(svc, portal.Config{Hash: portal.TestParams})
	if _, err := svc.CreatePartner(ctx, "acme", booking.PartnerParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ps.CreateOwner(ctx, "acme", "ann@acme.example", "Ann"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ps.SignIn(ctx, portal.Credentials{Email: "ann@acme.example", Password: "wrong password!", ClientAddr: "192.0.2.1"}); err == nil {
		t.Fatal("a wrong password signed in")
	}
	if _, err := ps.InviteAsOperator(ctx, "acme", "bob@acme.example", portal.RoleViewer); err != nil {
		t.Fatal(err)
	}
	u, _ := st.PortalUserGetByEmail(ctx, "ann@acme.example")
	if err := st.PortalSessionCreate(ctx, &store.PortalSession{TokenHash: "x", UserID: u.ID, CreatedAt: clock.Now(),
		LastSeenAt: clock.Now(), ExpiresAt: clock.Now().Add(portal.SessionAbsolute)}); err != nil {
		t.Fatal(err)
	}
	if err := ps.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PortalSessionGet(ctx, "x"); err != nil {
		t.Fatalf("a live session was swept: %v", err)
	}
	clock.Advance(400 * 24 * time.Hour)
	if err := ps.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PortalSessionGet(ctx, "x"); err == nil {
		t.Error("an expired session stays")
	}
	if n, _ := st.PortalInvitationDeleteDone(ctx, clock.Now()); n != 0 {
		t.Errorf("%d expired links stayed", n)
	}
	if n, _ := st.ThrottleDeleteBefore(ctx, clock.Now()); n != 0 {
		t.Errorf("%d old throttle counts stayed", n)
	}
	if l, _ := st.AuditList(ctx, u.PartnerID, 0, 10); len(l) != 0 {
		t.Errorf("%d audit entries older than a year stayed", len(l))
	}
}
