package booking

import (
	"context"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/store"
)

// moveCredit draws b.CreditDrawn from its partner's live credit line (kind
// store.LedgerDraw) or gives it back (store.LedgerRelease), and records the move in the
// credit ledger, in the caller's transaction. Every credit change goes through here
// (Book; Cancel, Reject and the sandbox timers through end), so the ledger always adds
// up to the credit used. A booking that drew nothing (a test booking) moves nothing.
// A refused draw is 402 credit_blocked or insufficient_credit.
func (s *Service) moveCredit(ctx context.Context, tx store.Querier, b *tradewind.Booking, kind string) error {
	if b.CreditDrawn <= 0 {
		return nil
	}
	if kind == store.LedgerDraw {
		if err := s.drawCredit(ctx, tx, b.PartnerID, b.CreditDrawn, b.Currency); err != nil {
			return err
		}
	} else if err := tx.CreditRelease(ctx, b.PartnerID, b.CreditDrawn); err != nil {
		return err
	}
	return tx.CreditLedgerAdd(ctx, &store.LedgerEntry{PartnerID: b.PartnerID, BookingID: b.ID, Reference: b.Reference,
		Kind: kind, Amount: b.CreditDrawn, Currency: b.Currency, At: s.now()})
}

// drawCredit draws amount from the live credit line or explains the refusal.
func (s *Service) drawCredit(ctx context.Context, tx store.Querier, partnerID, amount int64, currency string) error {
	ok, err := tx.CreditDraw(ctx, partnerID, amount)
	if err != nil || ok {
		return err
	}
	p, err := tx.PartnerGetByID(ctx, partnerID)
	if err != nil {
		return err
	}
	if p.Blocked {
		return tradewind.Errorf(tradewind.ECodeCreditBlocked, "The account is on hold; bookings cannot draw credit. Contact the operator.")
	}
	return tradewind.Errorf(tradewind.ECodeInsufficientCredit, "The booking of %s exceeds the available credit of %s.",
		money.Amount{Minor: amount, Currency: currency}, money.Amount{Minor: p.CreditAvailable(), Currency: p.Currency})
}
