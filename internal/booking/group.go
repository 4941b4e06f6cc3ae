package booking

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// Group commit (issue 12): bookings that arrive together run in one transaction, each
// under its own savepoint, and commit with one COMMIT. A booking that fails rolls back
// to its savepoint and is answered with its own error; the others commit. Every caller
// is answered only after the group's COMMIT, so nothing is reported, and nothing that
// follows a booking happens, before it is durable. When the group cannot commit
// (serialization failure, deadlock, a failed savepoint statement), every booking of it
// runs again alone, in a transaction of its own, with the store's usual retries.
//
// The bookings' credit draws are made last, by the group: one statement per partner
// for all its bookings of the group (drawAll), so a partner's row is taken once per
// group and held only for that statement and the commit; on PostgreSQL the draws
// travel with the COMMIT, in one round trip, so that no answer to Go and no scheduling
// of the group's goroutine sits between taking the row and giving it back. When a
// partner's do not all fit, the group does not commit: that partner's bookings run
// alone, where each is answered its own refusal or not, and the others queue again,
// once, for the next group (so one partner over its limit does not send every booking
// beside it to pay a commit of its own). For a while after (DefaultRefusedWindow) that
// partner's bookings run alone from the start, as do those of a partner the cache sees
// on hold (Book): a partner booking in a loop at its limit cannot fail one group after
// another.
//
// On SQLite one group at a time runs its bookings (atOnce 1, whatever is asked) and
// commits them: the next one starts once the previous one committed (oneConn). There
// each group runs on a goroutine of its own (write), started when the turn is free and a
// booking queued: the callers only wait for their answers. (Before, the turn woke every
// caller waiting, and the one that took it ran the next group: the one connection sat
// idle while the woken callers, the group's bookings among them, were scheduled in
// turn.) A group there starts at once and takes in the bookings that queue while it
// runs (absorb), up to max; once none is queued, it waits for the bookings Book
// announced that are still on their way, until comingWait after it started, and then
// commits.
// On PostgreSQL several groups run their bookings at once, each on its own connection
// (a group's bookings run one after another, several round trips each), and wait for
// a partner's credit row at their draws only, after their bookings ran: a group that
// draws waits only for groups that drew and commit. A second group starts beside a
// running one only once enough bookings queued (alongside), so that groups stay big:
// every group is one commit on the partner's row, which one partner's groups take one
// flush after another. Groups may still wait for each other's inventory rows; when
// two wait in a cycle, PostgreSQL fails one booking's statement (deadlock), which
// rolls back to its savepoint and runs again alone after its group.
//
// A booking that panics in a group (runJob) rolls the whole group back, and every
// booking of it runs alone: the panic is its own request's to meet, not that of the
// request whose goroutine ran the group.
//
// The rules of a booking are not here: a job is book's transaction function, the same
// one a booking that runs alone uses.

// DefaultBookGroupMax is how many bookings one group commit takes at most.
const DefaultBookGroupMax = 32

// DefaultBookGroupMaxOneConn is DefaultBookGroupMax on one writer connection (SQLite).
// A group there takes in the bookings that queue while it runs: up to 32, it took in
// nearly every booking in flight (12 of 16 connections' in the load benchmark), so
// that they were all answered at once, came back at once, and the connection sat idle
// while they did. Groups of at most 8 leave bookings to form the next group while one
// commits: more bookings a second at 16 connections, as many at 64
// (docs/performance-history.md, "Night 3").
const DefaultBookGroupMaxOneConn = 8

// DefaultBookGroupsAtOnce is how many groups run their bookings at the same time on
// PostgreSQL (docs/performance-history.md, "bookfast3"): one at a time, a group's bookings ran
// one after another and bookings were slower than alone; four at once, groups of about
// four bookings commit side by side.
const DefaultBookGroupsAtOnce = 4

// DefaultComingWait bounds how long a group on one connection waits for the bookings
// coming (groupCommitter.coming) once one booking is queued: a scheduling bound, not
// business time.
const DefaultComingWait = 2 * time.Millisecond

// errRunAlone tells a job's caller to run its booking in a transaction of its own.
var errRunAlone = errors.New("booking: run alone")

// txJob is one booking's transaction function waiting for a group.
type txJob struct {
	ctx  context.Context
	fn   func(ctx context.Context, tx store.Querier) error
	err  error
	done chan struct{}
	// requeued: a group that could not commit for another partner's credit queued it
	// again for the next group (commit); should that one fail too, it runs alone.
	requeued bool
}

// groupCommitter forms and commits the groups of one service.
type groupCommitter struct {
	st       store.Store
	log      *slog.Logger
	max      int           // bookings per group at most
	atOnce   int           // groups running their bookings at the same time at most
	lockWait time.Duration // a booking's lock waits bounded to it (> 0; Service.BookGroupLockWait)
	// alongside is how many queued bookings it takes to start a group while another
	// runs its bookings: fewer wait for the running group, so that groups stay big
	// (each is one commit on the partners' rows) rather than many and small.
	alongside int
	// oneConn: the store writes on one connection (SQLite), so a group holds its turn
	// until its COMMIT is done. Given back before it, the turn only let the next group
	// take the few bookings queued so far and wait for the connection, while those
	// arriving during the COMMIT waited for that group: a big group and a group of one
	// or two by turns, each paying a COMMIT (bookfast5).
	oneConn bool

	mu      sync.Mutex
	queue   []*txJob
	running int           // groups running their bookings (held turns)
	writing bool          // on one connection: a group's goroutine is started, not yet past take (write)
	wake    chan struct{} // closed when the queue grew or a turn was given back
	// coming counts the bookings Book announced that have not queued yet (announce). On
	// one connection, a group does not commit while some are coming, for up to
	// comingWait after it started: they would otherwise wait for it and form a group of
	// one or two after it, each paying a COMMIT (bookfast5). It runs what queued
	// meanwhile, rather than wait idle before it starts (docs/performance.md, "Group
	// commit").
	coming     int
	comingWait time.Duration // DefaultComingWait
	// arrivals wakes the group that takes in bookings as they queue (absorb): a booking
	// queued, or an announced one given up. Buffered, one token.
	arrivals chan struct{}

	// refusedUntil: the partners whose credit draws a group could not make lately, and
	// until when their bookings run alone (refusedWindow after; under mu).
	refusedUntil  map[int64]time.Time
	refusedWindow time.Duration // DefaultRefusedWindow
	refusing      atomic.Bool   // refusedUntil holds a partner: Book's check takes no lock otherwise

	groups, grouped atomic.Int64 // groups of two bookings or more, and their bookings
	// beforeRequeue, when set (tests), runs as a job is chosen to queue again.
	beforeRequeue func()
}

// DefaultRefusedWindow is how long the bookings of a partner whose draws a group could
// not make run alone: long enough that a partner booking in a loop at its limit fails
// one group, not one after another; short enough that one whose credit was raised or
// released soon joins groups again. A scheduling bound, not business time.
const DefaultRefusedWindow = time.Second

// refusedLately reports a partner whose draws a group could not make within its
// refusedWindow.
func (g *groupCommitter) refusedLately(partnerID int64) bool {
	if g == nil || !g.refusing.Load() {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.forgetRefused(time.Now())
	_, ok := g.refusedUntil[partnerID]
	return ok
}

// noteRefused remembers partners whose draws a group could not make; g.mu is held.
func (g *groupCommitter) noteRefused(partners []int64) {
	now := time.Now()
	if g.refusedUntil == nil {
		g.refusedUntil = map[int64]time.Time{}
	}
	for _, id := range partners {
		g.refusedUntil[id] = now.Add(g.refusedWindow)
	}
	g.forgetRefused(now)
}

// forgetRefused drops the partners whose window ended by now (a few: those refused in
// the last window); g.mu is held.
func (g *groupCommitter) forgetRefused(now time.Time) {
	for id, until := range g.refusedUntil {
		if !now.Before(until) {
			delete(g.refusedUntil, id)
		}
	}
	g.refusing.Store(len(g.refusedUntil) > 0)
}

// BookGroupStats returns how many group commits of two bookings or more the service
// ran, and how many bookings they held (grouped/groups is the mean group size); on
// SQLite the prebooks that joined them count among their bookings (groupedWrite).
func (s *Service) BookGroupStats() (groups, grouped int64) {
	if g := s.groups(); g != nil {
		return g.groups.Load(), g.grouped.Load()
	}
	return 0, 0
}

func newGroupCommitter(st store.Store, log *slog.Logger, most, atOnce int, oneConn bool, lockWait time.Duration) *groupCommitter {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &groupCommitter{st: st, log: log, max: most, atOnce: max(1, atOnce), lockWait: lockWait, alongside: max(2, most/8), oneConn: oneConn,
		comingWait: DefaultComingWait, refusedWindow: DefaultRefusedWindow, wake: make(chan struct{}), arrivals: make(chan struct{}, 1)}
}

// signal wakes the callers waiting for a turn or a bigger queue; on one connection it
// starts the next group's goroutine when a group may start. g.mu is held.
func (g *groupCommitter) signal() {
	close(g.wake)
	g.wake = make(chan struct{})
	if g.oneConn && !g.writing && g.running < g.atOnce && len(g.queue) > 0 {
		g.writing = true
		go g.write()
	}
}

// write runs the queue's next group on one connection, if one may start. The turn
// it gives back right after the COMMIT (commit) starts the next group's goroutine
// while this one still does the group's after-commit work and answers it. A panic in
// a booking is its own request's (runJob); one outside them is logged here, rather
// than end the process, once the group answered its bookings (commit's deferred
// answers).
func (g *groupCommitter) write() {
	g.mu.Lock()
	batch := g.take()
	g.writing = false
	g.mu.Unlock()
	if batch == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			g.log.Error("a group commit panicked; its bookings are answered as they ran if it committed, and run alone if not",
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	g.commit(batch)
}

// nudge wakes the group waiting in absorb, if any.
func (g *groupCommitter) nudge() {
	select {
	case g.arrivals <- struct{}{}:
	default:
	}
}

// signalFree signals when a turn is free: while every turn is held nobody can take a
// group, and the release of a turn signals (so a queue that grows under a running
// group does not wake every caller waiting in it). g.mu is held.
func (g *groupCommitter) signalFree() {
	if g.running < g.atOnce {
		g.signal()
	}
}

// take returns the next group to run and takes a turn for it, or nil when none may
// start now: no turn free, an empty queue, or too few bookings queued to start beside
// a running group. g.mu is held.
func (g *groupCommitter) take() []*txJob {
	if g.running >= g.atOnce || len(g.queue) == 0 || g.running > 0 && len(g.queue) < g.alongside {
		return nil
	}
	n := min(len(g.queue), g.max)
	batch := append([]*txJob(nil), g.queue[:n]...)
	g.queue = append(g.queue[:0], g.queue[n:]...)
	g.running++
	return batch
}

// absorb returns the bookings queued since a group of n bookings running on one
// connection took its batch, up to max in all. When none is queued but some are coming
// (announced by Book), it waits for them, until comingWait after the group started.
// nil: the group commits now.
func (g *groupCommitter) absorb(n int, started time.Time) []*txJob {
	for {
		g.mu.Lock()
		if k := min(len(g.queue), g.max-n); k > 0 {
			more := append([]*txJob(nil), g.queue[:k]...)
			g.queue = append(g.queue[:0], g.queue[k:]...)
			g.mu.Unlock()
			return more
		}
		wait := g.comingWait - time.Since(started)
		if n >= g.max || g.coming == 0 || wait <= 0 {
			g.mu.Unlock()
			return nil
		}
		g.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-g.arrivals:
		case <-t.C:
		}
		t.Stop()
	}
}

// arrival is a booking announced as coming to the queue (announce).
type arrival struct {
	g    *groupCommitter
	done bool // queued or given up; under g.mu
}

// announce tells g that a booking is on its way to the queue: it queues with the
// arrival (bookTx), or gives up with arrived. nil when g is nil or not on one
// connection (nobody waits for it there).
func (g *groupCommitter) announce() *arrival {
	if g == nil || !g.oneConn {
		return nil
	}
	g.mu.Lock()
	g.coming++
	g.mu.Unlock()
	return &arrival{g: g}
}

// arrived takes back an announced booking that did not queue (an error before its
// transaction); nothing when it queued. nil-safe.
func (a *arrival) arrived() {
	if a == nil {
		return
	}
	a.g.mu.Lock()
	defer a.g.mu.Unlock()
	if !a.done {
		a.queued()
		a.g.nudge() // a group may be waiting for it
	}
}

// queued counts the announced booking as arrived, once. g.mu is held.
func (a *arrival) queued() {
	if a != nil && !a.done {
		a.done = true
		a.g.coming--
	}
}

// release gives a turn back.
func (g *groupCommitter) release() {
	g.mu.Lock()
	g.running--
	g.signal()
	g.mu.Unlock()
}

// bookTx runs fn, book's transaction function, in a group commit or alone: alone when
// the service's groups are off (BookGroupMax 1) or when its group could not commit.
// fn must be safe to run again, as for store.InTx. a, if not nil, is the booking's
// announcement (groupCommitter.announce), which queueing ends. alone runs it alone
// whatever the groups.
func (s *Service) bookTx(ctx context.Context, a *arrival, alone bool, fn func(ctx context.Context, tx store.Querier) error) error {
	runAlone := func() error {
		stale := false
		for try := 1; ; try++ {
			err := s.Store.InTx(ctx, func(tx store.Querier) error { return fn(ctx, tx) })
			// A booking whose quote ahead did not hold runs again, priced under its
			// transaction (fn dropped the quote ahead, so once at most): not a try.
			if errors.Is(err, errAheadStale) && !stale {
				stale = true
				try--
				continue
			}
			// What is left of a conflict once book told the Idempotency-Key's and the
			// partner reference's apart: a reference (or an event id) someone else's
			// booking holds. fn makes new ones: once more.
			if try == 2 || !errors.Is(err, store.ErrConflict) {
				return err
			}
		}
	}
	g := s.groups()
	if g == nil || alone {
		return runAlone()
	}
	err := g.run(ctx, a, fn)
	if errors.Is(err, errRunAlone) || errors.Is(err, store.ErrConflict) {
		return runAlone() // a group that could not commit it, or a reference taken
	}
	return err
}

// groupedWrite runs fn, the transaction of a single write other than a booking (a
// prebook's insert), in the bookings' group commits where the store writes on one
// connection (SQLite): there every COMMIT syncs the WAL (sqlite.Durable), and a group
// pays one sync for all its writes, where one after another each would pay its own.
// Elsewhere fn runs on the store itself, outside a transaction, as before: PostgreSQL
// syncs concurrent commits together on its own.
func (s *Service) groupedWrite(ctx context.Context, fn func(ctx context.Context, tx store.Querier) error) error {
	if g := s.groups(); g == nil || !g.oneConn {
		return fn(ctx, s.Store)
	}
	return s.bookTx(ctx, nil, false, fn)
}

// groups returns the service's group committer, nil when bookings commit alone.
func (s *Service) groups() *groupCommitter {
	s.groupOnce.Do(func() {
		sqlite := s.Store.Dialect() == "sqlite"
		n, atOnce := s.BookGroupMax, s.BookGroupsAtOnce
		if n == 0 {
			n = DefaultBookGroupMax
			if sqlite {
				n = DefaultBookGroupMaxOneConn
			}
		}
		switch {
		case sqlite:
			// One writer connection: a second group would only take bookings the running
			// one would take in, and wait for the connection with them.
			atOnce = 1
		case atOnce == 0:
			atOnce = DefaultBookGroupsAtOnce
		}
		if n > 1 {
			s.group = newGroupCommitter(s.Store, s.Logger, n, atOnce, sqlite, s.BookGroupLockWait)
		}
	})
	return s.group
}

// run queues fn and waits for its answer: nil when its group committed it, its own
// error, or errRunAlone. On one connection a goroutine of the group's runs it (write);
// otherwise a caller that finds a turn free takes it and runs the queue's next group
// itself (which may hold other callers' bookings and not its own).
func (g *groupCommitter) run(ctx context.Context, a *arrival, fn func(context.Context, store.Querier) error) error {
	j := &txJob{ctx: ctx, fn: fn, done: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, j)
	a.queued()
	g.signalFree()
	g.mu.Unlock()
	if g.oneConn {
		g.nudge() // the running group takes it in
		// Its group runs on a goroutine of its own (write).
		select {
		case <-j.done:
			return j.err
		case <-ctx.Done():
			return g.gaveUp(ctx, j)
		}
	}
	for {
		select {
		case <-j.done:
			return j.err
		default:
		}
		g.mu.Lock()
		batch := g.take()
		wake := g.wake
		g.mu.Unlock()
		if batch != nil {
			g.commit(batch)
			continue
		}
		select {
		case <-j.done:
			return j.err
		case <-wake:
		case <-ctx.Done():
			return g.gaveUp(ctx, j)
		}
	}
}

// gaveUp answers a booking whose request ended while it waited: its context's error
// when no group took it yet (it leaves the queue, and never runs), or else its
// group's answer, once given, since that group may commit it.
func (g *groupCommitter) gaveUp(ctx context.Context, j *txJob) error {
	g.mu.Lock()
	i := slices.Index(g.queue, j)
	if i >= 0 {
		g.queue = slices.Delete(g.queue, i, i+1)
	}
	g.mu.Unlock()
	if i >= 0 {
		return ctx.Err()
	}
	<-j.done
	return j.err
}

// commit runs batch as one transaction and answers each job. The caller holds a
// turn; commit gives it back once the bookings have run, before the COMMIT, or after
// it where the store writes on one connection (oneConn).
func (g *groupCommitter) commit(batch []*txJob) {
	var once sync.Once
	done := func() { once.Do(g.release) }
	defer done()
	release := done
	// On one connection the turn is given back once the COMMIT is done: by the store
	// right after it (store.WithAfterCommit), before the read model applies the
	// group's claims in the tracked store's InTx; by the deferred done when the
	// transaction failed.
	committed := false  // the COMMIT succeeded: the store ran the after-commit hook
	var results []error // each booking's answer once its group ran it
	txCtx := store.WithAfterCommit(context.Background(), func() {
		committed = true
		if g.oneConn {
			done()
		}
	})
	if g.oneConn {
		release = func() {}
	}
	answered := false
	defer func() {
		if answered {
			return
		}
		// A panic: answer every booking before it goes on, rather than leave them
		// waiting. Before the COMMIT nothing of the group stayed, and its bookings run
		// again alone. After it (in the after-commit work: the read model's) they are
		// made, and are answered as they ran: run again, they would be made twice.
		for i, j := range batch {
			select {
			case <-j.done:
			default:
				j.err = errRunAlone
				if committed && i < len(results) {
					j.err = results[i]
				}
				close(j.done)
			}
		}
	}()
	if len(batch) == 1 && !g.oneConn {
		// Alone: no savepoint to pay for, and the store's retries apply. The turn is
		// held until its statements ran, as a group's is: the bookings that arrive
		// meanwhile form the next group. (On one connection a group of one runs as a
		// group: bookings queued while it runs join it.)
		j := batch[0]
		results = make([]error, 1) // committed, it ran without error
		err := g.st.InTx(store.WithAfterCommit(j.ctx, func() { committed = true }), func(tx store.Querier) error {
			err := j.fn(j.ctx, tx)
			release()
			return err
		})
		answered = true
		j.err = err
		close(j.done)
		return
	}
	results = make([]error, len(batch))
	var draws []*store.LedgerEntry       // the credit draws of the bookings that ran
	drewFor := make([]int64, len(batch)) // the partner whose credit each booking drew on (0: none)
	ran := false
	err := g.st.InTx(txCtx, func(tx store.Querier) error {
		if ran {
			return errRunAlone // InTx retries: the group does not run twice
		}
		ran = true
		sp, ok := tx.(store.Savepoints)
		if !ok {
			return errRunAlone
		}
		// A booking that waits longer for a row fails its statement, which sends it to
		// run alone after the group, as a deadlock would (on PostgreSQL the bound travels
		// with the first booking's first statement).
		lw, bounded := tx.(store.LockWaits)
		bounded = bounded && g.lockWait > 0
		if bounded {
			if err := lw.LimitLockWait(context.Background(), g.lockWait); err != nil {
				return err
			}
		}
		open := false // a savepoint of an earlier booking, which the next one releases
		started := time.Now()
		for i := 0; ; i++ {
			if i == len(batch) {
				// On one connection, the bookings that queued meanwhile join the group
				// (batch, as the deferred answers see it).
				var more []*txJob
				if g.oneConn {
					more = g.absorb(len(batch), started)
				}
				if len(more) == 0 {
					break
				}
				batch = append(batch, more...)
				results = append(results, make([]error, len(more))...)
				drewFor = append(drewFor, make([]int64, len(more))...)
			}
			j := batch[i]
			if err := j.ctx.Err(); err != nil {
				results[i] = err
				continue
			}
			// The booking's statements run on the group's transaction: a cancelled
			// request must not interrupt them (SQLite rolls the whole transaction back
			// on an interrupted write), so they run with its values and no cancellation.
			// Its credit draw is left to the group, below.
			later := &drawsLater{}
			ctx := context.WithValue(context.WithoutCancel(j.ctx), drawsLaterKey{}, later)
			// One statement per booking for its savepoint: it releases the previous one
			// (kept, rolled back or not), and COMMIT releases the last.
			next := sp.Savepoint
			if open {
				next = sp.SavepointNext
			}
			if err := next(ctx, "booking"); err != nil {
				return err
			}
			open = true
			if err := runJob(ctx, j, tx); err != nil {
				if jp := (*jobPanic)(nil); errors.As(err, &jp) {
					// Not the group's runner's to meet: the group rolls back, every
					// booking runs alone, the panicking one in its own request.
					g.log.Error("a booking panicked in a group commit; the group runs alone",
						"panic", fmt.Sprint(jp.value), "stack", string(jp.stack))
					return err
				}
				if rerr := sp.RollbackToSavepoint(ctx, "booking"); rerr != nil {
					return rerr
				}
				if ownAnswer(err) {
					results[i] = err
				} else {
					results[i] = errRunAlone // a database error: alone, with the store's retries
				}
			} else {
				draws = append(draws, later.entries...)
				if len(later.entries) > 0 {
					drewFor[i] = later.entries[0].PartnerID // a booking draws on its own partner's credit
				}
			}
		}
		// The next group may run its bookings now: it holds no partner's row until its
		// own draws, which wait for this group's commit.
		release()
		// The draws wait only for other groups' commits, in partner order, never in a
		// cycle: unbounded, lest a slow commit send the whole group to run alone.
		if bounded && len(draws) > 0 {
			if err := lw.LimitLockWait(context.Background(), 0); err != nil {
				return err
			}
		}
		return drawAll(tx, draws)
	})
	answered = true
	if len(batch) > 1 {
		g.groups.Add(1)
		g.grouped.Add(int64(len(batch)))
	}
	refused := refusedBy(err)
	if refused != nil {
		// Chosen and queued again under one lock: a request cancelled meanwhile finds
		// its job either answered or queued (gaveUp), never taken out and not back.
		g.mu.Lock()
		defer g.mu.Unlock()
		g.noteRefused(refused.partners)
	}
	var again []*txJob // queued again for the next group, not answered yet
	for i, j := range batch {
		if err != nil {
			j.err = errRunAlone
			if cerr := j.ctx.Err(); cerr != nil {
				j.err = cerr
			} else if refused != nil && !j.requeued && !slices.Contains(refused.partners, drewFor[i]) {
				if g.beforeRequeue != nil {
					g.beforeRequeue()
				}
				j.requeued = true
				again = append(again, j)
				continue
			}
		} else {
			j.err = results[i]
		}
		close(j.done)
	}
	if len(again) > 0 {
		// First in the queue, and the callers woken to take them (on PostgreSQL the
		// turn was given back before the draws, with nobody queued maybe).
		g.queue = append(again, g.queue...)
		g.signalFree()
	}
}

// jobPanic is a booking's panic in a group commit (runJob), recovered there: the
// goroutine running the group is another request's, which would otherwise answer 500
// for it and lose its own booking.
type jobPanic struct {
	value any
	stack []byte
}

func (p *jobPanic) Error() string {
	return fmt.Sprintf("booking: a booking panicked in its group: %v", p.value)
}

// runJob runs j's transaction function in its group, a panic returned as a *jobPanic.
func runJob(ctx context.Context, j *txJob, tx store.Querier) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &jobPanic{value: v, stack: debug.Stack()}
		}
	}()
	return j.fn(ctx, tx)
}

// drawsLater collects the credit draws of one booking of a group (moveCredit).
type drawsLater struct{ entries []*store.LedgerEntry }

type drawsLaterKey struct{}

// laterDraws returns where a booking running in a group leaves its credit draws; nil
// when it runs alone and draws itself.
func laterDraws(ctx context.Context) *drawsLater {
	d, _ := ctx.Value(drawsLaterKey{}).(*drawsLater)
	return d
}

// drawAll makes the credit draws of a group's bookings, once their statements ran: one
// store.CreditDrawAll per partner, in partner order, as every group takes them (so two
// groups drawing for the same partners take their rows in the same order and cannot
// deadlock). Each partner's row is then held for one statement and the commit per
// group, not per booking; on PostgreSQL the draws travel with the COMMIT, one round
// trip. If some partners' draws do not all fit, the group does not commit
// (*partnersRefused): their bookings run alone, drawing their own credit, so that the
// refusal is answered to exactly the bookings that do not fit; the others run again in
// a group (commit). Where the draws are made at once (SQLite) a refusal writes
// nothing, and the others are drawn still, to name every partner refused; on
// PostgreSQL the first refusal fails the COMMIT and is the one named (refusedBy).
func drawAll(tx store.Querier, draws []*store.LedgerEntry) error {
	if len(draws) == 0 {
		return nil
	}
	byPartner := map[int64][]*store.LedgerEntry{}
	for _, e := range draws {
		byPartner[e.PartnerID] = append(byPartner[e.PartnerID], e)
	}
	var refused []int64
	for _, pid := range slices.Sorted(maps.Keys(byPartner)) {
		err := tx.CreditDrawAll(context.Background(), byPartner[pid])
		var cr *store.CreditRefused
		if errors.As(err, &cr) {
			refused = append(refused, cr.PartnerID)
			continue
		}
		if err != nil {
			return err
		}
	}
	if len(refused) > 0 {
		return &partnersRefused{partners: refused}
	}
	return nil
}

// refusedBy returns the partners whose draws kept a group from committing: drawAll's
// answer, or the store's refusal at COMMIT; nil for any other error.
func refusedBy(err error) *partnersRefused {
	var refused *partnersRefused
	if errors.As(err, &refused) {
		return refused
	}
	var cr *store.CreditRefused
	if errors.As(err, &cr) {
		return &partnersRefused{partners: []int64{cr.PartnerID}}
	}
	return nil
}

// partnersRefused is drawAll's answer when the draws of some partners of a group do
// not fit their credit: the group does not commit.
type partnersRefused struct{ partners []int64 }

func (e *partnersRefused) Error() string {
	return fmt.Sprintf("booking: the credit draws of partners %v do not fit", e.partners)
}

// ownAnswer reports an error that is the booking's own answer whatever the rest of its
// group did: a client error (validation, sold out, credit refused, a used prebook
// token), or another request's booking of its Idempotency-Key.
func ownAnswer(err error) bool {
	var te *tradewind.Error
	return errors.As(err, &te) || errors.Is(err, errReplay) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
