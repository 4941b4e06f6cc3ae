// Package booking is the Tradewind service: search, availability, quotes, prebook,
// book, cancel, confirm and reject, with idempotency and the credit line. The business
// rules live here once, over store.Store, whatever the database.
//
// Where each rule lives: request limits and field checks in validate.go (and
// travellers.go); helpers every product shares (paging, destination, price order, unit
// lookup, stay totals, party pricing) in items.go; one file per product (hotel.go,
// activity.go, rental.go, package.go) with its search, record, availability and its
// product, registered in the products table of quote.go; booking, cancellation and the
// operator's confirm/reject in book.go; the catalog import in import.go; partners and keys
// in admin.go. Catalog facts (package kinds, dates, country codes) come from
// internal/catalog.
package booking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/ids"
	"github.com/tradewind/tradewind/internal/pricing"
	"github.com/tradewind/tradewind/internal/store"
)

// PrebookTTL is how long a prebook locks its price.
const PrebookTTL = 15 * time.Minute

// Service carries out partner and operator requests.
type Service struct {
	Store  store.Store
	Clock  tradewind.Clock
	Logger *slog.Logger
	// Reads is what searches, availability and catalog records read (reads.go): nil
	// reads the store; serve sets the read model (internal/readmodel).
	Reads Reads
	// WebhookAllowPrivate accepts subscriptions to loopback and private hosts and plain
	// http, as serve --webhook-allow-private does for deliveries (development, tests).
	WebhookAllowPrivate bool
	// BookGroupMax is how many bookings one group commit takes at most (group.go):
	// 1 commits every booking alone; 0 is DefaultBookGroupMax (DefaultBookGroupMaxOneConn on SQLite).
	BookGroupMax int
	// BookGroupsAtOnce is how many groups may run their bookings at the same time on
	// PostgreSQL (group.go); 0 is DefaultBookGroupsAtOnce. On SQLite (one writer) it
	// is always 1.
	BookGroupsAtOnce int
	// BookGroupLockWait, when positive, bounds how long a booking in a group waits for
	// a row another transaction holds (store.LockWaits; PostgreSQL): past it the
	// booking rolls back to its savepoint and runs again alone after its group, as a
	// deadlock's loser does, rather than hold its group (and a group waiting for it in a
	// cycle) until PostgreSQL's deadlock_timeout (1 s by default). The group's credit
	// draws are not bounded: they wait only for other groups' commits. 0: no bound.
	BookGroupLockWait time.Duration
	// QuoteCacheItems is how many decoded catalog items quotes keep (itemcache.go):
	// 0 is DefaultQuoteCacheItems, a negative number keeps none.
	QuoteCacheItems int

	itemsOnce sync.Once
	items     *itemCache
	groupOnce sync.Once
	group     *groupCommitter
	// afterQuoteAhead, when set (tests), runs between a live booking's quote ahead and
	// its transaction.
	afterQuoteAhead func()
	// aheadKept and aheadMissed count the live bookings whose quote ahead their
	// transaction kept, and those it priced again (quoteahead.go).
	aheadKept, aheadMissed atomic.Int64
	// prebookKept and prebookMissed count the prebooks a service with a read model
	// stored as priced from it, and those it priced from the store (prebook.go): a
	// refused quote (invalid, sold out, a sandbox scenario) counts as missed too.
	prebookKept, prebookMissed atomic.Int64
}

// PrebookAheadStats returns how many prebooks were priced from the read model and
// stored because the store held what they were priced from, and how many were priced
// from the store instead (the model's quote failed, or the store held something else).
// A service without a read model counts neither.
func (s *Service) PrebookAheadStats() (kept, missed int64) {
	return s.prebookKept.Load(), s.prebookMissed.Load()
}

// BookAheadStats returns how many live bookings' quotes priced before their
// transaction were kept, and how many were priced again under it (a quote ahead that
// failed, or anything changed since).
func (s *Service) BookAheadStats() (kept, missed int64) {
	return s.aheadKept.Load(), s.aheadMissed.Load()
}

// New returns a service over st.
func New(st store.Store, clock tradewind.Clock, logger *slog.Logger) *Service {
	if clock == nil {
		clock = tradewind.SystemClock{}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Service{Store: st, Clock: clock, Logger: logger}
}

// Caller is an authenticated partner request: the partner and the key it used.
type Caller struct {
	Partner *tradewind.Partner
	Key     *tradewind.APIKey
	// Scenario is the sandbox scenario the request asked for (test keys only), or nil.
	Scenario *Scenario
	// Console marks a call of the portal's test console: it never acts on a live
	// booking (Cancel refuses one), whichever key it runs as.
	Console bool
}

// Test reports whether the caller used a test key.
func (c *Caller) Test() bool { return c.Key.Mode == tradewind.ModeTest }

func (c *Caller) contract() pricing.Contract { return pricing.For(c.Partner) }

// RequireProduct returns 403 product_not_enabled unless the caller's key enables p.
func (c *Caller) RequireProduct(p tradewind.ProductType) error {
	if !c.Key.HasProduct(p) {
		return tradewind.Errorf(tradewind.ECodeProductNotEnabled, "Product type %q is not enabled for this key.", p)
	}
	return nil
}

func (s *Service) now() time.Time { return s.Clock.Now().UTC() }

func (s *Service) today() string { return s.now().Format(tradewind.DateLayout) }

var referencePrefix = map[tradewind.ProductType]string{
	tradewind.ProductHotel: "HTL", tradewind.ProductActivity: "ACT",
	tradewind.ProductRental: "RNT", tradewind.ProductPackage: "PKG",
}

// referenceStep is how long one value of a reference's time part lasts; its 3
// characters cycle every 36^3 steps (about 3 minutes).
const referenceStep = 4 * time.Millisecond

// newReference returns a booking's reference, made at: its product's prefix, a hyphen
// and 8 alphanumerics (the contract's shape), 3 of them counting at (ids.Cyclic) and 5
// random. References made together then land next to each other in the bookings'
// reference index and the events' booking index, rather than on a page of their own
// each, which every commit writes to the WAL (SQLite book +8 %, performance-history.md,
// "Evening 2"); over the cycles they spread over the whole code space as random ones
// did. A reference taken all the same is a conflict the booking runs again on (bookTx).
func newReference(p tradewind.ProductType, at time.Time) string {
	return referencePrefix[p] + "-" + ids.Cyclic(ids.SortableAlnum, at, referenceStep, 3) + ids.Random(ids.Alnum, 5)
}

// NewEventID returns a new "evt_…" event id for an event created at, time-ordered
// (ids.TimeOrdered; the event's created_at already tells its time): a group commit of
// bookings writes one page of the events' primary key index, not one per event.
func NewEventID(at time.Time) string { return ids.TimeOrdered("evt_", at) }

// emit writes an event for partnerID in the caller's transaction.
func (s *Service) emit(ctx context.Context, q store.Querier, partnerID int64, typ tradewind.EventType, data any) error {
	e, err := s.newEvent(partnerID, typ, data)
	if err != nil {
		return err
	}
	return q.EventCreate(ctx, e)
}

// newEvent is an event for partnerID, to write in the caller's transaction.
func (s *Service) newEvent(partnerID int64, typ tradewind.EventType, data any) (*tradewind.Event, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	now := s.now()
	return &tradewind.Event{ID: NewEventID(now), PartnerID: partnerID, Type: typ, Data: raw, CreatedAt: now}, nil
}

// notFound is the 404 every lookup of a missing or foreign resource returns.
func notFound(what string) error {
	return tradewind.Errorf(tradewind.ECodeNotFound, "%s not found.", what)
}

// mapNotFound turns store.ErrNotFound into a 404 of what.
func mapNotFound(err error, what string) error {
	if errors.Is(err, store.ErrNotFound) {
		return notFound(what)
	}
	return err
}

// Page is a page request of a list.
type Page struct {
	Page, PerPage int
}

// PageMeta is the pagination block of a list response.
type PageMeta struct {
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
	Total      int `json:"total"`
	TotalPages int `json:"total_pages"`
}

func (p Page) meta(total int) PageMeta {
	pages := (total + p.PerPage - 1) / p.PerPage
	return PageMeta{Page: p.Page, PerPage: p.PerPage, Total: total, TotalPages: pages}
}

// window returns the slice bounds of page p over n items.
func (p Page) window(n int) (int, int) {
	from := min((p.Page-1)*p.PerPage, n)
	return from, min(from+p.PerPage, n)
}

func wrap(err *error, format string, args ...any) {
	if *err != nil {
		var te *tradewind.Error
		if !errors.As(*err, &te) {
			*err = fmt.Errorf(format+": %w", append(args, *err)...)
		}
	}
}
