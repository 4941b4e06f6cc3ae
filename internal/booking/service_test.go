package booking_test

import (
	"context"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// liveService returns a service over a fresh database of o holding doc, and the caller
// of a live key of a partner with the given credit limit (a decimal amount).
func liveService(tb testing.TB, o storetest.Opener, clock tradewind.Clock, doc *catalog.Document, limit string) (*booking.Service, *booking.Caller) {
	tb.Helper()
	return liveServiceOver(tb, o.Open(tb), clock, doc, limit)
}

// liveServiceOver is liveService over st, a fresh store (one a test wraps, say).
func liveServiceOver(tb testing.TB, st store.Store, clock tradewind.Clock, doc *catalog.Document, limit string) (*booking.Service, *booking.Caller) {
	tb.Helper()
	ctx := context.Background()
	svc := booking.New(st, clock, nil)
	if _, err := svc.ImportCatalog(ctx, doc); err != nil {
		tb.Fatal(err)
	}
	p, err := svc.CreatePartner(ctx, "p", booking.PartnerParams{CreditLimit: &limit})
	if err != nil {
		tb.Fatal(err)
	}
	k, _, err := svc.IssueKey(ctx, "p", booking.KeyParams{Mode: "live"})
	if err != nil {
		tb.Fatal(err)
	}
	return svc, &booking.Caller{Partner: p, Key: k}
}
