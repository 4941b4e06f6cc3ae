package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// moveCredit draws (or releases) b's credit with its ledger entry in one transaction, as
// booking.Service does; false when the draw was refused.
func moveCredit(ctx context.Context, s store.Store, b *tradewind.Booking, kind string, at time.Time) (bool, error) {
	var moved bool
	err := s.InTx(ctx, func(q store.Querier) (err error) {
		moved, err = q.CreditMove(ctx, &store.LedgerEntry{PartnerID: b.PartnerID, BookingID: b.ID, Reference: b.Reference,
			Kind: kind, Amount: b.CreditDrawn, Currency: b.Currency, At: at})
		return err
	})
	return moved && err == nil, err
}

// ledgerAll returns the partner's whole ledger, oldest first, paging through it.
func ledgerAll(t *testing.T, s store.Store, partnerID int64, pageSize int) []*store.LedgerEntry {
	t.Helper()
	var out []*store.LedgerEntry
	var before int64
	for {
		page, err := s.CreditLedgerList(context.Background(), store.LedgerQuery{PartnerID: partnerID, BeforeID: before, Limit: pageSize})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			if before != 0 && e.ID >= before {
				t.Fatalf("entry %d on the page before %d", e.ID, before)
			}
			out = append([]*store.LedgerEntry{e}, out...)
		}
		if len(page) < pageSize {
			return out
		}
		before = page[len(page)-1].ID
	}
}

// exerciseCreditLedger: entries record the credit used after them, read in the same
// transaction; pages go back by id; a booking draws once and is released once; one
// partner never sees another's entries.
func exerciseCreditLedger(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	q := newPartner(t, s, "globex")
	mk := func(partner *tradewind.Partner, ref string, drawn int64) *tradewind.Booking {
		b := newBooking(partner, ref, "", "")
		b.CreditDrawn, b.TotalPrice = drawn, drawn
		if err := s.BookingCreate(ctx, b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := mk(p, "HTL-LEDGER01", 1000), mk(p, "HTL-LEDGER02", 500), mk(q, "HTL-LEDGER03", 700)
	for i, m := range []struct {
		b    *tradewind.Booking
		kind string
	}{{a, store.LedgerDraw}, {c, store.LedgerDraw}, {b, store.LedgerDraw}, {a, store.LedgerRelease}} {
		if ok, err := moveCredit(ctx, s, m.b, m.kind, now.Add(time.Duration(i)*time.Minute)); err != nil || !ok {
			t.Fatalf("move %d: %v, %v", i, ok, err)
		}
	}
	type row struct {
		ref, kind       string
		amount, balance int64
		minute          int
	}
	want := []row{{"HTL-LEDGER01", "draw", 1000, 1000, 0}, {"HTL-LEDGER02", "draw", 500, 1500, 2}, {"HTL-LEDGER01", "release", 1000, 500, 3}}
	all := ledgerAll(t, s, p.ID, 2) // pages of 2: the keyset cursor is used
	if len(all) != len(want) {
		t.Fatalf("ledger = %d entries, want %d", len(all), len(want))
	}
	for i, w := range want {
		g := all[i]
		if g.Reference != w.ref || g.Kind != w.kind || g.Amount != w.amount || g.BalanceAfter != w.balance || g.Currency != "EUR" ||
			g.PartnerID != p.ID || g.BookingID == 0 || !g.At.Equal(now.Add(time.Duration(w.minute)*time.Minute).Truncate(time.Microsecond)) {
			t.Fatalf("entry %d = %+v, want %+v", i, g, w)
		}
	}
	if other := ledgerAll(t, s, q.ID, 10); len(other) != 1 || other[0].Reference != "HTL-LEDGER03" || other[0].BalanceAfter != 700 {
		t.Fatalf("globex's ledger = %+v", other)
	}
	// A second release of the same booking is refused (and rolls back its release).
	if _, err := moveCredit(ctx, s, a, store.LedgerRelease, now); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second release: %v, want ErrConflict", err)
	}
	if got, err := s.PartnerGetByID(ctx, p.ID); err != nil || got.CreditUsed != 500 {
		t.Fatalf("credit used after a refused second release = %+v, %v; want 500", got, err)
	}
	// A refused draw (over the limit, or blocked) changes and records nothing.
	big := mk(p, "HTL-LEDGER04", 9600)
	if ok, err := moveCredit(ctx, s, big, store.LedgerDraw, now); err != nil || ok {
		t.Fatalf("draw over the limit: %v, %v; want refused", ok, err)
	}
	p.Blocked = true
	if err := s.PartnerUpdate(ctx, p); err != nil {
		t.Fatal(err)
	}
	if ok, err := moveCredit(ctx, s, b, store.LedgerRelease, now); err != nil || !ok {
		t.Fatalf("a blocked partner's release: %v, %v; want done", ok, err)
	}
	if ok, err := moveCredit(ctx, s, mk(p, "HTL-LEDGER05", 1), store.LedgerDraw, now); err != nil || ok {
		t.Fatalf("a blocked partner's draw: %v, %v; want refused", ok, err)
	}
	if got, err := s.PartnerGetByID(ctx, p.ID); err != nil || got.CreditUsed != 0 || len(ledgerAll(t, s, p.ID, 10)) != 4 {
		t.Fatalf("after refused draws: %+v, %v; want nothing used, four entries", got, err)
	}
	unknown := &tradewind.Booking{ID: a.ID, PartnerID: 9999, Reference: a.Reference, CreditDrawn: 1, Currency: "EUR"}
	if ok, err := moveCredit(ctx, s, unknown, store.LedgerRelease, now); ok || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("release of an unknown partner: %v, %v; want ErrNotFound", ok, err)
	}
}

// exerciseConcurrentCreditLedger: many draws and releases at once, some refused by the
// limit, leave a ledger that adds up to the credit used, each entry's balance the sum
// of the entries before it (entries are numbered in the order they committed).
func exerciseConcurrentCreditLedger(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme") // limit 10000
	const n = 40
	bookings := make([]*tradewind.Booking, n)
	for i := range bookings {
		bookings[i] = newBooking(p, fmt.Sprintf("HTL-CONC%04d", i), "", "")
		bookings[i].CreditDrawn = int64(300 + 10*i)
		if err := s.BookingCreate(ctx, bookings[i]); err != nil {
			t.Fatal(err)
		}
	}
	// Every booking draws at once; then every other one that drew is released while
	// the others that were refused try again.
	drawn := make([]bool, n)
	concurrently(t, n, nil, func(i int) (bool, error) {
		ok, err := moveCredit(ctx, s, bookings[i], store.LedgerDraw, now)
		drawn[i] = ok
		return ok, err
	})
	concurrently(t, n, nil, func(i int) (bool, error) {
		switch {
		case drawn[i] && i%2 == 0:
			return moveCredit(ctx, s, bookings[i], store.LedgerRelease, now.Add(time.Minute))
		case !drawn[i]:
			return moveCredit(ctx, s, bookings[i], store.LedgerDraw, now.Add(time.Minute))
		}
		return false, nil
	})
	got, err := s.PartnerGetByID(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, e := range ledgerAll(t, s, p.ID, 7) {
		if e.Kind == store.LedgerDraw {
			sum += e.Amount
		} else {
			sum -= e.Amount
		}
		if e.BalanceAfter != sum {
			t.Fatalf("entry %d (%s %s) says %d used after it; the entries up to it add up to %d", e.ID, e.Kind, e.Reference, e.BalanceAfter, sum)
		}
	}
	if sum != got.CreditUsed || sum > got.CreditLimit || sum == 0 {
		t.Fatalf("the ledger adds up to %d; the partner uses %d of %d", sum, got.CreditUsed, got.CreditLimit)
	}
}

// exerciseTOTPStep: a time step is accepted once, an older one never after it, and a
// new secret starts afresh.
func exerciseTOTPStep(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	u := newPortalUser(t, s, p.ID, "ann@example.com", "owner")
	v := newPortalUser(t, s, p.ID, "bob@example.com", "owner")
	for i, c := range []struct {
		user *store.PortalUser
		step int64
		ok   bool
	}{{u, 100, true}, {u, 100, false}, {u, 99, false}, {v, 100, true}, {u, 101, true}} {
		if ok, err := s.PortalUserTOTPStepUse(ctx, c.user.ID, c.step); err != nil || ok != c.ok {
			t.Fatalf("call %d: step %d of %s = %v, %v; want %v", i, c.step, c.user.Email, ok, err, c.ok)
		}
	}
	// The same code sent twice at once is accepted once.
	if ok := concurrently(t, 10, nil, func(int) (bool, error) { return s.PortalUserTOTPStepUse(ctx, u.ID, 200) }); ok != 1 {
		t.Fatalf("step 200 accepted %d times at once; want once", ok)
	}
	// Other changes keep the step; a new secret forgets it.
	u.Name, u.UpdatedAt = "Ann", now
	if err := s.PortalUserUpdate(ctx, u); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.PortalUserTOTPStepUse(ctx, u.ID, 200); err != nil || ok {
		t.Fatalf("step 200 after a name change = %v, %v; want refused", ok, err)
	}
	// The same secret written again (an enrolment form sent twice) keeps the step too.
	if err := s.PortalUserSetTwoFactor(ctx, u.ID, u.TOTPSecret, nil, now); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.PortalUserTOTPStepUse(ctx, u.ID, 200); err != nil || ok {
		t.Fatalf("step 200 after the same secret again = %v, %v; want refused", ok, err)
	}
	if err := s.PortalUserSetTwoFactor(ctx, u.ID, "JBSWY3DPEHPK3PXP", nil, now); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.PortalUserTOTPStepUse(ctx, u.ID, 150); err != nil || !ok {
		t.Fatalf("step 150 with a new secret = %v, %v; want accepted", ok, err)
	}
}

// exerciseRecoveryCodeUse: a recovery code works once, even when many sign-ins race with
// it, and using one leaves the others.
func exerciseRecoveryCodeUse(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	u := newPortalUser(t, s, p.ID, "ann@example.com", "owner")
	if err := s.PortalUserSetTwoFactor(ctx, u.ID, "JBSWY3DPEHPK3PXP", []string{"h1", "h2", "h3"}, now); err != nil {
		t.Fatal(err)
	}
	// A user read before a code is used and written back after (a role change, a
	// rename) must not bring the code back.
	before, err := s.PortalUserGetByID(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ok := concurrently(t, 10, nil, func(int) (bool, error) { return s.PortalUserRecoveryCodeUse(ctx, u.ID, "h2") }); ok != 1 {
		t.Fatalf("one recovery code accepted %d times at once; want once", ok)
	}
	for _, c := range []struct {
		hash string
		ok   bool
	}{{"h2", false}, {"nope", false}, {"h3", true}, {"h1", true}, {"h1", false}} {
		if ok, err := s.PortalUserRecoveryCodeUse(ctx, u.ID, c.hash); err != nil || ok != c.ok {
			t.Fatalf("use %s = %v, %v; want %v", c.hash, ok, err, c.ok)
		}
	}
	before.Name = "Ann B"
	if err := s.PortalUserUpdate(ctx, before); err != nil {
		t.Fatal(err)
	}
	if got, err := s.PortalUserGetByEmail(ctx, u.Email); err != nil || len(got.RecoveryCodes) != 0 || got.TOTPSecret == "" || got.Name != "Ann B" {
		t.Fatalf("after a stale user was written back: codes %v, secret %q, %v", got.RecoveryCodes, got.TOTPSecret, err)
	}
	if err := s.PortalUserSetTwoFactor(ctx, 1<<40, "", nil, now); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("two-factor of nobody: %v; want ErrNotFound", err)
	}
	if _, err := s.PortalUserRecoveryCodeUse(ctx, 1<<40, "h1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no such user: %v; want ErrNotFound", err)
	}
}

// exerciseCreditDrawAll: a group's draws of one partner are made at once when their sum
// fits, each recorded in order with the credit used after it; a sum over the limit, or
// a blocked partner, draws and records nothing; a booking drawn already conflicts.
func exerciseCreditDrawAll(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme") // limit 10 000
	var bookings []*tradewind.Booking
	entries := func(amounts ...int64) []*store.LedgerEntry {
		var out []*store.LedgerEntry
		for _, a := range amounts {
			b := newBooking(p, fmt.Sprintf("HTL-DRAWALL%d", len(bookings)), "", "")
			b.CreditDrawn, b.TotalPrice = a, a
			if err := s.BookingCreate(ctx, b); err != nil {
				t.Fatal(err)
			}
			bookings = append(bookings, b)
			out = append(out, &store.LedgerEntry{PartnerID: p.ID, BookingID: b.ID, Reference: b.Reference,
				Kind: store.LedgerDraw, Amount: a, Currency: "EUR", At: now})
		}
		return out
	}
	// drawAll draws es in a transaction of their own: false for a refusal naming p,
	// which fails the transaction (from the call, or at COMMIT on PostgreSQL).
	drawAll := func(es []*store.LedgerEntry) (ok bool, err error) {
		err = s.InTx(ctx, func(q store.Querier) error { return q.CreditDrawAll(ctx, es) })
		if cr := (*store.CreditRefused)(nil); errors.As(err, &cr) {
			if cr.PartnerID != p.ID {
				t.Fatalf("refusal names partner %d, want %d", cr.PartnerID, p.ID)
			}
			return false, nil
		}
		return err == nil, err
	}
	used := func() int64 {
		t.Helper()
		got, err := s.PartnerGetByID(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.CreditUsed
	}
	if ok, err := moveCredit(ctx, s, mkDrawn(t, s, p, "HTL-DRAWALLX", 1000), store.LedgerDraw, now); err != nil || !ok {
		t.Fatalf("first draw: %v, %v", ok, err)
	}
	first := entries(3000, 500, 2500)
	if ok, err := drawAll(first); err != nil || !ok {
		t.Fatalf("draws that fit: %v, %v", ok, err)
	}
	if u := used(); u != 7000 {
		t.Fatalf("credit used %d, want 7000", u)
	}
	all := ledgerAll(t, s, p.ID, 10)
	want := []int64{1000, 4000, 4500, 7000}
	if len(all) != len(want) {
		t.Fatalf("ledger %d entries, want %d", len(all), len(want))
	}
	for i, e := range all {
		if e.BalanceAfter != want[i] || (i > 0 && (e.ID != first[i-1].ID || e.BalanceAfter != first[i-1].BalanceAfter ||
			e.Reference != first[i-1].Reference || e.Amount != first[i-1].Amount)) {
			t.Fatalf("entry %d = %+v, want balance %d (drawn %+v)", i, e, want[i], first[max(i-1, 0)])
		}
	}
	// Over the limit in sum, though each alone would fit: nothing.
	if ok, err := drawAll(entries(2000, 1500)); err != nil || ok {
		t.Fatalf("draws over the limit: %v, %v; want refused", ok, err)
	}
	if u, n := used(), len(ledgerAll(t, s, p.ID, 10)); u != 7000 || n != 4 {
		t.Fatalf("after a refusal: used %d, %d entries; want 7000 and 4", u, n)
	}
	// A booking drawn already: ErrConflict, and the transaction rolls the draw back.
	if _, err := drawAll([]*store.LedgerEntry{{PartnerID: p.ID, BookingID: first[0].BookingID, Reference: first[0].Reference,
		Kind: store.LedgerDraw, Amount: 1, Currency: "EUR", At: now}}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second draw of a booking: %v, want ErrConflict", err)
	}
	if u := used(); u != 7000 {
		t.Fatalf("credit used %d after a conflict, want 7000", u)
	}
	p.Blocked = true
	if err := s.PartnerUpdate(ctx, p); err != nil {
		t.Fatal(err)
	}
	if ok, err := drawAll(entries(1)); err != nil || ok {
		t.Fatalf("a blocked partner's draws: %v, %v; want refused", ok, err)
	}
	if ok, err := drawAll(nil); err != nil || !ok {
		t.Fatalf("no draws: %v, %v; want done", ok, err)
	}
	p.Blocked = false
	if err := s.PartnerUpdate(ctx, p); err != nil {
		t.Fatal(err)
	}
	// A refusal fails its whole transaction: a booking written before it in the same
	// transaction is not committed, and nor is another partner's draw that fit.
	other := newPartner(t, s, "globex")
	ob := mkDrawn(t, s, other, "HTL-DRAWALLO", 100)
	over := entries(3001) // 7 000 used of 10 000
	err := s.InTx(ctx, func(q store.Querier) error {
		if err := q.BookingCreate(ctx, newBooking(p, "HTL-DRAWALLN", "", "")); err != nil {
			return err
		}
		if err := q.CreditDrawAll(ctx, []*store.LedgerEntry{{PartnerID: other.ID, BookingID: ob.ID, Reference: ob.Reference,
			Kind: store.LedgerDraw, Amount: 100, Currency: "EUR", At: now}}); err != nil {
			return err
		}
		return q.CreditDrawAll(ctx, over)
	})
	if cr := (*store.CreditRefused)(nil); !errors.As(err, &cr) || cr.PartnerID != p.ID {
		t.Fatalf("a refused draw after other writes: %v; want CreditRefused of partner %d", err, p.ID)
	}
	if _, err := s.BookingGetByReference(ctx, p.ID, "HTL-DRAWALLN"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the refused transaction's booking: %v; want ErrNotFound (rolled back)", err)
	}
	if got, err := s.PartnerGetByID(ctx, other.ID); err != nil || got.CreditUsed != 0 || len(ledgerAll(t, s, other.ID, 10)) != 0 {
		t.Fatalf("the other partner's draw in the refused transaction: %+v, %v; want none", got, err)
	}
	if u := used(); u != 7000 {
		t.Fatalf("credit used %d after a refused transaction, want 7000", u)
	}
	// The same transaction with a draw that fits commits all of it, the entries
	// numbered once InTx returned.
	fits := entries(3000)
	if err := s.InTx(ctx, func(q store.Querier) error {
		if err := q.BookingCreate(ctx, newBooking(p, "HTL-DRAWALLM", "", "")); err != nil {
			return err
		}
		return q.CreditDrawAll(ctx, fits)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BookingGetByReference(ctx, p.ID, "HTL-DRAWALLM"); err != nil {
		t.Fatalf("the committed transaction's booking: %v", err)
	}
	if u := used(); u != 10000 || fits[0].ID == 0 || fits[0].BalanceAfter != 10000 {
		t.Fatalf("after a draw that fits: used %d, entry %+v; want 10000, numbered", u, fits[0])
	}
}

// mkDrawn creates a booking of p that draws amount.
func mkDrawn(t *testing.T, s store.Store, p *tradewind.Partner, ref string, amount int64) *tradewind.Booking {
	t.Helper()
	b := newBooking(p, ref, "", "")
	b.CreditDrawn, b.TotalPrice = amount, amount
	if err := s.BookingCreate(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	return b
}
