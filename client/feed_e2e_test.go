package client_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tradewind/tradewind/client"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

func TestListBookingsFilters(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		ctx := context.Background()
		test, live := sdk(t, env, p.TestKey), sdk(t, env, p.LiveKey)
		q := client.Quote{ProductType: client.ProductActivity, ActivityID: 2001, Date: apitest.Day(2), Adults: 1}
		tb := must(test.Book(ctx, &client.BookRequest{Guest: guest, Quote: q, PartnerReference: "T-1"}))(t)
		q.Date = apitest.Day(9)
		lb := must(live.Book(ctx, &client.BookRequest{Guest: guest, Quote: q, PartnerReference: "L-1"}))(t)

		got := must(live.ListBookings(ctx, 1, 10, client.WithMode("live")))(t)
		if got.Page.Total != 1 || got.Bookings[0].Reference != lb.Reference {
			t.Errorf("live = %+v", got)
		}
		got = must(live.ListBookings(ctx, 0, 0, client.WithPartnerReference("T-1"), client.WithStatus(client.StatusConfirmed),
			client.WithProductType(client.ProductActivity), client.CreatedBetween(apitest.Day(0), apitest.Day(0)),
			client.ServiceBetween(apitest.Day(1), apitest.Day(3))))(t)
		if got.Page.Total != 1 || got.Bookings[0].Reference != tb.Reference {
			t.Errorf("filtered = %+v", got)
		}
		// Several states are any of them.
		total := func(statuses ...string) int {
			return must(live.ListBookings(ctx, 0, 0, client.WithStatus(statuses...)))(t).Page.Total
		}
		if both, confirmed, cancelled := total(client.StatusConfirmed, client.StatusCancelled), total(client.StatusConfirmed),
			total(client.StatusCancelled); both != confirmed+cancelled || confirmed == 0 {
			t.Errorf("confirmed or cancelled: %d, confirmed %d, cancelled %d", both, confirmed, cancelled)
		}
		got = must(live.ListBookings(ctx, 0, 0, client.Matching("l-")))(t)
		if got.Page.Total != 1 || got.Bookings[0].Reference != lb.Reference {
			t.Errorf("matching = %+v", got)
		}
		var refs []string
		for b, err := range live.AllBookings(ctx, client.ServiceBetween(apitest.Day(5), "")) {
			if err != nil {
				t.Fatal(err)
			}
			refs = append(refs, b.Reference)
		}
		if len(refs) != 1 || refs[0] != lb.Reference {
			t.Errorf("AllBookings(service from day 5) = %v", refs)
		}
		_, err := live.ListBookings(ctx, 1, 10, client.WithMode("prod"), client.WithStatus("done"))
		if e, ok := err.(*client.Error); !ok || e.Code != client.CodeBadRequest || len(e.Errors) != 2 {
			t.Errorf("bad filters: %v", err)
		}
	})
}

func TestEventFeedSDK(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		ctx := context.Background()
		c := sdk(t, env, p.TestKey)
		var refs []string
		for i := range 3 {
			b := must(c.Book(ctx, &client.BookRequest{Guest: guest, Quote: client.Quote{ProductType: client.ProductActivity,
				ActivityID: 2001, Date: apitest.Day(2 + i), Adults: 1}}))(t)
			refs = append(refs, b.Reference)
		}
		must(c.CancelBooking(ctx, refs[1], ""))(t)
		var got []string
		cursor := ""
		for ev, err := range c.Events(ctx, "", client.WithEventTypes(client.EventBookingConfirmed, client.EventBookingCancelled)) {
			if err != nil {
				t.Fatal(err)
			}
			b := must(ev.BookingEvent())(t)
			got = append(got, ev.Type+" "+b.Booking.Reference)
			cursor = ev.ID
		}
		want := fmt.Sprint([]string{"booking.confirmed " + refs[0], "booking.confirmed " + refs[1], "booking.confirmed " + refs[2], "booking.cancelled " + refs[1]})
		if fmt.Sprint(got) != want {
			t.Errorf("events = %v, want %v", got, want)
		}
		page := must(c.ListEvents(ctx, "", 2, client.WithBookingReference(refs[1])))(t)
		if len(page.Events) != 2 || page.Meta.HasMore || page.Meta.NextAfter != page.Events[1].ID {
			t.Errorf("by reference = %+v", page)
		}
		ev := must(c.GetEvent(ctx, cursor))(t)
		if ev.Type != client.EventBookingCancelled {
			t.Errorf("GetEvent = %+v", ev)
		}
		// Resuming from the stored cursor yields nothing new, then only what follows.
		for ev, err := range c.Events(ctx, cursor) {
			t.Errorf("after the end: %+v %v", ev, err)
		}
		env.Clock.Advance(31 * 24 * time.Hour)
		for _, err := range c.Events(ctx, cursor) {
			if !client.IsCode(err, client.CodeCursorExpired) {
				t.Errorf("expired cursor: %v", err)
			}
		}
	})
}

func TestScenarioSDK(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		ctx := context.Background()
		c := sdk(t, env, p.TestKey, client.WithRetry(1))
		q := client.Quote{ProductType: client.ProductActivity, ActivityID: 2001, Date: apitest.Day(2), Adults: 1}
		if _, err := c.Prebook(client.WithScenario(ctx, "sold_out"), &q); !client.IsCode(err, client.CodeInvalidQuote) {
			t.Errorf("sold_out: %v", err)
		}
		b := must(c.Book(client.WithScenario(ctx, "on_request; confirm_after=5"), &client.BookRequest{Guest: guest, Quote: q}))(t)
		if b.Status != client.StatusOnRequest {
			t.Errorf("on_request: %+v", b)
		}
		env.Clock.Advance(5 * time.Second)
		if _, err := env.Service.RunSandboxTimers(ctx); err != nil {
			t.Fatal(err)
		}
		if got := must(c.GetBooking(ctx, b.Reference))(t); got.Status != client.StatusConfirmed {
			t.Errorf("after 5 s: %+v", got)
		}
		_, err := c.Ping(client.WithScenario(ctx, "unavailable; retry_after=2"))
		if e, ok := err.(*client.Error); !ok || e.Code != client.CodeServiceUnavailable || e.RetryAfter != 2*time.Second {
			t.Errorf("unavailable: %#v", err)
		}
		if _, err := c.Ping(client.WithScenario(ctx, "nonsense")); !client.IsCode(err, client.CodeBadRequest) {
			t.Errorf("unknown scenario: %v", err)
		}
	})
}
