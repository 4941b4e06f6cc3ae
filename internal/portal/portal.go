// Package portal holds the rules of the partner portal (shared/spec/portal.md):
// sign-up and its review, sign-in with throttling, sessions, the team and its roles,
// the audit log, and the partner's views of bookings, credit, keys and webhooks.
//
// Every method that serves a signed-in user takes the *Member that the session
// resolved to and reads or writes only that member's partner: scoping lives here, not
// in each handler. Which role may call which method is the table in roles.go, checked
// once per route by internal/portal/web. Bookings and webhooks go through
// internal/booking, so the portal and the API share one set of rules.
package portal

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	_ "time/tzdata" // time zones of the Account page, whatever the host has

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
)

// Config tunes the portal's rules; zero values take the defaults.
type Config struct {
	// Hash are argon2id's parameters (zero: OWASPParams; tests use TestParams).
	Hash HashParams
	// MaxPending caps the partners waiting for review; sign-ups beyond it are refused
	// until the operator approves or rejects some (zero: DefaultMaxPending).
	MaxPending int
}

// DefaultMaxPending is how many sign-ups may wait for review at once.
const DefaultMaxPending = 100

// Timeouts and limits of portal.md.
const (
	SessionIdle     = 2 * time.Hour
	SessionAbsolute = 7 * 24 * time.Hour
	InvitationTTL   = 72 * time.Hour
	AuditRetention  = 365 * 24 * time.Hour
	PageSize        = 50
)

// Service carries out portal requests.
type Service struct {
	store   store.Store
	booking *booking.Service
	clock   tradewind.Clock
	logger  *slog.Logger
	hasher  *Hasher
	cfg     Config
}

// New returns the portal service over the booking service's store.
func New(b *booking.Service, cfg Config) *Service {
	if cfg.MaxPending == 0 {
		cfg.MaxPending = DefaultMaxPending
	}
	return &Service{store: b.Store, booking: b, clock: b.Clock, logger: b.Logger, hasher: NewHasher(cfg.Hash), cfg: cfg}
}

func (s *Service) now() time.Time { return s.clock.Now().UTC() }

// Now is the portal's clock (the booking service's, injectable in tests), for pages
// that show time-dependent state such as a booking's effective status.
func (s *Service) Now() time.Time { return s.now() }

// Member is a signed-in user with its partner and session.
type Member struct {
	User    *store.PortalUser
	Partner *tradewind.Partner
	Session *store.PortalSession
}

// Can reports whether the member's role allows a.
func (m *Member) Can(a Action) bool { return Allowed(m.User.Role, a) }

// Active reports whether the member's partner was approved: a pending or rejected
// partner's users see only the page that says so.
func (m *Member) Active() bool { return m.Partner.Status == tradewind.PartnerActive }

// Location is the member's time zone (UTC when unknown).
func (m *Member) Location() *time.Location {
	if loc, err := time.LoadLocation(m.User.TimeZone); err == nil {
		return loc
	}
	return time.UTC
}

// ErrForbidden is returned when the member's role does not allow the action.
var ErrForbidden = &tradewind.Error{Code: "forbidden", Message: "Your role does not allow this."}

// require refuses the member an action its role does not allow (for rules that depend
// on the target, such as an owner's role; the route table checks the rest).
func require(m *Member, a Action) error {
	if !m.Can(a) {
		return ErrForbidden
	}
	return nil
}

// notFound is the answer for anything absent or another partner's.
func notFound(what string) error {
	return tradewind.Errorf(tradewind.ECodeNotFound, "%s not found.", what)
}

func mapNotFound(err error, what string) error {
	if errors.Is(err, store.ErrNotFound) {
		return notFound(what)
	}
	return err
}

func invalid(problems ...string) error {
	return &tradewind.Error{Code: tradewind.ECodeValidationFailed, Message: "Please correct the form.", Details: problems}
}

// newToken returns a random token and the SHA-256 (hex) under which it is stored.
func newToken() (token, hash string) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token)
}

// HashToken is how session and invitation tokens are stored.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// audit records an action of the partner's portal; a failure is logged, not returned,
// since the action itself succeeded.
func (s *Service) audit(ctx context.Context, q store.Querier, partnerID int64, actor, action, detail, addr string) {
	if q == nil {
		q = s.store
	}
	err := q.AuditAdd(ctx, &store.AuditEntry{PartnerID: partnerID, Actor: actor, Action: action, Detail: detail,
		ClientAddr: addr, CreatedAt: s.now()})
	if err != nil {
		s.logger.ErrorContext(ctx, "audit entry lost", "action", action, "partner_id", partnerID, "err", err)
	}
}

// auditIn is audit inside a transaction, where a failure must abort the change.
func (s *Service) auditIn(ctx context.Context, q store.Querier, partnerID int64, actor, action, detail, addr string) error {
	return q.AuditAdd(ctx, &store.AuditEntry{PartnerID: partnerID, Actor: actor, Action: action, Detail: detail,
		ClientAddr: addr, CreatedAt: s.now()})
}

// Sweep deletes what the portal keeps no longer: expired sessions, used or expired
// one-time links, throttle counts whose window passed, and audit entries older than
// AuditRetention. serve runs it hourly.
func (s *Service) Sweep(ctx context.Context) error {
	now := s.now()
	for _, del := range []func() (int64, error){
		func() (int64, error) { return s.store.PortalSessionDeleteExpired(ctx, now.Add(-SessionIdle), now) },
		func() (int64, error) { return s.store.PortalInvitationDeleteDone(ctx, now) },
		func() (int64, error) {
			return s.store.ThrottleDeleteBefore(ctx, now.Add(-max(throttleWindow, signupWindow)))
		},
		func() (int64, error) { return s.store.AuditDeleteBefore(ctx, now.Add(-AuditRetention)) },
	} {
		if _, err := del(); err != nil {
			return err
		}
	}
	return nil
}
