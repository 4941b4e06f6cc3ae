package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/store"
)

// exerciseSignatureReplays: a signature is recorded once per partner, also when many
// record it at once, and expired records are deleted in bounded batches.
func exerciseSignatureReplays(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := newPartner(t, s, "a"), newPartner(t, s, "b")
	rec := func(partner int64, hash string, expires time.Time) bool {
		t.Helper()
		ok, err := s.SignatureRecord(ctx, store.SignatureRecordParams{PartnerID: partner, Hash: hash, ExpiresAt: expires})
		if err != nil {
			t.Fatalf("SignatureRecord: %v", err)
		}
		return ok
	}
	soon, later := now.Add(time.Minute), now.Add(10*time.Minute)
	if !rec(a.ID, "h1", soon) || rec(a.ID, "h1", later) {
		t.Error("the first record of a signature must succeed and the second fail")
	}
	if !rec(b.ID, "h1", soon) {
		t.Error("another partner's signature with the same hash was refused")
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.SignatureRecord(ctx, store.SignatureRecordParams{PartnerID: a.ID, Hash: "race", ExpiresAt: later})
			if err != nil {
				t.Errorf("SignatureRecord: %v", err)
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d of 16 concurrent records of one signature succeeded, want 1", wins.Load())
	}
	for _, h := range []string{"e1", "e2", "e3"} {
		rec(a.ID, h, soon)
	}
	del := func(at time.Time, limit int) int64 {
		t.Helper()
		n, err := s.SignatureDeleteExpired(ctx, store.SignatureDeleteExpiredParams{Now: at, Limit: limit})
		if err != nil {
			t.Fatalf("SignatureDeleteExpired: %v", err)
		}
		return n
	}
	if n := del(now, 100); n != 0 {
		t.Errorf("deleted %d records before any expired", n)
	}
	// At soon: h1 of a and b, e1..e3 (5 records) have expired; "race" has not.
	if n := del(soon, 2); n != 2 {
		t.Errorf("a batch of 2 deleted %d", n)
	}
	if n := del(soon, 100); n != 3 {
		t.Errorf("the rest: deleted %d, want 3", n)
	}
	if !rec(a.ID, "e1", later) || rec(a.ID, "race", later) {
		t.Error("after the deletion an expired hash must record again and a live one must not")
	}
}
