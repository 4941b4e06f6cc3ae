package sqlstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
)

// TestDeliveryClaimReadsTheFew: a delivery claim counts the leases in flight through
// webhook_deliveries_leased, finds the due ones in the order of webhook_deliveries_due
// and locks the ones it takes by their key, so that with thousands of deliveries sent
// and a backlog pending it reads no more than its window; each dispatcher claims every
// half-second at least, and at every burst of events.
func TestDeliveryClaimReadsTheFew(t *testing.T) {
	eachStore(t, func(t *testing.T, s *sqlstore.DB, explain string) {
		ctx := context.Background()
		p := &tradewind.Partner{Name: "acme", PricingMode: "net", Currency: "EUR", CreditLimit: 10000, RateLimit: 120, CreatedAt: planStart}
		if err := s.PartnerCreate(ctx, p); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SubscriptionCreate(ctx, store.SubscriptionCreateParams{PartnerID: p.ID, URL: "https://a.example/h",
			EventTypes: []tradewind.EventType{tradewind.EventBookingConfirmed}, Secret: "whsec_a", CreatedAt: planStart}); err != nil {
			t.Fatal(err)
		}
		event := planEvents()
		var list []*tradewind.Event
		for range 4000 {
			list = append(list, event(p.ID, tradewind.EventBookingConfirmed, `{}`))
		}
		createEvents(t, s, list)
		// Most are sent; of the rest, a few are in flight and the others due later.
		if _, err := s.SQL().ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'succeeded' WHERE id % 10 > 2`); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SQL().ExecContext(ctx, `UPDATE webhook_deliveries SET locked_until = $1 WHERE id % 100 = 0`, planStart.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.Analyze(ctx); err != nil {
			t.Fatal(err)
		}
		now := planStart.Add(time.Minute)
		plan := planOf(t, s.SQL(), explain+s.DeliveryClaimSQL(), now, 8, now.Add(time.Minute), "token", 4, 256)
		for _, index := range []string{"webhook_deliveries_leased", "webhook_deliveries_due"} {
			if !strings.Contains(plan, index) {
				t.Errorf("the claim does not read %s:\n%s", index, plan)
			}
		}
		// Neither the table nor a subscription's pending deliveries read whole (SQLite
		// says SCAN, PostgreSQL a sequential or bitmap scan, for a read of every row).
		for _, whole := range []string{"SCAN webhook_deliveries", "Seq Scan on webhook_deliveries", "Bitmap Heap Scan on webhook_deliveries"} {
			if strings.Contains(plan, whole) {
				t.Errorf("the claim reads %q:\n%s", whole, plan)
			}
		}
	})
}
