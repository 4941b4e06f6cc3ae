package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tradewind/tradewind/client"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

func TestWebhookDeliveriesSDK(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		ctx := context.Background()
		c := sdk(t, env, p.TestKey)
		sub := must(c.CreateWebhook(ctx, &client.CreateWebhookRequest{URL: "https://partner.example.com/hooks",
			EventTypes: []string{client.EventBookingConfirmed, client.EventBookingCancelled}}))(t)
		var refs []string
		for i := range 2 {
			b := must(c.Book(ctx, &client.BookRequest{Guest: guest, Quote: client.Quote{ProductType: client.ProductActivity,
				ActivityID: 2001, Date: apitest.Day(2 + i), Adults: 1}}))(t)
			refs = append(refs, b.Reference)
		}
		must(c.CancelBooking(ctx, refs[1], ""))(t)
		// The confirmations time out; the cancellation is acknowledged.
		now := env.Clock.Now()
		env.AnswerDue(t, func(d *store.ClaimedDelivery) store.DeliveryAttemptParams {
			if d.Event.Type == client.EventBookingCancelled {
				return store.DeliveryAttemptParams{StatusCode: 200, ResponseSnippet: "ok", Duration: 7 * time.Millisecond, Status: store.DeliverySucceeded}
			}
			return store.DeliveryAttemptParams{Error: "timeout after 10s", Duration: 10 * time.Second, Status: store.DeliveryPending, NextAttemptAt: now.Add(time.Minute)}
		})

		page := must(c.ListWebhookDeliveries(ctx, sub.ID, 0, 2))(t)
		if len(page.Deliveries) != 2 || !page.Meta.HasMore || page.Meta.PerPage != 2 || page.Meta.NextBefore != page.Deliveries[1].ID {
			t.Fatalf("page 1 = %+v", page)
		}
		ok, waiting := page.Deliveries[0], page.Deliveries[1]
		if ok.EventType != client.EventBookingCancelled || ok.Status != client.DeliverySucceeded || ok.Attempts != 1 || ok.NextAttemptAt != nil ||
			ok.LastError != "" || len(ok.AttemptLog) != 1 || ok.AttemptLog[0].StatusCode != 200 || ok.AttemptLog[0].ResponseExcerpt != "ok" ||
			ok.AttemptLog[0].DurationMS != 7 || ok.AttemptLog[0].Error != "" {
			t.Errorf("acknowledged delivery = %+v", ok)
		}
		if waiting.EventType != client.EventBookingConfirmed || waiting.Status != client.DeliveryPending || waiting.NextAttemptAt == nil ||
			!waiting.NextAttemptAt.Equal(now.Add(time.Minute)) || waiting.LastError != "timeout after 10s" || len(waiting.AttemptLog) != 1 ||
			waiting.AttemptLog[0].StatusCode != 0 || waiting.AttemptLog[0].DurationMS != 10000 || !waiting.AttemptLog[0].AttemptedAt.Equal(now) {
			t.Errorf("waiting delivery = %+v", waiting)
		}
		last := must(c.ListWebhookDeliveries(ctx, sub.ID, page.Meta.NextBefore, 2))(t)
		if len(last.Deliveries) != 1 || last.Meta.HasMore || last.Meta.NextBefore != 0 || last.Deliveries[0].EventType != client.EventBookingConfirmed {
			t.Errorf("page 2 = %+v", last)
		}
		if got := must(c.ListWebhookDeliveries(ctx, sub.ID, 0, 0, client.WithDeliveryStatus(client.DeliveryPending)))(t); len(got.Deliveries) != 2 || got.Meta.PerPage != 25 {
			t.Errorf("pending = %+v", got)
		}
		if got := must(c.ListWebhookDeliveries(ctx, sub.ID, 0, 0, client.WithDeliveryEvent(ok.EventID)))(t); len(got.Deliveries) != 1 || got.Deliveries[0].ID != ok.ID {
			t.Errorf("by event = %+v", got)
		}
		// A live key sees no test delivery; another partner sees no subscription.
		if got := must(sdk(t, env, p.LiveKey).ListWebhookDeliveries(ctx, sub.ID, 0, 0))(t); len(got.Deliveries) != 0 {
			t.Errorf("live = %+v", got)
		}
		other := env.NewPartner("globex", booking.PartnerParams{})
		if _, err := sdk(t, env, other.TestKey).ListWebhookDeliveries(ctx, sub.ID, 0, 0); !client.IsCode(err, client.CodeNotFound) {
			t.Errorf("another partner's subscription: %v", err)
		}
		_, err := c.ListWebhookDeliveries(ctx, sub.ID, 0, 101, client.WithDeliveryStatus("sent"))
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Code != client.CodeBadRequest || len(apiErr.Errors) != 2 {
			t.Errorf("bad query (per_page and status): %v", err)
		}
	})
}

// TestSendTestEventSDK: SendTestEvent queues a sample for one subscription, listed among
// its deliveries for a test key; an unknown subscription is CodeNotFound.
func TestSendTestEventSDK(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		ctx := context.Background()
		c := sdk(t, env, p.TestKey)
		sub := must(c.CreateWebhook(ctx, &client.CreateWebhookRequest{URL: "https://partner.example.com/hooks",
			EventTypes: []string{client.EventBookingConfirmed}}))(t)
		sent := must(c.SendTestEvent(ctx, sub.ID, client.EventBookingCancelled))(t)
		if sent.EventType != client.EventBookingCancelled || sent.SubscriptionID != sub.ID || sent.EventID == "" {
			t.Fatalf("sent = %+v", sent)
		}
		if def := must(c.SendTestEvent(ctx, sub.ID, ""))(t); def.EventType != client.EventBookingConfirmed {
			t.Errorf("default event type %q", def.EventType)
		}
		page := must(c.ListWebhookDeliveries(ctx, sub.ID, 0, 0))(t)
		if len(page.Deliveries) != 2 || page.Deliveries[1].EventID != sent.EventID || page.Deliveries[1].Status != client.DeliveryPending ||
			!page.Deliveries[1].TestEvent {
			t.Errorf("deliveries = %+v", page.Deliveries)
		}
		if _, err := c.SendTestEvent(ctx, 999999, ""); !client.IsCode(err, client.CodeNotFound) {
			t.Errorf("unknown subscription: %v", err)
		}
	})
}
