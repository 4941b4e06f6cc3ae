package store

import (
	"context"
	"time"

	"github.com/tradewind/tradewind"
)

// FeedPartnerID is the partner id of the events written once for every partner: the
// feed's copy of availability.changed, shown to each partner whose key enables the
// product. Webhook deliveries are made from per-partner copies, never from these.
const FeedPartnerID = 0

// FeedQuerier holds the queries of the partner's event feed (GET /events) and of the
// automatic pause of failing webhook subscriptions.
type FeedQuerier interface {
	// EventSequence gives the next feed positions to up to limit committed events that
	// have none yet, oldest first, and returns how many it placed. Run it in InTx: it
	// locks the sequence, so sequencers take turns and an event placed later always
	// comes after one placed before — a reader that resumes from the last position it
	// saw never misses an event that committed late.
	EventSequence(ctx context.Context, limit int) (int, error)
	// EventsUnsequenced reports whether some committed event has no feed position yet
	// (a read, so that a feed read with nothing to place takes no write lock).
	EventsUnsequenced(ctx context.Context) (bool, error)
	// EventFeed returns up to p.Limit sequenced events of the feed after p.After, in
	// feed order.
	EventFeed(ctx context.Context, p EventFeedParams) ([]*FeedEvent, error)
	// FeedEventGet returns one event with its feed position. ErrNotFound.
	FeedEventGet(ctx context.Context, id string) (*FeedEvent, error)

	// SubscriptionsFailing returns the active, unpaused subscriptions that had at least
	// one delivery attempt and whose every attempt since failingBefore (and since their
	// last success) failed, with the time of the first failure of that run, which is at
	// or before failingBefore.
	SubscriptionsFailing(ctx context.Context, failingBefore time.Time) ([]FailingSubscription, error)
	// SubscriptionPause pauses the subscription (its deliveries wait); false when it is
	// deleted or already paused, or not the partner's when p.PartnerID is not 0.
	SubscriptionPause(ctx context.Context, p SubscriptionPauseParams) (bool, error)
	// SubscriptionResume resumes a paused subscription and makes due now its waiting
	// deliveries and, as new pending deliveries, those that failed since it began
	// failing (or since it was paused). It returns how many deliveries are due; false
	// when the subscription was not paused. ErrNotFound for an unknown or deleted one.
	SubscriptionResume(ctx context.Context, p SubscriptionResumeParams) (int, bool, error)
	// SubscriptionGetByID returns any partner's subscription, deleted ones included. ErrNotFound.
	SubscriptionGetByID(ctx context.Context, id int64) (*Subscription, error)

	// SandboxTimerCreate schedules a sandbox scenario's change of a booking.
	SandboxTimerCreate(ctx context.Context, t SandboxTimer) error
	// SandboxTimersDue returns up to limit timers due at now, the earliest first, with
	// their booking's reference and current status.
	SandboxTimersDue(ctx context.Context, now time.Time, limit int) ([]SandboxTimer, error)
	// SandboxTimerDelete forgets the timer of a booking.
	SandboxTimerDelete(ctx context.Context, bookingID int64) error
}

// SandboxTimer is a scheduled change of a scenario booking: Action is the status it
// moves to (confirmed, or cancelled for a supplier rejection) at DueAt.
type SandboxTimer struct {
	BookingID int64
	Action    tradewind.BookingStatus
	DueAt     time.Time
	Reference string                  // read by SandboxTimersDue
	Status    tradewind.BookingStatus // read by SandboxTimersDue: the booking's status now
}

// FeedEvent is an event and its position in the feed (0: not sequenced yet).
type FeedEvent struct {
	tradewind.Event
	Seq int64
}

// EventFeedParams select a page of a partner's feed.
type EventFeedParams struct {
	PartnerID int64
	// Products are the product types whose shared availability.changed events the
	// partner sees (FeedPartnerID); its own availability copies are never listed.
	Products         []tradewind.ProductType
	After            int64                 // the position to start after; 0: from the start
	Since            time.Time             // only events created at or after it (retention)
	Types            []tradewind.EventType // any of these types; empty: every type
	BookingReference string                // "" any
	Limit            int
}

// FailingSubscription is a subscription whose deliveries have all failed since Since.
type FailingSubscription struct {
	ID, PartnerID int64
	Since         time.Time
}

// SubscriptionPauseParams pause a subscription at At for Reason; FailingSince is when
// its failures began (zero for a pause by hand).
type SubscriptionPauseParams struct {
	ID, PartnerID int64 // PartnerID 0: any partner (the operator)
	At            time.Time
	Reason        string
	FailingSince  time.Time
}

// SubscriptionResumeParams resume a subscription at Now.
type SubscriptionResumeParams struct {
	ID, PartnerID int64 // PartnerID 0: any partner (the operator)
	Now           time.Time
}
