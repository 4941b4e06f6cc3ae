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
// webhook_deliveries_leased, takes each subscription's first due deliveries from
// webhook_deliveries_subscription_due and locks the ones it takes by their key. With
// thousands of deliveries sent, and a backlog of a partner at its bound (a hanging
// endpoint's), it reads a few rows a subscription, never a table or a backlog whole:
// each dispatcher claims every half-second at least, and at every burst of events.
func TestDeliveryClaimReadsTheFew(t *testing.T) {
	eachStore(t, func(t *testing.T, s *sqlstore.DB, explain string) {
		ctx := context.Background()
		subscribe := func(name string) *tradewind.Partner {
			p := &tradewind.Partner{Name: name, PricingMode: "net", Currency: "EUR", CreditLimit: 10000, RateLimit: 120, CreatedAt: planStart}
			if err := s.PartnerCreate(ctx, p); err != nil {
				t.Fatal(err)
			}
			if _, err := s.SubscriptionCreate(ctx, store.SubscriptionCreateParams{PartnerID: p.ID, URL: "https://" + name + ".example/h",
				EventTypes: []tradewind.EventType{tradewind.EventBookingConfirmed}, Secret: "whsec_" + name, CreatedAt: planStart}); err != nil {
				t.Fatal(err)
			}
			return p
		}
		acme, bravo := subscribe("acme"), subscribe("bravo")
		event := planEvents()
		var list []*tradewind.Event
		for range 4000 {
			list = append(list, event(acme.ID, tradewind.EventBookingConfirmed, `{}`))
		}
		list = append(list, event(bravo.ID, tradewind.EventBookingConfirmed, `{}`))
		createEvents(t, s, list)
		// Most of acme's are sent; of the rest, 1 200 are due and 40 in flight: acme is at
		// its bound of 4, and bravo's one delivery, the newest, is the one to take.
		acmeSub := `(SELECT id FROM webhook_subscriptions WHERE partner_id = $1)`
		for _, step := range []struct {
			sql  string
			args []any
		}{
			{`UPDATE webhook_deliveries SET status = 'succeeded' WHERE id % 10 > 2 AND subscription_id = ` + acmeSub, []any{acme.ID}},
			{`UPDATE webhook_deliveries SET locked_until = $2 WHERE id % 100 = 0 AND subscription_id = ` + acmeSub, []any{acme.ID, planStart.Add(time.Hour)}},
		} {
			if _, err := s.SQL().ExecContext(ctx, step.sql, step.args...); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Analyze(ctx); err != nil {
			t.Fatal(err)
		}
		now := planStart.Add(time.Minute)
		plan := planOf(t, s.SQL(), explain+s.DeliveryClaimSQL(), now, 8, now.Add(time.Minute), "token", 4, 4, now)
		for _, index := range []string{"webhook_deliveries_leased", "webhook_deliveries_subscription_due"} {
			if !strings.Contains(plan, index) {
				t.Errorf("the claim does not read %s:\n%s", index, plan)
			}
		}
		// Neither the table nor the due index read in order of time, which holds every
		// partner's backlog (SQLite says SCAN for a read of every row, PostgreSQL a
		// sequential or bitmap scan).
		for _, whole := range []string{"SCAN webhook_deliveries", "Seq Scan on webhook_deliveries", "Bitmap Heap Scan on webhook_deliveries",
			"webhook_deliveries_due"} {
			if strings.Contains(plan, whole) {
				t.Errorf("the claim reads %q:\n%s", whole, plan)
			}
		}
		got, err := s.DeliveryClaimDue(ctx, store.DeliveryClaimParams{Now: now, Lease: time.Minute, Limit: 8, PerPartner: 4})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Event.PartnerID != bravo.ID {
			t.Errorf("claimed %d deliveries; want bravo's one, acme being at its bound", len(got))
		}
	})
}
