package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
)

// bookingReferences are the PostgreSQL constraints migration 00034 defers to COMMIT.
var bookingReferences = []string{"bookings_partner_id_fkey", "credit_ledger_partner_id_fkey", "credit_ledger_booking_id_fkey"}

// TestMigrationBookingReferencesDeferred (PostgreSQL): after migration 00034 a
// booking's reference to its partner and its ledger entry's references are checked at
// COMMIT, not at each insert, and still hold there: a booking or an entry naming no
// partner or booking is accepted by its statement and fails its transaction's COMMIT,
// which keeps nothing. The Down step checks them at the insert again.
func TestMigrationBookingReferencesDeferred(t *testing.T) {
	ctx := context.Background()
	s := unmigrated[1].open(t)
	if err := s.MigrateTo(ctx, 0); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	p := &tradewind.Partner{Name: "acme", PricingMode: "net", Currency: "EUR", CreditLimit: 100000, RateLimit: 120, CreatedAt: t0}
	if err := s.PartnerCreate(ctx, p); err != nil {
		t.Fatal(err)
	}
	booking := func(ref string, partnerID int64) *tradewind.Booking {
		return &tradewind.Booking{Reference: ref, PartnerID: partnerID, ProductType: "hotel", Status: tradewind.StatusConfirmed,
			PricingMode: "net", TotalPrice: 1000, CreditDrawn: 1000, Currency: "EUR", ItemID: 7, StartDate: "2027-01-01",
			EndDate: "2027-01-02", Quote: []byte(`{}`), Guest: []byte(`{}`), Details: []byte(`{}`), CreatedAt: t0, UpdatedAt: t0}
	}
	draw := func(b *tradewind.Booking, partnerID int64) *store.LedgerEntry {
		return &store.LedgerEntry{PartnerID: partnerID, BookingID: b.ID, Reference: b.Reference, Kind: store.LedgerDraw,
			Amount: b.TotalPrice, Currency: "EUR", At: t0}
	}
	deferred(t, s, true)

	// A booking and its draw naming their partner commit.
	good := booking("HTL-FKS00001", p.ID)
	if err := s.InTx(ctx, func(q store.Querier) error {
		if err := q.BookingCreate(ctx, good); err != nil {
			return err
		}
		_, err := q.CreditMove(ctx, draw(good, p.ID))
		return err
	}); err != nil {
		t.Fatalf("a booking of its partner: %v", err)
	}

	// Each broken reference passes its statement and fails the COMMIT.
	missing := p.ID + 1000
	for name, write := range map[string]func(q store.Querier) error{
		"a booking naming no partner": func(q store.Querier) error { return q.BookingCreate(ctx, booking("HTL-FKS00002", missing)) },
		"a ledger entry naming no booking": func(q store.Querier) error {
			gone := *good
			gone.ID += 1000
			_, err := q.CreditMove(ctx, draw(&gone, p.ID))
			return err
		},
	} {
		var stmtErr error
		err := s.InTx(ctx, func(q store.Querier) error {
			stmtErr = write(q)
			return stmtErr
		})
		if stmtErr != nil {
			t.Errorf("%s: refused by its statement (%v); want it checked at COMMIT", name, stmtErr)
		}
		if err == nil {
			t.Errorf("%s: committed; want its COMMIT refused", name)
		}
	}
	if _, err := s.BookingGetByReference(ctx, 0, "HTL-FKS00002"); err == nil {
		t.Error("the booking naming no partner was kept")
	}
	entries, err := s.CreditLedgerList(ctx, store.LedgerQuery{PartnerID: p.ID, Limit: 10})
	if err != nil || len(entries) != 1 {
		t.Errorf("ledger: %d entries (%v); want the good booking's draw only", len(entries), err)
	}

	// Down: checked at the insert again.
	if err := s.MigrateDownTo(ctx, 33); err != nil {
		t.Fatal(err)
	}
	deferred(t, s, false)
	var stmtErr error
	_ = s.InTx(ctx, func(q store.Querier) error {
		stmtErr = q.BookingCreate(ctx, booking("HTL-FKS00003", missing))
		return stmtErr
	})
	if stmtErr == nil {
		t.Error("after the Down step a booking naming no partner passed its insert")
	}
}

// deferred fails t unless every one of bookingReferences is deferred to COMMIT (want
// true) or checked at once and not deferrable (false).
func deferred(t *testing.T, s *sqlstore.DB, want bool) {
	t.Helper()
	for _, name := range bookingReferences {
		var deferrable, initially bool
		if err := s.SQL().QueryRowContext(context.Background(), `SELECT condeferrable, condeferred FROM pg_constraint WHERE conname = $1 AND connamespace = current_schema()::regnamespace`, name).
			Scan(&deferrable, &initially); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if deferrable != want || initially != want {
			t.Errorf("%s: deferrable %v, initially deferred %v; want %v", name, deferrable, initially, want)
		}
	}
}
