package store

import (
	"context"
	"time"

	"github.com/tradewind/tradewind"
)

// PortalUser is a member of a partner's team in the portal.
type PortalUser struct {
	ID           int64
	PartnerID    int64
	Email        string // lower-case, unique across partners
	Name         string
	Role         string
	PasswordHash string // argon2id PHC string; "" until the user set a password
	TimeZone     string // IANA name, "UTC" by default
	Disabled     bool   // set by the operator: no sign-in, sessions refused
	TOTPSecret   string // base32; "" without two-factor sign-in
	// RecoveryCodes are the SHA-256 (hex) of the unused one-time recovery codes.
	RecoveryCodes []string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// PortalSession is a signed-in browser. Only the SHA-256 of its token is stored.
type PortalSession struct {
	ID         int64
	TokenHash  string
	UserID     int64
	ClientAddr string
	UserAgent  string
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time // absolute end, whatever the activity
}

// Kinds of one-time links.
const (
	InvitationInvite = "invite" // joins a partner's team
	InvitationReset  = "reset"  // sets a forgotten password
)

// PortalInvitation is a one-time link. Only the SHA-256 of its token is stored.
type PortalInvitation struct {
	ID        int64
	TokenHash string
	Kind      string
	PartnerID int64
	Email     string
	Role      string
	CreatedBy string // e-mail of the inviting user, or "operator"
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    time.Time
}

// AuditEntry is one recorded action in a partner's portal.
type AuditEntry struct {
	ID         int64
	PartnerID  int64
	Actor      string // e-mail, or "operator"
	Action     string // e.g. "signin", "signin.failed", "member.invited"
	Detail     string
	ClientAddr string
	CreatedAt  time.Time
}

// Kinds of credit ledger entries.
const (
	LedgerDraw    = "draw"    // a live booking took credit
	LedgerRelease = "release" // its cancellation or rejection gave it back
)

// LedgerEntry is one draw on or release of a partner's credit line.
type LedgerEntry struct {
	ID           int64
	PartnerID    int64
	BookingID    int64
	Reference    string // the booking's
	Kind         string // LedgerDraw or LedgerRelease
	Amount       int64  // minor units, positive for both kinds
	Currency     string
	BalanceAfter int64 // the partner's credit used after this entry
	At           time.Time
}

// LedgerQuery pages a partner's ledger, newest first (keyset paging by id).
type LedgerQuery struct {
	PartnerID int64
	BeforeID  int64 // only entries older than this one, unless 0
	Limit     int
}

// PortalQuerier holds the portal's queries and writes.
type PortalQuerier interface {
	// PartnerLock locks the partner's row until the transaction ends (a no-op outside
	// one), so that rules counting the partner's rows (owners, pending sign-ups) hold.
	PartnerLock(ctx context.Context, partnerID int64) error
	// PartnerCountByStatus counts the partners in status.
	PartnerCountByStatus(ctx context.Context, status string) (int, error)
	// PartnerSetStatus moves the partner from status from to status to with reason;
	// false when it was not in from.
	PartnerSetStatus(ctx context.Context, partnerID int64, from, to, reason string) (bool, error)

	// PortalUserCreate inserts u and sets u.ID. ErrConflict when the e-mail is taken.
	PortalUserCreate(ctx context.Context, u *PortalUser) error
	// PortalUserGetByID returns the user. ErrNotFound.
	PortalUserGetByID(ctx context.Context, id int64) (*PortalUser, error)
	// PortalUserGetByEmail returns the user with that (lower-case) e-mail. ErrNotFound.
	PortalUserGetByEmail(ctx context.Context, email string) (*PortalUser, error)
	// PortalUserList returns the partner's users (partnerID 0: everyone's) by e-mail.
	PortalUserList(ctx context.Context, partnerID int64) ([]*PortalUser, error)
	// PortalUserUpdate writes u's name, role, password, time zone and disabled. It
	// leaves the two-factor columns alone, so that writing back a user read before a
	// recovery code was used never brings the code back. ErrNotFound.
	PortalUserUpdate(ctx context.Context, u *PortalUser) error
	// PortalUserSetTwoFactor writes the user's TOTP secret and recovery codes (hashes);
	// "" and nil turn two-factor sign-in off. A new secret forgets the last accepted
	// time step (PortalUserTOTPStepUse). ErrNotFound.
	PortalUserSetTwoFactor(ctx context.Context, userID int64, secret string, recoveryCodes []string, at time.Time) error
	// PortalUserTOTPStepUse records that the user's TOTP code of time step step was
	// accepted, in one conditional statement, only if no code of that step or a later
	// one was; false when one was (the code is being reused, or an older one played).
	PortalUserTOTPStepUse(ctx context.Context, userID, step int64) (bool, error)
	// PortalUserRecoveryCodeUse removes the recovery code of hash hash from the user's
	// unused codes, atomically: of several sign-ins racing with one code, one gets true.
	// false when the user has no such code (any more). ErrNotFound for no such user.
	PortalUserRecoveryCodeUse(ctx context.Context, userID int64, hash string) (bool, error)
	// PortalUserDelete deletes the partner's user and its sessions. ErrNotFound.
	PortalUserDelete(ctx context.Context, partnerID, id int64) error
	// PortalUserCountRole counts the partner's users with role that are not disabled.
	PortalUserCountRole(ctx context.Context, partnerID int64, role string) (int, error)

	// PortalSessionCreate inserts s and sets s.ID.
	PortalSessionCreate(ctx context.Context, s *PortalSession) error
	// PortalSessionGet returns the session with that token hash. ErrNotFound.
	PortalSessionGet(ctx context.Context, tokenHash string) (*PortalSession, error)
	// PortalSessionTouch records activity of the session at at.
	PortalSessionTouch(ctx context.Context, id int64, at time.Time) error
	// PortalSessionList returns the user's sessions, newest first.
	PortalSessionList(ctx context.Context, userID int64) ([]*PortalSession, error)
	// PortalSessionDelete ends the user's session. ErrNotFound when it is not the user's.
	PortalSessionDelete(ctx context.Context, userID, id int64) error
	// PortalSessionDeleteUser ends every session of the user but keepID (0: every one).
	PortalSessionDeleteUser(ctx context.Context, userID, keepID int64) error
	// PortalSessionDeleteExpired deletes sessions idle since idleBefore or past their
	// absolute end at now; it returns how many.
	PortalSessionDeleteExpired(ctx context.Context, idleBefore, now time.Time) (int64, error)

	// PortalInvitationCreate inserts inv and sets inv.ID, deleting used and expired links.
	PortalInvitationCreate(ctx context.Context, inv *PortalInvitation) error
	// PortalInvitationUse marks the unused, unexpired link with that token hash used at
	// now and returns it, in one statement (a link works once). ErrNotFound otherwise.
	PortalInvitationUse(ctx context.Context, tokenHash string, now time.Time) (*PortalInvitation, error)
	// PortalInvitationGet returns the unused, unexpired link at now. ErrNotFound.
	PortalInvitationGet(ctx context.Context, tokenHash string, now time.Time) (*PortalInvitation, error)

	// ThrottleHit counts one hit of key at now in one statement and returns the hits of
	// the current window, which starts again after window without a hit.
	ThrottleHit(ctx context.Context, key string, now time.Time, window time.Duration) (hits int, last time.Time, err error)
	// ThrottleGet returns the hits of key's window and the time of the last (0 hits
	// when the window has passed at now or the key is unknown).
	ThrottleGet(ctx context.Context, key string, now time.Time, window time.Duration) (hits int, last time.Time, err error)
	// ThrottleReset forgets key.
	ThrottleReset(ctx context.Context, key string) error
	// ThrottleDeleteBefore forgets the keys whose last hit is older than t (retention)
	// and returns how many.
	ThrottleDeleteBefore(ctx context.Context, t time.Time) (int64, error)
	// PortalInvitationDeleteDone deletes the links used or expired at now (retention).
	PortalInvitationDeleteDone(ctx context.Context, now time.Time) (int64, error)

	// AuditAdd records e and sets e.ID.
	AuditAdd(ctx context.Context, e *AuditEntry) error
	// AuditList returns up to limit of the partner's entries older than beforeID (0:
	// the newest), newest first.
	AuditList(ctx context.Context, partnerID, beforeID int64, limit int) ([]*AuditEntry, error)
	// AuditDeleteBefore deletes entries older than t (retention) and returns how many.
	AuditDeleteBefore(ctx context.Context, t time.Time) (int64, error)

	// CreditMove draws (e.Kind LedgerDraw: only if the partner is not blocked and the
	// limit holds, as CreditDraw) or releases (LedgerRelease, as CreditRelease) e.Amount
	// of e.PartnerID's credit and records e in the ledger with the credit used after the
	// move: one statement on PostgreSQL (a writable CTE), two in the caller's transaction
	// elsewhere; run it in InTx. The move holds the partner's row, so one partner's
	// entries are numbered in the order they commit. It sets e.ID and e.BalanceAfter;
	// false when a draw is refused (nothing written). ErrConflict when the booking has
	// an entry of e.Kind already; ErrNotFound for a release of an unknown partner.
	CreditMove(ctx context.Context, e *LedgerEntry) (bool, error)
	// CreditDrawAll draws the sum of entries, one partner's draws (Kind LedgerDraw), at
	// once: only if the partner is not blocked and the limit holds for the sum (then
	// each draw alone would have been made, in their order). It records every entry in
	// the ledger, in their order, with the credit used after it; run it in InTx, last
	// (after it the transaction may only commit). One statement holding the partner's
	// row for a group of bookings, rather than one each (group commit). A refusal
	// (*CreditRefused: nothing written) or a booking with a draw already (ErrConflict)
	// fails the transaction: InTx returns the error. On PostgreSQL the statement is sent
	// with the transaction's COMMIT, in one round trip, so the partner's row is held for
	// that round trip only; there the error comes from InTx, not from this call, and
	// each entry's ID and BalanceAfter are set once InTx returns nil. Elsewhere the draw
	// is made now: it sets them, and returns the error, which the caller returns. A
	// refusal wrote nothing, so a caller that wants every refused partner of a group
	// may go on drawing for the others before it returns (SQLite; on PostgreSQL the
	// first refusal ends the transaction).
	CreditDrawAll(ctx context.Context, entries []*LedgerEntry) error
	// CreditLedgerList returns a page of the partner's ledger, newest first.
	CreditLedgerList(ctx context.Context, q LedgerQuery) ([]*LedgerEntry, error)
	// BookingCount counts the bookings matching f (its Limit and Before ignored).
	BookingCount(ctx context.Context, f BookingFilter) (int, error)
	// BookingDaily sums the bookings matching f (its Limit and Before ignored) by UTC
	// day of creation and currency: how many, and their total price. By day, then
	// currency; one row per day and currency that has bookings.
	BookingDaily(ctx context.Context, f BookingFilter) ([]BookingDay, error)
	// EventListByBooking returns the partner's events about the booking, oldest first.
	EventListByBooking(ctx context.Context, partnerID int64, reference string) ([]*EventRow, error)
	// EventGet returns the partner's event. ErrNotFound, also for another partner's.
	EventGet(ctx context.Context, partnerID int64, id string) (*EventRow, error)
	// EventCreateTest inserts a test event (e.TestEvent set) and one pending delivery
	// of it to the partner's subscription subscriptionID only, the subscription's row
	// locked (a deletion committing meanwhile waits, and fails the delivery). ErrNotFound
	// when that subscription is not the partner's active one; ErrTooMany when maxPending
	// deliveries of test events already wait for it.
	EventCreateTest(ctx context.Context, e *tradewind.Event, subscriptionID int64, maxPending int) error
	// SubscriptionRollSecret starts a secret roll of the partner's active subscription:
	// next signs beside the current secret until from, then alone. A roll whose time
	// has come is completed first (its secret becomes the current one). ErrNotFound.
	SubscriptionRollSecret(ctx context.Context, partnerID, id int64, next string, now, from time.Time) error
	// SubscriptionGet returns the partner's active subscription. ErrNotFound.
	SubscriptionGet(ctx context.Context, partnerID, id int64) (*Subscription, error)
}

// BookingDay is the bookings created on one UTC day in one currency.
type BookingDay struct {
	Day      time.Time // UTC midnight
	Currency string
	Count    int64
	Value    int64 // total price, minor units
}

// EventRow is a stored event.
type EventRow struct {
	ID        string
	PartnerID int64
	Type      string
	Data      []byte
	CreatedAt time.Time
}
