package booking

import (
	"context"
	"errors"
	"time"

	"github.com/tradewind/tradewind/internal/store"
)

// FailingPauseAfter is how long every delivery to a subscription must have failed before
// it is paused automatically.
const FailingPauseAfter = 72 * time.Hour

// Pause reasons, as stored on the subscription (the portal shows them).
const (
	PauseReasonFailing  = "failing"  // paused automatically: every delivery failed for FailingPauseAfter
	PauseReasonOperator = "operator" // paused by the operator's CLI
	PauseReasonPartner  = "partner"  // paused by the partner (portal)
)

// PausedSubscription is a subscription the automatic check paused.
type PausedSubscription struct {
	ID, PartnerID int64
	FailingSince  time.Time
}

// PauseFailingSubscriptions pauses every active subscription whose delivery attempts
// have all failed for FailingPauseAfter (none succeeded since), so that a dead endpoint
// stops collecting retries. Its deliveries then wait; resuming it sends them and
// redelivers what failed meanwhile. The pause is recorded on the subscription (reason
// "failing", since when) and logged. The periodic job runs it; it is safe on several
// servers at once (a subscription is paused once).
func (s *Service) PauseFailingSubscriptions(ctx context.Context) ([]PausedSubscription, error) {
	now := s.now()
	failing, err := s.Store.SubscriptionsFailing(ctx, now.Add(-FailingPauseAfter))
	if err != nil {
		return nil, err
	}
	var out []PausedSubscription
	for _, f := range failing {
		ok, err := s.Store.SubscriptionPause(ctx, store.SubscriptionPauseParams{ID: f.ID, At: now, Reason: PauseReasonFailing,
			FailingSince: f.Since})
		if err != nil {
			return out, err
		}
		if ok {
			s.Logger.WarnContext(ctx, "webhook subscription paused: every delivery failed", "audit", "webhook.paused",
				"subscription_id", f.ID, "partner_id", f.PartnerID, "failing_since", f.Since, "reason", PauseReasonFailing)
			out = append(out, PausedSubscription{ID: f.ID, PartnerID: f.PartnerID, FailingSince: f.Since})
		}
	}
	return out, nil
}

// PauseSubscription pauses a subscription by hand (partnerID 0: the operator, any
// partner's): nothing is sent to it until it is resumed. 404 when it is unknown, deleted
// or another partner's; 422 validation_failed when it is paused already.
func (s *Service) PauseSubscription(ctx context.Context, partnerID, id int64, reason string) error {
	if err := s.ownSubscription(ctx, partnerID, id); err != nil {
		return err
	}
	ok, err := s.Store.SubscriptionPause(ctx, store.SubscriptionPauseParams{ID: id, PartnerID: partnerID, At: s.now(), Reason: reason})
	if err != nil {
		return err
	}
	if !ok {
		return invalidSubscription([]string{"subscription: already paused"})
	}
	s.Logger.InfoContext(ctx, "webhook subscription paused", "audit", "webhook.paused", "subscription_id", id, "reason", reason)
	return nil
}

// ResumeSubscription resumes a paused subscription: the deliveries that waited are sent
// now, and every event whose delivery failed since it began failing (or since it was
// paused) is delivered again. It returns how many deliveries are due. 404 as for
// PauseSubscription; 422 validation_failed when it is not paused.
func (s *Service) ResumeSubscription(ctx context.Context, partnerID, id int64) (int, error) {
	if err := s.ownSubscription(ctx, partnerID, id); err != nil {
		return 0, err
	}
	var n int
	var resumed bool
	err := s.Store.InTx(ctx, func(tx store.Querier) (err error) {
		n, resumed, err = tx.SubscriptionResume(ctx, store.SubscriptionResumeParams{ID: id, PartnerID: partnerID, Now: s.now()})
		return err
	})
	if err != nil {
		return 0, mapNotFound(err, "Webhook subscription")
	}
	if !resumed {
		return 0, invalidSubscription([]string{"subscription: not paused"})
	}
	s.Logger.InfoContext(ctx, "webhook subscription resumed", "audit", "webhook.resumed", "subscription_id", id, "deliveries_due", n)
	return n, nil
}

// ownSubscription returns 404 unless subscription id exists, is not deleted and is
// partnerID's (any partner's when partnerID is 0).
func (s *Service) ownSubscription(ctx context.Context, partnerID, id int64) error {
	sub, err := s.Store.SubscriptionGetByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (!sub.Active || (partnerID != 0 && sub.PartnerID != partnerID))) {
		return notFound("Webhook subscription")
	}
	return err
}
