package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/postgres"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// sentLog records the statements a store sends, a batch as one line of its statements.
type sentLog struct {
	mu   sync.Mutex
	sent []string
}

func (l *sentLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent = append(l.sent, strings.Fields(d.SQL)[0])
	return ctx
}
func (l *sentLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (l *sentLog) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var words []string
	for _, q := range d.Batch.QueuedQueries {
		words = append(words, strings.Fields(q.SQL)[0])
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent = append(l.sent, "batch["+strings.Join(words, " ")+"]")
	return ctx
}
func (l *sentLog) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (l *sentLog) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

func (l *sentLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.sent
	l.sent = nil
	return out
}

// openOneConn opens a traced store whose pool has one connection, so that a test can
// tell whether a transaction gave it back in a clean state (the same backend serves
// the next one) or left it to be dropped.
func openOneConn(t *testing.T) (*sqlstore.DB, *sentLog) {
	t.Helper()
	log := &sentLog{}
	s, err := postgres.OpenTraced(context.Background(), storetest.PostgresDSN(t), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.SQL().SetMaxOpenConns(1)
	s.SQL().SetMaxIdleConns(1)
	return s, log
}

func backend(t *testing.T, s *sqlstore.DB) int {
	t.Helper()
	var pid int
	if err := s.SQL().QueryRowContext(context.Background(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

func partner(name string) *tradewind.Partner {
	return &tradewind.Partner{Name: name, PricingMode: "net", Currency: "EUR", CreditLimit: 10000, RateLimit: 120,
		CreatedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
}

// TestHeldTransaction: on PostgreSQL a transaction's BEGIN travels with its first
// statement and its COMMIT with what was left for it (sqlstore's deferredTx), written
// by hand rather than through database/sql's Tx. It still commits exactly what it
// should, sends nothing when it wrote nothing, never commits after a statement that
// failed, and gives its connection back clean (the same backend serves the next
// transaction) whether it committed, failed or panicked.
func TestHeldTransaction(t *testing.T) {
	ctx := context.Background()
	s, log := openOneConn(t)
	pid := backend(t, s)
	clean := func(what string) {
		t.Helper()
		if now := backend(t, s); now != pid {
			t.Fatalf("%s: the next statement ran on backend %d, not %d: the connection was dropped, not given back clean", what, now, pid)
		}
	}

	t.Run("commits", func(t *testing.T) {
		p := partner("held-a")
		if err := s.PartnerCreate(ctx, p); err != nil {
			t.Fatal(err)
		}
		log.take()
		p.RateLimit = 60
		if err := s.InTx(ctx, func(q store.Querier) error { return q.PartnerUpdate(ctx, p) }); err != nil {
			t.Fatal(err)
		}
		if got := log.take(); len(got) != 2 || got[0] != "batch[BEGIN UPDATE]" || got[1] != "batch[COMMIT]" {
			t.Errorf("a one-statement transaction sent %q; want BEGIN with the update, then COMMIT", got)
		}
		// A query whose rows database/sql reads goes after its BEGIN, as it did when
		// database/sql's Tx sent BEGIN.
		if err := s.InTx(ctx, func(q store.Querier) error { return q.PartnerCreate(ctx, partner("held-f")) }); err != nil {
			t.Fatal(err)
		}
		if got := log.take(); len(got) != 3 || got[0] != "BEGIN" || got[1] != "INSERT" || got[2] != "batch[COMMIT]" {
			t.Errorf("a one-query transaction sent %q; want BEGIN, the insert, COMMIT", got)
		}
		if got, err := s.PartnerGetByName(ctx, "held-a"); err != nil || got.RateLimit != 60 {
			t.Fatalf("the committed update: %+v, %v", got, err)
		}
		if _, err := s.PartnerGetByName(ctx, "held-f"); err != nil {
			t.Fatalf("the committed partner: %v", err)
		}
		clean("after a commit")
	})

	t.Run("sends nothing when nothing was written", func(t *testing.T) {
		log.take()
		if err := s.InTx(ctx, func(q store.Querier) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if got := log.take(); len(got) != 0 {
			t.Errorf("an empty transaction sent %q; want nothing", got)
		}
		sentinel := errors.New("given up")
		if err := s.InTx(ctx, func(q store.Querier) error { return sentinel }); !errors.Is(err, sentinel) {
			t.Fatalf("InTx: %v; want the function's error", err)
		}
		if got := log.take(); len(got) != 0 {
			t.Errorf("a transaction given up before any statement sent %q; want nothing", got)
		}
	})

	t.Run("an error rolls back", func(t *testing.T) {
		sentinel := errors.New("given up")
		err := s.InTx(ctx, func(q store.Querier) error {
			if err := q.PartnerCreate(ctx, partner("held-b")); err != nil {
				return err
			}
			return sentinel
		})
		if !errors.Is(err, sentinel) {
			t.Fatalf("InTx: %v; want the function's error", err)
		}
		if _, err := s.PartnerGetByName(ctx, "held-b"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the rolled-back partner: %v; want ErrNotFound", err)
		}
		clean("after a rollback")
	})

	t.Run("a failed statement ignored does not commit", func(t *testing.T) {
		err := s.InTx(ctx, func(q store.Querier) error {
			if err := q.PartnerCreate(ctx, partner("held-c")); err != nil {
				return err
			}
			if err := q.PartnerCreate(ctx, partner("held-a")); !errors.Is(err, store.ErrConflict) {
				t.Errorf("a taken name: %v; want ErrConflict", err)
			}
			return nil // the function goes on as if the failure did not matter
		})
		if !errors.Is(err, sqlstore.ErrRolledBack) {
			t.Fatalf("InTx after an ignored failure: %v; want ErrRolledBack", err)
		}
		if _, err := s.PartnerGetByName(ctx, "held-c"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a partner written before the failure: %v; want ErrNotFound (not committed)", err)
		}
		clean("after a failed transaction")
	})

	t.Run("a panic rolls back", func(t *testing.T) {
		func() {
			defer func() { _ = recover() }()
			_ = s.InTx(ctx, func(q store.Querier) error {
				if err := q.PartnerCreate(ctx, partner("held-d")); err != nil {
					return err
				}
				panic("in the transaction")
			})
		}()
		if _, err := s.PartnerGetByName(ctx, "held-d"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the panicked transaction's partner: %v; want ErrNotFound", err)
		}
		clean("after a panic")
	})

	t.Run("a draw refused at COMMIT", func(t *testing.T) {
		p := partner("held-e")
		p.CreditLimit = 100
		if err := s.PartnerCreate(ctx, p); err != nil {
			t.Fatal(err)
		}
		b := &tradewind.Booking{Reference: "HTL-HELDTX01", PartnerID: p.ID, ProductType: "hotel", Status: tradewind.StatusConfirmed,
			PricingMode: "net", TotalPrice: 500, CreditDrawn: 500, Currency: "EUR", ItemID: 7, StartDate: "2027-01-01",
			EndDate: "2027-01-02", Quote: []byte(`{}`), Guest: []byte(`{}`), Details: []byte(`{}`), CreatedAt: p.CreatedAt, UpdatedAt: p.CreatedAt}
		log.take()
		err := s.InTx(ctx, func(q store.Querier) error {
			if err := q.BookingCreate(ctx, b); err != nil {
				return err
			}
			return q.CreditDrawAll(ctx, []*store.LedgerEntry{{PartnerID: p.ID, BookingID: b.ID, Reference: b.Reference,
				Kind: store.LedgerDraw, Amount: 500, Currency: "EUR", At: p.CreatedAt}})
		})
		if cr := (*store.CreditRefused)(nil); !errors.As(err, &cr) || cr.PartnerID != p.ID {
			t.Fatalf("InTx: %v; want CreditRefused of partner %d", err, p.ID)
		}
		// The booking's insert (a query), then the draw with COMMIT, which fails: the
		// transaction is rolled back.
		if sent := log.take(); len(sent) != 4 || sent[2] != "batch[WITH COMMIT]" || sent[3] != "ROLLBACK" {
			t.Errorf("sent %q; want BEGIN, the insert, the draw with COMMIT, ROLLBACK", sent)
		}
		if _, err := s.BookingGetByReference(ctx, p.ID, b.Reference); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the booking of a refused transaction: %v; want ErrNotFound", err)
		}
		clean("after a refusal at COMMIT")
	})
}
