package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// EventPage is one page of the event feed (GET /events), oldest first.
type EventPage struct {
	Events []WebhookEvent
	Meta   EventPageMeta
}

// EventPageMeta is the keyset paging of the feed.
type EventPageMeta struct {
	PerPage int  `json:"per_page"`
	HasMore bool `json:"has_more"` // more events are available now
	// NextAfter is the cursor to continue from: the page's last event, or the cursor
	// asked when the page is empty; "" when the feed is empty.
	NextAfter string `json:"next_after"`
}

// EventOption narrows the event feed.
type EventOption func(url.Values)

// WithEventTypes keeps events of these types (EventBookingConfirmed, …).
func WithEventTypes(types ...string) EventOption {
	return func(q url.Values) { q.Set("type", strings.Join(types, ",")) }
}

// WithBookingReference keeps the events of one booking.
func WithBookingReference(ref string) EventOption {
	return func(q url.Values) { q.Set("reference", ref) }
}

// ListEvents reads one page of the partner's event feed after the event id after ("":
// from the oldest event kept): its booking events of both modes and availability.changed
// for the products its key enables, whether or not it has a webhook subscription. perPage
// 0 takes the server's default (25, at most 100). A cursor older than the feed's 30 days
// gives an *Error with CodeCursorExpired.
func (c *Client) ListEvents(ctx context.Context, after string, perPage int, opts ...EventOption) (*EventPage, error) {
	q := url.Values{}
	for _, o := range opts {
		o(q)
	}
	if after != "" {
		q.Set("after", after)
	}
	if perPage > 0 {
		q.Set("per_page", strconv.Itoa(perPage))
	}
	path := "/events"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	out := EventPage{Events: []WebhookEvent{}}
	return orNil(&out, c.read(ctx, http.MethodGet, path, nil, &out.Events, &out.Meta))
}

// GetEvent reads one of the partner's events of the last 30 days (GET /events/{id}).
func (c *Client) GetEvent(ctx context.Context, id string) (*WebhookEvent, error) {
	var out WebhookEvent
	return orNil(&out, c.read(ctx, http.MethodGet, "/events/"+url.PathEscape(id), nil, &out, nil))
}

// Events iterates over the feed from the stored cursor after ("" from the oldest event
// kept) to its current end, reading pages of 100. Store the ID of each event once it is
// processed and pass it as after next time: the iteration then resumes exactly there,
// missing nothing and repeating nothing, even across restarts.
//
//	for ev, err := range c.Events(ctx, cursor) {
//		if err != nil { … }
//		handle(ev) // ev.BookingEvent() / ev.AvailabilityEvent() decode the data
//		cursor = ev.ID // persist it
//	}
//
// On an error it yields the error once and stops; an expired cursor is an *Error with
// CodeCursorExpired (start again from "", de-duplicating by event id).
func (c *Client) Events(ctx context.Context, after string, opts ...EventOption) iter.Seq2[*WebhookEvent, error] {
	return func(yield func(*WebhookEvent, error) bool) {
		for {
			page, err := c.ListEvents(ctx, after, 100, opts...)
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range page.Events {
				if !yield(&page.Events[i], nil) {
					return
				}
			}
			if !page.Meta.HasMore || len(page.Events) == 0 {
				return
			}
			after = page.Meta.NextAfter
		}
	}
}
