package booking

import (
	"context"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// HoldBookGroups takes every turn of the group committer, as running groups do, so
// that a test can queue bookings and have them run as one group: queued reports how
// many wait, release gives every turn back (or ReleaseBookTurn one at a time).
func HoldBookGroups(s *Service) (queued func() int, release func()) {
	g := s.groups()
	g.mu.Lock()
	g.running += g.atOnce
	g.mu.Unlock()
	return func() int { return BookQueued(s) }, func() {
		g.mu.Lock()
		g.running -= g.atOnce
		g.signal()
		g.mu.Unlock()
	}
}

// BookQueued returns how many bookings wait in the queue for a group to take them.
func BookQueued(s *Service) int {
	g := s.groups()
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

// BookTx runs fn as a booking's transaction function (in a group, or alone).
func BookTx(s *Service, ctx context.Context, fn func(ctx context.Context, tx store.Querier) error) error {
	return s.bookTx(ctx, nil, false, fn)
}

// ReleaseBookTurn gives back one of the turns HoldBookGroups took: the queue's next
// group may start (beside a running one when the queue holds enough bookings).
func ReleaseBookTurn(s *Service) {
	g := s.groups()
	g.mu.Lock()
	g.running--
	g.signal()
	g.mu.Unlock()
}

// AfterQuoteAhead sets f to run between a live booking's quote, priced before its
// transaction, and the transaction.
func AfterQuoteAhead(s *Service, f func()) { s.afterQuoteAhead = f }

// ComingBooking announces a booking to the group commits, as Book does as it starts:
// queue runs fn as its transaction function (as BookTx does), gone takes the
// announcement back, as a booking refused before its transaction does.
func ComingBooking(s *Service) (queue func(ctx context.Context, fn func(ctx context.Context, tx store.Querier) error) error, gone func()) {
	a := s.groups().announce()
	return func(ctx context.Context, fn func(ctx context.Context, tx store.Querier) error) error {
		return s.bookTx(ctx, a, false, fn)
	}, a.arrived
}

// SetBookComingWait sets how long a group waits for the bookings coming.
func SetBookComingWait(s *Service, d time.Duration) {
	g := s.groups()
	g.mu.Lock()
	g.comingWait = d
	g.mu.Unlock()
}

// DrawCredit draws b.CreditDrawn as Book does, in tx: in a group commit the group draws
// it with its other bookings' (moveCredit).
func DrawCredit(s *Service, ctx context.Context, tx store.Querier, b *tradewind.Booking) error {
	return s.moveCredit(ctx, tx, b, store.LedgerDraw)
}

// SetBeforeRequeue sets f to run as a group that could not commit for a partner's credit
// chooses a booking to queue again (under the committer's lock, before it queues).
func SetBeforeRequeue(s *Service, f func()) {
	g := s.groups()
	g.mu.Lock()
	g.beforeRequeue = f
	g.mu.Unlock()
}

// SetRefusedWindow sets how long a partner whose draws a group could not make runs its
// bookings alone.
func SetRefusedWindow(s *Service, d time.Duration) {
	g := s.groups()
	g.mu.Lock()
	g.refusedWindow = d
	g.mu.Unlock()
}
