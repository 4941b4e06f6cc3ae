package booking

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/webhook"
)

// MaxSubscriptions is the most active webhook subscriptions a partner may have.
const MaxSubscriptions = 10

// maxWebhookURL bounds the length of a subscription's url.
const maxWebhookURL = 2048

// SubscriptionRequest is the body of POST /webhooks.
type SubscriptionRequest struct {
	URL        string   `json:"url"`
	EventTypes []string `json:"event_types"`
}

// SubscriptionView is a webhook subscription as the partner sees it; Secret is set only
// in the answer to its creation.
type SubscriptionView struct {
	ID         int64     `json:"id"`
	URL        string    `json:"url"`
	EventTypes []string  `json:"event_types"`
	Active     bool      `json:"active"`
	CreatedAt  time.Time `json:"created_at"`
	Secret     string    `json:"secret,omitempty"`
	// PausedAt and PauseReason are set while the subscription is paused: "failing" when
	// every delivery failed for FailingPauseAfter, "operator" or "partner" by hand.
	PausedAt    *time.Time `json:"paused_at,omitempty"`
	PauseReason string     `json:"pause_reason,omitempty"`
}

func viewSubscription(sub *store.Subscription) *SubscriptionView {
	v := &SubscriptionView{ID: sub.ID, URL: sub.URL, EventTypes: []string{}, Active: sub.Active,
		CreatedAt: sub.CreatedAt.Truncate(time.Second)}
	for _, t := range sub.EventTypes {
		v.EventTypes = append(v.EventTypes, string(t))
	}
	if !sub.PausedAt.IsZero() {
		at := sub.PausedAt.Truncate(time.Second)
		v.PausedAt, v.PauseReason = &at, sub.PauseReason
	}
	return v
}

// invalidSubscription is the 422 validation_failed of a refused subscription.
func invalidSubscription(problems []string) error {
	return &tradewind.Error{Code: tradewind.ECodeValidationFailed, Message: "The webhook subscription is invalid.", Details: problems}
}

// tooManySubscriptions is the problem of a subscription past the limit.
var tooManySubscriptions = fmt.Sprintf("webhooks: at most %d active subscriptions per partner; delete one first", MaxSubscriptions)

// CreateSubscription subscribes an https url to event types for the caller's partner
// and returns it with its signing secret, shown only now. 422 validation_failed lists
// every problem: the url, each unknown event type, and the limit of MaxSubscriptions.
func (s *Service) CreateSubscription(ctx context.Context, c *Caller, req *SubscriptionRequest) (*SubscriptionView, error) {
	var p problems
	validateWebhookURL(&p, req.URL, s.WebhookAllowPrivate)
	types := validateEventTypes(&p, req.EventTypes)
	n, err := s.Store.SubscriptionCountActive(ctx, c.Partner.ID)
	if err != nil {
		return nil, err
	}
	if n >= MaxSubscriptions {
		p.add("%s", tooManySubscriptions)
	}
	if len(p) > 0 {
		return nil, invalidSubscription(p)
	}
	secret, err := security.GenerateSecret(security.SecretPrefixWebhook)
	if err != nil {
		return nil, err
	}
	var sub *store.Subscription
	err = s.Store.InTx(ctx, func(tx store.Querier) (err error) {
		sub, err = tx.SubscriptionCreate(ctx, store.SubscriptionCreateParams{PartnerID: c.Partner.ID, URL: req.URL,
			EventTypes: types, Secret: secret, CreatedAt: s.now(), MaxActive: MaxSubscriptions})
		return err
	})
	if errors.Is(err, store.ErrConflict) { // another request took the last place meanwhile
		return nil, invalidSubscription([]string{tooManySubscriptions})
	}
	if err != nil {
		return nil, err
	}
	s.Logger.InfoContext(ctx, "webhook subscription created", "subscription_id", sub.ID, "partner_id", c.Partner.ID,
		"event_types", joinNames(types, ","))
	v := viewSubscription(sub)
	v.Secret = secret
	return v, nil
}

// validateWebhookURL requires an absolute https url with a host and no credentials, whose
// host is public (webhook.CheckHost) unless allowPrivate, and plainly spelt either way
// (webhook.CheckSpelling).
func validateWebhookURL(p *problems, raw string, allowPrivate bool) {
	if strings.TrimSpace(raw) == "" {
		p.add("url is required")
		return
	}
	if len(raw) > maxWebhookURL {
		p.add("url: at most %d characters", maxWebhookURL)
		return
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs():
		p.add("url: must be an absolute https URL such as https://example.com/webhooks")
	case u.Scheme != "https" && allowPrivate:
		p.add("url: must use https, not %s, on a local receiver too: serve it over TLS, and start the server with "+
			"SSL_CERT_FILE naming its certificate (docs/webhooks.md)", u.Scheme)
	case u.Scheme != "https":
		p.add("url: must use https, not %s", u.Scheme)
	case u.Hostname() == "":
		p.add("url: must name a host")
	case u.User != nil:
		p.add("url: must not contain credentials")
	case !validPort(u.Port()):
		p.add("url: port %s is not between 1 and 65535", u.Port())
	case allowPrivate:
		if why := webhook.CheckSpelling(u.Hostname()); why != "" {
			p.add("url: %s", why)
		}
	default:
		if why := webhook.CheckHost(u.Hostname()); why != "" {
			p.add("url: %s; webhooks are delivered to public hosts only", why)
		}
	}
}

// validPort reports whether port, from a parsed URL (digits only, or empty for the
// scheme's own), is one a delivery could connect to.
func validPort(port string) bool {
	if port == "" {
		return true
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}

// validateEventTypes requires at least one known event type and returns them without
// repetition, in the order given.
func validateEventTypes(p *problems, types []string) []tradewind.EventType {
	if len(types) == 0 {
		p.add("event_types: at least one of %s is required", joinNames(tradewind.AllEventTypes, ", "))
		return nil
	}
	var out []tradewind.EventType
	for i, name := range types {
		t := tradewind.EventType(name)
		switch {
		case !slices.Contains(tradewind.AllEventTypes, t):
			p.add("event_types[%d]: %q is not one of %s", i, t, joinNames(tradewind.AllEventTypes, ", "))
		case !slices.Contains(out, t):
			out = append(out, t)
		}
	}
	return out
}

// ListSubscriptions returns a page of the caller's active subscriptions, oldest first,
// without their secrets.
func (s *Service) ListSubscriptions(ctx context.Context, c *Caller, pg Page) ([]*SubscriptionView, PageMeta, error) {
	subs, err := s.Store.SubscriptionList(ctx, c.Partner.ID)
	if err != nil {
		return nil, PageMeta{}, err
	}
	from, to := pg.window(len(subs))
	out := make([]*SubscriptionView, 0, to-from)
	for _, sub := range subs[from:to] {
		out = append(out, viewSubscription(sub))
	}
	return out, pg.meta(len(subs)), nil
}

// DeleteSubscription deactivates the caller's subscription: no event is delivered to it
// any more, including those still pending. 404 when it is unknown, deleted or another
// partner's.
func (s *Service) DeleteSubscription(ctx context.Context, c *Caller, id int64) error {
	err := s.Store.InTx(ctx, func(tx store.Querier) error {
		return tx.SubscriptionDelete(ctx, store.SubscriptionDeleteParams{PartnerID: c.Partner.ID, ID: id, At: s.now()})
	})
	if err != nil {
		return mapNotFound(err, "Webhook subscription")
	}
	s.Logger.InfoContext(ctx, "webhook subscription deleted", "subscription_id", id, "partner_id", c.Partner.ID)
	return nil
}

// DeliveryDetail is a webhook delivery with its attempts, oldest first.
type DeliveryDetail struct {
	*store.Delivery
	Attempts []*store.DeliveryAttempt
}

// DeliveriesWithAttempts returns ds in their order, each with its attempts oldest first,
// read in one store query.
func (s *Service) DeliveriesWithAttempts(ctx context.Context, ds []*store.Delivery) ([]*DeliveryDetail, error) {
	byID, err := s.attemptsByDelivery(ctx, ds)
	if err != nil {
		return nil, err
	}
	out := make([]*DeliveryDetail, len(ds))
	for i, d := range ds {
		out[i] = &DeliveryDetail{Delivery: d, Attempts: byID[d.ID]}
	}
	return out, nil
}

// attemptsByDelivery reads the attempts of ds, oldest first, by delivery id.
func (s *Service) attemptsByDelivery(ctx context.Context, ds []*store.Delivery) (map[int64][]*store.DeliveryAttempt, error) {
	ids := make([]int64, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	as, err := s.Store.AttemptList(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64][]*store.DeliveryAttempt, len(ds))
	for _, a := range as {
		out[a.DeliveryID] = append(out[a.DeliveryID], a)
	}
	return out, nil
}

// deliveryStates are the states a delivery can be in, those the status filter takes.
var deliveryStates = []string{store.DeliveryPending, store.DeliverySucceeded, store.DeliveryFailed}

// WebhookDeliveryQueryParams are the query parameters of GET /webhooks/{id}/deliveries,
// those ParseWebhookDeliveryQuery reads.
var WebhookDeliveryQueryParams = []string{"per_page", "before", "status", "event_id"}

// WebhookDeliveryQuery selects a page of one subscription's deliveries, newest first.
type WebhookDeliveryQuery struct {
	Before  int64  // keyset paging: only deliveries with a smaller id (0: from the newest)
	Status  string // "" or one of pending, succeeded, failed
	EventID string // "" or one event's deliveries
	PerPage int    // 1–MaxPerPage
}

// ParseWebhookDeliveryQuery reads the query of GET /webhooks/{id}/deliveries: per_page
// (1–100, default 25, as every list's), before (a delivery id, a positive integer),
// status (pending, succeeded or failed) and event_id (an event id, as the event feed
// reads one), each given once. Every bad parameter is listed in one 400 bad_request.
func ParseWebhookDeliveryQuery(q url.Values) (WebhookDeliveryQuery, error) {
	var p problems
	out := WebhookDeliveryQuery{PerPage: p.queryPerPage(q), Before: p.queryBound(q, "before")}
	if v := p.queryParam(q, "status"); v != "" {
		if !slices.Contains(deliveryStates, v) {
			p.add("status: %q is not one of %s", clip(v), strings.Join(deliveryStates, ", "))
		}
		out.Status = v
	}
	if v := p.queryParam(q, "event_id"); v != "" {
		if !eventIDShape.MatchString(v) {
			p.add("event_id: must be an event id (evt_…)")
		}
		out.EventID = v
	}
	return out, p.err()
}

// DeliveryPage is a page of one subscription's deliveries, newest first, each with its
// attempts.
type DeliveryPage struct {
	Subscription *store.Subscription
	Deliveries   []*DeliveryDetail
	Next         int64 // the cursor (before) of the next page, 0 on the last
}

// SubscriptionDeliveries returns the partner's subscription subID with the page of its
// deliveries that q selects, newest first, each with its attempts oldest first: the
// deliveries of test events (test bookings' events and sample events) when test, the
// others when not. 404 not_found when the subscription is unknown, deleted or another
// partner's. The API's deliveries list and the portal's subscription page read it.
func (s *Service) SubscriptionDeliveries(ctx context.Context, partnerID, subID int64, test bool, q WebhookDeliveryQuery) (*DeliveryPage, error) {
	sub, err := s.Store.SubscriptionGet(ctx, partnerID, subID)
	if err != nil {
		return nil, mapNotFound(err, "Webhook subscription")
	}
	perPage := min(max(q.PerPage, 1), MaxPerPage)
	ds, err := s.Store.DeliveryList(ctx, store.DeliveryFilter{PartnerID: partnerID, SubscriptionID: sub.ID, Test: &test,
		EventID: q.EventID, Status: q.Status, BeforeID: max(q.Before, 0), Limit: perPage + 1}) // one more tells whether a next page exists
	if err != nil {
		return nil, err
	}
	out := &DeliveryPage{Subscription: sub}
	if len(ds) > perPage {
		ds = ds[:perPage]
		out.Next = ds[perPage-1].ID
	}
	if out.Deliveries, err = s.DeliveriesWithAttempts(ctx, ds); err != nil {
		return nil, err
	}
	return out, nil
}

// DeliveryView is a webhook delivery as the partner sees it: never the subscription's
// secret or url, nor anything of another partner.
type DeliveryView struct {
	ID        int64               `json:"id"`
	EventID   string              `json:"event_id"`
	EventType tradewind.EventType `json:"event_type"`
	// TestEvent is true for a sample event's delivery (SendTestEvent): nothing happened.
	TestEvent bool   `json:"test_event"`
	Status    string `json:"status"`
	Attempts  int    `json:"attempts"`
	// NextAttemptAt is when a pending delivery is due; nil once it succeeded or failed.
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	// LastError is the error of the last attempt; nil when it succeeded or none was made.
	LastError  *string       `json:"last_error"`
	CreatedAt  time.Time     `json:"created_at"`
	UpdatedAt  time.Time     `json:"updated_at"`
	AttemptLog []AttemptView `json:"attempt_log"`
}

// AttemptView is one attempt of a delivery as the partner sees it.
type AttemptView struct {
	AttemptedAt time.Time `json:"attempted_at"`
	// StatusCode and ResponseExcerpt (the start of the answer's body, at most
	// webhook.SnippetLimit bytes) are nil when no HTTP answer came.
	StatusCode      *int    `json:"status_code"`
	DurationMS      int64   `json:"duration_ms"`
	Error           *string `json:"error"` // nil when the attempt was acknowledged
	ResponseExcerpt *string `json:"response_excerpt"`
}

// DeliveryPageMeta is the meta of a page of deliveries.
type DeliveryPageMeta struct {
	PerPage int  `json:"per_page"`
	HasMore bool `json:"has_more"` // older deliveries follow this page
	// NextBefore is the cursor of the next page, the last delivery of this one; nil when
	// no older delivery follows.
	NextBefore *int64 `json:"next_before"`
}

func viewDelivery(d *DeliveryDetail) *DeliveryView {
	v := &DeliveryView{ID: d.ID, EventID: d.EventID, EventType: d.EventType, TestEvent: d.TestEvent, Status: d.Status, Attempts: d.Delivery.Attempts,
		LastError: textOrNil(d.LastError), CreatedAt: d.CreatedAt.Truncate(time.Second), UpdatedAt: d.UpdatedAt.Truncate(time.Second),
		AttemptLog: make([]AttemptView, 0, len(d.Attempts))}
	if d.Status == store.DeliveryPending {
		at := d.NextAttemptAt.Truncate(time.Second)
		v.NextAttemptAt = &at
	}
	for _, a := range d.Attempts {
		av := AttemptView{AttemptedAt: a.AttemptedAt.Truncate(time.Second), DurationMS: a.Duration.Milliseconds(), Error: textOrNil(a.Error)}
		if a.StatusCode != 0 {
			code, excerpt := a.StatusCode, a.ResponseSnippet
			av.StatusCode, av.ResponseExcerpt = &code, &excerpt
		}
		v.AttemptLog = append(v.AttemptLog, av)
	}
	return v
}

// textOrNil is nil for "", else a pointer to a copy of s.
func textOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ListWebhookDeliveries returns the page of deliveries to the caller's subscription id
// that q selects, newest first, each with its attempts oldest first, in the caller's
// mode: a test key sees the deliveries of test events only, a live key the others. 404
// not_found when the subscription is unknown, deleted or another partner's, as
// DeleteSubscription answers.
func (s *Service) ListWebhookDeliveries(ctx context.Context, c *Caller, id int64, q WebhookDeliveryQuery) ([]*DeliveryView, DeliveryPageMeta, error) {
	meta := DeliveryPageMeta{PerPage: q.PerPage}
	page, err := s.SubscriptionDeliveries(ctx, c.Partner.ID, id, c.Test(), q)
	if err != nil {
		return nil, meta, err
	}
	out := make([]*DeliveryView, 0, len(page.Deliveries))
	for _, d := range page.Deliveries {
		out = append(out, viewDelivery(d))
	}
	if page.Next != 0 {
		meta.HasMore, meta.NextBefore = true, &page.Next
	}
	return out, meta, nil
}

// sampleEventData is the data of a sample event of t at now, or false for a type that
// is not an event's: built as the real events' data is (bookingEventData, the
// cancellation's fields, availability.changed's), for a test booking that does not
// exist (HTL-TEST0000), so that a receiver tested on samples takes the real ones.
func sampleEventData(t tradewind.EventType, now time.Time) (map[string]any, bool) {
	// Its stay is a month ahead, so that a confirmed sample is not read as completed.
	day := now.UTC().AddDate(0, 0, 30).Format(tradewind.DateLayout)
	b := &tradewind.Booking{Reference: "HTL-TEST0000", ProductType: tradewind.ProductHotel, TotalPrice: 10000, Currency: "EUR",
		Test: true, Status: tradewind.StatusConfirmed, StartDate: day, EndDate: day}
	switch t {
	case tradewind.EventBookingConfirmed:
		return bookingEventData(b, now), true
	case tradewind.EventBookingCancelled:
		b.Status = tradewind.StatusCancelled
		return cancelledEventData(b, "cancelled_by_partner", now), true
	case tradewind.EventAvailabilityChanged:
		return availabilityEventData(tradewind.ProductHotel, 1001, day, day), true
	}
	return nil, false
}

// MaxPendingSamples bounds the sample events waiting for delivery to one subscription:
// more is 429 rate_limited, so that calls to POST /webhooks/{id}/test cannot make the
// dispatcher send a URL more than the retries of a few events.
const MaxPendingSamples = 5

// TestEventRequest is the body of POST /webhooks/{id}/test; every field is optional.
type TestEventRequest struct {
	EventType *tradewind.EventType `json:"event_type"` // absent or null: booking.confirmed
}

// TestEventSent is what POST /webhooks/{id}/test answers: the sample event queued.
type TestEventSent struct {
	EventID        string              `json:"event_id"`
	EventType      tradewind.EventType `json:"event_type"`
	SubscriptionID int64               `json:"subscription_id"`
	PausedSince    time.Time           `json:"-"` // the subscription's pause, when it is paused: the sample waits for its resume
}

// SendTestEvent queues a sample event of eventType for the
// partner's subscription subID only, delivered as any event (signed, retried, recorded)
// with "test_event": true in its envelope; its delivery counts as a test one (a test
// key's lists show it). Nothing is booked and no other subscription receives it. 400 for
// an unknown event type; 404 not_found when the subscription is unknown, deleted or
// another partner's. The API's POST /webhooks/{id}/test and the portal's "Send test
// event" send it.
func (s *Service) SendTestEvent(ctx context.Context, partnerID, subID int64, eventType tradewind.EventType) (*TestEventSent, error) {
	data, ok := sampleEventData(eventType, s.now())
	if !ok {
		return nil, tradewind.Invalid([]string{fmt.Sprintf("event_type: %q is not one of %s", clip(string(eventType)),
			joinNames(tradewind.AllEventTypes, ", "))})
	}
	e, err := s.newEvent(partnerID, eventType, data)
	if err != nil {
		return nil, err
	}
	err = s.Store.InTx(ctx, func(tx store.Querier) error { return tx.EventCreateTest(ctx, e, subID, MaxPendingSamples) })
	if errors.Is(err, store.ErrTooMany) {
		// A bound on what one partner's calls make the dispatcher send a URL.
		return nil, tradewind.Errorf(tradewind.ECodeRateLimited,
			"%d sample events already wait for delivery to webhook subscription %d; send more once they are delivered or failed (GET /webhooks/%d/deliveries).",
			MaxPendingSamples, subID, subID).RetryIn(60)
	}
	if err != nil {
		return nil, mapNotFound(err, "Webhook subscription")
	}
	sent := &TestEventSent{EventID: e.ID, EventType: eventType, SubscriptionID: subID}
	if sub, err := s.Store.SubscriptionGet(ctx, partnerID, subID); err == nil {
		sent.PausedSince = sub.PausedAt // read after the sample is queued: a pause since then would not show before
	}
	return sent, nil
}
