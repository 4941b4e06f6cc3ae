package booking_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/readmodel"
	"github.com/tradewind/tradewind/internal/store/postgres"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// statements counts the statements PostgreSQL receives (each one round trip once its
// connection has prepared it), and remembers their first words.
type statements struct {
	mu   sync.Mutex
	on   bool
	sent []string
}

func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		f := strings.Fields(d.SQL)
		s.sent = append(s.sent, strings.Join(f[:min(len(f), 4)], " "))
	}
	return ctx
}

func (s *statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart counts a batch (sqlstore.Dialect.SendBatch) as one round trip, named
// by its statements' first words.
func (s *statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		var parts []string
		for _, q := range d.Batch.QueuedQueries {
			f := strings.Fields(q.SQL)
			parts = append(parts, strings.Join(f[:min(len(f), 3)], " "))
		}
		s.sent = append(s.sent, "batch["+strings.Join(parts, " | ")+"]")
	}
	return ctx
}

func (s *statements) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (s *statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

func (s *statements) count(f func()) []string {
	s.mu.Lock()
	s.on, s.sent = true, nil
	s.mu.Unlock()
	f()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	return s.sent
}

// BookStatementsPostgres is how many statements (round trips: a batch counts one) a
// live hotel booking sends to PostgreSQL through the service (docs/performance.md,
// "The write path"; docs/performance-history.md, "pgbook5", "Night 7" and "Night 8"):
// the item with its room's nights (the quote ahead, outside the transaction, one
// statement), BEGIN with the claim with the booking (store.InventoryClaimBooking: the
// claim, on condition that the item is still the one priced, the booking with its
// request's fingerprint only when the claim took every night, its event and the
// event's deliveries, in one statement; it returns the claimed nights; the booking's
// unique Idempotency-Key answers a retry: no lookup of the key before), the credit draw
// (last: it locks the partner's row until COMMIT), COMMIT. It was 13 before the write
// path was reworked, 10 before pgbook5, 7 while the key had a record of its own
// (migration 00031), 6 while the claim and the booking were two statements, 5 while
// BEGIN went alone.
const BookStatementsPostgres = 4

// BookTxStatementsPostgres is how many of them the booking's transaction sends, BEGIN
// and COMMIT included: 9 while the quote (item, inventory) was read under it, 7 while
// the event was a statement of its own, 6 while the key had a record of its own, 5
// while the claim and the booking were two, 4 while BEGIN went alone.
const BookTxStatementsPostgres = 3

// inTx counts the statements from the first BEGIN to the last COMMIT, each alone or in
// a batch (which counts one).
func inTx(sent []string) int {
	words := func(st string) []string {
		if inner, ok := strings.CutPrefix(st, "batch["); ok {
			return strings.Split(strings.TrimSuffix(inner, "]"), " | ")
		}
		return []string{st}
	}
	first, last := -1, -1
	for i, st := range sent {
		for _, w := range words(st) {
			if strings.EqualFold(w, "begin") && first < 0 {
				first = i
			}
			if strings.EqualFold(w, "commit") {
				last = i
			}
		}
	}
	if first < 0 || last < first {
		return 0
	}
	return last - first + 1
}

// tracedService is a live service on PostgreSQL over 4 hotels whose statements tr counts.
func tracedService(t *testing.T) (tr *statements, svc *booking.Service, c *booking.Caller, doc *catalog.Document) {
	tr = &statements{}
	o := storetest.Opener{Name: "postgres", Open: func(tb testing.TB) *sqlstore.DB {
		st, err := postgres.OpenTraced(context.Background(), storetest.PostgresDSN(tb), tr)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { st.Close() })
		return st
	}}
	doc = catalog.Generate(catalog.GenerateOptions{Hotels: 4, Cities: 1, Days: 30, Seed: 1, Start: apitest.Start})
	svc, c = liveService(t, o, apitest.NewClock(apitest.Start), doc, "100000000")
	return tr, svc, c, doc
}

// bookNight books the night i+1 of a room of hotel i (of doc's) live, a new booking,
// with the partner reference ref when not empty.
func bookNight(t *testing.T, svc *booking.Service, c *booking.Caller, doc *catalog.Document, i int, ref string) {
	t.Helper()
	h := doc.Hotels[i%len(doc.Hotels)]
	req := &booking.BookRequest{QuoteRequest: booking.QuoteRequest{ProductType: "hotel", HotelID: h.ID, RoomID: h.Rooms[0].ID,
		CheckIn: apitest.Day(1 + i), CheckOut: apitest.Day(2 + i), Rooms: 1, Adults: 1}, Guest: &booking.Guest{Name: "Trips"},
		PartnerReference: ref}
	if _, replay, err := svc.Book(context.Background(), c, fmt.Sprint("trips-", i), req); err != nil || replay {
		t.Fatalf("book: %v (replay %v)", err, replay)
	}
}

// TestBookRoundTripsPostgres: a live booking sends no more statements than counted.
func TestBookRoundTripsPostgres(t *testing.T) {
	t.Parallel()
	tr, svc, c, doc := tracedService(t)
	book := func(i int) { bookNight(t, svc, c, doc, i, "") }
	book(0) // the first use of each statement on a connection also prepares it
	sent := tr.count(func() { book(1) })
	t.Logf("%d statements:\n%s", len(sent), strings.Join(sent, "\n"))
	if len(sent) > BookStatementsPostgres {
		t.Errorf("a live booking sent %d statements to PostgreSQL; want at most %d:\n%s", len(sent), BookStatementsPostgres, strings.Join(sent, "\n"))
	}
	if n := inTx(sent); n > BookTxStatementsPostgres {
		t.Errorf("a live booking's transaction sent %d statements to PostgreSQL; want at most %d:\n%s", n, BookTxStatementsPostgres, strings.Join(sent, "\n"))
	}
	// A partner_reference costs no statement: its uniqueness is the booking's insert's
	// to check (a lookup before the claim was one round trip more).
	sent = tr.count(func() { bookNight(t, svc, c, doc, 2, "PO-trips-2") })
	if len(sent) > BookStatementsPostgres || inTx(sent) > BookTxStatementsPostgres {
		t.Errorf("a live booking with a partner_reference sent %d statements to PostgreSQL, %d in its transaction; want at most %d and %d:\n%s",
			len(sent), inTx(sent), BookStatementsPostgres, BookTxStatementsPostgres, strings.Join(sent, "\n"))
	}
}

// BookGroupStatementsPostgres is how many statements a group of one partner's live
// hotel bookings sends to PostgreSQL besides its bookings' own (each booking's reads
// before the group, and its statements under it; BEGIN travels with the first
// booking's): the partner's credit draw for the group with its ledger entries
// (store.CreditDrawAll, one statement) and COMMIT, in one batch. It was 3 while BEGIN,
// the draw and COMMIT went alone.
const BookGroupStatementsPostgres = 1

// TestBookGroupRoundTripsPostgres: a booking in a group sends the statements it sends
// alone, less COMMIT and its own credit draw, which the group sends once. Its
// savepoint statement (SavepointNext releases the previous booking's and takes its own)
// adds no round trip: it travels in one batch with the booking's first statement, the
// claim with the booking (sqlstore's queryEach): one round trip a booking under the
// group's transaction. Before, the claim went alone, a query whose rows database/sql
// reads, and the savepoint in a round trip of its own before it; until night 7 the
// booking's insert followed the claim in a round trip of its own.
func TestBookGroupRoundTripsPostgres(t *testing.T) {
	t.Parallel()
	tr, svc, c, doc := tracedService(t)
	svc.BookGroupMax = booking.DefaultBookGroupMax
	group := func(day int) {
		var reqs []*booking.BookRequest
		var callers []*booking.Caller
		for _, h := range doc.Hotels {
			reqs = append(reqs, &booking.BookRequest{QuoteRequest: booking.QuoteRequest{ProductType: "hotel", HotelID: h.ID, RoomID: h.Rooms[0].ID,
				CheckIn: apitest.Day(day), CheckOut: apitest.Day(day + 1), Rooms: 1, Adults: 1}, Guest: &booking.Guest{Name: "Trips"}})
			callers = append(callers, c)
		}
		for i, err := range runAsOneGroup(t, svc, callers, reqs) {
			if err != nil {
				t.Fatalf("booking %d: %v", i, err)
			}
		}
	}
	group(1) // prepares each statement on the group's connection, maybe not on the next
	group(2)
	sent := tr.count(func() { group(3) })
	n := len(doc.Hotels)
	want := n*(BookStatementsPostgres-2) + BookGroupStatementsPostgres // less draw and COMMIT
	t.Logf("%d statements for %d bookings in one group (at most %d):\n%s", len(sent), n, want, strings.Join(sent, "\n"))
	if len(sent) > want {
		t.Errorf("a group of %d live bookings sent %d statements to PostgreSQL; want at most %d:\n%s", n, len(sent), want, strings.Join(sent, "\n"))
	}
	// Under the group's transaction, per booking: its statements from BEGIN to its
	// credit draw, its savepoint with the first; then the group's draw with COMMIT.
	if got, want := inTx(sent), n*(BookTxStatementsPostgres-2)+BookGroupStatementsPostgres; got > want {
		t.Errorf("a group of %d live bookings sent %d statements under its transaction; want at most %d:\n%s", n, got, want, strings.Join(sent, "\n"))
	}
}

// PrebookStatementsPostgres is how many statements a hotel prebook sends to
// PostgreSQL: the hotel with its room's nights (one statement, store.ItemWithUnitDays;
// two before pgbook5) and the prebook's insert.
const PrebookStatementsPostgres = 2

// TestPrebookRoundTripsPostgres: a prebook sends no more statements than counted.
func TestPrebookRoundTripsPostgres(t *testing.T) {
	t.Parallel()
	tr, svc, c, doc := tracedService(t)
	prebook := func(i int) {
		h := doc.Hotels[i%len(doc.Hotels)]
		q := &booking.QuoteRequest{ProductType: "hotel", HotelID: h.ID, RoomID: h.Rooms[0].ID,
			CheckIn: apitest.Day(1 + i), CheckOut: apitest.Day(3 + i), Rooms: 1, Adults: 1}
		if _, err := svc.Prebook(context.Background(), c, q); err != nil {
			t.Fatalf("prebook: %v", err)
		}
	}
	prebook(0)
	sent := tr.count(func() { prebook(1) })
	t.Logf("%d statements:\n%s", len(sent), strings.Join(sent, "\n"))
	if len(sent) > PrebookStatementsPostgres {
		t.Errorf("a prebook sent %d statements to PostgreSQL; want at most %d:\n%s", len(sent), PrebookStatementsPostgres, strings.Join(sent, "\n"))
	}
}

// withModel gives svc a read model, built now and never polled.
func withModel(t *testing.T, svc *booking.Service) {
	t.Helper()
	m := readmodel.New(svc.Store, apitest.NewClock(apitest.Start), nil)
	if err := m.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	svc.Reads = m
}

// TestPrebookRoundTripsPostgresWithModel: with a read model, a prebook is priced from
// it and sends one statement, its insert, which checks the store holds what was priced
// (prebook.go).
func TestPrebookRoundTripsPostgresWithModel(t *testing.T) {
	t.Parallel()
	tr, svc, c, doc := tracedService(t)
	withModel(t, svc)
	h := doc.Hotels[1]
	q := &booking.QuoteRequest{ProductType: "hotel", HotelID: h.ID, RoomID: h.Rooms[0].ID,
		CheckIn: apitest.Day(2), CheckOut: apitest.Day(4), Rooms: 1, Adults: 1}
	kept, _ := svc.PrebookAheadStats()
	sent := tr.count(func() {
		if _, err := svc.Prebook(context.Background(), c, q); err != nil {
			t.Fatalf("prebook: %v", err)
		}
	})
	t.Logf("%d statements:\n%s", len(sent), strings.Join(sent, "\n"))
	if len(sent) != 1 {
		t.Errorf("a prebook priced from the model sent %d statements; want its insert alone:\n%s", len(sent), strings.Join(sent, "\n"))
	}
	if now, _ := svc.PrebookAheadStats(); now != kept+1 {
		t.Errorf("the prebook was not priced from the model (%d, then %d)", kept, now)
	}
}

// TestBookRoundTripsPostgresWithModel: with a read model, a live booking's quote ahead
// reads it, not the store: the booking sends only its transaction's statements.
func TestBookRoundTripsPostgresWithModel(t *testing.T) {
	t.Parallel()
	tr, svc, c, doc := tracedService(t)
	withModel(t, svc)
	book := func(i int) { bookNight(t, svc, c, doc, i, "") }
	book(0)
	kept, _ := svc.BookAheadStats()
	sent := tr.count(func() { book(1) })
	t.Logf("%d statements:\n%s", len(sent), strings.Join(sent, "\n"))
	if n := inTx(sent); len(sent) > BookTxStatementsPostgres || n != len(sent) {
		t.Errorf("a live booking with a read model sent %d statements, %d of them in its transaction; want at most %d, all in it:\n%s",
			len(sent), n, BookTxStatementsPostgres, strings.Join(sent, "\n"))
	}
	if now, _ := svc.BookAheadStats(); now != kept+1 {
		t.Errorf("the quote ahead was not kept (%d, then %d)", kept, now)
	}
}
