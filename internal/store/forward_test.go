package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tradewind/tradewind/internal/store"
)

// savepointTx is a transaction that records its savepoint statements.
type savepointTx struct {
	store.Querier
	calls []string
}

func (t *savepointTx) Savepoint(_ context.Context, name string) error {
	t.calls = append(t.calls, "SAVEPOINT "+name)
	return nil
}

func (t *savepointTx) RollbackToSavepoint(_ context.Context, name string) error {
	t.calls = append(t.calls, "ROLLBACK TO "+name)
	return nil
}

func (t *savepointTx) ReleaseSavepoint(_ context.Context, name string) error {
	t.calls = append(t.calls, "RELEASE "+name)
	return nil
}

func (t *savepointTx) SavepointNext(_ context.Context, name string) error {
	t.calls = append(t.calls, "NEXT "+name)
	return nil
}

// spy wraps a transaction as the read model's and the dispatcher's spies do.
type spy struct {
	store.Querier
	store.ForwardSavepoints
}

func TestForwardSavepoints(t *testing.T) {
	ctx := context.Background()
	tx := &savepointTx{}
	var q store.Querier = &spy{Querier: tx, ForwardSavepoints: store.ForwardSavepoints{Tx: tx}}
	// Spies nest (the dispatcher's inside the read model's): savepoints pass both.
	q = &spy{Querier: q, ForwardSavepoints: store.ForwardSavepoints{Tx: q}}
	sp, ok := q.(store.Savepoints)
	if !ok {
		t.Fatal("a spy hides the transaction's savepoints")
	}
	if sp.Savepoint(ctx, "b") != nil || sp.RollbackToSavepoint(ctx, "b") != nil || sp.ReleaseSavepoint(ctx, "b") != nil || sp.SavepointNext(ctx, "b") != nil {
		t.Fatal("a forwarded savepoint failed")
	}
	if want := []string{"SAVEPOINT b", "ROLLBACK TO b", "RELEASE b", "NEXT b"}; !slices.Equal(tx.calls, want) {
		t.Fatalf("the transaction saw %v, want %v", tx.calls, want)
	}
	plain := &spy{ForwardSavepoints: store.ForwardSavepoints{Tx: &spy{}}}
	if err := plain.Savepoint(ctx, "b"); !errors.Is(err, store.ErrNoSavepoints) {
		t.Fatalf("savepoint of a transaction without them: %v, want ErrNoSavepoints", err)
	}
}
