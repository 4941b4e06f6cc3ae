package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/database"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestWebhookList: the operator lists active subscriptions, of every partner or of one,
// as a table or one JSON document, and never sees their secrets.
func TestWebhookList(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			dsn := o.DSN(t)
			for _, name := range []string{"globex", "acme"} {
				if r := runTradewind(t, dsn, "", "partner", "create", "--name", name); r.err != nil {
					t.Fatal(r.err)
				}
			}
			var empty []booking.OperatorSubscription
			mustJSON(t, dsn, &empty, "webhook", "list")
			if empty == nil || len(empty) != 0 {
				t.Fatalf("webhook list --json with no subscriptions = %v, want []", empty)
			}
			if r := runTradewind(t, dsn, "", "webhook", "list"); r.err != nil || !strings.Contains(r.stdout, "No active webhook subscriptions") {
				t.Errorf("webhook list (empty): %v %q", r.err, r.stdout)
			}

			ctx := context.Background()
			st, err := database.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			created := time.Date(2027, 1, 4, 9, 30, 0, 0, time.UTC)
			subscribe := func(partner, url string, types ...tradewind.EventType) *store.Subscription {
				t.Helper()
				p, err := st.PartnerGetByName(ctx, partner)
				if err != nil {
					t.Fatal(err)
				}
				sub, err := st.SubscriptionCreate(ctx, store.SubscriptionCreateParams{PartnerID: p.ID, URL: url, EventTypes: types,
					Secret: "whsec_do_not_show_" + partner, CreatedAt: created})
				if err != nil {
					t.Fatal(err)
				}
				return sub
			}
			g := subscribe("globex", "https://globex.example/hook", tradewind.EventBookingConfirmed)
			a1 := subscribe("acme", "https://acme.example/one", tradewind.EventBookingConfirmed, tradewind.EventBookingCancelled)
			gone := subscribe("acme", "https://acme.example/deleted", tradewind.EventBookingConfirmed)
			a2 := subscribe("acme", "https://acme.example/two", tradewind.EventAvailabilityChanged)
			acme, _ := st.PartnerGetByName(ctx, "acme")
			if err := st.SubscriptionDelete(ctx, store.SubscriptionDeleteParams{PartnerID: acme.ID, ID: gone.ID, At: created}); err != nil {
				t.Fatal(err)
			}
			st.Close()

			var all []booking.OperatorSubscription
			mustJSON(t, dsn, &all, "webhook", "list")
			if len(all) != 3 || all[0].ID != a1.ID || all[1].ID != a2.ID || all[2].ID != g.ID {
				t.Fatalf("webhook list --json = %+v, want acme's two (oldest first) then globex's", all)
			}
			if s := all[0]; s.Partner != "acme" || s.URL != a1.URL || strings.Join(s.EventTypes, ",") != "booking.confirmed,booking.cancelled" ||
				!s.Active || !s.CreatedAt.Equal(created) {
				t.Errorf("first subscription = %+v", s)
			}
			var one []booking.OperatorSubscription
			mustJSON(t, dsn, &one, "webhook", "list", "--partner", "globex")
			if len(one) != 1 || one[0].ID != g.ID || one[0].Partner != "globex" {
				t.Errorf("webhook list --partner globex = %+v", one)
			}

			r := runTradewind(t, dsn, "", "webhook", "list", "--partner", "acme")
			if r.err != nil || !strings.Contains(r.stdout, "PARTNER") || !strings.Contains(r.stdout, "https://acme.example/two") ||
				!strings.Contains(r.stdout, "booking.confirmed,booking.cancelled") || strings.Contains(r.stdout, "globex") ||
				strings.Contains(r.stdout, "deleted") {
				t.Errorf("webhook list --partner acme: %v\n%s", r.err, r.stdout)
			}
			for _, args := range [][]string{{"webhook", "list"}, {"--json", "webhook", "list"}} {
				if r := runTradewind(t, dsn, "", args...); strings.Contains(r.stdout, "whsec_") {
					t.Errorf("%v shows a secret:\n%s", args, r.stdout)
				}
			}
			if r := runTradewind(t, dsn, "", "webhook", "list", "--partner", "nobody"); r.err == nil || !strings.Contains(r.err.Error(), "nobody") {
				t.Errorf("webhook list of an unknown partner: %v", r.err)
			}
		})
	}
}
