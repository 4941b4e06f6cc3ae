// Package store defines the persistence interface of Tradewind and the sentinels every
// implementation translates its native errors into (ErrNotFound, ErrConflict, and
// ErrCorrupt for a stored value that cannot be decoded). Methods with many arguments
// take a XxxParams struct. The SQL implementation shared by
// both databases is in sqlstore; sqlite and postgres open it with their dialect, and
// storetest is the conformance suite both must pass.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tradewind/tradewind"
)

// Sentinel errors, returned wrapped.
var (
	// ErrNotFound: no row matched.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict: a unique constraint refused the write.
	ErrConflict = errors.New("store: conflict")
	// ErrIdempotencyKeyTaken and ErrPartnerReferenceTaken are the ErrConflicts of
	// BookingCreate that name which of a booking's unique keys refused it.
	ErrIdempotencyKeyTaken   = fmt.Errorf("%w: the partner's Idempotency-Key in this mode made a booking", ErrConflict)
	ErrPartnerReferenceTaken = fmt.Errorf("%w: the partner reference is taken", ErrConflict)
	// ErrCorrupt: a stored value cannot be decoded (a list column that is not a JSON
	// array). The row is refused rather than read with the value missing.
	ErrCorrupt = errors.New("store: corrupt row")
	// ErrTooMany: the write would pass a bound on how many rows may wait (the sample
	// events pending for one subscription, EventCreateTest).
	ErrTooMany = errors.New("store: too many waiting")
)

// CreditRefused is CreditDrawAll's refusal: the partner is blocked, or the sum of the
// draws would pass its limit. Nothing of the draws was written.
type CreditRefused struct{ PartnerID int64 }

func (e *CreditRefused) Error() string {
	return fmt.Sprintf("store: the credit draws of partner %d do not fit", e.PartnerID)
}

// Store is a database: the queries outside a transaction, and transactions.
type Store interface {
	Querier
	RequestLogs // reqlog.go: outside transactions
	// InTx runs fn in one transaction, committing when fn returns nil. A transaction
	// aborted by the database for concurrency (deadlock, serialization) is retried,
	// so fn must be safe to run again.
	InTx(ctx context.Context, fn func(q Querier) error) error
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
	// Analyze refreshes the planner's statistics, after a bulk change such as an import.
	Analyze(ctx context.Context) error
	// Dialect names the database: "sqlite" or "postgres".
	Dialect() string
}

// Savepoints runs parts of a transaction that may fail alone: the Querier an InTx
// function receives implements it on both databases. A part runs between Savepoint and
// ReleaseSavepoint; RollbackToSavepoint undoes what it wrote (and, on PostgreSQL, clears
// the transaction's aborted state after a failed statement) and keeps the savepoint,
// which ReleaseSavepoint then drops. SavepointNext ends a part as ReleaseSavepoint does
// and starts the next one under the same name. On PostgreSQL a savepoint taken or
// released costs no round trip of its own: it is sent with the transaction's next
// statement (sqlstore's deferredTx). COMMIT keeps the last part without a release. The rest of the transaction commits as usual.
// name is a plain SQL identifier (letters, digits, underscores).
type Savepoints interface {
	Savepoint(ctx context.Context, name string) error
	RollbackToSavepoint(ctx context.Context, name string) error
	ReleaseSavepoint(ctx context.Context, name string) error
	SavepointNext(ctx context.Context, name string) error
}

// LockWaits bounds how long the rest of a transaction's statements wait for a row
// another transaction holds: a statement that would wait longer fails (PostgreSQL: SET
// LOCAL lock_timeout, sent with the next statement), as the one PostgreSQL picks to break
// a deadlock does, but without waiting deadlock_timeout first. 0 lifts the bound. The
// Querier of InTx implements it; SQLite's transactions never wait for a row (one
// writer), and there it does nothing.
type LockWaits interface {
	LimitLockWait(ctx context.Context, d time.Duration) error
}

// ErrNoSavepoints: a transaction offers no savepoints.
var ErrNoSavepoints = errors.New("store: the transaction has no savepoints")

// ForwardSavepoints passes Tx's savepoints (and LockWaits) through; a wrapper of a transaction's
// Querier (a spy noting what the transaction writes) embeds it beside the Querier so
// that the wrapped transaction still offers Savepoints.
type ForwardSavepoints struct{ Tx Querier }

func (f ForwardSavepoints) Savepoint(ctx context.Context, name string) error {
	if sp, ok := f.Tx.(Savepoints); ok {
		return sp.Savepoint(ctx, name)
	}
	return ErrNoSavepoints
}

func (f ForwardSavepoints) RollbackToSavepoint(ctx context.Context, name string) error {
	if sp, ok := f.Tx.(Savepoints); ok {
		return sp.RollbackToSavepoint(ctx, name)
	}
	return ErrNoSavepoints
}

func (f ForwardSavepoints) ReleaseSavepoint(ctx context.Context, name string) error {
	if sp, ok := f.Tx.(Savepoints); ok {
		return sp.ReleaseSavepoint(ctx, name)
	}
	return ErrNoSavepoints
}

func (f ForwardSavepoints) SavepointNext(ctx context.Context, name string) error {
	if sp, ok := f.Tx.(Savepoints); ok {
		return sp.SavepointNext(ctx, name)
	}
	return ErrNoSavepoints
}

// LimitLockWait passes Tx's bound on lock waits through; none where Tx has none.
func (f ForwardSavepoints) LimitLockWait(ctx context.Context, d time.Duration) error {
	if lw, ok := f.Tx.(LockWaits); ok {
		return lw.LimitLockWait(ctx, d)
	}
	return nil
}

// Item is a catalog record: the catalog JSON of a hotel, activity, rental or package
// without its inventory.
type Item struct {
	Kind    tradewind.ProductType
	ID      int64
	CityKey string // lower-case city, the search key
	Data    []byte
	// InventoryHash fingerprints the inventory the last catalog import wrote for the
	// item ("" when unknown), so that a re-import skips reading the inventory of items
	// whose fingerprint is unchanged. Only ItemPutMany writes it; only imports write
	// inventory capacity and price.
	InventoryHash string
}

// InventoryRow is what one unit offers on one day.
type InventoryRow struct {
	Kind     tradewind.UnitKind
	UnitID   int64
	ItemID   int64
	Day      string // YYYY-MM-DD
	Capacity int
	Sold     int
	Price    int64 // net price in minor units where the unit is priced per day
}

// InventoryQuery selects inventory rows. Days are inclusive. With both ItemIDs and
// UnitIDs, a row matches both (a quote's one room of one hotel).
type InventoryQuery struct {
	Kind    tradewind.UnitKind
	ItemIDs []int64 // any of these items
	UnitIDs []int64 // any of these units
	From    string
	To      string
}

// ItemDays is the days From..To (inclusive) of one item's inventory: of every unit of
// the item, or of the one unit UnitID (not 0) when only it changed (a claim's).
type ItemDays struct {
	ItemID   int64
	UnitID   int64 // 0: every unit of the item
	From, To string
}

// KeyUse is the last use of one API key.
type KeyUse struct {
	KeyID int64
	At    time.Time
}

// Claim takes Quantity units on every day From..To (inclusive) of one unit of one item.
// A claim always comes from a quote (or a booking) of an item: ItemID names it, and
// inventory is keyed (kind, item, unit, day), so a claim without it matches nothing
// (InventoryClaim and InventoryRelease refuse it).
type Claim struct {
	Kind     tradewind.UnitKind
	ItemID   int64 // the hotel, activity, rental or package the unit belongs to
	UnitID   int64
	From, To string
	Quantity int
	// IfItem, when set, makes InventoryClaim take nothing unless the item (IfItem.Kind,
	// IfItem.ID) is stored with exactly IfItem.Data: a booking priced from that document
	// outside its transaction checks it in the claim's statement. Only InventoryClaim
	// and InventoryClaimBooking read it.
	IfItem *Item
}

// PricedFrom is what a quote priced outside the store read (a prebook priced from the
// read model): an item's stored document, byte for byte, and the days From..To of one
// of its units, each with what it could still sell and its price.
type PricedFrom struct {
	Item     Item
	Kind     tradewind.UnitKind // the unit's
	UnitID   int64
	From, To string
	Days     []PricedDay // in day order: every row of the unit From..To
}

// PricedDay is one day of PricedFrom: Free is capacity less sold, as the store holds
// them, not floored at 0 (a day oversold by a lowered capacity matches no Free a quote
// could sell from, and the caller prices from the store instead).
type PricedDay struct {
	Day   string
	Free  int
	Price int64
}

// BookingFilter selects bookings for a list.
type BookingFilter struct {
	PartnerID int64 // 0: every partner (operator)
	// Statuses keeps the bookings any one of them matches; none keeps every status.
	Statuses []StatusTerm
	// The filters of GET /bookings and of the portal's Bookings page (booking.BookingFilter).
	ProductType      tradewind.ProductType // "": every product
	Test             *bool                 // nil: both modes
	Search           string                // case-insensitive part of the reference, partner reference or guest
	CreatedFrom      time.Time             // created_at ≥ CreatedFrom unless zero
	CreatedBefore    time.Time             // created_at < CreatedBefore unless zero
	ServiceFrom      string                // end_date ≥ ServiceFrom unless "": the service period overlaps
	ServiceTo        string                // start_date ≤ ServiceTo unless ""
	PartnerReference string                // exact match unless ""
	BeforeID         int64                 // keyset paging: only ids below it, unless 0
	Offset           int
	Limit            int // 0: no limit
}

// StatusTerm selects bookings by stored status ("" any) and by the end of their service:
// EndBefore keeps those whose service ended before this day, EndFrom those ending on or
// after it ("" open), which is how a shown "completed" is told from "confirmed".
type StatusTerm struct {
	Status    tradewind.BookingStatus
	EndBefore string
	EndFrom   string
}

// IdempotencyRecord is what an Idempotency-Key remembers: whose it is, in which mode,
// and a fingerprint of the request that used it.
type IdempotencyRecord struct {
	PartnerID int64
	Mode      tradewind.Mode
	Key       string
	// RequestHash fingerprints the request; "" on records made before requests were
	// fingerprinted (migration 00009), which match any request.
	RequestHash string
	CreatedAt   time.Time
}

// BookingSetStatusParams move booking ID from one of the From states to Status at At;
// Reason is kept as the cancel reason (and CancelledAt set when Status is cancelled).
type BookingSetStatusParams struct {
	ID     int64
	From   []tradewind.BookingStatus
	Status tradewind.BookingStatus
	Reason string
	At     time.Time
}

// Subscription is a partner's webhook subscription.
type Subscription struct {
	ID         int64
	PartnerID  int64
	URL        string
	EventTypes []tradewind.EventType
	Secret     string
	Active     bool
	CreatedAt  time.Time
	// PausedAt is when the subscription was paused (zero: not paused), PauseReason why
	// ("failing" when paused automatically).
	PausedAt    time.Time
	PauseReason string
	// FailingSince is when the run of failed deliveries that paused it automatically
	// began (zero otherwise).
	FailingSince time.Time
	// NextSecretFrom is when a rolled secret takes over alone (zero: no roll under
	// way); set by SubscriptionGet.
	NextSecretFrom time.Time
}

// Querier holds every query and write. Method names are noun-first.
type Querier interface {
	FeedQuerier
	ChangeQuerier // changes.go
	PortalQuerier // portal.go
	UsageQuerier  // reqlog.go

	// PartnerCreate inserts p and sets p.ID. ErrConflict when the name is taken.
	PartnerCreate(ctx context.Context, p *tradewind.Partner) error
	// PartnerUpdate writes every contract field of p (not CreditUsed). ErrNotFound.
	PartnerUpdate(ctx context.Context, p *tradewind.Partner) error
	// PartnerGetByID returns the partner. ErrNotFound.
	PartnerGetByID(ctx context.Context, id int64) (*tradewind.Partner, error)
	// PartnerGetByName returns the partner. ErrNotFound.
	PartnerGetByName(ctx context.Context, name string) (*tradewind.Partner, error)
	// PartnerList returns every partner by name.
	PartnerList(ctx context.Context) ([]*tradewind.Partner, error)
	// PartnerListIDs returns the ids of every partner.
	PartnerListIDs(ctx context.Context) ([]int64, error)
	// CreditDraw adds amount to the partner's used credit only if the partner is not
	// blocked and the limit holds, in one conditional statement; false when refused.
	CreditDraw(ctx context.Context, partnerID, amount int64) (bool, error)
	// CreditRelease subtracts amount from the partner's used credit.
	CreditRelease(ctx context.Context, partnerID, amount int64) error

	// KeyCreate inserts k and sets k.ID. ErrConflict on a duplicate hash.
	KeyCreate(ctx context.Context, k *tradewind.APIKey) error
	// KeyGetByHash returns the key with that hash. ErrNotFound.
	KeyGetByHash(ctx context.Context, hash string) (*tradewind.APIKey, error)
	// KeyGetByID returns the key. ErrNotFound.
	KeyGetByID(ctx context.Context, id int64) (*tradewind.APIKey, error)
	// KeyListByPartner returns the partner's keys, oldest first.
	KeyListByPartner(ctx context.Context, partnerID int64) ([]*tradewind.APIKey, error)
	// KeyRevoke marks the key revoked at the given time. ErrNotFound.
	KeyRevoke(ctx context.Context, id int64, at time.Time) error
	// KeyLastUsedSet records when keys were last used, keeping a later time already
	// stored (several servers write their own batches). Unknown key ids are ignored.
	KeyLastUsedSet(ctx context.Context, uses []KeyUse) error
	// AuthVersion returns a number that changes whenever a key or a partner changes in a
	// way that decides a request (not a partner's used credit, not a key's last use),
	// whichever process changed it; servers that cache keys and partners poll it.
	AuthVersion(ctx context.Context) (int64, error)

	// ItemPut inserts or replaces a catalog item; it reports whether anything changed.
	ItemPut(ctx context.Context, it *Item) (bool, error)
	// ItemGet returns one item. ErrNotFound.
	ItemGet(ctx context.Context, kind tradewind.ProductType, id int64) (*Item, error)
	// ItemWithUnitDays returns one item and the days q selects of one of its units
	// (q.ItemIDs and q.UnitIDs one id each, the item's), in day order, as ItemGet and
	// InventoryList would, in one statement: a quote's two reads in one round trip.
	// ErrNotFound when the item is missing.
	ItemWithUnitDays(ctx context.Context, kind tradewind.ProductType, id int64, q InventoryQuery) (*Item, []InventoryRow, error)
	// ItemListByCity returns the items of a kind in a city (lower-case key), by id.
	ItemListByCity(ctx context.Context, kind tradewind.ProductType, cityKey string) ([]*Item, error)
	// ItemListByIDs returns the stored items of a kind among ids, with their
	// InventoryHash, in no particular order; missing ids are absent.
	ItemListByIDs(ctx context.Context, kind tradewind.ProductType, ids []int64) ([]*Item, error)
	// ItemPutMany inserts or replaces items, InventoryHash included, in batched statements.
	ItemPutMany(ctx context.Context, items []*Item) error

	// InventoryList returns the rows matching q, ordered by unit and day.
	InventoryList(ctx context.Context, q InventoryQuery) ([]InventoryRow, error)
	// InventoryOfItemDays returns the rows of kind's units of each span's item (or of
	// its unit UnitID of kind) on the span's days, in no order: the read model reloads
	// what a group of bookings or a poll of the change feed changed in one statement,
	// not one per item.
	InventoryOfItemDays(ctx context.Context, kind tradewind.UnitKind, spans []ItemDays) ([]InventoryRow, error)
	// InventoryInsert inserts rows that do not exist yet, in bulk (COPY on PostgreSQL,
	// batched multi-row statements on SQLite); ErrConflict when one does.
	InventoryInsert(ctx context.Context, rows []InventoryRow) error
	// InventoryPut inserts rows or updates their capacity and price, keeping what is sold,
	// in bulk (COPY on PostgreSQL, batched multi-row statements on SQLite). No two rows
	// may share kind, unit and day.
	//
	// A unit belongs to one item: InventoryInsert and InventoryPut refuse (ErrConflict)
	// rows of a unit that already has rows of another item of its kind, whatever their
	// days (migration 00029's inventory_units; the store's key is (kind, item, unit, day)).
	InventoryPut(ctx context.Context, rows []InventoryRow) error
	// InventoryUnitOwners returns, for each of unitIDs that has inventory of kind, the
	// ids of the items its rows belong to, ascending (exactly one: a unit belongs to one
	// item). Unit ids without inventory are absent from the map.
	InventoryUnitOwners(ctx context.Context, kind tradewind.UnitKind, unitIDs []int64) (map[int64][]int64, error)
	// InventoryEmpty reports whether no inventory row is stored.
	InventoryEmpty(ctx context.Context) (bool, error)
	// InventoryIndexesDrop drops, on PostgreSQL, the primary key of inventory (SQLite's
	// table is its key: nothing to drop); InventoryIndexesCreate builds it again: a first
	// import loads faster without it and sorts it once at the end. Nothing may read
	// inventory by key between the two, and the rows loaded meanwhile must not repeat a
	// (kind, item, unit, day) (the primary key's build refuses them; a unit under two
	// items is refused as it is written, by the units' own key, which stays). Only inside a transaction, which keeps the
	// indexes (and holds the table: PostgreSQL locks it until commit) if it rolls back.
	InventoryIndexesDrop(ctx context.Context) error
	InventoryIndexesCreate(ctx context.Context) error
	// InventoryClaim takes c.Quantity on every day of the claim, all or nothing, with one
	// conditional statement; false when any day lacks the room. When it succeeds it
	// returns the claim's rows as they stand after it, ordered by day, so that the caller
	// learns what sold out without reading them again. With c.IfItem, false also when
	// that item is missing or stored with another document.
	InventoryClaim(ctx context.Context, c Claim) ([]InventoryRow, bool, error)
	// InventoryRelease gives back what a claim took.
	InventoryRelease(ctx context.Context, c Claim) error

	// BookingCreate inserts b and sets b.ID, then events as EventCreate does, in one
	// round trip on PostgreSQL. ErrIdempotencyKeyTaken when the partner's
	// Idempotency-Key in b's mode made a booking, ErrPartnerReferenceTaken when the
	// partner reference is taken, ErrConflict when the reference is (or, as
	// EventCreate, an event's id).
	BookingCreate(ctx context.Context, b *tradewind.Booking, events ...*tradewind.Event) error
	// InventoryClaimBooking takes c as InventoryClaim does and, only when it took every
	// day, creates b with events as BookingCreate does: one statement on PostgreSQL (one
	// round trip, with the held savepoint: a live booking priced ahead, in a group),
	// InventoryClaim then BookingCreate elsewhere (the claim given back if the insert
	// fails). false, nothing taken or created, when InventoryClaim would answer false.
	// The errors of either; after one, in a transaction, the caller rolls back (the
	// transaction, or its savepoint), as after a failed write of either.
	InventoryClaimBooking(ctx context.Context, c Claim, b *tradewind.Booking, events ...*tradewind.Event) ([]InventoryRow, bool, error)
	// BookingGetByReference returns a booking; partnerID 0 matches any partner. ErrNotFound.
	BookingGetByReference(ctx context.Context, partnerID int64, reference string) (*tradewind.Booking, error)
	// BookingGetByIdempotencyKey returns the booking the partner's key created in mode
	// (a key is scoped to the partner and the mode). ErrNotFound.
	BookingGetByIdempotencyKey(ctx context.Context, partnerID int64, mode tradewind.Mode, key string) (*tradewind.Booking, error)
	// BookingGetByPartnerReference returns the partner's booking with that reference. ErrNotFound.
	BookingGetByPartnerReference(ctx context.Context, partnerID int64, ref string) (*tradewind.Booking, error)
	// BookingList returns bookings newest first and the total matching f.
	BookingList(ctx context.Context, f BookingFilter) ([]*tradewind.Booking, int, error)
	// BookingSetStatus moves the booking to p.Status only if it is in one of p.From;
	// false when it was not.
	BookingSetStatus(ctx context.Context, p BookingSetStatusParams) (bool, error)

	// IdempotencyClaim records that the partner's key is being used in r.Mode by the
	// request r.RequestHash fingerprints. ErrConflict when another transaction holds or
	// committed the same partner, mode and key (PostgreSQL waits for the holder). No
	// booking writes one since migration 00031 (the booking carries its fingerprint,
	// Booking.RequestHash); the records of older bookings answer until retention.
	IdempotencyClaim(ctx context.Context, r IdempotencyRecord) error
	// IdempotencyGet returns the record of the partner's key in mode (a booking made
	// before migration 00031). ErrNotFound.
	IdempotencyGet(ctx context.Context, partnerID int64, mode tradewind.Mode, key string) (*IdempotencyRecord, error)

	// SignatureRecord records an accepted request signature, in one statement; false when
	// the partner's signature is recorded already (a replay), even if the record expired
	// (an expired signature no longer verifies, so the question never arises).
	SignatureRecord(ctx context.Context, p SignatureRecordParams) (bool, error)
	// SignatureDeleteExpired deletes up to p.Limit records expired at p.Now and returns
	// how many it deleted.
	SignatureDeleteExpired(ctx context.Context, p SignatureDeleteExpiredParams) (int64, error)

	// PrebookCreate inserts p.
	PrebookCreate(ctx context.Context, p *tradewind.Prebook) error
	// PrebookCreateIfStored inserts p only while the store holds what p was priced
	// from, outside the store (PricedFrom), in the insert's own statement. false:
	// it does not, and nothing was inserted.
	PrebookCreateIfStored(ctx context.Context, p *tradewind.Prebook, from PricedFrom) (bool, error)
	// PrebookGet returns the prebook. ErrNotFound.
	PrebookGet(ctx context.Context, token string) (*tradewind.Prebook, error)
	// PrebookConsume marks the token used by bookingID; false when already used.
	PrebookConsume(ctx context.Context, token string, bookingID int64) (bool, error)

	// EventCreate inserts the event and one pending delivery for every active
	// subscription of its partner to its type, in the same transaction.
	EventCreate(ctx context.Context, e *tradewind.Event) error
	// SubscriberPartnerIDs returns the partners with an active subscription to eventType.
	SubscriberPartnerIDs(ctx context.Context, eventType tradewind.EventType) ([]int64, error)

	// SubscriptionCreate inserts an active subscription. ErrConflict when the partner
	// has p.MaxActive active ones already; run it in InTx, where it locks the partner's
	// row, for the limit to hold under concurrency.
	SubscriptionCreate(ctx context.Context, p SubscriptionCreateParams) (*Subscription, error)
	// SubscriptionList returns the partner's active subscriptions, oldest first.
	SubscriptionList(ctx context.Context, partnerID int64) ([]*Subscription, error)
	// SubscriptionCountActive counts the partner's active subscriptions.
	SubscriptionCountActive(ctx context.Context, partnerID int64) (int, error)
	// SubscriptionDelete deactivates the partner's subscription (soft delete) and fails
	// its pending deliveries. ErrNotFound when it is not the partner's or already deleted.
	SubscriptionDelete(ctx context.Context, p SubscriptionDeleteParams) error

	// DeliveryClaimDue leases up to p.Limit pending deliveries that are due and not
	// leased, in one statement (PostgreSQL skips rows another claim holds; two when
	// p.Last names subscriptions: the others' first, then any), so that each is sent by
	// one dispatcher at a time; a lease that expires is claimed again.
	DeliveryClaimDue(ctx context.Context, p DeliveryClaimParams) ([]*ClaimedDelivery, error)
	// DeliveryRecordAttempt records an attempt and, if the lease of p.ClaimToken still
	// holds, moves the delivery to p.Status and releases it; false when the lease was
	// lost. Run it in InTx so that both writes commit together.
	DeliveryRecordAttempt(ctx context.Context, p DeliveryAttemptParams) (bool, error)
	// DeliveryList returns the deliveries matching f, newest first.
	DeliveryList(ctx context.Context, f DeliveryFilter) ([]*Delivery, error)
	// AttemptList returns the attempts of the given deliveries, oldest first.
	AttemptList(ctx context.Context, deliveryIDs []int64) ([]*DeliveryAttempt, error)
	// DeliveryRedeliver makes the event due again at p.Now for every active subscription
	// that had a delivery of it: a pending delivery is made due, a finished one gets a
	// new pending delivery. It returns how many are due. ErrNotFound for an unknown event.
	DeliveryRedeliver(ctx context.Context, p DeliveryRedeliverParams) (int, error)

	// Job leases and retention deletes: maintenance.go.
	Maintenance
}

type bulkLoadKey struct{}

// WithBulkLoad marks the transactions run with ctx as a bulk load (a catalog import): the
// store may set its connection up for it before the transaction begins and put it back
// after it ends (SQLite: sorts spill to temporary files rather than memory).
func WithBulkLoad(ctx context.Context) context.Context {
	return context.WithValue(ctx, bulkLoadKey{}, true)
}

// IsBulkLoad reports whether ctx was marked by WithBulkLoad.
func IsBulkLoad(ctx context.Context) bool {
	b, _ := ctx.Value(bulkLoadKey{}).(bool)
	return b
}

type afterCommitKey struct{}

// WithAfterCommit returns ctx carrying f, which the store's InTx runs once the
// transaction's COMMIT succeeded, before InTx returns (and before what a wrapper of
// InTx does after it: the read model's reload of what the transaction claimed). The
// group commit gives its turn back there on SQLite's one writer connection, so that
// the next group's COMMIT does not wait for the previous group's reload.
func WithAfterCommit(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, afterCommitKey{}, f)
}

// AfterCommit runs the function ctx carries (WithAfterCommit), if any: the store's
// InTx calls it after a successful COMMIT.
func AfterCommit(ctx context.Context) {
	if f, _ := ctx.Value(afterCommitKey{}).(func()); f != nil {
		f()
	}
}
