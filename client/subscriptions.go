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
