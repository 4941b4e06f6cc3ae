package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// exerciseKeyLastUsed: last uses are written in batches, a later time wins whatever the
// order of the batches, and unknown keys are ignored.
func exerciseKeyLastUsed(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	a := &tradewind.APIKey{PartnerID: p.ID, Prefix: "tw_live_a", Hash: "ha", Mode: tradewind.ModeLive, CreatedAt: now}
	b := &tradewind.APIKey{PartnerID: p.ID, Prefix: "tw_live_b", Hash: "hb", Mode: tradewind.ModeLive, CreatedAt: now}
	for _, k := range []*tradewind.APIKey{a, b} {
		if err := s.KeyCreate(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := s.KeyGetByID(ctx, a.ID); !got.LastUsedAt.IsZero() {
		t.Fatalf("new key last used %v; want never", got.LastUsedAt)
	}
	later := now.Add(time.Minute)
	if err := s.InTx(ctx, func(q store.Querier) error {
		return q.KeyLastUsedSet(ctx, []store.KeyUse{{KeyID: a.ID, At: later}, {KeyID: 9999, At: later}})
	}); err != nil {
		t.Fatal(err)
	}
	// An older batch (another server's, written late) keeps the later time.
	if err := s.KeyLastUsedSet(ctx, []store.KeyUse{{KeyID: a.ID, At: now}, {KeyID: b.ID, At: now}}); err != nil {
		t.Fatal(err)
	}
	keys, err := s.KeyListByPartner(ctx, p.ID)
	if err != nil || len(keys) != 2 {
		t.Fatalf("KeyListByPartner = %v, %v", keys, err)
	}
	if !keys[0].LastUsedAt.Equal(later) || !keys[1].LastUsedAt.Equal(now.Truncate(time.Microsecond)) {
		t.Errorf("last used = %v, %v; want %v, %v", keys[0].LastUsedAt, keys[1].LastUsedAt, later, now)
	}
	if got, _ := s.KeyGetByHash(ctx, "ha"); !got.LastUsedAt.Equal(later) {
		t.Errorf("KeyGetByHash last used = %v", got.LastUsedAt)
	}
}

// exerciseAuthVersion: every change of a key or a partner that decides a request moves
// the version; a booking's credit draw and a key's last use do not.
func exerciseAuthVersion(t *testing.T, s store.Store) {
	ctx := context.Background()
	version := func() int64 {
		t.Helper()
		v, err := s.AuthVersion(ctx)
		if err != nil {
			t.Fatalf("AuthVersion: %v", err)
		}
		return v
	}
	moves := func(what string, change func() error) {
		t.Helper()
		before := version()
		if err := change(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if after := version(); after == before {
			t.Errorf("%s: auth version stayed %d", what, before)
		}
	}
	stays := func(what string, change func() error) {
		t.Helper()
		before := version()
		if err := change(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if after := version(); after != before {
			t.Errorf("%s: auth version moved %d → %d", what, before, after)
		}
	}
	var p *tradewind.Partner
	moves("partner created", func() error { p = newPartner(t, s, "acme"); return nil })
	k := &tradewind.APIKey{PartnerID: p.ID, Prefix: "tw_live_a", Hash: "ha", Mode: tradewind.ModeLive, CreatedAt: now}
	moves("key created", func() error { return s.KeyCreate(ctx, k) })
	stays("credit drawn", func() error { _, err := s.CreditDraw(ctx, p.ID, 100); return err })
	stays("credit released", func() error { return s.CreditRelease(ctx, p.ID, 100) })
	stays("last use written", func() error { return s.KeyLastUsedSet(ctx, []store.KeyUse{{KeyID: k.ID, At: now}}) })
	moves("partner blocked", func() error {
		p.Blocked = true
		return s.PartnerUpdate(ctx, p)
	})
	moves("partner status", func() error {
		_, err := s.PartnerSetStatus(ctx, p.ID, tradewind.PartnerActive, tradewind.PartnerRejected, "test")
		return err
	})
	// Inside a transaction, as the service writes.
	moves("key revoked", func() error {
		return s.InTx(ctx, func(q store.Querier) error { return q.KeyRevoke(ctx, k.ID, now) })
	})
}
