package readmodel

import (
	"context"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// Tracked returns st whose committed claims and releases the model applies at once (a
// transaction's claims with the rows they returned, applyClaimed; the rest read again,
// Touched), and whose other catalog writes make it poll at once (Kick): the server's
// own writes show in its next read, without waiting for the poll.
func Tracked(st store.Store, m *Model) store.Store { return &trackedStore{Store: st, m: m} }

type trackedStore struct {
	store.Store
	m *Model
}

func (s *trackedStore) InventoryClaim(ctx context.Context, c store.Claim) ([]store.InventoryRow, bool, error) {
	return s.claim(ctx, c, func() ([]store.InventoryRow, bool, error) { return s.Store.InventoryClaim(ctx, c) })
}

func (s *trackedStore) InventoryClaimBooking(ctx context.Context, c store.Claim, b *tradewind.Booking, events ...*tradewind.Event) ([]store.InventoryRow, bool, error) {
	return s.claim(ctx, c, func() ([]store.InventoryRow, bool, error) { return s.Store.InventoryClaimBooking(ctx, c, b, events...) })
}

// claim runs take, a claim of c committed on its own, and applies the rows it took.
func (s *trackedStore) claim(ctx context.Context, c store.Claim, take func() ([]store.InventoryRow, bool, error)) ([]store.InventoryRow, bool, error) {
	var w writes
	w.noteVersion(s.m, c) // before the claim's own commit
	after, ok, err := take()
	if ok && err == nil {
		w.claimed = []claimed{{claim: c, rows: after}}
		s.m.applyClaimed(ctx, &w)
	}
	return after, ok, err
}

func (s *trackedStore) InventoryRelease(ctx context.Context, c store.Claim) error {
	err := s.Store.InventoryRelease(ctx, c)
	if err == nil {
		s.m.Touched(ctx, []store.Claim{c})
	}
	return err
}

func (s *trackedStore) InTx(ctx context.Context, fn func(q store.Querier) error) error {
	var w writes
	err := s.Store.InTx(ctx, func(q store.Querier) error {
		w = writes{} // a retried transaction starts over
		return fn(&writeSpy{Querier: q, ForwardSavepoints: store.ForwardSavepoints{Tx: q}, w: &w, m: s.m})
	})
	if err == nil {
		if w.catalog {
			s.m.Kick()
		}
		s.m.applyClaimed(ctx, &w)
	}
	return err
}

// writes is what a transaction changed that the model holds.
type writes struct {
	claimed  []claimed // claims kept (not rolled back to a savepoint), in order
	released []store.Claim
	catalog  bool // items or inventory rows written (an import)
	// before is what each claimed item was in the model when the transaction first
	// claimed it, before its COMMIT: a reload that wrote it since may have read rows
	// newer than the claims' (applyClaimed).
	before map[claimedItem]itemVersion
	marks  []savepointMark // the open savepoints, innermost last
}

// claimed is a claim and the rows it left, as the store returned them; reread when a
// release of the same unit's days followed it in the transaction, which left other rows.
type claimed struct {
	claim  store.Claim
	rows   []store.InventoryRow
	reread bool
}

// noteVersion notes what c's item is in m, the first time the transaction claims it.
func (w *writes) noteVersion(m *Model, c store.Claim) {
	k := claimedItem{productOf(c.Kind), c.ItemID}
	if _, seen := w.before[k]; seen {
		return
	}
	if v, ok := m.versionOf(k); ok {
		if w.before == nil {
			w.before = map[claimedItem]itemVersion{}
		}
		w.before[k] = v
	}
}

// savepointMark is an open savepoint and how many claims were noted when it was taken.
type savepointMark struct {
	name    string
	claimed int
}

// writeSpy notes a transaction's writes to the catalog and its inventory.
type writeSpy struct {
	store.Querier
	// The transaction's savepoints pass through (the booking service's group commit
	// needs them); the claims made since a savepoint a booking rolls back to are
	// forgotten with it, since their rows are applied to the model as they are.
	store.ForwardSavepoints
	w *writes
	m *Model
}

func (q *writeSpy) InventoryClaim(ctx context.Context, c store.Claim) ([]store.InventoryRow, bool, error) {
	return q.claim(c, func() ([]store.InventoryRow, bool, error) { return q.Querier.InventoryClaim(ctx, c) })
}

func (q *writeSpy) InventoryClaimBooking(ctx context.Context, c store.Claim, b *tradewind.Booking, events ...*tradewind.Event) ([]store.InventoryRow, bool, error) {
	return q.claim(c, func() ([]store.InventoryRow, bool, error) {
		return q.Querier.InventoryClaimBooking(ctx, c, b, events...)
	})
}

// claim runs take, a claim of c in the transaction, and notes the rows it took.
func (q *writeSpy) claim(c store.Claim, take func() ([]store.InventoryRow, bool, error)) ([]store.InventoryRow, bool, error) {
	q.w.noteVersion(q.m, c)
	after, ok, err := take()
	if ok && err == nil {
		q.w.claimed = append(q.w.claimed, claimed{claim: c, rows: after})
	}
	return after, ok, err
}

func (q *writeSpy) InventoryRelease(ctx context.Context, c store.Claim) error {
	err := q.Querier.InventoryRelease(ctx, c)
	if err == nil {
		// A release returns no rows: its days are read again once committed (Touched),
		// and so are those of the transaction's earlier claims of the unit (a booking
		// whose quote ahead did not hold gives back what it claimed), whose rows it
		// changed. One rolled back to its savepoint is read again too: one more
		// unchanged truth.
		for i, k := range q.w.claimed {
			if k.claim.Kind == c.Kind && k.claim.UnitID == c.UnitID && k.claim.From <= c.To && c.From <= k.claim.To {
				q.w.claimed[i].reread = true
			}
		}
		q.w.released = append(q.w.released, c)
	}
	return err
}

func (q *writeSpy) Savepoint(ctx context.Context, name string) error {
	err := q.ForwardSavepoints.Savepoint(ctx, name)
	if err == nil {
		q.w.take(name)
	}
	return err
}

func (q *writeSpy) SavepointNext(ctx context.Context, name string) error {
	err := q.ForwardSavepoints.SavepointNext(ctx, name)
	if err == nil {
		q.w.release(name)
		q.w.take(name)
	}
	return err
}

func (q *writeSpy) ReleaseSavepoint(ctx context.Context, name string) error {
	err := q.ForwardSavepoints.ReleaseSavepoint(ctx, name)
	if err == nil {
		q.w.release(name)
	}
	return err
}

func (q *writeSpy) RollbackToSavepoint(ctx context.Context, name string) error {
	if err := q.ForwardSavepoints.RollbackToSavepoint(ctx, name); err != nil {
		return err
	}
	// The savepoint stays open; those taken after it end (SQL's rule).
	if i := q.w.mark(name); i >= 0 {
		q.w.claimed = q.w.claimed[:q.w.marks[i].claimed]
		q.w.marks = q.w.marks[:i+1]
	}
	return nil
}

// mark returns the index of the innermost open savepoint named name, -1 if none.
func (w *writes) mark(name string) int {
	for i := len(w.marks) - 1; i >= 0; i-- {
		if w.marks[i].name == name {
			return i
		}
	}
	return -1
}

// take opens a savepoint named name after the claims noted so far.
func (w *writes) take(name string) { w.marks = append(w.marks, savepointMark{name, len(w.claimed)}) }

// release ends the innermost savepoint named name and those taken after it; their
// claims stay, as the transaction's.
func (w *writes) release(name string) {
	if i := w.mark(name); i >= 0 {
		w.marks = w.marks[:i]
	}
}

func (q *writeSpy) ItemPut(ctx context.Context, it *store.Item) (bool, error) {
	q.w.catalog = true
	return q.Querier.ItemPut(ctx, it)
}

func (q *writeSpy) ItemPutMany(ctx context.Context, items []*store.Item) error {
	q.w.catalog = true
	return q.Querier.ItemPutMany(ctx, items)
}

func (q *writeSpy) InventoryInsert(ctx context.Context, rows []store.InventoryRow) error {
	q.w.catalog = true
	return q.Querier.InventoryInsert(ctx, rows)
}

func (q *writeSpy) InventoryPut(ctx context.Context, rows []store.InventoryRow) error {
	q.w.catalog = true
	return q.Querier.InventoryPut(ctx, rows)
}

var _ store.Savepoints = (*writeSpy)(nil)
