package client

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// Webhook event types.
const (
	EventBookingConfirmed    = "booking.confirmed"    // EventBookingConfirmed is sent when a booking is confirmed.
	EventBookingCancelled    = "booking.cancelled"    // EventBookingCancelled is sent when a booking is cancelled or rejected.
	EventAvailabilityChanged = "availability.changed" // EventAvailabilityChanged is sent when an item's availability or price changes.
)

// WebhookSubscription is a subscription of a URL to event types.
type WebhookSubscription struct {
	ID         int64     `json:"id"`
	URL        string    `json:"url"`
	EventTypes []string  `json:"event_types"`
	Active     bool      `json:"active"`
	CreatedAt  time.Time `json:"created_at"`
	// Secret ("whsec_…") signs the deliveries; it is returned only by CreateWebhook:
	// keep it to verify deliveries with VerifyWebhook or ParseWebhook.
	Secret string `json:"secret,omitempty"`
}

// CreateWebhookRequest is the body of POST /webhooks.
type CreateWebhookRequest struct {
	URL        string   `json:"url"`         // https
	EventTypes []string `json:"event_types"` // Event… constants
}

// ListWebhooks lists the partner's webhook subscriptions (GET /webhooks).
func (c *Client) ListWebhooks(ctx context.Context) ([]WebhookSubscription, error) {
	out := []WebhookSubscription{}
	if err := c.read(ctx, http.MethodGet, "/webhooks", nil, &out, nil); err != nil {
		return nil, err
	}
	return out, nil
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
