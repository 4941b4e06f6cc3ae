package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestSequencersReadTheQueueNotTheTable: the change feed's and the event feed's
// sequencers read what they have not sequenced yet through its partial index, also
// when the planner's statistics were taken while that index held every row of its
// table (an import's ANALYZE, just before its changes are sequenced). Read by the
// table instead, every poll of the read model (five a second) and every read of the
// event feed scanned every change and every event kept, on SQLite on the one writer.
func TestSequencersReadTheQueueNotTheTable(t *testing.T) {
	eachStore(t, func(t *testing.T, s *sqlstore.DB, explain string) {
		ctx := context.Background()
		const rows = 3000
		if _, err := s.SQL().ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < `+
			fmt.Sprint(rows)+`) INSERT INTO changes (kind, item_id) SELECT 'hotel', i FROM n`); err != nil {
			t.Fatal(err)
		}
		event := func(i int) *tradewind.Event { return planEvent(i, 1, tradewind.EventBookingConfirmed, `{}`) }
		var list []*tradewind.Event
		for i := range rows {
			list = append(list, event(i))
		}
		createEvents(t, s, list)
		// The statistics of a queue that holds every row, then the queue emptied.
		if err := s.Analyze(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.InTx(ctx, func(q store.Querier) error {
			if n, err := q.ChangeSequence(ctx, planStart, 2*rows); err != nil || n != rows {
				return fmt.Errorf("changes sequenced: %d, %v", n, err)
			}
			if n, err := q.EventSequence(ctx, 2*rows); err != nil || n != rows {
				return fmt.Errorf("events sequenced: %d, %v", n, err)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		// One row of each left to sequence.
		if _, err := s.SQL().ExecContext(ctx, `INSERT INTO changes (kind, item_id) VALUES ('hotel', 1)`); err != nil {
			t.Fatal(err)
		}
		if err := s.EventCreate(ctx, event(rows)); err != nil {
			t.Fatal(err)
		}

		for _, st := range s.SequencerStatements(planStart.Format(time.RFC3339Nano)) {
			plan := planOf(t, s.SQL(), explain+st.SQL, st.Args...)
			if !strings.Contains(plan, st.Index) {
				t.Errorf("%s is read without %s:\n%s", st.SQL, st.Index, plan)
			}
		}
		if pending, err := s.ChangesUnsequenced(ctx); err != nil || !pending {
			t.Errorf("ChangesUnsequenced = %v, %v; want the one change", pending, err)
		}
		if pending, err := s.EventsUnsequenced(ctx); err != nil || !pending {
			t.Errorf("EventsUnsequenced = %v, %v; want the one event", pending, err)
		}
		if err := s.InTx(ctx, func(q store.Querier) error {
			if n, err := q.ChangeSequence(ctx, planStart, rows); err != nil || n != 1 {
				return fmt.Errorf("changes sequenced: %d, %v; want 1", n, err)
			}
			if n, err := q.EventSequence(ctx, rows); err != nil || n != 1 {
				return fmt.Errorf("events sequenced: %d, %v; want 1", n, err)
			}
			return nil
		}); err != nil {
			t.Error(err)
		}
	})
}

// eachStore runs fn as a parallel subtest over a fresh database of each kind, with the
// prefix that makes that database print a statement's plan.
func eachStore(t *testing.T, fn func(t *testing.T, s *sqlstore.DB, explain string)) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			explain := "EXPLAIN "
			if o.Name == "sqlite" {
				explain = "EXPLAIN QUERY PLAN "
			}
			fn(t, o.Open(t), explain)
		})
	}
}

// planStart is when the events of the plan tests begin.
var planStart = time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC)

// planEvent is the i-th event of a plan test: its id and time follow i.
func planEvent(i int, partnerID int64, typ tradewind.EventType, data string) *tradewind.Event {
	return &tradewind.Event{ID: fmt.Sprintf("evt_%08d", i), PartnerID: partnerID, Type: typ, Data: []byte(data),
		CreatedAt: planStart.Add(time.Duration(i) * time.Millisecond)}
}

// createEvents writes list in one transaction.
func createEvents(t *testing.T, s *sqlstore.DB, list []*tradewind.Event) {
	t.Helper()
	ctx := context.Background()
	if err := s.InTx(ctx, func(q store.Querier) error {
		for _, e := range list {
			if err := q.EventCreate(ctx, e); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// planEvents returns a maker of a plan test's events, numbered in the order made.
func planEvents() func(partnerID int64, typ tradewind.EventType, data string) *tradewind.Event {
	n := 0
	return func(partnerID int64, typ tradewind.EventType, data string) *tradewind.Event {
		n++
		return planEvent(n, partnerID, typ, data)
	}
}

// planOf returns the plan a database prints for an EXPLAIN statement, each row's
// columns joined, one row a line.
func planOf(t *testing.T, db *sql.DB, explain string, args ...any) string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), explain, args...)
	if err != nil {
		t.Fatalf("%s: %v", explain, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprint(vals...))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
