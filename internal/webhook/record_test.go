package webhook

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/store"
)

// recordingStore runs InTx over a querier that records attempts, failing those of
// failID; it counts the transactions and their attempts.
type recordingStore struct {
	store.Store // nil: recordAll uses InTx only
	failID      int64
	txs, ok     int
}

type recordingQuerier struct {
	store.Querier // nil: recordAll uses DeliveryRecordAttempt only
	s             *recordingStore
	ok            int
}

func (q *recordingQuerier) DeliveryRecordAttempt(_ context.Context, p store.DeliveryAttemptParams) (bool, error) {
	if p.DeliveryID == q.s.failID {
		return false, errors.New("disk full")
	}
	q.ok++
	return true, nil
}

func (s *recordingStore) InTx(_ context.Context, fn func(store.Querier) error) error {
	s.txs++
	q := &recordingQuerier{s: s}
	if err := fn(q); err != nil {
		return err // rolled back: nothing of it stays
	}
	s.ok += q.ok
	return nil
}

func queued(n int) []*attemptRecord {
	rs := make([]*attemptRecord, n)
	for i := range rs {
		rs[i] = &attemptRecord{p: store.DeliveryAttemptParams{DeliveryID: int64(i + 1)}, done: make(chan struct{})}
	}
	return rs
}

// TestAttemptsRecordedTogether: the attempts waiting to be recorded are recorded in one
// transaction (one sync of SQLite's WAL for all, not one each), up to maxRecordBatch.
func TestAttemptsRecordedTogether(t *testing.T) {
	st := &recordingStore{}
	d := &Dispatcher{cfg: DispatcherConfig{Store: st}, records: make(chan *attemptRecord, maxRecordBatch+6)}
	rs := queued(maxRecordBatch + 6)
	for _, r := range rs {
		d.records <- r
	}
	close(d.records)
	d.recordLoop()
	if st.txs != 2 || st.ok != len(rs) {
		t.Fatalf("%d attempts recorded in %d transactions; want %d in 2 (at most %d a transaction)", st.ok, st.txs, len(rs), maxRecordBatch)
	}
	for _, r := range rs {
		select {
		case <-r.done:
		default:
			t.Fatalf("attempt %d not answered", r.p.DeliveryID)
		}
		if !r.kept || r.err != nil {
			t.Errorf("attempt %d: kept %v, %v; want kept", r.p.DeliveryID, r.kept, r.err)
		}
	}
}

// TestAttemptRecordFailsAlone: a record that fails fails its batch's transaction; each
// attempt is then recorded alone, so that only the failing one is lost (its lease
// expires and it is sent again).
func TestAttemptRecordFailsAlone(t *testing.T) {
	st := &recordingStore{failID: 2}
	d := &Dispatcher{cfg: DispatcherConfig{Store: st}}
	rs := queued(4)
	d.recordAll(rs)
	if st.ok != 3 || st.txs != 1+4 {
		t.Fatalf("%d attempts recorded in %d transactions; want 3 in 5 (the batch, then each alone)", st.ok, st.txs)
	}
	for _, r := range rs {
		failing := r.p.DeliveryID == st.failID
		if failing != (r.err != nil) || r.kept == failing {
			t.Errorf("attempt %d: kept %v, %v; want failing %v", r.p.DeliveryID, r.kept, r.err, failing)
		}
	}
}

// deadlineStore fails every transaction and notes each one's deadline.
type deadlineStore struct {
	store.Store
	deadlines []time.Time
}

func (s *deadlineStore) InTx(ctx context.Context, _ func(store.Querier) error) error {
	d, _ := ctx.Deadline()
	s.deadlines = append(s.deadlines, d)
	return errors.New("database unreachable")
}

// TestAttemptRecordsShareOneDeadline: a batch whose transaction fails, and the records
// alone that follow, run within one recordTimeout, as one attempt's record did: a
// database that does not answer holds the recorder that long, not once an attempt (the
// leases of the attempts waiting behind it would expire, and they would be sent twice).
func TestAttemptRecordsShareOneDeadline(t *testing.T) {
	st := &deadlineStore{}
	d := &Dispatcher{cfg: DispatcherConfig{Store: st}}
	rs := queued(4)
	d.recordAll(rs)
	if len(st.deadlines) != 5 {
		t.Fatalf("%d transactions, want 5 (the batch, then each alone)", len(st.deadlines))
	}
	for i, dl := range st.deadlines {
		if dl.IsZero() || !dl.Equal(st.deadlines[0]) {
			t.Errorf("transaction %d's deadline %v; want the batch's, %v", i, dl, st.deadlines[0])
		}
	}
	for _, r := range rs {
		if r.err == nil || r.kept {
			t.Errorf("attempt %d: kept %v, %v; want the store's error", r.p.DeliveryID, r.kept, r.err)
		}
	}
}
