package client

import (
	"encoding/json"
	"fmt"
	"time"
)

// BookingEventData is the data of booking.confirmed and booking.cancelled.
type BookingEventData struct {
	Reference        string `json:"reference"`
	PartnerReference string `json:"partner_reference"` // "" when the booking was made without one
	Status           string `json:"status"`
	TotalPrice       Amount `json:"total_price"`
	Currency         string `json:"currency"`
	Test             bool   `json:"test"` // made with a test key
	ProductType      string `json:"product_type"`
	// Reason, Note and CancelledAt are set on booking.cancelled only: Reason is the
	// partner's reason, "cancelled_by_partner", or "supplier_rejected"; Note is the
	// supplier's explanation of a rejection.
	Reason      string    `json:"reason,omitempty"`
	Note        string    `json:"note,omitempty"`
	CancelledAt time.Time `json:"cancelled_at,omitzero"`
}

// AvailabilityEventData is the data of availability.changed: the item and the first and
// last affected days (YYYY-MM-DD, inclusive).
type AvailabilityEventData struct {
	ProductType string `json:"product_type"`
	ItemID      int64  `json:"item_id"`
	Start       string `json:"start"`
	End         string `json:"end"`
}

// BookingEvent is a booking.confirmed or booking.cancelled event with its data decoded.
type BookingEvent struct {
	WebhookEvent
	Booking BookingEventData
}

// AvailabilityEvent is an availability.changed event with its data decoded.
type AvailabilityEvent struct {
	WebhookEvent
	Availability AvailabilityEventData
}

// BookingEvent decodes the data of a booking.confirmed or booking.cancelled event.
func (e *WebhookEvent) BookingEvent() (*BookingEvent, error) {
	if e.Type != EventBookingConfirmed && e.Type != EventBookingCancelled {
		return nil, fmt.Errorf("%w: %s is not a booking event", ErrWebhookMalformed, e.Type)
	}
	out := &BookingEvent{WebhookEvent: *e}
	if err := json.Unmarshal(e.Data, &out.Booking); err != nil {
		return nil, fmt.Errorf("%w: %s data: %v", ErrWebhookMalformed, e.Type, err)
	}
	return out, nil
}

// AvailabilityEvent decodes the data of an availability.changed event.
func (e *WebhookEvent) AvailabilityEvent() (*AvailabilityEvent, error) {
	if e.Type != EventAvailabilityChanged {
		return nil, fmt.Errorf("%w: %s is not availability.changed", ErrWebhookMalformed, e.Type)
	}
	out := &AvailabilityEvent{WebhookEvent: *e}
	if err := json.Unmarshal(e.Data, &out.Availability); err != nil {
		return nil, fmt.Errorf("%w: %s data: %v", ErrWebhookMalformed, e.Type, err)
	}
	return out, nil
}
