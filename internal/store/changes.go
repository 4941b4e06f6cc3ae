package store

import (
	"context"
	"time"

	"github.com/tradewind/tradewind"
)

// ChangeQuerier holds the queries of the read model's change feed (internal/readmodel):
// triggers on items and inventory (migration 00010) write a change row for every write,
// in the writing transaction, whoever writes (this server, another one, the operator's
// CLI in another process).
type ChangeQuerier interface {
	// ItemListPage returns up to limit items of a kind with an id above after, by id,
	// without their InventoryHash: the read model's build pages through the catalog.
	ItemListPage(ctx context.Context, kind tradewind.ProductType, after int64, limit int) ([]*Item, error)

	// ChangesUnsequenced reports whether some committed change has no position yet (a
	// read, so that a poll with nothing to place takes no write lock).
	ChangesUnsequenced(ctx context.Context) (bool, error)
	// ChangeSequence gives the next positions to up to limit committed changes that have
	// none yet, in insertion order, dates them at now and returns how many it placed.
	// Run it in InTx: it locks the sequence, so a change placed later always comes after
	// one placed before, and a reader resuming from the last position it saw misses none.
	ChangeSequence(ctx context.Context, now time.Time, limit int) (int, error)
	// ChangeLast returns the last position given (0 when none).
	ChangeLast(ctx context.Context) (int64, error)
	// ChangesAfter returns up to limit sequenced changes after position after, in order.
	ChangesAfter(ctx context.Context, after int64, limit int) ([]Change, error)
	// ChangeFirst returns the first position still stored (0 when none): a reader whose
	// last position is below it − 1 has lost changes to retention and must rebuild.
	ChangeFirst(ctx context.Context) (int64, error)
	// ChangePrune deletes sequenced changes placed before p.Before.
	ChangePrune(ctx context.Context, p PruneParams) (int, error)
}

// Change is a write to a catalog item: its record and every day of its inventory when
// From is "", else the inventory days From..To (inclusive) of its unit UnitID of kind
// UnitKind, or of all its units when UnitKind is "" (changes written before migration
// 00030).
type Change struct {
	Seq      int64
	Kind     tradewind.ProductType
	ItemID   int64
	UnitKind tradewind.UnitKind
	UnitID   int64
	From, To string
}
