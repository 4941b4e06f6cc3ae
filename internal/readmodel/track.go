package readmodel

import (
	"context"

	"github.com/tradewind/tradewind/internal/store"
)

// Tracked returns st whose committed claims and releases the model applies at once
// (Touched), and whose other catalog writes make it poll at once (Kick): the server's
// own writes show in its next read, without waiting for the poll.
func Tracked(st store.Store, m *Model) store.Store { return &trackedStore{Store: st, m: m} }

type trackedStore struct {
	store.Store
	m *Model
}

func (s *trackedStore) InventoryClaim(ctx context.Context, c store.Claim) ([]store.InventoryRow, bool, error) {
	after, ok, err := s.Store.InventoryClaim(ctx, c)
	if ok && err == nil {
		s.m.Touched(ctx, []store.Claim{c})
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
		return fn(&writeSpy{Querier: q, ForwardSavepoints: store.ForwardSavepoints{Tx: q}, w: &w})
	})
	if err == nil {
		if w.catalog {
			s.m.Kick()
		}
		s.m.Touched(ctx, w.claims)
	}
	return err
}

// writes is what a transaction changed that the model holds.
type writes struct {
	claims  []store.Claim
	catalog bool // items or inventory rows written (an import)
}

// writeSpy notes a transaction's writes to the catalog and its inventory.
type writeSpy struct {
	store.Querier
	// The transaction's savepoints pass through (the booking service's group commit
	// needs them). A claim rolled back to its savepoint stays noted: the model reloads
	// the days a claim touched from the store once the transaction commits, so it
	// reloads one more unchanged truth.
	store.ForwardSavepoints
	w *writes
}

func (q *writeSpy) InventoryClaim(ctx context.Context, c store.Claim) ([]store.InventoryRow, bool, error) {
	after, ok, err := q.Querier.InventoryClaim(ctx, c)
	if ok && err == nil {
		q.w.claims = append(q.w.claims, c)
	}
	return after, ok, err
}

func (q *writeSpy) InventoryRelease(ctx context.Context, c store.Claim) error {
	err := q.Querier.InventoryRelease(ctx, c)
	if err == nil {
		q.w.claims = append(q.w.claims, c)
	}
	return err
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
