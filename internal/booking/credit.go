package booking

import (
	"context"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/store"
)

// moveCredit draws b.CreditDrawn from its partner's live credit line (kind
// store.LedgerDraw) or gives it back (store.LedgerRelease), and records the move in the
// credit ledger with the credit used after it, in the caller's transaction
// (store.CreditMove). Every credit change goes through here (Book; Cancel, Reject and
// the sandbox timers through end), so the ledger always adds up to the credit used. A
// booking that drew nothing (a test booking) moves nothing. A refused draw is 402
// credit_blocked or insufficient_credit. In a group commit a booking's draw is left to
// the group (laterDraws), which makes it with the group's others or runs them alone.
func (s *Service) moveCredit(ctx context.Context, tx store.Querier, b *tradewind.Booking, kind string) error {
	if b.CreditDrawn <= 0 {
		return nil
	}
	e := &store.LedgerEntry{PartnerID: b.PartnerID, BookingID: b.ID, Reference: b.Reference,
		Kind: kind, Amount: b.CreditDrawn, Currency: b.Currency, At: s.now()}
	if d := laterDraws(ctx); d != nil && kind == store.LedgerDraw {
		d.entries = append(d.entries, e) // the group draws it, with its other bookings' (group.go)
		return nil
	}
	ok, err := tx.CreditMove(ctx, e)
	if err != nil || ok {
		return err
	}
	p, err := tx.PartnerGetByID(ctx, b.PartnerID)
	if err != nil {
		return err
	}
	if p.Blocked {
		return tradewind.Errorf(tradewind.ECodeCreditBlocked, "The account is on hold; bookings cannot draw credit. Contact the operator.")
	}
	return tradewind.Errorf(tradewind.ECodeInsufficientCredit, "The booking of %s exceeds the available credit of %s.",
		money.Amount{Minor: b.CreditDrawn, Currency: b.Currency}, money.Amount{Minor: p.CreditAvailable(), Currency: p.Currency})
}
