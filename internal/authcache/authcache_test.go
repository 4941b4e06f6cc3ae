package authcache_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/authcache"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/database"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

var now = time.Date(2027, 1, 4, 9, 30, 0, 0, time.UTC)

// twoHandles opens one fresh database twice: the server's handle and another process's.
func twoHandles(t *testing.T, o storetest.Opener) (server, other *sqlstore.DB) {
	t.Helper()
	dsn := o.DSN(t)
	for _, h := range []**sqlstore.DB{&server, &other} {
		st, err := database.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		*h = st
	}
	return server, other
}

func seed(t *testing.T, st store.Store) (*tradewind.Partner, *tradewind.APIKey) {
	t.Helper()
	ctx := context.Background()
	p := &tradewind.Partner{Name: "acme", PricingMode: "net", Currency: "EUR", CreditLimit: 10000, RateLimit: 120, CreatedAt: now}
	if err := st.PartnerCreate(ctx, p); err != nil {
		t.Fatal(err)
	}
	k := &tradewind.APIKey{PartnerID: p.ID, Prefix: "tw_live_abcd", Hash: "h1", Mode: tradewind.ModeLive, CreatedAt: now}
	if err := st.KeyCreate(ctx, k); err != nil {
		t.Fatal(err)
	}
	return p, k
}

// TestCacheDropsWhenAnotherProcessChangesKeysOrPartners: entries are served from memory
// between polls, a change by another handle is seen at the next poll, and a booking's
// credit draw does not drop the cache.
func TestCacheDropsWhenAnotherProcessChangesKeysOrPartners(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			server, other := twoHandles(t, o)
			p, k := seed(t, other)
			c := authcache.New(server, nil)
			c.MaxStale = time.Hour // polls are made by the test, however slow the machine

			// Before the first poll nothing is cached: a revocation is seen at once.
			if _, err := c.KeyGetByHash(ctx, "h1"); err != nil {
				t.Fatal(err)
			}
			if err := c.Poll(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := c.KeyGetByHash(ctx, "h1"); err != nil {
				t.Fatal(err)
			}
			if _, err := c.PartnerGetByID(ctx, p.ID); err != nil {
				t.Fatal(err)
			}

			// Served from memory: another process's revocation is not seen before a poll.
			if err := other.KeyRevoke(ctx, k.ID, now); err != nil {
				t.Fatal(err)
			}
			if got, _ := c.KeyGetByHash(ctx, "h1"); !got.RevokedAt.IsZero() {
				t.Fatalf("key read from the store between polls; the cache is not used")
			}
			if err := c.Poll(ctx); err != nil {
				t.Fatal(err)
			}
			if got, _ := c.KeyGetByHash(ctx, "h1"); got.RevokedAt.IsZero() || got.Usable(now) {
				t.Fatalf("revoked key still served after a poll: %+v", got)
			}
			if got, _ := c.PartnerGetByID(ctx, p.ID); got.CreditUsed != 0 {
				t.Fatalf("credit used %d", got.CreditUsed)
			}

			// A credit draw (every booking) keeps the cache; a block drops it.
			if ok, err := other.CreditDraw(ctx, p.ID, 500); err != nil || !ok {
				t.Fatal(ok, err)
			}
			if err := c.Poll(ctx); err != nil {
				t.Fatal(err)
			}
			if got, _ := c.PartnerGetByID(ctx, p.ID); got.CreditUsed != 0 {
				t.Errorf("a credit draw dropped the cache (credit used %d read again)", got.CreditUsed)
			}
			p.Blocked = true
			if err := other.PartnerUpdate(ctx, p); err != nil {
				t.Fatal(err)
			}
			if err := c.Poll(ctx); err != nil {
				t.Fatal(err)
			}
			if got, _ := c.PartnerGetByID(ctx, p.ID); !got.Blocked {
				t.Errorf("blocked partner still served unblocked after a poll")
			}

			// Unknown keys are the store's answer, never cached.
			if _, err := c.KeyGetByHash(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("unknown key: %v", err)
			}
			// Callers get copies: changing one changes nothing cached.
			got, _ := c.PartnerGetByID(ctx, p.ID)
			got.Name = "changed"
			if again, _ := c.PartnerGetByID(ctx, p.ID); again.Name != "acme" {
				t.Errorf("cached partner changed through a returned value: %q", again.Name)
			}
		})
	}
}

// TestCacheWritesLastUsesInBatches: uses are kept in memory, the latest per key, written
// by Flush and by Run when it stops.
func TestCacheWritesLastUsesInBatches(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			server, other := twoHandles(t, o)
			_, k := seed(t, other)
			c := authcache.New(server, nil)
			c.KeyUsed(k.ID, now.Add(2*time.Second))
			c.KeyUsed(k.ID, now) // an earlier request finishing late
			if got, _ := other.KeyGetByID(ctx, k.ID); !got.LastUsedAt.IsZero() {
				t.Fatalf("last use written on the request path: %v", got.LastUsedAt)
			}
			if err := c.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if got, _ := other.KeyGetByID(ctx, k.ID); !got.LastUsedAt.Equal(now.Add(2 * time.Second)) {
				t.Fatalf("last used = %v; want %v", got.LastUsedAt, now.Add(2*time.Second))
			}

			rctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { defer close(done); c.Run(rctx) }()
			c.KeyUsed(k.ID, now.Add(time.Hour))
			cancel()
			<-done
			if got, _ := other.KeyGetByID(ctx, k.ID); !got.LastUsedAt.Equal(now.Add(time.Hour)) {
				t.Errorf("last use not written at shutdown: %v", got.LastUsedAt)
			}
		})
	}
}

// TestCacheNotServedWhenPollsFallBehind: once the last poll is older than MaxStale,
// every lookup reads the store, so a stalled poller never serves a revoked key.
func TestCacheNotServedWhenPollsFallBehind(t *testing.T) {
	ctx := context.Background()
	server, other := twoHandles(t, storetest.Openers()[0])
	_, k := seed(t, other)
	c := authcache.New(server, nil)
	c.MaxStale = time.Nanosecond // every poll is too old by the time of the lookup
	if err := c.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.KeyGetByHash(ctx, "h1"); err != nil {
		t.Fatal(err)
	}
	if err := other.KeyRevoke(ctx, k.ID, now); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.KeyGetByHash(ctx, "h1"); got.RevokedAt.IsZero() {
		t.Errorf("a key cached under a stale poll was served")
	}
}
