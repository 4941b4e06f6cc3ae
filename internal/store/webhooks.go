package store

import (
	"time"

	"github.com/tradewind/tradewind"
)

// Delivery states: pending until a 2xx answer (succeeded) or the retry schedule is
// spent (failed).
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// SubscriptionCreateParams describe a new webhook subscription.
type SubscriptionCreateParams struct {
	PartnerID  int64
	URL        string
	EventTypes []tradewind.EventType
	Secret     string
	CreatedAt  time.Time
	// MaxActive refuses the subscription with ErrConflict when the partner already has
	// that many active ones; 0 sets no limit.
	MaxActive int
}

// SubscriptionDeleteParams name the partner's subscription to delete and when.
type SubscriptionDeleteParams struct {
	PartnerID int64
	ID        int64
	At        time.Time
}

// DeliveryClaimParams select the deliveries due at Now and lease at most Limit of them
// until Now + Lease, oldest due first.
type DeliveryClaimParams struct {
	Now   time.Time
	Lease time.Duration
	Limit int
	// Last names subscriptions served last: their due deliveries are leased only for
	// what those of the other subscriptions leave of Limit, so that one subscription's
	// backlog does not hold the others' back (webhook.Dispatcher passes those with an
	// attempt in flight). At most MaxClaimLast are taken into account.
	Last []int64
}

// MaxClaimLast bounds DeliveryClaimParams.Last (a dispatcher has at most that many
// attempts in flight, so as many subscriptions).
const MaxClaimLast = 64

// ClaimedDelivery is a delivery leased to one dispatcher, with what it needs to send it.
type ClaimedDelivery struct {
	ID             int64
	ClaimToken     string // proves the lease when the attempt is recorded
	Attempts       int    // attempts recorded before this one
	Event          tradewind.Event
	PartnerName    string
	SubscriptionID int64
	URL            string
	Secret         string
	// NextSecret, during a secret roll, signs X-Partner-Signature-Next until
	// NextSecretFrom, and from then on replaces Secret.
	NextSecret     string
	NextSecretFrom time.Time
}

// DeliveryAttemptParams record one attempt of a leased delivery and its next state.
type DeliveryAttemptParams struct {
	DeliveryID      int64
	ClaimToken      string
	At              time.Time
	StatusCode      int // the receiver's HTTP status, 0 when none was received
	Error           string
	ResponseSnippet string
	Duration        time.Duration
	Status          string    // DeliveryPending (retry at NextAttemptAt), DeliverySucceeded or DeliveryFailed
	NextAttemptAt   time.Time // when Status is DeliveryPending
}

// DeliveryFilter selects deliveries for the operator, newest first.
type DeliveryFilter struct {
	PartnerID int64  // 0: every partner
	EventID   string // "": every event
	Status    string // "": every state
	// SubscriptionID: only that subscription's deliveries (0: every one).
	SubscriptionID int64
	BeforeID       int64 // keyset paging: only deliveries with a smaller id
	Limit          int   // 0: no limit
	// Test: only deliveries of test events (sample events and test bookings' events)
	// when true, only the others when false; nil: both.
	Test *bool
}

// Delivery is one event's delivery to one subscription.
type Delivery struct {
	ID             int64
	EventID        string
	EventType      tradewind.EventType
	TestEvent      bool // a sample event (POST /webhooks/{id}/test, the portal's "Send test event")
	PartnerID      int64
	SubscriptionID int64
	URL            string
	Status         string
	Attempts       int
	NextAttemptAt  time.Time
	LastError      string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// DeliveryAttempt is one recorded attempt of a delivery.
type DeliveryAttempt struct {
	ID              int64
	DeliveryID      int64
	AttemptedAt     time.Time
	StatusCode      int
	Error           string
	ResponseSnippet string
	Duration        time.Duration
}

// DeliveryRedeliverParams name the event to deliver again and when it is due.
type DeliveryRedeliverParams struct {
	EventID string
	Now     time.Time
}
