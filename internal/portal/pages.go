package portal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/security"
	"github.com/tradewind/tradewind/internal/store"
)

// Mode is the test/live switch: "live" unless "test".
func Mode(raw string) tradewind.Mode {
	if raw == string(tradewind.ModeTest) {
		return tradewind.ModeTest
	}
	return tradewind.ModeLive
}

// Overview is the first page's figures.
type Overview struct {
	Partner         *tradewind.Partner
	Bookings24h     int
	Bookings30d     int
	PendingBookings int
	FailingHooks    []*store.Subscription // endpoints with a failed delivery in the last 24 hours
	Requests        RequestFigures        // from the usage counters
}

// Overview gathers the Overview page for the member's partner in mode.
func (s *Service) Overview(ctx context.Context, m *Member, mode tradewind.Mode) (*Overview, error) {
	p, err := s.store.PartnerGetByID(ctx, m.Partner.ID) // fresh credit figures
	if err != nil {
		return nil, err
	}
	now := s.now()
	test := mode == tradewind.ModeTest
	o := &Overview{Partner: p}
	for _, c := range []struct {
		into *int
		f    store.BookingFilter
	}{
		{&o.Bookings24h, store.BookingFilter{PartnerID: p.ID, Test: &test, CreatedFrom: now.Add(-24 * time.Hour)}},
		{&o.Bookings30d, store.BookingFilter{PartnerID: p.ID, Test: &test, CreatedFrom: now.AddDate(0, 0, -30)}},
		{&o.PendingBookings, store.BookingFilter{PartnerID: p.ID, Test: &test,
			Statuses: []store.StatusTerm{{Status: tradewind.StatusPending}, {Status: tradewind.StatusOnRequest}}}},
	} {
		if *c.into, err = s.store.BookingCount(ctx, c.f); err != nil {
			return nil, err
		}
	}
	if o.Requests, err = s.requestFigures(ctx, p.ID, mode); err != nil {
		return nil, err
	}
	failed, err := s.store.DeliveryList(ctx, store.DeliveryFilter{PartnerID: p.ID, Status: store.DeliveryFailed, Limit: 200})
	if err != nil {
		return nil, err
	}
	seen := map[int64]bool{}
	for _, d := range failed {
		if d.UpdatedAt.Before(now.Add(-24*time.Hour)) || seen[d.SubscriptionID] {
			continue
		}
		seen[d.SubscriptionID] = true
		if sub, err := s.store.SubscriptionGet(ctx, p.ID, d.SubscriptionID); err == nil {
			o.FailingHooks = append(o.FailingHooks, sub)
		}
	}
	return o, nil
}

// Bookings returns a page of the member's bookings matching f (booking.ParseBookingFilter,
// as GET /bookings) with ids below beforeID: keyset paging, next is the cursor of the
// following page, 0 on the last one.
func (s *Service) Bookings(ctx context.Context, m *Member, f booking.BookingFilter, beforeID int64) (list []*tradewind.Booking, next int64, err error) {
	return s.booking.FindBookingsBefore(ctx, m.Partner.ID, f, beforeID, PageSize)
}

// ExportLimit bounds a CSV export.
const ExportLimit = 10000

// ExportBookings returns up to ExportLimit of the member's bookings matching f.
func (s *Service) ExportBookings(ctx context.Context, m *Member, f booking.BookingFilter) ([]*tradewind.Booking, error) {
	list, _, err := s.booking.FindBookingsBefore(ctx, m.Partner.ID, f, 0, ExportLimit)
	return list, err
}

// BookingDetail is a booking's page: the booking, its events (the timeline) and the
// webhook deliveries they caused, each with its attempts.
type BookingDetail struct {
	Booking    *tradewind.Booking
	Events     []*store.EventRow
	Deliveries []*DeliveryDetail
	// Readable parts (booking_detail.go).
	Status     tradewind.BookingStatus // as shown now: completed once the service ended
	Guest      booking.Guest
	Facts      []BookingFact // what was booked, labelled, items by name
	Travellers []booking.Traveller
	Timeline   []TimelineEntry
}

// DeliveryDetail is a delivery with every attempt, oldest first (booking.DeliveriesWithAttempts).
type DeliveryDetail = booking.DeliveryDetail

// Booking returns the member's booking. 404 when absent or another partner's.
func (s *Service) Booking(ctx context.Context, m *Member, reference string) (*BookingDetail, error) {
	b, err := s.store.BookingGetByReference(ctx, m.Partner.ID, booking.CanonicalReference(reference))
	if err != nil || b.PartnerID != m.Partner.ID {
		return nil, notFound("Booking")
	}
	events, err := s.store.EventListByBooking(ctx, m.Partner.ID, b.Reference)
	if err != nil {
		return nil, err
	}
	d := &BookingDetail{Booking: b}
	for _, e := range events { // the booking's own: matched by reference in the store
		d.Events = append(d.Events, e)
		ds, err := s.store.DeliveryList(ctx, store.DeliveryFilter{PartnerID: m.Partner.ID, EventID: e.ID, Limit: PageSize})
		if err != nil {
			return nil, err
		}
		withAttempts, err := s.booking.DeliveriesWithAttempts(ctx, ds)
		if err != nil {
			return nil, err
		}
		d.Deliveries = append(d.Deliveries, withAttempts...)
	}
	s.describe(ctx, d)
	return d, nil
}

// CancelBooking cancels the member's booking through the API's one cancel: the same
// rules, inventory and credit released, booking.cancelled emitted; and audits it.
func (s *Service) CancelBooking(ctx context.Context, m *Member, reference, addr string) error {
	b, err := s.store.BookingGetByReference(ctx, m.Partner.ID, booking.CanonicalReference(reference))
	if err != nil || b.PartnerID != m.Partner.ID {
		return notFound("Booking")
	}
	mode := tradewind.ModeLive
	if b.Test {
		mode = tradewind.ModeTest
	}
	if _, err := s.booking.Cancel(ctx, booking.PortalCaller(m.Partner, mode), b.Reference, ""); err != nil {
		return err
	}
	s.audit(ctx, nil, m.Partner.ID, m.User.Email, "booking.cancelled", b.Reference, addr)
	return nil
}

// Ledger returns a page of the member's credit ledger (live only: test bookings draw
// no credit), newest first, older than entry beforeID (0: the newest); next is the
// cursor of the following page, 0 on the last one.
func (s *Service) Ledger(ctx context.Context, m *Member, beforeID int64) (list []*store.LedgerEntry, next int64, err error) {
	list, err = s.store.CreditLedgerList(ctx, store.LedgerQuery{PartnerID: m.Partner.ID, BeforeID: beforeID, Limit: PageSize + 1})
	if len(list) > PageSize {
		list = list[:PageSize]
		next = list[PageSize-1].ID
	}
	return list, next, err
}

// Keys returns the member's partner's API keys (never their secrets, which are not stored).
func (s *Service) Keys(ctx context.Context, m *Member) ([]*tradewind.APIKey, error) {
	return s.store.KeyListByPartner(ctx, m.Partner.ID)
}

// Subscriptions returns the partner's active webhook subscriptions.
func (s *Service) Subscriptions(ctx context.Context, m *Member) ([]*store.Subscription, error) {
	return s.store.SubscriptionList(ctx, m.Partner.ID)
}

// CreateSubscription subscribes a url with the API's rules; the secret is in the
// result, shown once.
func (s *Service) CreateSubscription(ctx context.Context, m *Member, url string, types []string, addr string) (*booking.SubscriptionView, error) {
	v, err := s.booking.CreateSubscription(ctx, booking.PortalCaller(m.Partner, tradewind.ModeLive),
		&booking.SubscriptionRequest{URL: url, EventTypes: types})
	if err != nil {
		return nil, err
	}
	s.audit(ctx, nil, m.Partner.ID, m.User.Email, "webhook.created", url, addr)
	return v, nil
}

// DeleteSubscription deletes the partner's subscription with the API's rules.
func (s *Service) DeleteSubscription(ctx context.Context, m *Member, id int64, addr string) error {
	if err := s.booking.DeleteSubscription(ctx, booking.PortalCaller(m.Partner, tradewind.ModeLive), id); err != nil {
		return err
	}
	s.audit(ctx, nil, m.Partner.ID, m.User.Email, "webhook.deleted", "", addr)
	return nil
}

// PauseSubscription pauses the partner's subscription (reason "partner") with the API's
// and the CLI's rules; the partner's audit log records it. 404 for another partner's.
func (s *Service) PauseSubscription(ctx context.Context, m *Member, id int64, addr string) error {
	return s.booking.PauseSubscription(ctx, m.Partner.ID, id, booking.PauseReasonPartner, booking.Actor{Name: m.User.Email, Addr: addr})
}

// ResumeSubscription resumes the partner's paused subscription as the CLI does: what
// waited is due, what failed meanwhile is redelivered. It returns how many deliveries
// are due; the audit log records it. 404 for another partner's.
func (s *Service) ResumeSubscription(ctx context.Context, m *Member, id int64, addr string) (int, error) {
	return s.booking.ResumeSubscription(ctx, m.Partner.ID, id, booking.Actor{Name: m.User.Email, Addr: addr})
}

// SubscriptionDeliveries is a subscription's page: it and a page of its deliveries.
type SubscriptionDeliveries = booking.DeliveryPage

// Deliveries returns the partner's subscription with a page of its deliveries of mode
// (those of test bookings and sample events, or the others) older than beforeID (0:
// newest), as the API's GET /webhooks/{id}/deliveries reads them. 404 for another
// partner's subscription.
func (s *Service) Deliveries(ctx context.Context, m *Member, subID int64, mode tradewind.Mode, beforeID int64) (*SubscriptionDeliveries, error) {
	return s.booking.SubscriptionDeliveries(ctx, m.Partner.ID, subID, mode == tradewind.ModeTest,
		booking.WebhookDeliveryQuery{Before: beforeID, PerPage: PageSize})
}

// Redeliver makes the partner's event due again for every subscription that had it.
// 404 for another partner's event.
func (s *Service) Redeliver(ctx context.Context, m *Member, eventID, addr string) (int, error) {
	if len(eventID) > 64 {
		return 0, notFound("Event")
	}
	if _, err := s.store.EventGet(ctx, m.Partner.ID, eventID); err != nil {
		return 0, mapNotFound(err, "Event")
	}
	n, err := s.store.DeliveryRedeliver(ctx, store.DeliveryRedeliverParams{EventID: eventID, Now: s.now()})
	if err != nil {
		return 0, mapNotFound(err, "Event")
	}
	s.audit(ctx, nil, m.Partner.ID, m.User.Email, "webhook.redelivered", eventID, addr)
	return n, nil
}

// SendTestEvent sends a sample event of eventType to the partner's subscription only
// (booking.Service.SendTestEvent, as the API's POST /webhooks/{id}/test); its envelope
// carries "test_event": true. It returns the event's id.
func (s *Service) SendTestEvent(ctx context.Context, m *Member, subID int64, eventType, addr string) (string, error) {
	// The form always names a type: "" is not the API's default, and an unknown one is
	// the form's error.
	sent, err := s.booking.SendTestEvent(ctx, m.Partner.ID, subID, tradewind.EventType(eventType))
	if te := (*tradewind.Error)(nil); eventType == "" || errors.As(err, &te) && te.Code == tradewind.ECodeBadRequest {
		return "", invalid("event type: one of booking.confirmed, booking.cancelled, availability.changed")
	}
	if err != nil {
		return "", err
	}
	s.audit(ctx, nil, m.Partner.ID, m.User.Email, "webhook.test_event", eventType+" "+sent.EventID, addr)
	return sent.EventID, nil
}

// SecretOverlap is how long a rolled webhook secret signs beside the old one.
const SecretOverlap = 24 * time.Hour

// RollSecret gives the partner's subscription a new secret, returned once: for
// SecretOverlap every delivery carries X-Partner-Signature made with the old secret and
// X-Partner-Signature-Next made with the new one; then the new one alone signs
// X-Partner-Signature. 404 for another partner's subscription.
func (s *Service) RollSecret(ctx context.Context, m *Member, subID int64, addr string) (string, time.Time, error) {
	secret, err := security.GenerateSecret(security.SecretPrefixWebhook)
	if err != nil {
		return "", time.Time{}, err
	}
	now := s.now()
	from := now.Add(SecretOverlap)
	if err := s.store.SubscriptionRollSecret(ctx, m.Partner.ID, subID, secret, now, from); err != nil {
		return "", time.Time{}, mapNotFound(err, "Webhook subscription")
	}
	s.audit(ctx, nil, m.Partner.ID, m.User.Email, "webhook.secret_rolled", fmt.Sprint(subID), addr)
	return secret, from, nil
}
