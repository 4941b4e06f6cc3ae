package booking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"time"
	"unicode"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/store"
)

// Guest is the lead guest of a booking.
type Guest struct {
	Name            string `json:"name"`
	Email           string `json:"email,omitempty"`
	Phone           string `json:"phone,omitempty"`
	SpecialRequests string `json:"special_requests,omitempty"`
}

// BookRequest is the body of POST /bookings: a prebook token or the quote fields, a
// guest, and an optional partner reference.
type BookRequest struct {
	QuoteRequest
	PrebookToken     string `json:"prebook_token,omitempty"`
	Guest            *Guest `json:"guest"`
	PartnerReference string `json:"partner_reference,omitempty"`
}

// BookingView is a booking as the partner sees it.
type BookingView struct {
	Reference        string                  `json:"reference"`
	PartnerReference *string                 `json:"partner_reference"`
	ProductType      string                  `json:"product_type"`
	Status           tradewind.BookingStatus `json:"status"`
	TotalPrice       money.Amount            `json:"total_price"`
	Currency         string                  `json:"currency"`
	PricingMode      tradewind.PricingMode   `json:"pricing_mode"`
	Test             bool                    `json:"test"`
	Details          json.RawMessage         `json:"details"`
	CreatedAt        time.Time               `json:"created_at"`
	// Cancellation says why and when a cancelled booking ended; nil otherwise. Beyond
	// the contract's fields: a partner that polls tells a supplier's rejection from its
	// own cancellation without reading the event feed.
	Cancellation *CancellationView `json:"cancellation"`
}

// CancellationView is why and when a booking was cancelled.
type CancellationView struct {
	// Reason is the partner's reason, cancelled_by_partner when it gave none, or
	// supplier_rejected (the supplier's note is in the booking.cancelled event).
	Reason      string    `json:"reason"`
	CancelledAt time.Time `json:"cancelled_at"`
}

// View renders b for its partner at the service's current time.
func (s *Service) View(b *tradewind.Booking) *BookingView {
	v := &BookingView{Reference: b.Reference, ProductType: string(b.ProductType), Status: b.EffectiveStatus(s.now()),
		TotalPrice: money.Amount{Minor: b.TotalPrice, Currency: b.Currency}, Currency: b.Currency,
		PricingMode: b.PricingMode, Test: b.Test, Details: b.Details, CreatedAt: b.CreatedAt.Truncate(time.Second)}
	if b.PartnerReference != "" {
		ref := b.PartnerReference
		v.PartnerReference = &ref
	}
	if b.Status == tradewind.StatusCancelled {
		at := b.CancelledAt
		if at.IsZero() { // a row cancelled before cancelled_at was kept: its last change, as migration 00015 reads it
			at = b.UpdatedAt
		}
		v.Cancellation = &CancellationView{Reason: b.CancelReason, CancelledAt: at.UTC().Truncate(time.Second)}
	}
	return v
}

// CheckIdempotencyKey returns 400 idempotency_key_required when k is empty and 400
// bad_request unless it is 1–255 printable ASCII characters. The HTTP route table checks
// it before a booking's body is read; Book checks it again for every other caller.
func CheckIdempotencyKey(k string) error {
	if k == "" {
		return tradewind.Errorf(tradewind.ECodeIdempotencyKeyRequired, "The Idempotency-Key header is required: send a unique value per booking attempt.")
	}
	if !validIdempotencyKey(k) {
		return tradewind.Invalid([]string{"Idempotency-Key: 1–255 printable ASCII characters"})
	}
	return nil
}

// validIdempotencyKey reports whether k is 1–255 printable ASCII characters.
func validIdempotencyKey(k string) bool {
	if len(k) < 1 || len(k) > 255 {
		return false
	}
	for _, r := range k {
		if r < 0x20 || r > 0x7e {
			return false
		}
	}
	return true
}

func validateGuest(p *problems, g *Guest) {
	if g == nil {
		p.add("guest is required")
		return
	}
	name := []rune(g.Name)
	if len(name) == 0 || len([]rune(trimSpace(g.Name))) == 0 {
		p.add("guest.name is required")
	}
	p.maxLen("guest.name", g.Name, 200)
	p.lineText("guest.name", g.Name)
	p.maxLen("guest.email", g.Email, 254)
	p.email("guest.email", g.Email)
	p.maxLen("guest.phone", g.Phone, 40)
	p.lineText("guest.phone", g.Phone)
	p.maxLen("guest.special_requests", g.SpecialRequests, 1000)
}

func trimSpace(s string) string {
	for len(s) > 0 && unicode.IsSpace(rune(s[0])) {
		s = s[1:]
	}
	return s
}

// errReplay tells Book that another request already created the booking of its key.
var errReplay = errors.New("idempotent replay")

// Book creates a booking, or returns the booking its Idempotency-Key already created
// (replay true). The key is scoped to the partner and the key's mode; the same key
// with another request is 422 idempotency_key_reused (see replayOf). A live booking
// takes inventory and draws the credit line in the same transaction; a test booking
// takes and draws nothing.
func (s *Service) Book(ctx context.Context, c *Caller, idemKey string, req *BookRequest) (view *BookingView, replay bool, err error) {
	defer wrap(&err, "book")
	if err := CheckIdempotencyKey(idemKey); err != nil {
		return nil, false, err
	}
	// Announced to the group commits as it starts, so that a group waits for it rather
	// than commit without it (group.go); its quote ahead comes first.
	// A live booking whose credit draw is likely refused runs alone (book): nobody waits
	// for it.
	alone := s.runsAlone(c)
	var coming *arrival
	if !alone {
		coming = s.groups().announce()
	}
	defer coming.arrived()
	if coming != nil {
		// Let the other callers a group just answered announce themselves before this
		// one, run by the same core, reaches the queue alone and takes the turn: on two
		// cores most groups of one came from there (bookfast5).
		runtime.Gosched()
	}
	hash := requestHash(req)
	// No lookup of the key's booking first (one round trip less for every new booking):
	// the booking's insert, which carries the key and the request's fingerprint, conflicts
	// on the bookings' unique key when the key was used (errReplay), and every failure is
	// answered below with the key's booking when there is one. A retry costs the checks
	// and reads of a booking up to its insert, and keeps nothing it wrote before it.
	created, err := s.book(ctx, c, idemKey, hash, req, coming, alone)
	if err != nil {
		// This request's key may have created a booking already, or another request's
		// while this one was checked (it took the last room, or the prebook token): every
		// request of one key answers with that booking, or 422 when it asked for another
		// one, whatever else went wrong here.
		b, gerr := s.replayOf(ctx, s.Store, c, idemKey, hash)
		if gerr == nil {
			return s.View(b), true, nil
		}
		if te := (*tradewind.Error)(nil); errors.As(gerr, &te) {
			return nil, false, gerr
		}
		if errors.Is(err, errReplay) {
			return nil, false, fmt.Errorf("idempotency key claimed but no booking found")
		}
		return nil, false, s.namedHolder(ctx, c, req, err)
	}
	s.Logger.InfoContext(ctx, "booking created", "reference", created.Reference, "partner_id", created.PartnerID,
		"product_type", created.ProductType, "status", created.Status, "test", created.Test)
	return s.View(created), false, nil
}

// book validates, prices and creates a booking in one transaction (a live booking is
// priced just before it and checked under it: quoteahead.go). errReplay: another
// request of the same key committed first.
func (s *Service) book(ctx context.Context, c *Caller, idemKey, hash string, req *BookRequest, coming *arrival, alone bool) (*tradewind.Booking, error) {
	var err error
	// Validate before the transaction so bad input never takes a lock. A live booking is
	// priced before it too, and only checked under it (quoteahead.go); a test booking,
	// which claims nothing, and one whose quote ahead failed, are priced under it.
	if err := s.CheckBook(c, req); err != nil {
		return nil, err
	}
	q := &req.QuoteRequest
	var locked *tradewind.Prebook
	if req.PrebookToken != "" {
		if locked, q, err = s.prebookFor(ctx, c, req); err != nil {
			return nil, err
		}
		if len(req.Travellers) > 0 {
			q.Travellers = req.Travellers // travellers may be named on book only
		}
		if _, err := s.validQuote(c, q); err != nil { // the token's quote, with the travellers named now
			return nil, err
		}
	}
	var ahead *quotedAhead
	if !c.Test() {
		ahead = s.quoteAhead(ctx, c, q)
		if s.afterQuoteAhead != nil {
			s.afterQuoteAhead()
		}
	}

	var created *tradewind.Booking
	kept := false // the transaction that ran last kept the quote ahead
	// Run in a group commit with the bookings that arrive with it (group.go), or alone;
	// either way under ctx, the transaction's own context.
	err = s.bookTx(ctx, coming, alone, func(ctx context.Context, tx store.Querier) error {
		created = nil
		// No lookup of the key's booking, here or before: the booking's insert below
		// conflicts on the bookings' unique key (partner, mode, Idempotency-Key) when the
		// key already made one, and Book answers it as a replay. The booking carries the
		// request's fingerprint: no record of the key is written beside it (migration
		// 00031; the contract remembers only created bookings).
		// No lookup of the partner_reference either: the insert conflicts on the
		// bookings' unique (partner, partner_reference) when it is taken (createConflict).
		b, err := s.createBooking(ctx, tx, c, idemKey, hash, req, q, locked, &ahead, &kept)
		if err != nil {
			return partnerRefFirst(ctx, tx, c, req, err)
		}
		if err := c.scheduleScenario(ctx, tx, b, s.now()); err != nil {
			return err
		}
		if locked != nil {
			if ok, err := tx.PrebookConsume(ctx, locked.Token, b.ID); err != nil {
				return err
			} else if !ok {
				return invalidQuote(tradewind.ReasonPrebookUsed, "The prebook token was already used.")
			}
		}
		// The credit draw locks the partner's row (PostgreSQL) until the commit, and every
		// booking of the partner needs it: drawn last, the lock is held for one statement
		// and the commit, not for the whole booking. After the booking's insert too, for
		// the ledger entry's booking id; a refusal rolls the whole transaction back.
		if err := s.moveCredit(ctx, tx, b, store.LedgerDraw); err != nil {
			return err
		}
		created = b
		return nil
	})
	if !c.Test() {
		if kept {
			s.aheadKept.Add(1)
		} else {
			s.aheadMissed.Add(1)
		}
	}
	return created, err
}

// errAheadStale: a booking created with its quote ahead's price did not price the same
// over the rows its claim took. Its transaction (or its savepoint, in a group) is rolled
// back, and it runs again alone, priced under its transaction (createBooking).
var errAheadStale = fmt.Errorf("booking: the quote ahead did not hold: %w", errRunAlone)

// createBooking prices, claims and inserts a booking under tx. A live booking priced
// ahead (quoteahead.go) claims its inventory and inserts the booking in one store call
// (store.InventoryClaimBooking, one statement on PostgreSQL), at the quote ahead's
// price; the claimed rows are then priced again, as claimQuoted does, and must price
// the same, or errAheadStale. When the claim is not taken (sold out, the
// item changed), or the quote ahead fails the booking's checks, the booking is priced
// under the transaction as before. *kept reports a booking kept at its quote ahead's
// price; *ahead is dropped once it did not hold, so that the booking's next run prices
// under its transaction.
func (s *Service) createBooking(ctx context.Context, tx store.Querier, c *Caller, idemKey, hash string, req *BookRequest, q *QuoteRequest,
	locked *tradewind.Prebook, ahead **quotedAhead, kept *bool) (*tradewind.Booking, error) {
	*kept = false
	// prepare makes the booking of pq and its confirmation event: the checks and the
	// rows of a priced quote, before its claim.
	prepare := func(pq *pricedQuote) (*tradewind.Booking, []*tradewind.Event, error) {
		if err := checkTravellers(q); err != nil {
			return nil, nil, err
		}
		if err := c.scenarioQuote(pq, OpBook); err != nil {
			return nil, nil, err
		}
		if locked != nil {
			pq.Total = locked.TotalPrice
		}
		b, err := s.newBooking(c, idemKey, hash, req, q, pq)
		if err != nil {
			return nil, nil, err
		}
		if st := c.scenarioStatus(); st != "" {
			b.Status = st
		}
		if !c.Test() {
			b.UnitKind, b.UnitID, b.Quantity = pq.Claim.Kind, pq.Claim.UnitID, pq.Claim.Quantity
			b.CreditDrawn = pq.Total // drawn last (book); the transaction fails whole if refused
		}
		// The confirmation event goes with the booking's insert (one round trip on
		// PostgreSQL): its data needs no booking id.
		var events []*tradewind.Event
		if b.Status == tradewind.StatusConfirmed {
			e, err := s.newEvent(b.PartnerID, tradewind.EventBookingConfirmed, bookingEventData(b, s.now()))
			if err != nil {
				return nil, nil, err
			}
			events = append(events, e)
		}
		return b, events, nil
	}
	if a := *ahead; a != nil && len(a.items) == 1 {
		aq := *a.pq // prepare may change it: ahead stays as priced
		if b, events, err := prepare(&aq); err == nil {
			claim := a.pq.Claim
			it := a.items[0]
			claim.IfItem = &store.Item{Kind: it.kind, ID: it.id, Data: it.data}
			after, ok, err := tx.InventoryClaimBooking(ctx, claim, b, events...)
			if err != nil {
				return nil, createConflict(err, req)
			}
			if ok {
				claim.IfItem = nil
				if !s.sameAtClaimed(ctx, c, q, a, claim, after) {
					*ahead = nil
					return nil, errAheadStale
				}
				if err := s.flipped(ctx, tx, b, after); err != nil {
					return nil, err
				}
				*kept = true
				return b, nil
			}
			// Not taken: priced under the transaction, which tells sold out from changed.
			*ahead = nil
		}
		// A check failed: the path below answers it, in its order.
	}

	var pq *pricedQuote
	var claimed []store.InventoryRow // the claim's rows, once taken
	var err error
	if *ahead != nil {
		if pq, claimed, err = s.claimQuoted(ctx, tx, c, q, *ahead); err != nil {
			return nil, err
		}
	}
	*kept = pq != nil
	if pq == nil {
		if pq, err = s.quote(ctx, tx, c, q); err != nil { // availability and price, read under the lock
			return nil, err
		}
	}
	b, events, err := prepare(pq)
	if err != nil {
		return nil, err
	}
	if !c.Test() {
		after := claimed
		if after == nil {
			var ok bool
			if after, ok, err = tx.InventoryClaim(ctx, pq.Claim); err != nil {
				return nil, err
			} else if !ok {
				return nil, invalidQuote(tradewind.ReasonSoldOut, "The item is no longer available for these dates and party.")
			}
		}
		if err := s.flipped(ctx, tx, b, after); err != nil {
			return nil, err
		}
	}
	if err := tx.BookingCreate(ctx, b, events...); err != nil {
		return nil, createConflict(err, req)
	}
	return b, nil
}

// sameAtClaimed reports whether the claimed rows price (priceClaimed, as claimQuoted
// prices them) what the quote ahead priced, in everything a booking takes from its
// priced quote (newBooking): then the booking inserted at the quote ahead's price is
// the one they would have made.
func (s *Service) sameAtClaimed(ctx context.Context, c *Caller, q *QuoteRequest, a *quotedAhead, claim store.Claim, after []store.InventoryRow) bool {
	pq := s.priceClaimed(ctx, c, q, a, claim, after)
	if pq == nil {
		return false
	}
	was := a.pq
	return pq.Total == was.Total && pq.Currency == was.Currency && pq.Instant == was.Instant && pq.OpenStatus == was.OpenStatus &&
		pq.ItemID == was.ItemID && pq.StartDate == was.StartDate && pq.EndDate == was.EndDate && pq.Policy == was.Policy &&
		reflect.DeepEqual(pq.Details, was.Details)
}

// flipped notes, for the read model, the days of b's item that its claim sold out.
func (s *Service) flipped(ctx context.Context, tx store.Querier, b *tradewind.Booking, after []store.InventoryRow) error {
	from, to, err := spanOf(soldOutIn(after))
	if err != nil {
		return err
	}
	return s.availabilityFlipped(ctx, tx, b.ProductType, b.ItemID, from, to)
}

// createConflict is the answer to a booking's insert that a unique key refused: another
// request of the Idempotency-Key committed first, or ran earlier in this group (Book
// answers its booking); the partner_reference was booked since book's check (Book
// answers the key's booking first, when there is one). Another conflict, a random
// reference taken, is a database error: in a group the booking runs again alone, with a
// new reference.
func createConflict(err error, req *BookRequest) error {
	switch {
	case errors.Is(err, store.ErrIdempotencyKeyTaken):
		return errReplay
	case errors.Is(err, store.ErrPartnerReferenceTaken):
		return duplicatePartnerRef(req.PartnerReference)
	}
	return err
}

// runsAlone reports a live booking that runs alone, never in a group, because its credit
// draw is likely refused: its partner is on hold as the cache last saw it (within its
// bound), or a group could not make its draws lately (DefaultRefusedWindow). Alone, the
// store refuses it (or, the partner released or its credit raised since, draws it); in
// a group the refusal would make the other bookings of the group run again (drawAll).
func (s *Service) runsAlone(c *Caller) bool {
	return !c.Test() && (c.Partner.Blocked || s.groups().refusedLately(c.Partner.ID))
}

// partnerRefFirst answers a booking that was refused before its insert (the item sold
// out, a price changed, …) with 409 duplicate_partner_reference when its
// partner_reference is taken, as the check before the booking did when every booking
// made it (one statement more each, and a round trip on PostgreSQL): a taken reference
// is the request's fault whatever the inventory says. Any other failure, or a lookup
// that fails (a transaction a failed statement left aborted), keeps err.
func partnerRefFirst(ctx context.Context, tx store.Querier, c *Caller, req *BookRequest, err error) error {
	var te *tradewind.Error
	if req.PartnerReference == "" || !errors.As(err, &te) || te.Code == tradewind.ECodeDuplicatePartnerRef {
		return err
	}
	if _, lerr := tx.BookingGetByPartnerReference(ctx, c.Partner.ID, req.PartnerReference); lerr == nil {
		return duplicatePartnerRef(req.PartnerReference)
	}
	return err
}

// namedHolder names, in a 409 duplicate_partner_reference, the booking that holds the
// reference (looked up only now, on the refusal's path): a reference names one booking
// of the partner, test or live, cancelled or not, and a partner whose order number is
// taken wants to know by which. err unchanged otherwise, or when the lookup fails.
func (s *Service) namedHolder(ctx context.Context, c *Caller, req *BookRequest, err error) error {
	var te *tradewind.Error
	if !errors.As(err, &te) || te.Code != tradewind.ECodeDuplicatePartnerRef {
		return err
	}
	b, lerr := s.Store.BookingGetByPartnerReference(ctx, c.Partner.ID, req.PartnerReference)
	if lerr != nil {
		return err
	}
	mode := tradewind.ModeLive
	if b.Test {
		mode = tradewind.ModeTest
	}
	return tradewind.Errorf(tradewind.ECodeDuplicatePartnerRef,
		"partner_reference %q is already used by booking %s (%s, %s): a reference names one booking of the partner, test or live, whatever its status.",
		req.PartnerReference, b.Reference, mode, b.EffectiveStatus(s.now()))
}

func duplicatePartnerRef(ref string) error {
	return tradewind.Errorf(tradewind.ECodeDuplicatePartnerRef, "partner_reference %q is already used by another booking.", ref)
}

// CheckBook lists every problem of a booking request's own fields as 400 bad_request,
// without reading the store: the guest, the partner reference, and the quote, or,
// beside a prebook token, the quote fields that must not be sent. A product the key does
// not enable is answered first (403 product_not_enabled, whatever else is wrong); a
// quote's unknown product is its own error, answered when the rest has none. book
// checks the same first.
func (s *Service) CheckBook(c *Caller, req *BookRequest) error {
	var p problems
	validateGuest(&p, req.Guest)
	p.maxLen("partner_reference", req.PartnerReference, 64)
	p.lineText("partner_reference", req.PartnerReference) // shown in the portal and in lists
	if req.PrebookToken != "" {
		// The token carries the quote: only travellers may be named next to it.
		for _, name := range sentFields(&req.QuoteRequest) {
			if name != "travellers" {
				p.add("%s: send either a prebook_token or the quote fields, not both", name)
			}
		}
		return p.err()
	}
	if _, err := s.validQuote(c, &req.QuoteRequest); err != nil {
		var te *tradewind.Error
		switch {
		case len(p) == 0 || !errors.As(err, &te), te.Code == tradewind.ECodeProductNotEnabled:
			return err // the key's refusal of the product comes before the body's problems
		case te.Code == tradewind.ECodeBadRequest:
			p = append(p, te.Details...)
		}
	}
	return p.err()
}

// prebookFor loads the caller's unexpired, unused prebook token and its quote (CheckBook
// checked that no quote field was sent beside it).
func (s *Service) prebookFor(ctx context.Context, c *Caller, req *BookRequest) (*tradewind.Prebook, *QuoteRequest, error) {
	pb, err := s.Store.PrebookGet(ctx, req.PrebookToken)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (pb.PartnerID != c.Partner.ID || pb.Mode != c.Key.Mode)) {
		return nil, nil, invalidQuote(tradewind.ReasonPrebookUnknown, "The prebook token is not known for this key.")
	}
	if err != nil {
		return nil, nil, err
	}
	if pb.BookingID != 0 {
		return nil, nil, invalidQuote(tradewind.ReasonPrebookUsed, "The prebook token was already used.")
	}
	if !s.now().Before(pb.ExpiresAt) {
		return nil, nil, tradewind.Errorf(tradewind.ECodePrebookExpired, "The prebook token expired at %s; prebook again.", pb.ExpiresAt.Format(time.RFC3339))
	}
	var lq lockedQuote
	if err := json.Unmarshal(pb.Quote, &lq); err != nil {
		return nil, nil, err
	}
	return pb, &lq.Quote, nil
}

func (s *Service) newBooking(c *Caller, idemKey, hash string, req *BookRequest, q *QuoteRequest, pq *pricedQuote) (*tradewind.Booking, error) {
	now := s.now()
	details := map[string]any{}
	for k, v := range pq.Details {
		details[k] = v
	}
	details["guest_name"] = req.Guest.Name
	rawDetails, err := json.Marshal(details)
	if err != nil {
		return nil, err
	}
	rawQuote, _ := json.Marshal(q)
	rawGuest, _ := json.Marshal(req.Guest)
	status := tradewind.StatusConfirmed
	if !pq.Instant {
		status = pq.OpenStatus
	}
	return &tradewind.Booking{Reference: newReference(tradewind.ProductType(q.ProductType), now), PartnerID: c.Partner.ID,
		KeyID: c.Key.ID, ProductType: tradewind.ProductType(q.ProductType), Status: status, Test: c.Test(),
		PricingMode: c.Partner.PricingMode, TotalPrice: pq.Total, Currency: pq.Currency,
		PartnerReference: req.PartnerReference, IdempotencyKey: idemKey, RequestHash: hash, ItemID: pq.ItemID, StartDate: pq.StartDate,
		EndDate: pq.EndDate, Quote: rawQuote, Guest: rawGuest, Details: rawDetails, CreatedAt: now, UpdatedAt: now}, nil
}

// bookingEventData is the data of booking.confirmed and booking.cancelled events.
func bookingEventData(b *tradewind.Booking, now time.Time) map[string]any {
	d := map[string]any{"reference": b.Reference, "partner_reference": nil, "status": b.EffectiveStatus(now),
		"total_price": money.Amount{Minor: b.TotalPrice, Currency: b.Currency}, "currency": b.Currency, "test": b.Test,
		"product_type": b.ProductType}
	if b.PartnerReference != "" {
		d["partner_reference"] = b.PartnerReference
	}
	return d
}

// cancelledEventData is the data of booking.cancelled for b, cancelled at now.
func cancelledEventData(b *tradewind.Booking, reason string, now time.Time) map[string]any {
	d := bookingEventData(b, now)
	d["reason"], d["cancelled_at"] = reason, now.Truncate(time.Second)
	return d
}

// referenceShape is every reference newReference makes; anything else names no booking.
var referenceShape = regexp.MustCompile(`^(HTL|ACT|RNT|PKG)-[A-Z0-9]{8}$`)

// canonicalReference returns a booking reference as newReference spells it, and whether
// it has the shape of one. References are upper case; one sent in lower case (a partner
// system that folds identifiers) names the same booking rather than none.
func canonicalReference(ref string) (string, bool) {
	// ASCII letters only: strings.ToUpper would also turn "ſ" into "S".
	ref = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, ref)
	return ref, referenceShape.MatchString(ref)
}

// CanonicalReference is canonicalReference for the portal's pages, which read a
// booking by its reference as the API does.
func CanonicalReference(ref string) string {
	ref, _ = canonicalReference(ref)
	return ref
}

// GetBooking returns the caller's booking. 404 when absent or another partner's.
func (s *Service) GetBooking(ctx context.Context, c *Caller, reference string) (*BookingView, error) {
	reference, ok := canonicalReference(reference)
	if !ok {
		return nil, notFound("Booking")
	}
	b, err := s.Store.BookingGetByReference(ctx, c.Partner.ID, reference)
	if err != nil {
		return nil, mapNotFound(err, "Booking")
	}
	return s.View(b), nil
}

// ListBookings returns a page of the caller's bookings matching f, newest first.
func (s *Service) ListBookings(ctx context.Context, c *Caller, f BookingFilter, pg Page) ([]*BookingView, PageMeta, error) {
	return s.FindBookings(ctx, c.Partner.ID, f, pg)
}

// CancelResult is the data of a cancellation.
type CancelResult struct {
	Reference string                  `json:"reference"`
	Status    tradewind.BookingStatus `json:"status"`
}

// Cancel cancels the caller's booking, releasing its inventory and, for a live booking,
// its credit, whichever key cancels it. 422 not_cancellable once cancelled or completed.
func (s *Service) Cancel(ctx context.Context, c *Caller, reference, reason string) (*CancelResult, error) {
	if len([]rune(reason)) > 500 {
		return nil, tradewind.Invalid([]string{"reason: at most 500 characters"})
	}
	if reason == "" {
		reason = "cancelled_by_partner"
	}
	b, err := s.end(ctx, ending{partnerID: c.Partner.ID, reference: reference, reason: reason, from: cancellable, testOnly: c.Console})
	if err != nil {
		return nil, err
	}
	return &CancelResult{Reference: b.Reference, Status: b.Status}, nil
}

// cancellable lists the stored states a booking can be cancelled or rejected from.
var cancellable = []tradewind.BookingStatus{tradewind.StatusConfirmed, tradewind.StatusPending, tradewind.StatusOnRequest}

// confirmable lists the stored states the supplier confirms or rejects a booking from.
var confirmable = []tradewind.BookingStatus{tradewind.StatusPending, tradewind.StatusOnRequest}

// ending is a cancellation or a rejection of one booking.
type ending struct {
	partnerID int64                     // the booking's partner; 0: any partner's, for the operator
	reference string                    // the booking's reference
	reason    string                    // the cancel_reason stored and sent
	note      string                    // when not empty, travels with the booking.cancelled event
	from      []tradewind.BookingStatus // the stored states the booking may be ended from
	testOnly  bool                      // a test console call: a live booking is refused
}

// notCancellable is a 422 not_cancellable with its reason (tradewind.Reason…).
func notCancellable(reason, format string, args ...any) error {
	return tradewind.Refusal(tradewind.ECodeNotCancellable, reason, format, args...)
}

// end cancels a booking in one transaction: status, inventory, credit and the
// booking.cancelled event together.
func (s *Service) end(ctx context.Context, e ending) (*tradewind.Booking, error) {
	var ok bool
	if e.reference, ok = canonicalReference(e.reference); !ok {
		return nil, notFound("Booking")
	}
	var out *tradewind.Booking
	err := s.Store.InTx(ctx, func(tx store.Querier) error {
		b, err := tx.BookingGetByReference(ctx, e.partnerID, e.reference)
		if err != nil {
			return mapNotFound(err, "Booking")
		}
		if e.testOnly && !b.Test {
			return notCancellable(tradewind.ReasonLiveBooking,
				"Booking %s is a live booking: the test console never cancels one. Cancel it from its page in the portal or with a live key.", b.Reference)
		}
		now := s.now()
		switch st := b.EffectiveStatus(now); st {
		case tradewind.StatusCancelled:
			return notCancellable(tradewind.ReasonAlreadyCancelled, "Booking %s is %s and cannot be cancelled.", b.Reference, st)
		case tradewind.StatusCompleted:
			return notCancellable(tradewind.ReasonCompleted, "Booking %s is %s and cannot be cancelled.", b.Reference, st)
		}
		ok, err := tx.BookingSetStatus(ctx, store.BookingSetStatusParams{ID: b.ID, From: e.from, Status: tradewind.StatusCancelled, Reason: e.reason, At: now})
		if err != nil {
			return err
		}
		if !ok {
			return notCancellable(tradewind.ReasonStateChanged, "Booking %s is %s and cannot be cancelled or rejected now.", b.Reference, b.Status)
		}
		if b.UnitKind != "" {
			from, to, err := releaseClaim(ctx, tx, claimOf(b))
			if err != nil {
				return err
			}
			if err := s.availabilityFlipped(ctx, tx, b.ProductType, b.ItemID, from, to); err != nil {
				return err
			}
		}
		if err := s.moveCredit(ctx, tx, b, store.LedgerRelease); err != nil {
			return err
		}
		b.Status, b.CancelReason, b.CancelledAt = tradewind.StatusCancelled, e.reason, now
		data := cancelledEventData(b, e.reason, now)
		if e.note != "" {
			data["note"] = e.note
		}
		if err := s.emit(ctx, tx, b.PartnerID, tradewind.EventBookingCancelled, data); err != nil {
			return err
		}
		out = b
		return nil
	})
	return out, err
}

// claimOf is the inventory claim a live booking holds.
func claimOf(b *tradewind.Booking) store.Claim {
	from, to := b.StartDate, b.EndDate
	switch b.UnitKind {
	case tradewind.UnitRoom, tradewind.UnitSpace:
		from, to = nightRange(b.StartDate, b.EndDate)
	case tradewind.UnitDeparture, tradewind.UnitPackageDay:
		to = from // a package takes its seats on its first day only
	}
	return store.Claim{Kind: b.UnitKind, ItemID: b.ItemID, UnitID: b.UnitID, From: from, To: to, Quantity: b.Quantity}
}

// Confirm is the supplier's confirmation of a pending or on_request booking (operator);
// not_confirmable for a booking in any other state.
func (s *Service) Confirm(ctx context.Context, reference string) (*tradewind.Booking, error) {
	reference, ok := canonicalReference(reference)
	if !ok {
		return nil, notFound("Booking")
	}
	var out *tradewind.Booking
	err := s.Store.InTx(ctx, func(tx store.Querier) error {
		b, err := tx.BookingGetByReference(ctx, 0, reference)
		if err != nil {
			return mapNotFound(err, "Booking")
		}
		ok, err := tx.BookingSetStatus(ctx, store.BookingSetStatusParams{ID: b.ID, From: confirmable, Status: tradewind.StatusConfirmed, At: s.now()})
		if err != nil {
			return err
		}
		if !ok {
			return tradewind.Errorf(tradewind.ECodeNotConfirmable, "Booking %s is %s; only pending or on_request bookings can be confirmed.", b.Reference, b.EffectiveStatus(s.now()))
		}
		b.Status = tradewind.StatusConfirmed
		out = b
		return s.emit(ctx, tx, b.PartnerID, tradewind.EventBookingConfirmed, bookingEventData(b, s.now()))
	})
	return out, err
}

// Reject is the supplier's refusal of a pending or on_request booking (operator): it
// is cancelled with reason supplier_rejected and releases what it held.
// The operator's note, if any, goes to the partner as the event's note: the reason
// stays exactly supplier_rejected, for partners that compare it.
func (s *Service) Reject(ctx context.Context, reference, note string) (*tradewind.Booking, error) {
	if len([]rune(note)) > 500 {
		return nil, tradewind.Invalid([]string{"reason: at most 500 characters"})
	}
	return s.end(ctx, ending{reference: reference, reason: "supplier_rejected", note: note, from: confirmable})
}

// ListAllBookings lists bookings for the operator; status may be any state, including
// the derived completed.
func (s *Service) ListAllBookings(ctx context.Context, partnerID int64, status string) ([]*tradewind.Booking, error) {
	var f BookingFilter
	if status != "" {
		f.Statuses = []tradewind.BookingStatus{tradewind.BookingStatus(status)}
	}
	list, _, err := s.Store.BookingList(ctx, f.storeFilter(partnerID, s.today()))
	return list, err
}
