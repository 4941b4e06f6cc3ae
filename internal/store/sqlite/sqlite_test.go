package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlite"
)

// TestReadsBesideTheWriterWritesQueue: while a transaction holds the one writer
// connection, reads outside it are answered by the read pool, and a write waits for
// the writer in Go and succeeds once the transaction commits (no SQLITE_BUSY).
func TestReadsBesideTheWriterWritesQueue(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "tw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC)
	p := &tradewind.Partner{Name: "acme", PricingMode: "net", Currency: "EUR", CreditLimit: 1000, RateLimit: 120, CreatedAt: now}
	if err := st.PartnerCreate(ctx, p); err != nil {
		t.Fatal(err)
	}

	inTx, release, txDone := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		txDone <- st.InTx(ctx, func(q store.Querier) error {
			if _, err := q.CreditDraw(ctx, p.ID, 100); err != nil {
				return err
			}
			close(inTx)
			<-release
			return nil
		})
	}()
	<-inTx
	// A generous bound, only so that a read stuck behind the writer fails instead of
	// hanging the test: the read pool answers at once.
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	got, err := st.PartnerGetByID(rctx, p.ID)
	if err != nil {
		t.Fatalf("read while the writer is held: %v", err)
	}
	if got.CreditUsed != 0 {
		t.Errorf("read saw the open transaction's draw: %d", got.CreditUsed)
	}
	wrote := make(chan error, 1)
	go func() { _, err := st.CreditDraw(ctx, p.ID, 50); wrote <- err }()
	close(release)
	if err := <-txDone; err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("write queued behind the transaction: %v", err)
	}
	if got, _ := st.PartnerGetByID(ctx, p.ID); got.CreditUsed != 150 {
		t.Errorf("credit used = %d; want 150", got.CreditUsed)
	}
}
