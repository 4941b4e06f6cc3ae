package booking

import (
	"context"
	"errors"
	"fmt"
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

// Actor is who pauses or resumes a subscription, as the partner's portal audit log
// records it: every pause and resume, whoever makes it, is an audit entry.
type Actor struct {
	Name string // a portal user's e-mail, ActorOperator or ActorSystem
	Addr string // the client address of a portal user, else ""
}

// Actors other than portal users.
var (
	ActorSystem   = Actor{Name: "system"}   // Tradewind itself: the automatic pause
	ActorOperator = Actor{Name: "operator"} // the operator's CLI
)

// Audit actions of pauses and resumes.
const (
	AuditWebhookPaused  = "webhook.paused"
	AuditWebhookResumed = "webhook.resumed"
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
		detail := fmt.Sprintf("subscription %d paused automatically: every delivery failed since %s", f.ID,
			f.Since.UTC().Format(time.RFC3339))
		ok, err := s.pause(ctx, store.SubscriptionPauseParams{ID: f.ID, At: now, Reason: PauseReasonFailing,
			FailingSince: f.Since}, f.PartnerID, ActorSystem, detail)
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
// partner's): nothing is sent to it until it is resumed. The partner's audit log records
// it with actor. 404 when it is unknown, deleted or another partner's; 422
// validation_failed when it is paused already.
func (s *Service) PauseSubscription(ctx context.Context, partnerID, id int64, reason string, actor Actor) error {
	sub, err := s.ownSubscription(ctx, partnerID, id)
	if err != nil {
		return err
	}
	ok, err := s.pause(ctx, store.SubscriptionPauseParams{ID: id, PartnerID: partnerID, At: s.now(), Reason: reason},
		sub.PartnerID, actor, fmt.Sprintf("subscription %d (%s) paused by the %s", id, sub.URL, pausedBy(reason)))
	if err != nil {
		return err
	}
	if !ok {
		return invalidSubscription([]string{"subscription: already paused"})
	}
	s.Logger.InfoContext(ctx, "webhook subscription paused", "audit", "webhook.paused", "subscription_id", id, "reason", reason)
	return nil
}

// pause pauses a subscription of partnerID and records it in the partner's audit log, in
// one transaction; false when it was paused already (nothing recorded).
func (s *Service) pause(ctx context.Context, p store.SubscriptionPauseParams, partnerID int64, actor Actor, detail string) (bool, error) {
	var ok bool
	err := s.Store.InTx(ctx, func(tx store.Querier) (err error) {
		if ok, err = tx.SubscriptionPause(ctx, p); err != nil || !ok {
			return err
		}
		return tx.AuditAdd(ctx, &store.AuditEntry{PartnerID: partnerID, Actor: actor.Name, Action: AuditWebhookPaused,
			Detail: detail, ClientAddr: actor.Addr, CreatedAt: p.At})
	})
	return ok, err
}

// pausedBy names who a pause reason stands for, in audit entries.
func pausedBy(reason string) string {
	switch reason {
	case PauseReasonOperator:
		return "operator"
	case PauseReasonPartner:
		return "partner"
	}
	return reason
}

// ResumeSubscription resumes a paused subscription: the deliveries that waited are sent
// now, and every event whose delivery failed since it began failing (or since it was
// paused) is delivered again. The partner's audit log records it with actor. It returns
// how many deliveries are due. 404 as for PauseSubscription; 422 validation_failed when
// it is not paused.
func (s *Service) ResumeSubscription(ctx context.Context, partnerID, id int64, actor Actor) (int, error) {
	sub, err := s.ownSubscription(ctx, partnerID, id)
	if err != nil {
		return 0, err
	}
	var n int
	var resumed bool
	now := s.now()
	err = s.Store.InTx(ctx, func(tx store.Querier) (err error) {
		n, resumed, err = tx.SubscriptionResume(ctx, store.SubscriptionResumeParams{ID: id, PartnerID: partnerID, Now: now})
		if err != nil || !resumed {
			return err
		}
		return tx.AuditAdd(ctx, &store.AuditEntry{PartnerID: sub.PartnerID, Actor: actor.Name, Action: AuditWebhookResumed,
			Detail: fmt.Sprintf("subscription %d (%s) resumed: %d delivery(ies) due", id, sub.URL, n), ClientAddr: actor.Addr,
			CreatedAt: now})
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

// ownSubscription returns subscription id, or 404 unless it exists, is not deleted and
// is partnerID's (any partner's when partnerID is 0).
func (s *Service) ownSubscription(ctx context.Context, partnerID, id int64) (*store.Subscription, error) {
	sub, err := s.Store.SubscriptionGetByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (!sub.Active || (partnerID != 0 && sub.PartnerID != partnerID))) {
		return nil, notFound("Webhook subscription")
	}
	return sub, err
}
