package booking_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/readmodel"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestGroupCommitAnswersEachBooking: bookings that run in one group commit, where some
// fail, commit the others and answer each failing one with its own error: a room of two
// asked three times (the third 422 invalid_quote), another partner's credit refused
// (402 insufficient_credit), and the same Idempotency-Key twice in one group (one
// booking; the other request replays it). The refused draw keeps the group from
// committing: the poor partner's booking runs alone, the six others in a group again.
func TestGroupCommitAnswersEachBooking(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, c := groupedService(t, o)
		limit := "1"
		poor, err := svc.CreatePartner(ctx, "poor", booking.PartnerParams{CreditLimit: &limit})
		if err != nil {
			t.Fatal(err)
		}
		pk, _, err := svc.IssueKey(ctx, "poor", booking.KeyParams{Mode: "live"})
		if err != nil {
			t.Fatal(err)
		}
		poorCaller := &booking.Caller{Partner: poor, Key: pk}
		small := func(day int) *booking.BookRequest { // the single room: two per night
			return &booking.BookRequest{QuoteRequest: booking.QuoteRequest{ProductType: "hotel", HotelID: apitest.HotelLisbon,
				RoomID: apitest.RoomSmall, CheckIn: apitest.Day(day), CheckOut: apitest.Day(day + 1), Rooms: 1, Adults: 1},
				Guest: &booking.Guest{Name: "G"}}
		}
		type call struct {
			name   string
			caller *booking.Caller
			key    string
			req    *booking.BookRequest
			view   *booking.BookingView
			replay bool
			err    error
		}
		calls := []*call{
			{name: "key a", caller: c, key: "a", req: small(6)},
			{name: "key a again, same request", caller: c, key: "a", req: small(6)},
			{name: "room of two, b", caller: c, key: "b", req: small(3)},
			{name: "room of two, c", caller: c, key: "c", req: small(3)},
			{name: "room of two, d", caller: c, key: "d", req: small(3)},
			{name: "credit refused", caller: poorCaller, key: "e", req: small(5)},
			{name: "another night", caller: c, key: "f", req: small(4)},
		}

		// Hold the turn as a running group would, queue every booking, then let one
		// group take them all.
		queued, release := booking.HoldBookGroups(svc)
		var wg sync.WaitGroup
		for _, cl := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cl.view, cl.replay, cl.err = svc.Book(ctx, cl.caller, cl.key, cl.req)
			}()
		}
		deadline := time.Now().Add(10 * time.Second)
		for queued() < len(calls) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := queued(); n != len(calls) {
			release()
			wg.Wait()
			t.Fatalf("%d bookings queued for a group, want %d", n, len(calls))
		}
		groups0, grouped0 := svc.BookGroupStats()
		release()
		wg.Wait()
		if groups, grouped := svc.BookGroupStats(); groups != groups0+2 || grouped != grouped0+int64(2*len(calls)-1) {
			t.Fatalf("group stats %d groups of %d bookings after, %d of %d before; want one group of all %d, then one of the %d others",
				groups, grouped, groups0, grouped0, len(calls), len(calls)-1)
		}

		ok := func(cl *call) {
			t.Helper()
			if cl.err != nil || cl.view == nil || cl.view.Status != tradewind.StatusConfirmed {
				t.Errorf("%s: %+v, %v; want a confirmed booking", cl.name, cl.view, cl.err)
			}
		}
		// The group runs its bookings in the order they queued, which the test leaves
		// to the scheduler: whichever of the two requests of key a ran first creates
		// the booking, and whichever two of b, c, d ran first take the two rooms.
		first, again := calls[0], calls[1]
		if first.replay {
			first, again = again, first
		}
		ok(first)
		if first.replay || again.err != nil || !again.replay || again.view.Reference != first.view.Reference {
			t.Errorf("key a twice: %+v (replay %v, %v) and %+v (replay %v, %v); want one booking and its replay",
				first.view, first.replay, first.err, again.view, again.replay, again.err)
		}
		booked, soldOut := 0, 0
		for _, cl := range calls[2:5] {
			switch {
			case cl.err == nil && cl.view != nil && !cl.replay && cl.view.Status == tradewind.StatusConfirmed:
				booked++
			case tradewind.ErrorCode(cl.err) == tradewind.ECodeInvalidQuote:
				soldOut++
			default:
				t.Errorf("%s: %+v, %v; want a booking or invalid_quote", cl.name, cl.view, cl.err)
			}
		}
		if booked != 2 || soldOut != 1 {
			t.Errorf("three requests for a room of two: %d booked, %d sold out; want 2 and 1", booked, soldOut)
		}
		if code := tradewind.ErrorCode(calls[5].err); code != tradewind.ECodeInsufficientCredit {
			t.Errorf("credit refused: %+v, %v; want insufficient_credit", calls[5].view, calls[5].err)
		}
		ok(calls[6])

		// What committed: the three bookings, their credit, their events; nothing of the
		// failed ones.
		list, total, err := svc.Store.BookingList(ctx, store.BookingFilter{PartnerID: c.Partner.ID})
		if err != nil || total != 4 {
			t.Fatalf("bookings: %d, %v; want 4", total, err)
		}
		var sum int64
		for _, b := range list {
			sum += b.TotalPrice
		}
		if p, _ := svc.Store.PartnerGetByID(ctx, c.Partner.ID); p.CreditUsed != sum {
			t.Errorf("credit used %d, want the four bookings' %d", p.CreditUsed, sum)
		}
		if _, total, _ := svc.Store.BookingList(ctx, store.BookingFilter{PartnerID: poor.ID}); total != 0 {
			t.Errorf("the refused partner has %d bookings", total)
		}
		if p, _ := svc.Store.PartnerGetByID(ctx, poor.ID); p.CreditUsed != 0 {
			t.Errorf("the refused partner uses %d of credit", p.CreditUsed)
		}
		var events int
		if err := svc.Store.(*sqlstore.DB).SQL().QueryRowContext(ctx,
			`SELECT count(*) FROM events WHERE type = $1`, string(tradewind.EventBookingConfirmed)).Scan(&events); err != nil || events != 4 {
			t.Errorf("booking.confirmed events: %d, %v; want 4", events, err)
		}
		if _, _, err := svc.Book(ctx, c, "g", small(3)); tradewind.ErrorCode(err) != tradewind.ECodeInvalidQuote {
			t.Errorf("a third booking of the room's two: %v, want invalid_quote", err)
		}
	})
}

// runAsOneGroup books every request at once as one group commit and returns each
// answer's error, in order.
func runAsOneGroup(t *testing.T, svc *booking.Service, callers []*booking.Caller, reqs []*booking.BookRequest) []error {
	t.Helper()
	queued, release := booking.HoldBookGroups(svc)
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = svc.Book(context.Background(), callers[i], fmt.Sprint("group-", i, "-", reqs[i].CheckIn), reqs[i])
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for queued() < len(reqs) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	n := queued()
	release()
	wg.Wait()
	if n != len(reqs) {
		t.Fatalf("%d bookings queued for a group, want %d", n, len(reqs))
	}
	return errs
}

// groupedService is liveService (credit 10 000) whose bookings run in group commits
// on both databases, PostgreSQL's default size too.
func groupedService(t *testing.T, o storetest.Opener) (*booking.Service, *booking.Caller) {
	t.Helper()
	svc, c := liveService(t, o, apitest.NewClock(apitest.Start), apitest.Catalog(), "10000")
	svc.BookGroupMax = booking.DefaultBookGroupMax
	return svc, c
}

// doubleNight is a booking of Lisbon's double room for the night of day.
func doubleNight(day int) *booking.BookRequest {
	return &booking.BookRequest{QuoteRequest: booking.QuoteRequest{ProductType: "hotel", HotelID: apitest.HotelLisbon,
		RoomID: apitest.RoomDouble, CheckIn: apitest.Day(day), CheckOut: apitest.Day(day + 1), Rooms: 1, Adults: 1},
		Guest: &booking.Guest{Name: "G"}}
}

// livePartner creates a partner of credit limit (a decimal amount) and its live key.
func livePartner(t *testing.T, svc *booking.Service, name, limit string) *booking.Caller {
	t.Helper()
	ctx := context.Background()
	p, err := svc.CreatePartner(ctx, name, booking.PartnerParams{CreditLimit: &limit})
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := svc.IssueKey(ctx, name, booking.KeyParams{Mode: "live"})
	if err != nil {
		t.Fatal(err)
	}
	return &booking.Caller{Partner: p, Key: k}
}

// TestGroupCommitDrawsOncePerPartner: a group's credit draws are made together at its
// end, per partner: when they fit, every booking commits and each partner's ledger
// adds up, entry by entry, to its credit used; when one partner's do not all fit, its
// bookings run alone and exactly those that fit are made (the others 402).
func TestGroupCommitDrawsOncePerPartner(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, c := groupedService(t, o)
		pre, err := svc.Prebook(ctx, c, &doubleNight(3).QuoteRequest)
		if err != nil {
			t.Fatal(err)
		}
		price := pre.TotalPrice.Minor
		partner := func(name string, limit int64) *booking.Caller {
			return livePartner(t, svc, name, fmt.Sprintf("%d.%02d", limit/100, limit%100))
		}
		ledgerAddsUp := func(cl *booking.Caller, want int) {
			t.Helper()
			p, err := svc.Store.PartnerGetByID(ctx, cl.Partner.ID)
			if err != nil {
				t.Fatal(err)
			}
			entries, err := svc.Store.CreditLedgerList(ctx, store.LedgerQuery{PartnerID: cl.Partner.ID, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != want || p.CreditUsed != int64(want)*price {
				t.Fatalf("%s: %d ledger entries, credit used %d; want %d and %d", p.Name, len(entries), p.CreditUsed, want, int64(want)*price)
			}
			balance := p.CreditUsed
			for _, e := range entries { // newest first
				if e.BalanceAfter != balance || e.Amount != price || e.Kind != store.LedgerDraw {
					t.Fatalf("%s: entry %+v, want a draw of %d leaving %d", p.Name, e, price, balance)
				}
				balance -= e.Amount
			}
		}

		// Two partners' bookings in one group, all fitting.
		other := partner("other", 10*price)
		groups0, _ := svc.BookGroupStats()
		errs := runAsOneGroup(t, svc, []*booking.Caller{c, other, c, other},
			[]*booking.BookRequest{doubleNight(3), doubleNight(3), doubleNight(4), doubleNight(4)})
		for i, err := range errs {
			if err != nil {
				t.Fatalf("booking %d: %v", i, err)
			}
		}
		if groups, _ := svc.BookGroupStats(); groups != groups0+1 {
			t.Fatalf("%d groups, want one", groups-groups0)
		}
		ledgerAddsUp(c, 2)
		ledgerAddsUp(other, 2)

		// Three bookings of a partner whose credit holds two: two made, one refused.
		tight := partner("tight", 2*price)
		errs = runAsOneGroup(t, svc, []*booking.Caller{tight, tight, tight}, []*booking.BookRequest{doubleNight(5), doubleNight(6), doubleNight(7)})
		made, refused := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				made++
			case tradewind.ErrorCode(err) == tradewind.ECodeInsufficientCredit:
				refused++
			default:
				t.Fatalf("tight partner: %v", err)
			}
		}
		if made != 2 || refused != 1 {
			t.Fatalf("tight partner: %d made, %d refused; want 2 and 1", made, refused)
		}
		ledgerAddsUp(tight, 2)
	})
}

// TestGroupRefusedPartnerRunsAlone: when one partner's credit draws in a group do not
// fit, only that partner's bookings run alone; the other partners' run again together,
// in one group, rather than each alone with a commit of its own. For a while after,
// that partner's bookings never join a group, nor do those of a partner the cache sees
// on hold: their refusals are answered while every group is held.
func TestGroupRefusedPartnerRunsAlone(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, c := groupedService(t, o)
		other := livePartner(t, svc, "other", "10000")
		poor := livePartner(t, svc, "poor", "0.01")
		booking.SetRefusedWindow(svc, time.Minute) // however slow the test's machine

		groups0, grouped0 := svc.BookGroupStats()
		errs := runAsOneGroup(t, svc, []*booking.Caller{c, poor, other, c},
			[]*booking.BookRequest{doubleNight(3), doubleNight(3), doubleNight(4), doubleNight(5)})
		for i, err := range errs {
			switch {
			case i == 1 && tradewind.ErrorCode(err) != tradewind.ECodeInsufficientCredit:
				t.Errorf("the poor partner's booking: %v; want insufficient_credit", err)
			case i != 1 && err != nil:
				t.Errorf("booking %d: %v; want it made", i, err)
			}
		}
		// The group of four, which could not commit, then the three others as one group.
		if groups, grouped := svc.BookGroupStats(); groups != groups0+2 || grouped != grouped0+4+3 {
			t.Errorf("%d groups of %d bookings; want 2 of 7 (four, then the three others together)",
				groups-groups0, grouped-grouped0)
		}
		for _, cl := range []*booking.Caller{c, other, poor} {
			want := map[int64]int{c.Partner.ID: 2, other.Partner.ID: 1}[cl.Partner.ID]
			if _, n, err := svc.Store.BookingList(ctx, store.BookingFilter{PartnerID: cl.Partner.ID}); err != nil || n != want {
				t.Errorf("%s: %d bookings, %v; want %d", cl.Partner.Name, n, err, want)
			}
		}

		// Refused lately, and on hold: each refused without a group, while every group
		// is held.
		held := true
		blocked, err := svc.UpdatePartner(ctx, "other", booking.PartnerParams{Blocked: &held})
		if err != nil {
			t.Fatal(err)
		}
		queued, release := booking.HoldBookGroups(svc)
		defer release()
		for _, b := range []struct {
			what   string
			caller *booking.Caller
			want   string
		}{
			{"the partner refused lately", poor, tradewind.ECodeInsufficientCredit},
			{"a partner on hold", &booking.Caller{Partner: blocked, Key: other.Key}, tradewind.ECodeCreditBlocked},
		} {
			answer := make(chan error, 1)
			go func() {
				_, _, err := svc.Book(ctx, b.caller, "alone-"+b.want, doubleNight(6))
				answer <- err
			}()
			select {
			case err := <-answer:
				if code := tradewind.ErrorCode(err); code != b.want {
					t.Errorf("%s: %v; want %s", b.what, err, b.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s waited for a group (%d queued); want it refused alone", b.what, queued())
			}
		}
	})
}

// TestGroupRequeuedBookingGivesUp: a booking whose request is cancelled just as its
// group, refused another partner's credit, chooses to queue it again is answered, and
// never created: it leaves the queue, or its group answers it. Before, on PostgreSQL,
// when another request's goroutine ran the group, it could wait with no group to take
// it (one run in six): the scenario runs ten times.
func TestGroupRequeuedBookingGivesUp(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, c := groupedService(t, o)
		poor := livePartner(t, svc, "poor", "0.01")
		booking.SetRefusedWindow(svc, 0) // the poor partner joins every group
		for i := range 10 {
			bctx, cancel := context.WithCancel(ctx)
			booking.SetBeforeRequeue(svc, func() {
				cancel()
				// Room for the request to give up now, as it may: its job is out of the
				// queue and not answered. (Under the committer's lock, it waits for it.)
				time.Sleep(20 * time.Millisecond)
			})
			queued, release := booking.HoldBookGroups(svc)
			answers := make(chan error, 2)
			go func() {
				_, _, err := svc.Book(ctx, poor, fmt.Sprint("refused-", i), doubleNight(3))
				answers <- err
			}()
			go func() {
				_, _, err := svc.Book(bctx, c, fmt.Sprint("cancelled-", i), doubleNight(4))
				answers <- err
			}()
			waitQueued(t, queued, 2)
			release()
			for range 2 {
				select {
				case err := <-answers:
					if err == nil {
						t.Errorf("run %d: a booking was made; want the refused one 402 and the cancelled one its context's error", i)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("run %d: a booking is still waiting (%d queued); want both answered", i, queued())
				}
			}
			cancel()
		}
		if _, n, err := svc.Store.BookingList(ctx, store.BookingFilter{PartnerID: c.Partner.ID}); err != nil || n != 0 {
			t.Errorf("the cancelled bookings' partner has %d bookings, %v; want none", n, err)
		}
	})
}

// TestConcurrentGroupsDeadlockRunsAlone: on PostgreSQL two groups run their bookings at
// the same time; when they wait for each other's rows, PostgreSQL ends the deadlock by
// failing one booking's statement, which rolls back to its savepoint and runs again
// alone once its group committed. Every booking is applied once. The bookings here
// are transaction functions that draw on two partners' credit in crossed orders.
func TestConcurrentGroupsDeadlockRunsAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := storetest.Opener{Name: "postgres", Open: storetest.OpenPostgres}
	svc, c := liveService(t, o, apitest.NewClock(apitest.Start), apitest.Catalog(), "10000")
	svc.BookGroupMax, svc.BookGroupsAtOnce = 2, 2
	limit := "10000"
	other, err := svc.CreatePartner(ctx, "other", booking.PartnerParams{CreditLimit: &limit})
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := c.Partner.ID, other.ID

	aDrew, bDrew := make(chan struct{}), make(chan struct{}) // closed: the group holds its first row
	var mu sync.Mutex
	runs := map[string]int{}
	job := func(name string, partner, amount int64, drew chan struct{}, after <-chan struct{}) func(context.Context, store.Querier) error {
		return func(ctx context.Context, tx store.Querier) error {
			mu.Lock()
			runs[name]++
			mu.Unlock()
			if after != nil {
				select { // the other group's first booking holds its row: cross
				case <-after:
				case <-time.After(10 * time.Second):
					t.Errorf("%s: the other group did not run beside this one", name)
					return fmt.Errorf("%s: waited too long", name)
				}
			}
			if ok, err := tx.CreditDraw(ctx, partner, amount); err != nil || !ok {
				return fmt.Errorf("%s: draw %v, %w", name, ok, err)
			}
			if drew != nil {
				select {
				case <-drew: // run again alone
				default:
					close(drew)
				}
			}
			return nil
		}
	}
	// Group A draws on p1 then p2, group B on p2 then p1, each second draw once the
	// other group holds its first row.
	jobs := []struct {
		name string
		fn   func(context.Context, store.Querier) error
	}{
		{"a1", job("a1", p1, 1, aDrew, nil)},
		{"a2", job("a2", p2, 10, nil, bDrew)},
		{"b1", job("b1", p2, 100, bDrew, nil)},
		{"b2", job("b2", p1, 1000, nil, aDrew)},
	}
	queued, _ := booking.HoldBookGroups(svc)
	start := time.Now()
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = booking.BookTx(svc, ctx, j.fn)
		}()
		// Queue in order; give a turn back each time two are queued, and wait for
		// their group to take them.
		waitQueued(t, queued, i%2+1)
		if i%2 == 1 {
			booking.ReleaseBookTurn(svc)
			waitQueued(t, queued, 0)
		}
	}
	wg.Wait()
	t.Logf("the four bookings took %v", time.Since(start))
	for i, err := range errs {
		if err != nil {
			t.Errorf("%s: %v", jobs[i].name, err)
		}
	}
	// One booking lost the deadlock and ran twice (in its group, then alone).
	twice := 0
	for _, n := range runs {
		if n > 1 {
			twice++
		}
	}
	if twice != 1 || len(runs) != 4 {
		t.Errorf("runs %v; want each booking once and the deadlock's loser twice", runs)
	}
	for id, want := range map[int64]int64{p1: 1001, p2: 110} {
		if p, err := svc.Store.PartnerGetByID(ctx, id); err != nil || p.CreditUsed != want {
			t.Errorf("partner %d: credit used %d, %v; want %d (each draw once)", id, p.CreditUsed, err, want)
		}
	}
}

// waitQueued waits until n bookings wait for a group.
func waitQueued(t *testing.T, queued func() int, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); queued() != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bookings queued, want %d", queued(), n)
		}
	}
}

// bookAnswer is a booking's answer from bookAsync: its error, or the panic it met.
type bookAnswer struct {
	token string // the caller's name of the booking
	err   error
	panic any
}

// bookAsync runs fn as a booking's transaction function (booking.BookTx) on a goroutine
// of its own, and sends its answer to answers, a panic included.
func bookAsync(svc *booking.Service, ctx context.Context, token string, fn func(context.Context, store.Querier) error, answers chan<- bookAnswer) {
	go func() {
		a := bookAnswer{token: token}
		defer func() {
			a.panic = recover()
			answers <- a
		}()
		a.err = booking.BookTx(svc, ctx, fn)
	}()
}

// nextAnswer returns the next answer of answers; what, never answered within 20 s,
// fails the test.
func nextAnswer(t *testing.T, answers <-chan bookAnswer, what string) bookAnswer {
	t.Helper()
	select {
	case a := <-answers:
		return a
	case <-time.After(20 * time.Second):
		t.Fatalf("%s was never answered", what)
		return bookAnswer{}
	}
}

// TestGroupWaitsForComingBookings: on SQLite's one writer connection a group does not
// commit while bookings announced as coming (Book announces each as it starts) have not
// queued: it runs the bookings queued, takes in the coming ones as they queue, and
// commits them together rather than in a group of one and another after it; one that
// gives up (refused before its transaction) is not waited for, and the wait is bounded.
func TestGroupWaitsForComingBookings(t *testing.T) {
	ctx := context.Background()
	o := sqliteOpener(t) // PostgreSQL groups never wait
	svc, _ := liveService(t, o, apitest.NewClock(apitest.Start), apitest.Catalog(), "10000")
	booking.SetBookComingWait(svc, time.Hour)
	var ran sync.Map
	fn := func(name string) func(context.Context, store.Querier) error {
		return func(context.Context, store.Querier) error {
			ran.Store(name, true)
			return nil
		}
	}
	queueB, _ := booking.ComingBooking(svc)
	_, goneC := booking.ComingBooking(svc)
	groups0, grouped0 := svc.BookGroupStats()
	errs := make(chan error, 2)
	go func() { errs <- booking.BookTx(svc, ctx, fn("a")) }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, ok := ran.Load("a"); ok {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if _, ok := ran.Load("a"); !ok {
		t.Fatal("the booking queued did not run: its group waited idle for the coming ones")
	}
	stillWaiting := func(when string) {
		t.Helper()
		time.Sleep(50 * time.Millisecond)
		select {
		case err := <-errs:
			t.Fatalf("%s: the booking queued was answered (%v): its group committed while others were coming", when, err)
		default:
		}
	}
	stillWaiting("two coming")
	goneC()
	stillWaiting("one coming, one gone")
	go func() { errs <- queueB(ctx, fn("b")) }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if groups, grouped := svc.BookGroupStats(); groups != groups0+1 || grouped != grouped0+2 {
		t.Fatalf("group stats %d groups of %d bookings, before %d of %d; want one group of both", groups, grouped, groups0, grouped0)
	}

	// A booking announced that never queues delays a group by the wait at most.
	booking.SetBookComingWait(svc, 20*time.Millisecond)
	_, goneD := booking.ComingBooking(svc)
	defer goneD()
	if err := booking.BookTx(svc, ctx, fn("e")); err != nil {
		t.Fatal(err)
	}
}

// afterCommitHold is a store whose InTx, once its transaction committed, holds the first
// caller until released: as the read model's tracked store reloads a group's claims
// after the COMMIT, before the bookings are answered.
type afterCommitHold struct {
	store.Store
	first     atomic.Bool
	committed chan struct{} // closed when the first transaction committed
	hold      chan struct{}
}

func (s *afterCommitHold) InTx(ctx context.Context, fn func(q store.Querier) error) error {
	err := s.Store.InTx(ctx, fn)
	if s.first.CompareAndSwap(false, true) { // not sync.Once: it would hold the others too
		close(s.committed)
		<-s.hold
	}
	return err
}

// TestGroupTurnFreeOnceCommitted: on SQLite's one writer connection, a group gives its
// turn back as soon as its COMMIT is done (store.WithAfterCommit), not once the InTx
// around it returns: the next group commits while the first one's after-commit work
// (the read model's reload) still runs.
func TestGroupTurnFreeOnceCommitted(t *testing.T) {
	ctx := context.Background()
	o := sqliteOpener(t)
	st := &afterCommitHold{Store: o.Open(t), committed: make(chan struct{}), hold: make(chan struct{})}
	svc := booking.New(st, apitest.NewClock(apitest.Start), nil)
	noop := func(context.Context, store.Querier) error { return nil }
	first := make(chan error, 1)
	go func() { first <- booking.BookTx(svc, ctx, noop) }()
	select {
	case <-st.committed:
	case <-time.After(10 * time.Second):
		t.Fatal("the first booking did not commit")
	}
	second := make(chan error, 1)
	go func() { second <- booking.BookTx(svc, ctx, noop) }()
	select {
	case err := <-second:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		close(st.hold)
		t.Fatal("the second booking waited for the first one's after-commit work: the turn was held past the COMMIT")
	}
	close(st.hold)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

// TestGroupLockWaitRunsAlone: with BookGroupLockWait, a booking of a group that waits
// for a row another transaction holds gives up after the bound and runs again alone
// after its group, which commits its other bookings without waiting for that holder;
// each booking takes its night and draws its price once.
func TestGroupLockWaitRunsAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := storetest.Opener{Name: "postgres", Open: storetest.OpenPostgres}
	svc, c := liveService(t, o, apitest.NewClock(apitest.Start), apitest.Catalog(), "10000")
	svc.BookGroupMax = booking.DefaultBookGroupMax
	svc.BookGroupLockWait = 100 * time.Millisecond
	night := func(day int) *booking.BookRequest {
		return &booking.BookRequest{QuoteRequest: booking.QuoteRequest{ProductType: "hotel", HotelID: apitest.HotelLisbon,
			RoomID: apitest.RoomDouble, CheckIn: apitest.Day(day), CheckOut: apitest.Day(day + 1), Rooms: 1, Adults: 1},
			Guest: &booking.Guest{Name: "G"}}
	}
	// Another transaction holds the night of day 3 until the group has answered.
	holder, err := svc.Store.(*sqlstore.DB).SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if res, err := holder.ExecContext(ctx, `UPDATE inventory SET sold = sold WHERE kind = 'room' AND unit_id = $1 AND day = $2`,
		apitest.RoomDouble, apitest.Day(3)); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("holder locked %d rows, want 1", n)
	}
	type answer struct {
		view *booking.BookingView
		err  error
	}
	queued, release := booking.HoldBookGroups(svc)
	blocked, free := make(chan answer, 1), make(chan answer, 1)
	for i, b := range []struct {
		day int
		out chan answer
	}{{3, blocked}, {5, free}} {
		go func() {
			v, _, err := svc.Book(ctx, c, fmt.Sprint("wait-", b.day), night(b.day))
			b.out <- answer{v, err}
		}()
		waitQueued(t, queued, i+1) // queued in this order: the blocked one runs first
	}
	release()
	var got [2]answer
	select {
	case got[1] = <-free:
	case <-time.After(5 * time.Second):
		t.Fatal("the group's free booking waited for the row its blocked booking waits for")
	}
	select {
	case a := <-blocked:
		t.Fatalf("the blocked booking answered while the row was still held: %+v", a)
	default:
	}
	if err := holder.Commit(); err != nil {
		t.Fatal(err)
	}
	got[0] = <-blocked
	var drawn int64
	for i, a := range got {
		if a.err != nil {
			t.Fatalf("booking %d: %v", i, a.err)
		}
		drawn += a.view.TotalPrice.Minor
	}
	if groups, grouped := svc.BookGroupStats(); groups != 1 || grouped != 2 {
		t.Errorf("%d groups of %d bookings; want the two in one group", groups, grouped)
	}
	rows, err := svc.Store.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, UnitIDs: []int64{apitest.RoomDouble},
		ItemIDs: []int64{apitest.HotelLisbon}, From: apitest.Day(3), To: apitest.Day(5)})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		want := 0
		if r.Day == apitest.Day(3) || r.Day == apitest.Day(5) {
			want = 1
		}
		if r.Sold != want {
			t.Errorf("%s: sold %d, want %d", r.Day, r.Sold, want)
		}
	}
	if p, err := svc.Store.PartnerGetByID(ctx, c.Partner.ID); err != nil || p.CreditUsed != drawn {
		t.Errorf("credit used %d, %v; want %d (each booking's price once)", p.CreditUsed, err, drawn)
	}
}

// sqliteOpener is the SQLite opener: one writer connection, where groups take in the
// bookings that queue while they run and run on goroutines of their own.
func sqliteOpener(t *testing.T) storetest.Opener {
	t.Helper()
	o := storetest.Openers()[0]
	if o.Name != "sqlite" {
		t.Fatalf("opener %q, want sqlite", o.Name)
	}
	return o
}

// sqliteService is a live service on SQLite, whose one writer connection makes groups
// take in the bookings that queue while they run (absorb).
func sqliteService(t *testing.T) *booking.Service {
	t.Helper()
	o := sqliteOpener(t)
	svc, _ := liveService(t, o, apitest.NewClock(apitest.Start), apitest.Catalog(), "10000")
	return svc
}

// TestGroupTakesInUpToMax: on SQLite a running group takes in the bookings that queue
// while it runs, up to BookGroupMax in all; the rest form the next group.
func TestGroupTakesInUpToMax(t *testing.T) {
	ctx := context.Background()
	svc := sqliteService(t)
	svc.BookGroupMax = 3
	gate := make(chan struct{})
	var first atomic.Bool
	fn := func(context.Context, store.Querier) error {
		if first.CompareAndSwap(false, true) {
			<-gate // the group's first booking runs while the others queue
		}
		return nil
	}
	errs := make(chan error, 5)
	go func() { errs <- booking.BookTx(svc, ctx, fn) }()
	deadline := time.Now().Add(10 * time.Second)
	for !first.Load() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	queued, release := booking.HoldBookGroups(svc)
	release() // only for queued
	for range 4 {
		go func() { errs <- booking.BookTx(svc, ctx, fn) }()
	}
	for queued() < 4 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := queued(); n != 4 {
		close(gate)
		t.Fatalf("%d bookings queued behind the running group, want 4", n)
	}
	close(gate)
	for range 5 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if groups, grouped := svc.BookGroupStats(); groups != 2 || grouped != 5 {
		t.Fatalf("%d groups of %d bookings in all; want 2 groups of 5: one of 3, the most, and one of the 2 left", groups, grouped)
	}
}

// TestGroupPanicInTakenInBooking: a booking taken into a running group (absorb) that
// panics rolls the group back, and every booking of it runs alone: the panicking one
// panics again in its own caller, the others commit, the one whose goroutine ran the
// group included (it met the panic before runJob recovered it, and its booking was
// lost), and the store writes on (it hung before the store rolled back a panicking
// transaction: nobody ended the transaction on SQLite's one writer).
func TestGroupPanicInTakenInBooking(t *testing.T) {
	ctx := context.Background()
	svc := sqliteService(t)
	gate := make(chan struct{})
	var first atomic.Bool
	var runs sync.Map // token -> how many times its job ran
	job := func(token string, panics bool) func(context.Context, store.Querier) error {
		return func(ctx context.Context, q store.Querier) error {
			n, _ := runs.LoadOrStore(token, new(atomic.Int32))
			n.(*atomic.Int32).Add(1)
			if first.CompareAndSwap(false, true) {
				<-gate // the group's first booking runs while the others queue
			}
			if panics {
				panic("boom " + token)
			}
			return q.PrebookCreate(ctx, &tradewind.Prebook{Token: token, PartnerID: 1, Mode: "live", Quote: []byte(`{}`),
				TotalPrice: 1, Currency: "EUR", ExpiresAt: apitest.Start.Add(time.Hour), CreatedAt: apitest.Start})
		}
	}
	ran := func(token string) int32 {
		n, ok := runs.Load(token)
		if !ok {
			return 0
		}
		return n.(*atomic.Int32).Load()
	}
	answers := make(chan bookAnswer, 4)
	start := func(token string, panics bool) { bookAsync(svc, ctx, token, job(token, panics), answers) }
	start("pbk_runner", false)
	deadline := time.Now().Add(10 * time.Second)
	for !first.Load() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	queued, release := booking.HoldBookGroups(svc)
	release() // only for queued
	// In this order, so that the other booking runs in the group before the panic.
	for i, b := range []struct {
		token  string
		panics bool
	}{{"pbk_other", false}, {"pbk_panics", true}} {
		start(b.token, b.panics)
		for queued() < i+1 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	if n := queued(); n != 2 {
		close(gate)
		t.Fatalf("%d bookings queued behind the running group, want 2", n)
	}
	close(gate)
	got := map[string]bookAnswer{}
	for range 3 {
		a := nextAnswer(t, answers, "a booking of the group")
		got[a.token] = a
	}
	if a := got["pbk_panics"]; a.panic != "boom pbk_panics" {
		t.Errorf("panicking booking: %+v, want its panic, alone", a)
	}
	for _, token := range []string{"pbk_runner", "pbk_other"} {
		if a := got[token]; a.err != nil || a.panic != nil {
			t.Errorf("%s: %+v, want it committed alone", token, a)
		}
		if _, err := svc.Store.PrebookGet(ctx, token); err != nil {
			t.Errorf("%s not stored: %v", token, err)
		}
		if n := ran(token); n != 2 {
			t.Errorf("%s ran %d times, want 2: in the group, then alone", token, n)
		}
	}
	if _, err := svc.Store.PrebookGet(ctx, "pbk_panics"); err == nil {
		t.Error("the panicking booking's write was kept")
	}
	// The store writes on: the one writer is free.
	start("pbk_after", false)
	if a := nextAnswer(t, answers, "a booking after the panic"); a.err != nil || a.panic != nil {
		t.Fatalf("a booking after the panic: %+v", a)
	}
}

// TestGroupsOnOneConnAtMostDefault: on SQLite, bookings queued together run in groups
// of at most DefaultBookGroupMaxOneConn, so that a group never holds every booking in
// flight (group.go): twelve queued run as a group of eight and one of four.
func TestGroupsOnOneConnAtMostDefault(t *testing.T) {
	ctx := context.Background()
	svc := sqliteService(t) // BookGroupMax 0: the default
	noop := func(context.Context, store.Querier) error { return nil }
	queued, release := booking.HoldBookGroups(svc)
	const n = booking.DefaultBookGroupMaxOneConn + 4
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- booking.BookTx(svc, ctx, noop) }()
		waitQueued(t, queued, i+1)
	}
	release()
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if groups, grouped := svc.BookGroupStats(); groups != 2 || grouped != n {
		t.Fatalf("%d groups of %d bookings in all; want 2 groups of %d: one of %d and one of 4",
			groups, grouped, n, booking.DefaultBookGroupMaxOneConn)
	}
}

// TestGroupsOnOneConnOneAtATime: on SQLite one group runs at a time whatever
// BookGroupsAtOnce asks. Bookings queued while a group runs wait for it, which takes
// them in once its own ran; a second group started beside it would only have taken
// them and waited for the one connection, each a goroutine of its own.
func TestGroupsOnOneConnOneAtATime(t *testing.T) {
	ctx := context.Background()
	svc := sqliteService(t)
	svc.BookGroupsAtOnce = 4
	entered, leave := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- booking.BookTx(svc, ctx, func(context.Context, store.Querier) error {
			close(entered)
			<-leave
			return nil
		})
	}()
	<-entered
	noop := func(context.Context, store.Querier) error { return nil }
	errs := make(chan error, 3)
	for i := range 3 {
		go func() { errs <- booking.BookTx(svc, ctx, noop) }()
		waitQueued(t, func() int { return booking.BookQueued(svc) }, i+1)
	}
	close(leave)
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if groups, grouped := svc.BookGroupStats(); groups != 1 || grouped != 4 {
		t.Fatalf("%d groups of %d bookings in all; want the running group to take in the three queued: 1 of 4", groups, grouped)
	}
}

// inTxPanicsOnce is a store whose first InTx panics before it runs anything: a fault
// of the group commit itself, outside every booking.
type inTxPanicsOnce struct {
	store.Store
	panicked atomic.Bool
}

func (s *inTxPanicsOnce) InTx(ctx context.Context, fn func(q store.Querier) error) error {
	if s.panicked.CompareAndSwap(false, true) {
		panic("the group's transaction")
	}
	return s.Store.InTx(ctx, fn)
}

// TestGroupPanicOutsideItsBookings: on SQLite a group runs on a goroutine of its own
// (write), not a caller's. A panic there outside the bookings' own functions is logged
// and does not end the process; the group's bookings are answered and run alone, and
// the store books on.
func TestGroupPanicOutsideItsBookings(t *testing.T) {
	ctx := context.Background()
	o := sqliteOpener(t)
	st := &inTxPanicsOnce{Store: o.Open(t)}
	svc := booking.New(st, apitest.NewClock(apitest.Start), nil)
	var ran atomic.Int32
	fn := func(context.Context, store.Querier) error { ran.Add(1); return nil }
	queued, release := booking.HoldBookGroups(svc)
	answers := make(chan bookAnswer, 3)
	for i := range 2 {
		bookAsync(svc, ctx, "", fn, answers)
		waitQueued(t, queued, i+1)
	}
	release()
	for range 2 {
		if a := nextAnswer(t, answers, "a booking of the panicking group"); a.err != nil || a.panic != nil {
			t.Errorf("a booking of the panicking group: %+v; want it committed alone", a)
		}
	}
	if !st.panicked.Load() || ran.Load() != 2 {
		t.Errorf("panicked %v, bookings ran %d times; want the group's panic, then each booking once, alone",
			st.panicked.Load(), ran.Load())
	}
	bookAsync(svc, ctx, "", fn, answers)
	if a := nextAnswer(t, answers, "a booking after the panic"); a.err != nil || a.panic != nil {
		t.Fatalf("a booking after the panic: %+v", a)
	}
}

// panicsAfterCommitOnce is a store whose first InTx panics once its transaction has
// committed: as the read model's after-commit work could.
type panicsAfterCommitOnce struct {
	store.Store
	panicked atomic.Bool
}

func (s *panicsAfterCommitOnce) InTx(ctx context.Context, fn func(q store.Querier) error) error {
	err := s.Store.InTx(ctx, fn)
	if err == nil && s.panicked.CompareAndSwap(false, true) {
		panic("after the group's COMMIT")
	}
	return err
}

// TestGroupPanicAfterItsCommit: a panic after a group's COMMIT answers its bookings as
// they ran, once each: run again alone, they would be made twice.
func TestGroupPanicAfterItsCommit(t *testing.T) {
	ctx := context.Background()
	o := sqliteOpener(t)
	st := &panicsAfterCommitOnce{Store: o.Open(t)}
	svc := booking.New(st, apitest.NewClock(apitest.Start), nil)
	var ran atomic.Int32
	fn := func(fail bool) func(context.Context, store.Querier) error {
		return func(context.Context, store.Querier) error {
			ran.Add(1)
			if fail {
				return tradewind.Errorf(tradewind.ECodeInvalidQuote, "refused")
			}
			return nil
		}
	}
	queued, release := booking.HoldBookGroups(svc)
	answers := make(chan bookAnswer, 2)
	for i, fail := range []bool{false, true} {
		bookAsync(svc, ctx, "", fn(fail), answers)
		waitQueued(t, queued, i+1)
	}
	release()
	var ok, invalid int
	for range 2 {
		a := nextAnswer(t, answers, "a booking of the group")
		switch {
		case a.panic != nil:
			t.Errorf("a booking met the group's panic: %v", a.panic)
		case a.err == nil:
			ok++
		case tradewind.ErrorCode(a.err) == tradewind.ECodeInvalidQuote:
			invalid++
		default:
			t.Errorf("a booking of the group: %v", a.err)
		}
	}
	if !st.panicked.Load() || ok != 1 || invalid != 1 || ran.Load() != 2 {
		t.Errorf("panicked %v, %d made, %d refused, %d runs; want each answered as it ran in the group, once",
			st.panicked.Load(), ok, invalid, ran.Load())
	}
}

// TestGroupQueuedBookingGivesUp: a booking whose request ends while it waits in the
// queue is answered its context's error at once, leaves the queue and never runs; it
// waited for a group to take it (a writer held by a long transaction).
func TestGroupQueuedBookingGivesUp(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		svc, _ := liveService(t, o, apitest.NewClock(apitest.Start), apitest.Catalog(), "10000")
		svc.BookGroupMax = booking.DefaultBookGroupMax // PostgreSQL too
		var ran atomic.Int32
		fn := func(context.Context, store.Querier) error { ran.Add(1); return nil }
		queued, release := booking.HoldBookGroups(svc)
		ctx, cancel := context.WithCancel(context.Background())
		answered := make(chan error, 1)
		go func() { answered <- booking.BookTx(svc, ctx, fn) }()
		waitQueued(t, queued, 1)
		cancel()
		select {
		case err := <-answered:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("the booking given up: %v; want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			release()
			t.Fatal("the booking given up waited for a group")
		}
		if n := queued(); n != 0 {
			t.Errorf("%d bookings queued after the one given up left; want 0", n)
		}
		release()
		if err := booking.BookTx(svc, context.Background(), fn); err != nil {
			t.Fatal(err)
		}
		if n := ran.Load(); n != 1 {
			t.Errorf("%d bookings ran; want 1: the one given up never runs", n)
		}
	})
}

// commitCounter counts the transactions of its store that committed.
type commitCounter struct {
	store.Store
	commits atomic.Int64
}

func (c *commitCounter) InTx(ctx context.Context, fn func(store.Querier) error) error {
	err := c.Store.InTx(ctx, fn)
	if err == nil {
		c.commits.Add(1)
	}
	return err
}

// TestPrebooksGroupedOnOneConn: on SQLite, whose one writer syncs the WAL at every
// COMMIT (sqlite.Durable), prebooks that arrive together, and the bookings beside them,
// are stored by one group commit, one COMMIT and one sync for all; on PostgreSQL each
// prebook is stored by a statement of its own, as before, without waiting for a group.
func TestPrebooksGroupedOnOneConn(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		st := &commitCounter{Store: o.Open(t)}
		svc, c := liveServiceOver(t, st, apitest.NewClock(apitest.Start), apitest.Catalog(), "10000")
		night := func(day int) booking.QuoteRequest {
			return booking.QuoteRequest{ProductType: "hotel", HotelID: apitest.HotelLisbon, RoomID: apitest.RoomDouble,
				CheckIn: apitest.Day(day), CheckOut: apitest.Day(day + 1), Rooms: 1, Adults: 1}
		}
		type answer struct {
			what, token string
			err         error
		}
		const prebooks, bookings = 4, 2
		answers := make(chan answer, prebooks+bookings)
		queued, releaseGroups := booking.HoldBookGroups(svc)
		release := sync.OnceFunc(releaseGroups)
		defer release()
		commitsBefore := st.commits.Load()
		for range prebooks {
			go func() {
				q := night(3)
				res, err := svc.Prebook(ctx, c, &q)
				if err != nil {
					answers <- answer{what: "prebook", err: err}
					return
				}
				answers <- answer{what: "prebook", token: res.PrebookToken}
			}()
		}
		oneConn := o.Name == "sqlite"
		next := func() answer {
			t.Helper()
			select {
			case a := <-answers:
				if a.err != nil {
					t.Fatalf("%s: %v", a.what, a.err)
				}
				return a
			case <-time.After(30 * time.Second):
				t.Fatalf("no answer in 30 s (%d queued)", queued())
				return answer{}
			}
		}
		tokens := map[string]bool{}
		if !oneConn {
			// Stored while the groups are held: no prebook waits for one.
			for range prebooks {
				tokens[next().token] = true
			}
		}
		for i := range bookings {
			go func() {
				req := &booking.BookRequest{QuoteRequest: night(5 + i), Guest: &booking.Guest{Name: "G"}}
				v, _, err := svc.Book(ctx, c, fmt.Sprintf("grouped-%d", i), req)
				if err != nil {
					answers <- answer{what: "booking", err: err}
					return
				}
				answers <- answer{what: "booking", token: v.Reference}
			}()
		}
		want := bookings
		if oneConn {
			want += prebooks
		}
		waitQueued(t, queued, want) // each waits for a group, held
		release()
		for range want {
			if a := next(); a.what == "prebook" {
				tokens[a.token] = true
			}
		}
		if len(tokens) != prebooks {
			t.Fatalf("%d tokens for %d prebooks", len(tokens), prebooks)
		}
		for tok := range tokens {
			if pb, err := svc.Store.PrebookGet(ctx, tok); err != nil || pb.PartnerID != c.Partner.ID {
				t.Fatalf("prebook %s: %+v, %v", tok, pb, err)
			}
		}
		if got := st.commits.Load() - commitsBefore; oneConn && got != 1 {
			t.Errorf("%d transactions committed the %d prebooks and %d bookings; want 1, their group's", got, prebooks, bookings)
		}
		groups, grouped := svc.BookGroupStats()
		if oneConn && (groups != 1 || grouped != prebooks+bookings) {
			t.Errorf("%d groups of %d writes in all; want one group of the %d prebooks and %d bookings", groups, grouped, prebooks, bookings)
		}
		if !oneConn && (groups != 1 || grouped != bookings) {
			t.Errorf("%d groups of %d writes on PostgreSQL; want one of the %d bookings: each prebook stored alone", groups, grouped, bookings)
		}
	})
}

// TestGroupStaleAheadRunsAlone: in a group, a booking priced ahead from a read model
// that never polls, for a night the store repriced since, is created with its claim
// (store.InventoryClaimBooking), found to price otherwise over the claimed night,
// rolled back to its savepoint and booked again alone at the store's price; the other
// booking of the group commits at its quote ahead's. One night sold and one booking of
// each key.
func TestGroupStaleAheadRunsAlone(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, c := groupedService(t, o)
		m := readmodel.New(svc.Store, apitest.NewClock(apitest.Start), nil)
		if err := m.Build(ctx); err != nil {
			t.Fatal(err)
		}
		night := func(day int) store.InventoryRow {
			t.Helper()
			rows, err := svc.Store.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, UnitIDs: []int64{apitest.RoomDouble},
				From: apitest.Day(day), To: apitest.Day(day)})
			if err != nil || len(rows) != 1 {
				t.Fatalf("inventory of day %d: %v %v", day, rows, err)
			}
			return rows[0]
		}
		priceOf := func(day int) int64 {
			t.Helper()
			pb, err := svc.Prebook(ctx, c, &doubleNight(day).QuoteRequest)
			if err != nil {
				t.Fatal(err)
			}
			return pb.TotalPrice.Minor
		}
		stale := priceOf(3) // the service has no model yet: from the store
		repriced := night(3)
		repriced.Price += 700
		if err := svc.Store.InventoryPut(ctx, []store.InventoryRow{repriced}); err != nil {
			t.Fatal(err)
		}
		fresh, other := priceOf(3), priceOf(4)
		if stale == fresh {
			t.Fatalf("day 3 repriced is still %d", fresh)
		}
		svc.Reads = m // which still holds day 3's old price
		kept, missed := svc.BookAheadStats()
		groups, _ := svc.BookGroupStats()
		reqs := []*booking.BookRequest{doubleNight(3), doubleNight(4)}
		for i, err := range runAsOneGroup(t, svc, []*booking.Caller{c, c}, reqs) {
			if err != nil {
				t.Fatalf("booking %d: %v", i, err)
			}
		}
		for i, want := range []int64{fresh, other} {
			key := fmt.Sprint("group-", i, "-", reqs[i].CheckIn)
			b, err := svc.Store.BookingGetByIdempotencyKey(ctx, c.Partner.ID, tradewind.ModeLive, key)
			if err != nil || b.TotalPrice != want || b.CreditDrawn != want {
				t.Errorf("booking %s = %+v, %v; want total and draw %d", key, b, err, want)
			}
		}
		for _, day := range []int{3, 4} {
			if n := night(day).Sold; n != 1 {
				t.Errorf("%d sold on day %d, want 1", n, day)
			}
		}
		if nowKept, nowMissed := svc.BookAheadStats(); nowKept != kept+1 || nowMissed != missed+1 {
			t.Errorf("quotes ahead kept %d→%d, missed %d→%d; want one of each", kept, nowKept, missed, nowMissed)
		}
		if now, _ := svc.BookGroupStats(); now != groups+1 {
			t.Errorf("%d groups of two or more, then %d; want one", groups, now)
		}
	})
}

// TestGroupCommitPartnerReference: a partner_reference is checked by the booking's
// insert, not looked up before it. In one group, of two bookings naming the same new
// reference exactly one is made and the other is 409 duplicate_partner_reference, while
// the bookings beside them commit; a reference taken before, on a night sold out, is
// still 409 first.
func TestGroupCommitPartnerReference(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, c := groupedService(t, o)
		withRef := func(r *booking.BookRequest, ref string) *booking.BookRequest { r.PartnerReference = ref; return r }
		reqs := []*booking.BookRequest{withRef(doubleNight(3), "PO-7"), withRef(doubleNight(4), "PO-7"), withRef(doubleNight(5), "PO-8"), doubleNight(6)}
		callers := []*booking.Caller{c, c, c, c}
		errs := runAsOneGroup(t, svc, callers, reqs)
		dup := 0
		for i, err := range errs {
			var te *tradewind.Error
			switch {
			case err == nil:
			case i < 2 && errors.As(err, &te) && te.Code == tradewind.ECodeDuplicatePartnerRef:
				dup++
			default:
				t.Errorf("booking %d: %v", i, err)
			}
		}
		if dup != 1 || errs[2] != nil || errs[3] != nil {
			t.Fatalf("errors %v; want one of the first two 409 duplicate_partner_reference, the others made", errs)
		}
		list, total, err := svc.Store.BookingList(ctx, store.BookingFilter{PartnerID: c.Partner.ID, PartnerReference: "PO-7"})
		if err != nil || total != 1 || len(list) != 1 {
			t.Fatalf("bookings of PO-7: %d, %v", total, err)
		}
		// Night 7 sold out (allotment 5), then asked again with PO-8, taken: 409, not 422.
		full := doubleNight(7)
		full.Rooms, full.Adults = 5, 5
		if _, _, err := svc.Book(ctx, c, "fill", full); err != nil {
			t.Fatal(err)
		}
		_, _, err = svc.Book(ctx, c, "again", withRef(doubleNight(7), "PO-8"))
		if te := (*tradewind.Error)(nil); !errors.As(err, &te) || te.Code != tradewind.ECodeDuplicatePartnerRef {
			t.Fatalf("a taken reference on a sold-out night: %v; want 409 duplicate_partner_reference", err)
		}
	})
}
