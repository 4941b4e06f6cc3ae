package sqlstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
)

// TestEventFeedReadsThePartnersOwn: a partner's page of the event feed reads the
// partner's events and the shared ones of its products by events_feed (partner,
// position), never every partner's events by position: a partner with two events, among
// another partner's thousands, read them all to find its page.
func TestEventFeedReadsThePartnersOwn(t *testing.T) {
	eachStore(t, func(t *testing.T, s *sqlstore.DB, explain string) {
		ctx := context.Background()
		event := planEvents()
		if err := s.InTx(ctx, func(q store.Querier) error {
			var list []*tradewind.Event
			for range 3000 {
				list = append(list, event(1, tradewind.EventBookingConfirmed, `{"reference":"HTL-AAAAAAAA","product_type":"hotel"}`))
			}
			list = append(list, event(2, tradewind.EventBookingConfirmed, `{"reference":"HTL-BBBBBBBB","product_type":"hotel"}`),
				event(store.FeedPartnerID, tradewind.EventAvailabilityChanged, `{"product_type":"hotel","item_id":1}`))
			for _, e := range list {
				if err := q.EventCreate(ctx, e); err != nil {
					return err
				}
			}
			if n, err := q.EventSequence(ctx, 10000); err != nil || n != len(list) {
				return fmt.Errorf("sequenced %d, %v", n, err)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := s.Analyze(ctx); err != nil {
			t.Fatal(err)
		}
		hotel := []tradewind.ProductType{"hotel"}
		for name, c := range map[string]struct {
			p    store.EventFeedParams
			arms []string // the arms read
		}{
			"own and shared": {store.EventFeedParams{PartnerID: 2, Products: hotel, Limit: 100}, []string{"own", "shared"}},
			"own":            {store.EventFeedParams{PartnerID: 2, Limit: 100}, []string{"own"}},
			// A type filter reads only the arms its types can be in.
			"booking events": {store.EventFeedParams{PartnerID: 2, Products: hotel, Types: []tradewind.EventType{tradewind.EventBookingConfirmed}, Since: planStart, Limit: 100}, []string{"own"}},
			"availability":   {store.EventFeedParams{PartnerID: 2, Products: hotel, Types: []tradewind.EventType{tradewind.EventAvailabilityChanged}, Limit: 100}, []string{"shared"}},
		} {
			p := c.p
			query, args := s.EventFeedQuery(p)
			for _, arm := range []string{"own", "shared"} {
				if strings.Contains(query, "AS "+arm) != slices.Contains(c.arms, arm) {
					t.Errorf("%s: reads the arms of %s, want %v", name, query, c.arms)
				}
			}
			plan := planOf(t, s.SQL(), explain+query, args...)
			if !strings.Contains(plan, "events_feed") || strings.Contains(plan, "events_seq") {
				t.Errorf("%s: the feed is not read by events_feed alone:\n%s", name, plan)
			}
			list, err := s.EventFeed(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			want := len(c.arms) // its booking's event, the hotel's availability: one in each arm
			if len(list) != want {
				t.Errorf("%s: %d events, want %d", name, len(list), want)
			}
		}
	})
}

// TestEventsOfABookingReadByItsReference: the portal's events of one booking are read
// through events_booking_reference, not among all of the partner's events (it matched
// their data's text, a scan that grew with the partner's history), and are the
// booking's own booking events only.
func TestEventsOfABookingReadByItsReference(t *testing.T) {
	eachStore(t, func(t *testing.T, s *sqlstore.DB, explain string) {
		ctx := context.Background()
		event := planEvents()
		var list []*tradewind.Event
		for range 3000 {
			list = append(list, event(1, tradewind.EventBookingConfirmed, `{"reference":"HTL-AAAAAAAA","product_type":"hotel"}`))
		}
		list = append(list,
			event(1, tradewind.EventBookingConfirmed, `{"reference":"HTL-BBBBBBBB","product_type":"hotel"}`),
			event(1, tradewind.EventBookingCancelled, `{"reference":"HTL-BBBBBBBB","product_type":"hotel"}`),
			event(2, tradewind.EventBookingConfirmed, `{"reference":"HTL-BBBBBBBB","product_type":"hotel"}`), // another partner's
			event(store.FeedPartnerID, tradewind.EventAvailabilityChanged, `{"product_type":"hotel","item_id":1}`))
		createEvents(t, s, list)
		if err := s.Analyze(ctx); err != nil {
			t.Fatal(err)
		}
		if plan := planOf(t, s.SQL(), explain+sqlstore.EventsOfBookingSQL, 1, "HTL-BBBBBBBB"); !strings.Contains(plan, "events_booking_reference") {
			t.Errorf("the events of a booking are not read by events_booking_reference:\n%s", plan)
		}
		got, err := s.EventListByBooking(ctx, 1, "HTL-BBBBBBBB")
		if err != nil || len(got) != 2 || got[0].Type != string(tradewind.EventBookingConfirmed) || got[1].Type != string(tradewind.EventBookingCancelled) {
			t.Errorf("events of HTL-BBBBBBBB = %+v, %v; want its confirmation and its cancellation", got, err)
		}
		if got, err := s.EventListByBooking(ctx, 1, ""); err != nil || len(got) != 0 {
			t.Errorf("events of no reference = %+v, %v; want none", got, err)
		}
	})
}
