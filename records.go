package tradewind

import (
	"encoding/json"
	"time"
)

// Partner is a trade partner and its one contract with the operator.
type Partner struct {
	ID               int64
	Name             string
	PricingMode      PricingMode
	MarkupBP         int64  // markup percent in basis points (12.5 % = 1250)
	Currency         string // currency of the credit line
	CreditLimit      int64  // minor units
	CreditUsed       int64  // minor units drawn by live bookings not yet cancelled
	Blocked          bool
	RateLimit        int      // requests per minute, all keys together
	AllowIPs         []string // IPs or CIDRs; empty allows any address
	RequireMTLS      bool
	CertFingerprints []string // pinned client certificates (hex SHA-256); empty pins none
	RequireSignature bool
	// SigningSecret verifies request signatures. PrevSigningSecret stays valid until
	// PrevSecretUntil so that a rotation does not break requests in flight.
	SigningSecret     string
	PrevSigningSecret string
	PrevSecretUntil   time.Time
	// Status is PartnerActive for a signed contract; a portal sign-up waits in
	// PartnerPending, with no API access, until the operator approves or rejects it
	// (StatusReason says why).
	Status       string
	StatusReason string
	// RequireTwoFactor: every portal user of the partner must sign in with a TOTP code.
	RequireTwoFactor bool
	CreatedAt        time.Time
}

// Partner states.
const (
	PartnerPending  = "pending"
	PartnerActive   = "active"
	PartnerRejected = "rejected"
)

// CreditAvailable is what the partner can still draw, in minor units.
func (p *Partner) CreditAvailable() int64 {
	if a := p.CreditLimit - p.CreditUsed; a > 0 {
		return a
	}
	return 0
}

// APIKey is an issued key. Only the SHA-256 hash of the secret key is stored.
type APIKey struct {
	ID        int64
	PartnerID int64
	Prefix    string // first characters of the key, safe to show and log
	Hash      string
	Mode      Mode
	Scopes    []Scope
	Products  []ProductType
	ExpiresAt time.Time // zero: never
	RevokedAt time.Time // zero: not revoked
	CreatedAt time.Time
	// LastUsedAt is when the key last authenticated a request (zero: never), as far as
	// the servers have written it: they record uses in memory and write them in batches.
	LastUsedAt time.Time
}

// Usable reports whether the key may authenticate at now.
func (k *APIKey) Usable(now time.Time) bool {
	return k.RevokedAt.IsZero() && (k.ExpiresAt.IsZero() || now.Before(k.ExpiresAt))
}

// HasScope reports whether the key carries scope s.
func (k *APIKey) HasScope(s Scope) bool {
	for _, x := range k.Scopes {
		if x == s {
			return true
		}
	}
	return false
}

// HasProduct reports whether product p is enabled for the key.
func (k *APIKey) HasProduct(p ProductType) bool {
	for _, x := range k.Products {
		if x == p {
			return true
		}
	}
	return false
}

// Booking is a partner's booking of one product.
type Booking struct {
	ID               int64
	Reference        string
	PartnerID        int64
	KeyID            int64
	ProductType      ProductType
	Status           BookingStatus // as stored; see EffectiveStatus
	Test             bool
	PricingMode      PricingMode
	TotalPrice       int64 // minor units, what the partner is invoiced
	Currency         string
	CreditDrawn      int64 // minor units drawn from the credit line (0 for test bookings)
	PartnerReference string
	IdempotencyKey   string
	RequestHash      string          // fingerprint of the request that created it (its key's replays); "" before migration 00031
	ItemID           int64           // hotel, activity, rental or package id
	UnitKind         UnitKind        // inventory kind held, "" when none is held (test bookings)
	UnitID           int64           // room, activity, space, departure or package id
	StartDate        string          // first day of service
	EndDate          string          // last day of service (check-out day for stays)
	Quantity         int             // inventory units taken on each day
	Quote            json.RawMessage // the normalised quote the booking was priced from
	Guest            json.RawMessage
	Details          json.RawMessage // product-specific details shown to the partner
	CancelReason     string
	CancelledAt      time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// EffectiveStatus is the status shown: a confirmed booking whose service ended before
// today (UTC) is completed.
func (b *Booking) EffectiveStatus(now time.Time) BookingStatus {
	if b.Status == StatusConfirmed && b.EndDate != "" && b.EndDate < now.UTC().Format(DateLayout) {
		return StatusCompleted
	}
	return b.Status
}

// Prebook is a price locked for a partner and key mode until ExpiresAt.
type Prebook struct {
	Token      string
	PartnerID  int64
	Mode       Mode
	Quote      json.RawMessage
	TotalPrice int64
	Currency   string
	ExpiresAt  time.Time
	BookingID  int64 // set once a booking consumed the token
	CreatedAt  time.Time
}

// EventType names what a webhook event reports.
type EventType string

// Event types delivered to webhooks.
const (
	EventBookingConfirmed    EventType = "booking.confirmed"
	EventBookingCancelled    EventType = "booking.cancelled"
	EventAvailabilityChanged EventType = "availability.changed"
)

// AllEventTypes lists every event type a subscription may name.
var AllEventTypes = []EventType{EventBookingConfirmed, EventBookingCancelled, EventAvailabilityChanged}

// Event is a webhook event, written in the same transaction as the change it reports.
type Event struct {
	ID        string // "evt_…"
	PartnerID int64
	Type      EventType
	Data      json.RawMessage
	CreatedAt time.Time
	// TestEvent marks a sample sent from the portal to one subscription; its envelope
	// says "test_event": true.
	TestEvent bool
}

// UsageRow is a usage counter: how many API requests a partner made in one mode in one
// UTC hour to one route with one outcome. Counters older than 48 hours are rolled into
// their day's 00:00 hour (docs/request-logs.md), so Hour is exact for the last 48 hours
// and stands for its whole UTC day before. The request log's writer adds to these rows
// (store.UsageAdd); the portal's usage charts read them (store.UsageList).
type UsageRow struct {
	PartnerID int64
	Mode      Mode      // test | live
	Hour      time.Time // UTC, truncated to the hour
	Route     string    // endpoint pattern "POST /bookings"; "" when none matched
	Status    int
	ErrorCode string // "" when none
	Count     int64
}
