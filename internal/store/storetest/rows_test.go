package storetest_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/postgres"
	"github.com/tradewind/tradewind/internal/store/sqlite"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestCorruptPartnerListFailsClosed: a partner row whose allowlist or certificate pins
// cannot be decoded is an error on every read, never a partner without restrictions.
func TestCorruptPartnerListFailsClosed(t *testing.T) {
	for _, o := range storetest.Openers() {
		for _, column := range []string{"allow_ips", "cert_fingerprints"} {
			t.Run(o.Name+"/"+column, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				s := o.Open(t)
				p := &tradewind.Partner{Name: "acme", PricingMode: tradewind.PricingNet, Currency: "EUR", RateLimit: 60,
					AllowIPs: []string{"10.0.0.0/8"}, CertFingerprints: []string{"ab"}, CreatedAt: time.Now()}
				if err := s.PartnerCreate(ctx, p); err != nil {
					t.Fatal(err)
				}
				if _, err := s.SQL().ExecContext(ctx, `UPDATE partners SET `+column+` = '10.0.0.0/8,garbage' WHERE id = $1`, p.ID); err != nil {
					t.Fatal(err)
				}
				if got, err := s.PartnerGetByID(ctx, p.ID); !errors.Is(err, store.ErrCorrupt) || got != nil {
					t.Errorf("PartnerGetByID = %+v, %v; want ErrCorrupt", got, err)
				}
				if _, err := s.PartnerGetByName(ctx, "acme"); !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), column) {
					t.Errorf("PartnerGetByName = %v; want ErrCorrupt naming %s", err, column)
				}
				if l, err := s.PartnerList(ctx); !errors.Is(err, store.ErrCorrupt) || l != nil {
					t.Errorf("PartnerList = %v, %v; want ErrCorrupt", l, err)
				}
				err := s.InTx(ctx, func(q store.Querier) error { _, err := q.PartnerGetByID(ctx, p.ID); return err })
				if !errors.Is(err, store.ErrCorrupt) {
					t.Errorf("PartnerGetByID in a transaction = %v; want ErrCorrupt", err)
				}
			})
		}
	}
}

// TestMigrateListsToJSON writes keys and subscriptions as version 2 stored them
// (comma-joined lists), migrates up and reads them back through the store.
func TestMigrateListsToJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(t *testing.T) (*sql.DB, sqlstore.Dialect)
	}{
		{"sqlite", func(t *testing.T) (*sql.DB, sqlstore.Dialect) {
			db, err := sql.Open("sqlite", "file:"+t.TempDir()+"/old.db?_pragma=foreign_keys(1)")
			if err != nil {
				t.Fatal(err)
			}
			db.SetMaxOpenConns(1)
			return db, sqlite.Dialect
		}},
		{"postgres", func(t *testing.T) (*sql.DB, sqlstore.Dialect) {
			db, err := sql.Open("pgx", storetest.PostgresDSN(t))
			if err != nil {
				t.Fatal(err)
			}
			return db, postgres.Dialect
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, d := tc.open(t)
			t.Cleanup(func() { db.Close() })
			s := sqlstore.New(db, d)
			if err := s.MigrateTo(ctx, 2); err != nil {
				t.Fatal(err)
			}
			now := time.Date(2027, 1, 4, 9, 30, 0, 0, time.UTC)
			exec := func(query string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(ctx, query, args...); err != nil {
					t.Fatalf("%s: %v", query, err)
				}
			}
			exec(`INSERT INTO partners (id, name, pricing_mode, currency, rate_limit, created_at) VALUES (1, 'acme', 'net', 'EUR', 60, $1)`, now)
			exec(`INSERT INTO api_keys (id, partner_id, prefix, hash, mode, scopes, products, created_at) VALUES
				(1, 1, 'tw_live_a', 'h1', 'live', 'catalog:read,booking:write', 'hotel,package', $1),
				(2, 1, 'tw_test_b', 'h2', 'test', 'catalog:read', '', $1)`, now)
			exec(`INSERT INTO webhook_subscriptions (id, partner_id, url, event_types, secret, active, created_at) VALUES
				(1, 1, 'https://a.example/h', 'booking.confirmed,booking.cancelled', 's', TRUE, $1),
				(2, 1, 'https://b.example/h', 'availability.changed', 's', TRUE, $1)`, now)
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}

			keys, err := s.KeyListByPartner(ctx, 1)
			if err != nil || len(keys) != 2 {
				t.Fatalf("KeyListByPartner = %v, %v", keys, err)
			}
			if !slices.Equal(keys[0].Scopes, []tradewind.Scope{"catalog:read", "booking:write"}) ||
				!slices.Equal(keys[0].Products, []tradewind.ProductType{"hotel", "package"}) {
				t.Errorf("key 1 = %v %v", keys[0].Scopes, keys[0].Products)
			}
			if !slices.Equal(keys[1].Scopes, []tradewind.Scope{"catalog:read"}) || len(keys[1].Products) != 0 {
				t.Errorf("key 2 = %v %v", keys[1].Scopes, keys[1].Products)
			}
			subs, err := s.SubscriptionList(ctx, 1)
			if err != nil || len(subs) != 2 || !slices.Equal(subs[0].EventTypes, []tradewind.EventType{"booking.confirmed", "booking.cancelled"}) ||
				!slices.Equal(subs[1].EventTypes, []tradewind.EventType{"availability.changed"}) {
				t.Fatalf("SubscriptionList = %+v, %v", subs, err)
			}
			// The migrated lists are searched: an event reaches exactly the subscriptions to its type.
			if ids, err := s.SubscriberPartnerIDs(ctx, "booking.cancelled"); err != nil || !slices.Equal(ids, []int64{1}) {
				t.Errorf("SubscriberPartnerIDs(booking.cancelled) = %v, %v", ids, err)
			}
			if ids, err := s.SubscriberPartnerIDs(ctx, "booking"); err != nil || len(ids) != 0 {
				t.Errorf("SubscriberPartnerIDs(booking) = %v, %v; a prefix is no match", ids, err)
			}
			if err := s.EventCreate(ctx, &tradewind.Event{ID: "evt_1", PartnerID: 1, Type: tradewind.EventBookingCancelled, Data: []byte(`{}`), CreatedAt: now}); err != nil {
				t.Fatal(err)
			}
			ds, err := s.DeliveryList(ctx, store.DeliveryFilter{EventID: "evt_1"})
			if err != nil || len(ds) != 1 {
				t.Fatalf("deliveries of evt_1 = %d, %v; want 1 (subscription 1 only)", len(ds), err)
			}
		})
	}
}
