package httpapi

import (
	"fmt"
	"net/http"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
)

func (s *Server) createWebhook(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
	var req booking.SubscriptionRequest
	if err := decodeBody(r, body, &req, false); err != nil {
		return nil, err
	}
	sub, err := s.cfg.Service.CreateSubscription(r.Context(), c, &req)
	if err != nil {
		return nil, err
	}
	return withMessage(http.StatusCreated, "Webhook subscription created. Store its secret now: it is shown only once.", sub), nil
}

func (s *Server) listWebhooks(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	pg, err := queryPage(r)
	if err != nil {
		return nil, err
	}
	list, meta, err := s.cfg.Service.ListSubscriptions(r.Context(), c, pg)
	if err != nil {
		return nil, err
	}
	return &response{Status: http.StatusOK, Data: list, Meta: meta}, nil
}

// WebhookDeleted is the data of DELETE /webhooks/{id}.
type WebhookDeleted struct {
	ID      int64 `json:"id"`
	Deleted bool  `json:"deleted"`
}

func (s *Server) deleteWebhook(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	if err := s.cfg.Service.DeleteSubscription(r.Context(), c, id); err != nil {
		return nil, err
	}
	return withMessage(http.StatusOK, fmt.Sprintf("Webhook subscription %d deleted; nothing more will be delivered to it.", id),
		WebhookDeleted{ID: id, Deleted: true}), nil
}

func (s *Server) listWebhookDeliveries(r *http.Request, c *booking.Caller, _ []byte) (*response, error) {
	id, idErr := pathID(r, "id")
	q, qErr := booking.ParseWebhookDeliveryQuery(r.URL.Query())
	if err := joinInvalid(idErr, qErr); err != nil {
		return nil, err
	}
	list, meta, err := s.cfg.Service.ListWebhookDeliveries(r.Context(), c, id, q)
	if err != nil {
		return nil, err
	}
	return &response{Status: http.StatusOK, Data: list, Meta: meta}, nil
}

func (s *Server) testWebhook(r *http.Request, c *booking.Caller, body []byte) (*response, error) {
	id, idErr := pathID(r, "id")
	var req booking.TestEventRequest
	if err := joinInvalid(idErr, decodeBody(r, body, &req, true)); err != nil {
		return nil, err
	}
	eventType := tradewind.EventBookingConfirmed // absent or null
	if req.EventType != nil {
		eventType = *req.EventType
	}
	sent, err := s.cfg.Service.SendTestEvent(r.Context(), c.Partner.ID, id, eventType)
	if err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("A sample %s event is queued for webhook subscription %d; follow its delivery with GET /webhooks/%d/deliveries and a test key.",
		sent.EventType, id, id)
	if !sent.PausedSince.IsZero() {
		msg = fmt.Sprintf("A sample %s event is queued for webhook subscription %d, which is paused since %s: nothing is sent to it, the sample included, until it is resumed (the portal's Webhooks page).",
			sent.EventType, id, sent.PausedSince.UTC().Format(time.RFC3339))
	}
	return withMessage(http.StatusAccepted, msg, sent), nil
}
