package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tradewind/tradewind/internal/store"
)

var (
	_ store.Savepoints = (*queries)(nil)
	_ store.LockWaits  = (*queries)(nil)
)

// errNotInTx: savepoints exist only in a transaction (the Querier of InTx).
var errNotInTx = errors.New("sqlstore: savepoint outside a transaction")

func (q *queries) savepoint(ctx context.Context, verb, name string) error {
	return q.savepoints(ctx, name, verb)
}

// savepoints runs verb+name for each verb, in one statement text where the dialect
// takes several at once. Where the transaction holds statements back (deferredTx), a
// savepoint taken or released is sent with the next statement; a rollback is sent now,
// with whatever is held.
func (q *queries) savepoints(ctx context.Context, name string, verbs ...string) error {
	if q.conn == nil {
		return errNotInTx
	}
	if name == "" {
		return fmt.Errorf("sqlstore: empty savepoint name")
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return fmt.Errorf("sqlstore: savepoint name %q is not a plain identifier", name)
		}
	}
	if t := q.deferred(); t != nil {
		for _, verb := range verbs {
			if verb == rollbackTo {
				if _, err := t.ExecContext(ctx, verb+name); err != nil {
					return err
				}
				continue
			}
			t.hold(verb + name)
		}
		return nil
	}
	if q.d.MultiStatement {
		text := ""
		for i, verb := range verbs {
			if i > 0 {
				text += "; "
			}
			text += verb + name
		}
		_, err := q.db.ExecContext(ctx, text)
		return err
	}
	for _, verb := range verbs {
		if _, err := q.db.ExecContext(ctx, verb+name); err != nil {
			return err
		}
	}
	return nil
}

// Savepoint starts a part of the transaction that may be undone alone (store.Savepoints).
func (q *queries) Savepoint(ctx context.Context, name string) error {
	return q.savepoint(ctx, "SAVEPOINT ", name)
}

const rollbackTo = "ROLLBACK TO SAVEPOINT "

// RollbackToSavepoint undoes what the transaction wrote since the savepoint, keeping it.
func (q *queries) RollbackToSavepoint(ctx context.Context, name string) error {
	return q.savepoint(ctx, rollbackTo, name)
}

// ReleaseSavepoint drops the savepoint; what was written since stays in the transaction.
func (q *queries) ReleaseSavepoint(ctx context.Context, name string) error {
	return q.savepoint(ctx, "RELEASE SAVEPOINT ", name)
}

// SavepointNext releases the savepoint and starts the next part under the same name.
func (q *queries) SavepointNext(ctx context.Context, name string) error {
	return q.savepoints(ctx, name, "RELEASE SAVEPOINT ", "SAVEPOINT ")
}

// LimitLockWait bounds the transaction's lock waits (store.LockWaits): held and sent with
// the next statement where the transaction holds statements back (deferredTx).
func (q *queries) LimitLockWait(ctx context.Context, d time.Duration) error {
	if q.conn == nil {
		return errNotInTx
	}
	if q.d.LockTimeout == "" {
		return nil
	}
	ms := d.Milliseconds()
	if d > 0 {
		ms = max(ms, 1) // 0 would lift the bound
	}
	stmt := fmt.Sprintf(q.d.LockTimeout, ms)
	if t := q.deferred(); t != nil {
		t.hold(stmt)
		return nil
	}
	_, err := q.db.ExecContext(ctx, stmt)
	return err
}
