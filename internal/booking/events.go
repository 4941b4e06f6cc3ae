package booking

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// FeedRetention is how long the event feed keeps an event: a cursor older than that is
// 410 cursor_expired, and the feed never lists older events.
const FeedRetention = 30 * 24 * time.Hour

// EventView is an event as the feed shows it: the envelope of a webhook delivery.
type EventView struct {
	ID        string              `json:"id"`
	Type      tradewind.EventType `json:"type"`
	CreatedAt time.Time           `json:"created_at"`
	Partner   string              `json:"partner"`
	Data      json.RawMessage     `json:"data"`
	// TestEvent is true, and present, only on a sample event (SendTestEvent), which GET
	// /events/{id} reads but the feed never lists: nothing happened.
	TestEvent bool `json:"test_event,omitempty"`
}

// EventPageMeta is the meta of a page of the feed.
type EventPageMeta struct {
	PerPage int `json:"per_page"`
	// HasMore is true when more events are available now after this page.
	HasMore bool `json:"has_more"`
	// NextAfter is the cursor of the next page: the last event of this page, or the
	// request's own cursor when the page is empty (store it and ask again later).
	NextAfter *string `json:"next_after"`
}

// EventQuery is a request for a page of the feed.
type EventQuery struct {
	After     string                // "" from the oldest retained event
	Types     []tradewind.EventType // empty: every type
	Reference string                // a booking reference; "" every event
	PerPage   int
}

// eventIDShape is what an event id looks like; anything else is refused before a query.
var eventIDShape = regexp.MustCompile(`^evt_[A-Za-z0-9]{1,64}$`)

// EventQueryParams are the query parameters of GET /events, those ParseEventQuery reads.
var EventQueryParams = []string{"after", "type", "reference", "per_page"}

// ParseEventQuery reads the query of GET /events: after (an event id), type (repeated or
// comma-separated), reference (a booking reference) and per_page (1–100, default 25).
// Every bad parameter is listed in one 400 bad_request.
func ParseEventQuery(q url.Values) (EventQuery, error) {
	var p problems
	out := EventQuery{PerPage: p.queryPerPage(q)} // as every list's per_page
	one := func(name string) string { return p.queryParam(q, name) }
	if v := one("after"); v != "" {
		if !eventIDShape.MatchString(v) {
			p.add("after: must be an event id (evt_…)")
		}
		out.After = v
	}
	for i, raw := range q["type"] {
		if i >= len(tradewind.AllEventTypes) {
			p.add("type: given more than %d times", len(tradewind.AllEventTypes))
			break
		}
		for _, s := range strings.Split(raw, ",") {
			t := tradewind.EventType(s)
			switch {
			case !slices.Contains(tradewind.AllEventTypes, t):
				p.add("type: %q is not one of booking.confirmed, booking.cancelled, availability.changed", clip(s))
			case !slices.Contains(out.Types, t):
				out.Types = append(out.Types, t)
			}
		}
	}
	if v := one("reference"); v != "" {
		ref, ok := canonicalReference(v)
		if !ok {
			p.add("reference: %q is not a booking reference such as HTL-7K2M9Q4X", clip(v))
		}
		out.Reference = ref
	}
	return out, p.err()
}

// cursorExpired is the 410 of a cursor the feed no longer holds.
func cursorExpired() error {
	return tradewind.Errorf(tradewind.ECodeCursorExpired,
		"The cursor is unknown or older than the feed's retention (%d days): read the feed again without `after`, or from a more recent event.",
		int(FeedRetention/(24*time.Hour)))
}

// enabledProducts lists the caller key's product types as strings.
func (c *Caller) enabledProducts() []tradewind.ProductType { return c.Key.Products }

// sees reports whether the caller may read event e: its own events, and the shared
// availability.changed events of the products its key enables.
func (c *Caller) sees(e *store.FeedEvent) bool {
	if e.PartnerID == c.Partner.ID {
		return true
	}
	if e.PartnerID != store.FeedPartnerID || e.Type != tradewind.EventAvailabilityChanged {
		return false
	}
	var d struct {
		ProductType tradewind.ProductType `json:"product_type"`
	}
	return json.Unmarshal(e.Data, &d) == nil && c.Key.HasProduct(d.ProductType)
}

func (c *Caller) viewEvent(e *store.FeedEvent) *EventView {
	return &EventView{ID: e.ID, Type: e.Type, CreatedAt: e.CreatedAt.Truncate(time.Second), Partner: c.Partner.Name, Data: e.Data,
		TestEvent: e.TestEvent}
}

// ListEvents returns a page of the caller's event feed, oldest first: its booking events
// of both modes and availability.changed for the products its key enables, of the last
// FeedRetention, after q.After. 410 cursor_expired when q.After is unknown, not the
// caller's, or older than the retention.
func (s *Service) ListEvents(ctx context.Context, c *Caller, q EventQuery) ([]*EventView, EventPageMeta, error) {
	since := s.now().Add(-FeedRetention)
	p := store.EventFeedParams{PartnerID: c.Partner.ID, Products: c.enabledProducts(), Since: since, Types: q.Types,
		BookingReference: q.Reference, Limit: q.PerPage + 1}
	meta := EventPageMeta{PerPage: q.PerPage}
	if err := s.sequenceEvents(ctx); err != nil {
		return nil, meta, err
	}
	if q.After != "" {
		after, err := s.Store.FeedEventGet(ctx, q.After)
		if errors.Is(err, store.ErrNotFound) || (err == nil && (!c.sees(after) || after.CreatedAt.Before(since))) {
			return nil, meta, cursorExpired()
		}
		if err != nil {
			return nil, meta, err
		}
		p.After = after.Seq
		meta.NextAfter = &q.After
	}
	list, err := s.Store.EventFeed(ctx, p)
	if err != nil {
		return nil, meta, err
	}
	if len(list) > q.PerPage {
		list, meta.HasMore = list[:q.PerPage], true
	}
	out := make([]*EventView, 0, len(list))
	for _, e := range list {
		out = append(out, c.viewEvent(e))
	}
	if len(list) > 0 {
		last := list[len(list)-1].ID
		meta.NextAfter = &last
	}
	return out, meta, nil
}

// sequenceBatch bounds the events one sequencer transaction places.
const sequenceBatch = 5000

// sequenceEvents places the events committed since the last read in the feed (see
// store.FeedQuerier.EventSequence), before a read, so that a page never ends before an
// event that committed earlier.
func (s *Service) sequenceEvents(ctx context.Context) error {
	if pending, err := s.Store.EventsUnsequenced(ctx); err != nil || !pending {
		return err
	}
	for {
		var n int
		err := s.Store.InTx(ctx, func(tx store.Querier) (err error) {
			n, err = tx.EventSequence(ctx, sequenceBatch)
			return err
		})
		if err != nil || n < sequenceBatch {
			return err
		}
	}
}

// GetEvent returns one of the caller's events of the last FeedRetention. 404 when it is
// unknown, not the caller's, or older.
func (s *Service) GetEvent(ctx context.Context, c *Caller, id string) (*EventView, error) {
	if !eventIDShape.MatchString(id) {
		return nil, notFound("Event")
	}
	e, err := s.Store.FeedEventGet(ctx, id)
	if err != nil {
		return nil, mapNotFound(err, "Event")
	}
	if !c.sees(e) || e.CreatedAt.Before(s.now().Add(-FeedRetention)) {
		return nil, notFound("Event")
	}
	return c.viewEvent(e), nil
}
