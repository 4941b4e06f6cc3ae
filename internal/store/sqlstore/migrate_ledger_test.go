package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// TestMigrationCreditLedger: migration 00015 backfills the credit ledger from the
// bookings made before it (a draw when made, a release when cancelled, test bookings
// nothing), in time order with the running balance, so that it adds up to each
// partner's credit used; entries written afterwards follow on.
func TestMigrationCreditLedger(t *testing.T) {
	for _, o := range unmigrated {
		t.Run(o.name, func(t *testing.T) {
			ctx := context.Background()
			s := o.open(t)
			if err := s.MigrateTo(ctx, 14); err != nil {
				t.Fatal(err)
			}
			t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
			var partners []*tradewind.Partner
			for _, name := range []string{"acme", "globex"} {
				p := &tradewind.Partner{Name: name, PricingMode: "net", Currency: "EUR", CreditLimit: 10000, RateLimit: 120, CreatedAt: t0}
				if err := s.PartnerCreate(ctx, p); err != nil {
					t.Fatal(err)
				}
				partners = append(partners, p)
			}
			acme, globex := partners[0], partners[1]
			book := func(p *tradewind.Partner, ref string, drawn int64, test bool, at time.Time) *tradewind.Booking {
				t.Helper()
				b := &tradewind.Booking{Reference: ref, PartnerID: p.ID, ProductType: "hotel", Status: tradewind.StatusConfirmed,
					Test: test, PricingMode: "net", TotalPrice: max(drawn, 100), CreditDrawn: drawn, Currency: "EUR", ItemID: 7,
					StartDate: "2027-01-01", EndDate: "2027-01-02", Quote: []byte(`{}`), Guest: []byte(`{}`), Details: []byte(`{}`),
					CreatedAt: at, UpdatedAt: at}
				if err := createOldBooking(ctx, s, b); err != nil {
					t.Fatal(err)
				}
				if drawn > 0 {
					if ok, err := s.CreditDraw(ctx, p.ID, drawn); err != nil || !ok {
						t.Fatalf("draw: %v %v", ok, err)
					}
				}
				return b
			}
			first := book(acme, "HTL-OLD00001", 1000, false, t0)
			cancelled := book(acme, "HTL-OLD00002", 500, false, t0.Add(time.Minute))
			book(acme, "HTL-OLD00003", 700, false, t0.Add(2*time.Minute))
			book(acme, "HTL-OLD00004", 0, true, t0.Add(3*time.Minute))
			book(globex, "HTL-OLD00005", 300, false, t0.Add(time.Minute))
			if ok, err := s.BookingSetStatus(ctx, store.BookingSetStatusParams{ID: cancelled.ID, From: []tradewind.BookingStatus{tradewind.StatusConfirmed},
				Status: tradewind.StatusCancelled, Reason: "x", At: t0.Add(4 * time.Minute)}); err != nil || !ok {
				t.Fatalf("cancel: %v %v", ok, err)
			}
			if err := s.CreditRelease(ctx, acme.ID, 500); err != nil {
				t.Fatal(err)
			}

			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			type row struct {
				ref, kind       string
				amount, balance int64
				at              time.Time
			}
			for _, c := range []struct {
				p    *tradewind.Partner
				want []row // newest first
			}{
				{acme, []row{{"HTL-OLD00002", "release", 500, 1700, t0.Add(4 * time.Minute)}, {"HTL-OLD00003", "draw", 700, 2200, t0.Add(2 * time.Minute)},
					{"HTL-OLD00002", "draw", 500, 1500, t0.Add(time.Minute)}, {"HTL-OLD00001", "draw", 1000, 1000, t0}}},
				{globex, []row{{"HTL-OLD00005", "draw", 300, 300, t0.Add(time.Minute)}}},
			} {
				got, err := s.CreditLedgerList(ctx, store.LedgerQuery{PartnerID: c.p.ID, Limit: 10})
				if err != nil || len(got) != len(c.want) {
					t.Fatalf("%s's ledger: %d entries, %v; want %d", c.p.Name, len(got), err, len(c.want))
				}
				for i, w := range c.want {
					g := got[i]
					if g.Reference != w.ref || g.Kind != w.kind || g.Amount != w.amount || g.BalanceAfter != w.balance || !g.At.Equal(w.at) || g.Currency != "EUR" {
						t.Errorf("%s's entry %d = %+v, want %+v", c.p.Name, i, g, w)
					}
				}
				p, err := s.PartnerGetByID(ctx, c.p.ID)
				if err != nil || p.CreditUsed != got[0].BalanceAfter {
					t.Errorf("%s uses %d; its ledger ends at %d", c.p.Name, p.CreditUsed, got[0].BalanceAfter)
				}
			}
			// New entries follow the backfilled ones.
			e := &store.LedgerEntry{PartnerID: acme.ID, BookingID: first.ID, Reference: first.Reference, Kind: store.LedgerRelease,
				Amount: 1000, Currency: "EUR", At: t0.Add(time.Hour)}
			if err := s.InTx(ctx, func(q store.Querier) error {
				_, err := q.CreditMove(ctx, e)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if got, err := s.CreditLedgerList(ctx, store.LedgerQuery{PartnerID: acme.ID, Limit: 1}); err != nil || got[0].ID != e.ID || e.BalanceAfter != 700 {
				t.Fatalf("after the migration: newest %+v, %v; added %+v", got, err, e)
			}
		})
	}
}
