package replay_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/clocktest"
	"github.com/tradewind/tradewind/internal/replay"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// switchLedger is a test double: it fails while down, else reports every signature new.
type switchLedger struct{ down bool }

var errDown = errors.New("ledger down (test double)")

func (l *switchLedger) First(context.Context, int64, []byte, time.Time) (bool, error) {
	if l.down {
		return false, errDown
	}
	return true, nil
}

// TestMonitorSignatureLedgerFailures: every failure is returned (the guard fails closed)
// and counted; the warning is logged at most once per 30 s, with the failures since the
// previous one, never with the signature; the first answer after a failure is logged.
func TestMonitorSignatureLedgerFailures(t *testing.T) {
	t.Parallel()
	clock := clocktest.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	var logs bytes.Buffer
	inner := &switchLedger{down: true}
	failed := 0
	l := replay.Monitor(inner, slog.New(slog.NewTextHandler(&logs, nil)), clock.Now, func() { failed++ })
	signature := []byte("SIGNATURE-BYTES")
	first := func() (bool, error) {
		t.Helper()
		return l.First(context.Background(), 7, signature, clock.Now().Add(time.Minute))
	}

	for range 3 { // three failures within 30 s: one warning
		if ok, err := first(); ok || !errors.Is(err, errDown) {
			t.Fatalf("First while down = %v, %v; want false and the ledger's error", ok, err)
		}
		clock.Advance(10 * time.Second)
	}
	if n := strings.Count(logs.String(), "replay ledger unavailable"); n != 1 {
		t.Errorf("%d warnings after 3 failures in 30 s, want 1:\n%s", n, logs.String())
	}
	if _, err := first(); err == nil { // 30 s after the warning: the next one, counting 3
		t.Fatal("First while down succeeded")
	}
	if n := strings.Count(logs.String(), "replay ledger unavailable"); n != 2 || !strings.Contains(logs.String(), "failures=3") {
		t.Errorf("after 30 s: %d warnings, want 2, the second with failures=3:\n%s", n, logs.String())
	}
	if failed != 4 {
		t.Errorf("%d failures counted, want 4", failed)
	}

	inner.down = false
	for range 2 {
		if ok, err := first(); !ok || err != nil {
			t.Fatalf("First once up = %v, %v", ok, err)
		}
	}
	if n := strings.Count(logs.String(), "replay ledger available again"); n != 1 {
		t.Errorf("recovery logged %d times, want once:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), string(signature)) {
		t.Errorf("the signature was logged:\n%s", logs.String())
	}
	if failed != 4 {
		t.Errorf("%d failures counted after recovery, want 4", failed)
	}
}

// TestMonitorIgnoresCallerGone: a failure after the caller's context ended (the client
// hung up) is returned but is no outage: not counted, not logged.
func TestMonitorIgnoresCallerGone(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	failed := 0
	l := replay.Monitor(&switchLedger{down: true}, slog.New(slog.NewTextHandler(&logs, nil)), time.Now, func() { failed++ })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.First(ctx, 7, []byte("sig"), time.Now().Add(time.Minute)); err == nil {
		t.Fatal("First with an ended context and a failing ledger succeeded")
	}
	if failed != 0 || logs.Len() != 0 {
		t.Errorf("a hung-up client counted %d failures and logged %q", failed, logs.String())
	}
}

// TestStoreFirstOneCommit (both databases): the ledger's sweep of expired records and
// its record of the signature commit in one transaction (one sync of SQLite's WAL a
// signed request, not two); the first sight of a signature is new, the second is not,
// and an expired record is swept.
func TestStoreFirstOneCommit(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			clock := clocktest.New(time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC))
			st := o.Open(t)
			l := replay.NewStore(st, clock.Now)
			commits := 0
			ctx := store.WithAfterCommit(context.Background(), func() { commits++ })
			first, err := l.First(ctx, 7, []byte("sig-a"), clock.Now().Add(time.Minute))
			if err != nil || !first {
				t.Fatalf("first sight: %v, %v; want new", first, err)
			}
			if commits != 1 {
				t.Errorf("%d commits for one signed request; want 1 (the sweep and the record together)", commits)
			}
			if again, err := l.First(ctx, 7, []byte("sig-a"), clock.Now().Add(time.Minute)); err != nil || again {
				t.Fatalf("second sight: %v, %v; want a replay", again, err)
			}
			clock.Advance(2 * time.Minute)
			if _, err := l.First(ctx, 7, []byte("sig-b"), clock.Now().Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			if again, err := l.First(ctx, 7, []byte("sig-a"), clock.Now().Add(time.Minute)); err != nil || !again {
				t.Fatalf("after its record expired and was swept: %v, %v; want new", again, err)
			}
		})
	}
}
