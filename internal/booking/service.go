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
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tradewind/tradewind"
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
	// 1 commits every booking alone; 0 is DefaultBookGroupMax.
	BookGroupMax int
	// BookGroupsAtOnce is how many groups may run their bookings at the same time
	// (group.go): 0 is 1 on SQLite (one writer) and DefaultBookGroupsAtOnce on
	// PostgreSQL.
	BookGroupsAtOnce int

	groupOnce sync.Once
	group     *groupCommitter
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

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
const base62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randomString returns n characters drawn uniformly from alphabet by crypto/rand: one
// read of random bytes, each byte below the largest multiple of len(alphabet) taken
// modulo it, the others skipped (no bias), rather than a big.Int per character.
func randomString(alphabet string, n int) string {
	limit := 256 - 256%len(alphabet)
	out := make([]byte, 0, n)
	var buf [64]byte
	for len(out) < n {
		if _, err := rand.Read(buf[:]); err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		for _, b := range buf {
			if int(b) < limit {
				out = append(out, alphabet[int(b)%len(alphabet)])
				if len(out) == n {
					break
				}
			}
		}
	}
	return string(out)
}

var referencePrefix = map[tradewind.ProductType]string{
	tradewind.ProductHotel: "HTL", tradewind.ProductActivity: "ACT",
	tradewind.ProductRental: "RNT", tradewind.ProductPackage: "PKG",
}

func newReference(p tradewind.ProductType) string {
	return referencePrefix[p] + "-" + randomString(alnum, 8)
}

// sortable62 is base62 in byte order, for the part of an id that orders it.
const sortable62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewEventID returns a new "evt_…" event id for an event created at: 9 characters of
// the time (microseconds, in byte order, as the event's created_at already tells), then
// 15 random ones (89 bits: what makes it unique). Events made one after another then
// land next to each other in the events' primary key index instead of on a random page
// each: a group commit of bookings writes one page of it, not one per event.
func NewEventID(at time.Time) string {
	var buf [4 + 9 + 15]byte
	copy(buf[:], "evt_")
	us := max(at.UnixMicro(), 0)
	for i := 4 + 8; i >= 4; i-- {
		buf[i] = sortable62[us%62]
		us /= 62
	}
	copy(buf[4+9:], randomString(base62, 15))
	return string(buf[:])
}

// emit writes an event for partnerID in the caller's transaction.
func (s *Service) emit(ctx context.Context, q store.Querier, partnerID int64, typ tradewind.EventType, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	now := s.now()
	return q.EventCreate(ctx, &tradewind.Event{ID: NewEventID(now), PartnerID: partnerID, Type: typ, Data: raw, CreatedAt: now})
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
