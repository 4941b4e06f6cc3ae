package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Webhook event types.
const (
	EventBookingConfirmed    = "booking.confirmed"    // EventBookingConfirmed is sent when a booking is confirmed.
	EventBookingCancelled    = "booking.cancelled"    // EventBookingCancelled is sent when a booking is cancelled or rejected.
	EventAvailabilityChanged = "availability.changed" // EventAvailabilityChanged is sent when an item's availability or price changes.
)

// WebhookSubscription is a subscription of an https URL to event types.
type WebhookSubscription struct {
	ID         int64     `json:"id"`
	URL        string    `json:"url"`
	EventTypes []string  `json:"event_types"`
	Active     bool      `json:"active"`
	CreatedAt  time.Time `json:"created_at"`
	// Secret ("whsec_…") signs the deliveries; it is returned only by CreateWebhook:
	// keep it to verify deliveries with VerifyWebhook or ParseWebhook.
	Secret string `json:"secret,omitempty"`
	// PausedAt is set while the subscription is paused: nothing is delivered until it is
	// resumed. PauseReason is "failing" when every delivery failed for 3 days, else
	// "operator" or "partner". Catch up with Events meanwhile.
	PausedAt    *time.Time `json:"paused_at,omitempty"`
	PauseReason string     `json:"pause_reason,omitempty"`
}

// CreateWebhookRequest is the body of POST /webhooks.
type CreateWebhookRequest struct {
	URL        string   `json:"url"`         // https
	EventTypes []string `json:"event_types"` // Event… constants
}

// ListWebhooks lists the partner's active webhook subscriptions, oldest first, without
// their secrets (GET /webhooks, every page).
func (c *Client) ListWebhooks(ctx context.Context) ([]WebhookSubscription, error) {
	out := []WebhookSubscription{}
	for page := 1; ; page++ {
		var subs []WebhookSubscription
		var meta Page
		path := "/webhooks?page=" + strconv.Itoa(page) + "&per_page=100"
		if err := c.read(ctx, http.MethodGet, path, nil, &subs, &meta); err != nil {
			return nil, err
		}
		out = append(out, subs...)
		if page >= meta.TotalPages || len(subs) == 0 {
			return out, nil
		}
	}
}

// CreateWebhook subscribes a URL to event types (POST /webhooks); the result holds the
// subscription's signing Secret, shown only now. An invalid URL or event type gives an
// *Error with CodeValidationFailed. It is not retried after a network error.
func (c *Client) CreateWebhook(ctx context.Context, req *CreateWebhookRequest) (*WebhookSubscription, error) {
	var out WebhookSubscription
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/webhooks", body: req}, &out, nil)
	return orNil(&out, err)
}

// DeleteWebhook deletes a webhook subscription (DELETE /webhooks/{id}); an unknown id
// gives an *Error with CodeNotFound. It is not retried after a network error.
func (c *Client) DeleteWebhook(ctx context.Context, id int64) error {
	_, err := c.do(ctx, call{method: http.MethodDelete, path: "/webhooks/" + strconv.FormatInt(id, 10)}, nil, nil)
	return err
}

// TestEventSent is the sample event SendTestEvent queued.
type TestEventSent struct {
	EventID        string `json:"event_id"`
	EventType      string `json:"event_type"`
	SubscriptionID int64  `json:"subscription_id"`
}

// SendTestEvent queues a sample event of eventType (EventBookingConfirmed, … ; "" for
// booking.confirmed) for the subscription id only (POST /webhooks/{id}/test): it is
// delivered signed as every event is, with TestEvent set in its envelope, so that a
// partner's own tests can check its endpoint and signature check; its delivery is listed
// for test keys (ListWebhookDeliveries). It is not retried after a network error.
func (c *Client) SendTestEvent(ctx context.Context, id int64, eventType string) (*TestEventSent, error) {
	var body any
	if eventType != "" {
		body = map[string]string{"event_type": eventType}
	}
	var out TestEventSent
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/webhooks/" + strconv.FormatInt(id, 10) + "/test", body: body}, &out, nil)
	return orNil(&out, err)
}

// Delivery states.
const (
	DeliveryPending   = "pending"   // DeliveryPending waits for its first attempt or a retry.
	DeliverySucceeded = "succeeded" // DeliverySucceeded was acknowledged with a 2xx.
	DeliveryFailed    = "failed"    // DeliveryFailed spent its retries, or its subscription was deleted first.
)

// WebhookDelivery is one event's delivery to a subscription, with every attempt.
type WebhookDelivery struct {
	ID        int64  `json:"id"`
	EventID   string `json:"event_id"` // the X-Partner-Event-Id of every attempt
	EventType string `json:"event_type"`
	TestEvent bool   `json:"test_event"` // a sample event's delivery (SendTestEvent)
	Status    string `json:"status"`     // Delivery… constants
	Attempts  int    `json:"attempts"`
	// NextAttemptAt is when a pending delivery is next due; nil once it succeeded or failed.
	NextAttemptAt *time.Time       `json:"next_attempt_at"`
	LastError     string           `json:"last_error"` // "" when the last attempt was acknowledged, or none was made
	CreatedAt     time.Time        `json:"created_at"`
	UpdatedAt     time.Time        `json:"updated_at"`
	AttemptLog    []WebhookAttempt `json:"attempt_log"` // oldest first
}

// WebhookAttempt is one attempt of a delivery.
type WebhookAttempt struct {
	AttemptedAt time.Time `json:"attempted_at"`
	StatusCode  int       `json:"status_code"` // 0 when no HTTP answer came (a timeout, a refused connection)
	DurationMS  int64     `json:"duration_ms"`
	Error       string    `json:"error"` // why it failed; "" when it was acknowledged
	// ResponseExcerpt is the start of the answer's body (at most 512 bytes).
	ResponseExcerpt string `json:"response_excerpt"`
}

// DeliveryPage is one page of a subscription's deliveries, newest first.
type DeliveryPage struct {
	Deliveries []WebhookDelivery
	Meta       DeliveryPageMeta
}

// DeliveryPageMeta is the keyset paging of a subscription's deliveries.
type DeliveryPageMeta struct {
	PerPage int  `json:"per_page"`
	HasMore bool `json:"has_more"` // older deliveries follow
	// NextBefore is the before of the next, older page; 0 on the last page.
	NextBefore int64 `json:"next_before"`
}

// DeliveryOption narrows a subscription's deliveries.
type DeliveryOption func(url.Values)

// WithDeliveryStatus keeps the deliveries in one state (DeliveryPending, …).
func WithDeliveryStatus(status string) DeliveryOption {
	return func(q url.Values) { q.Set("status", status) }
}

// WithDeliveryEvent keeps the deliveries of one event (evt_…).
func WithDeliveryEvent(eventID string) DeliveryOption {
	return func(q url.Values) { q.Set("event_id", eventID) }
}

// ListWebhookDeliveries reads one page of the deliveries to the partner's subscription
// id, newest first, each with its attempts (GET /webhooks/{id}/deliveries): those of
// test events with a test key, the others with a live key. before is a delivery id
// (the previous page's Meta.NextBefore; 0 from the newest); perPage 0 takes the
// server's default (25, at most 100). An unknown, deleted or another partner's
// subscription gives an *Error with CodeNotFound.
func (c *Client) ListWebhookDeliveries(ctx context.Context, id, before int64, perPage int, opts ...DeliveryOption) (*DeliveryPage, error) {
	if before > 0 {
		opts = append(opts[:len(opts):len(opts)], func(q url.Values) { q.Set("before", strconv.FormatInt(before, 10)) })
	}
	path := pagedPath("/webhooks/"+strconv.FormatInt(id, 10)+"/deliveries", opts, 0, perPage)
	out := DeliveryPage{Deliveries: []WebhookDelivery{}}
	return orNil(&out, c.read(ctx, http.MethodGet, path, nil, &out.Deliveries, &out.Meta))
}
