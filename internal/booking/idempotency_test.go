package booking_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/ids"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// pause is how a test holds a request: reached is closed once the request has made
// its checks and reads before its transaction, and it then waits for hold.
type pause struct {
	once          sync.Once
	reached, hold chan struct{}
}

func (p *pause) at() {
	p.once.Do(func() { close(p.reached) })
	<-p.hold
}

// TestReplayWhileFirstRequestCommits: a retry that made its checks (before its
// transaction: since pgbook5 no lookup of its key there, its prebook token and its
// quote) just before the original committed must answer with the original booking, even
// though the original took the last room or the prebook token it is checking.
func TestReplayWhileFirstRequestCommits(t *testing.T) {
	for _, o := range storetest.Openers() {
		for _, viaToken := range []bool{false, true} {
			name := o.Name + "/quote"
			if viaToken {
				name = o.Name + "/prebook_token"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				clock := apitest.NewClock(apitest.Start)
				svc, c := liveService(t, o, clock, apitest.Catalog(), "10000")
				st := svc.Store
				quote := booking.QuoteRequest{ProductType: "hotel", HotelID: apitest.HotelLisbon, RoomID: apitest.RoomSmall,
					CheckIn: apitest.Day(3), CheckOut: apitest.Day(4), Rooms: 1, Adults: 1}
				// The single room has two per night: take one, so one is left.
				if _, _, err := svc.Book(ctx, c, "first", &booking.BookRequest{QuoteRequest: quote, Guest: &booking.Guest{Name: "X"}}); err != nil {
					t.Fatal(err)
				}
				req := func() *booking.BookRequest {
					return &booking.BookRequest{QuoteRequest: quote, Guest: &booking.Guest{Name: "X"}}
				}
				if viaToken {
					pb, err := svc.Prebook(ctx, c, &quote)
					if err != nil {
						t.Fatal(err)
					}
					req = func() *booking.BookRequest {
						return &booking.BookRequest{PrebookToken: pb.PrebookToken, Guest: &booking.Guest{Name: "X"}}
					}
				}
				retry := booking.New(st, clock, nil)
				ps := &pause{reached: make(chan struct{}), hold: make(chan struct{})}
				booking.AfterQuoteAhead(retry, ps.at)
				type answer struct {
					view   *booking.BookingView
					replay bool
					err    error
				}
				done := make(chan answer, 1)
				go func() {
					v, r, err := retry.Book(ctx, c, "K", req())
					done <- answer{v, r, err}
				}()
				<-ps.reached // the retry has checked its token and priced its quote
				orig, replay, err := svc.Book(ctx, c, "K", req())
				if err != nil || replay {
					t.Fatalf("original: %v, replay %v", err, replay)
				}
				close(ps.hold)
				got := <-done
				if got.err != nil || !got.replay || got.view.Reference != orig.Reference {
					t.Fatalf("retry answered %+v, %v; want a replay of %s", got.view, got.err, orig.Reference)
				}
			})
		}
	}
}

// modeCallers returns a service and the live and test callers of one partner.
func modeCallers(t *testing.T, o storetest.Opener) (*booking.Service, *booking.Caller, *booking.Caller) {
	t.Helper()
	svc, live := liveService(t, o, apitest.NewClock(apitest.Start), apitest.Catalog(), "10000")
	k, _, err := svc.IssueKey(context.Background(), "p", booking.KeyParams{Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return svc, live, &booking.Caller{Partner: live.Partner, Key: k}
}

func hotelBooking(guest string, checkIn int) *booking.BookRequest {
	return &booking.BookRequest{QuoteRequest: booking.QuoteRequest{ProductType: "hotel", HotelID: apitest.HotelLisbon,
		RoomID: apitest.RoomDouble, CheckIn: apitest.Day(checkIn), CheckOut: apitest.Day(checkIn + 1), Rooms: 1, Adults: 1},
		Guest: &booking.Guest{Name: guest}}
}

// TestIdempotencyKeyPerMode: a key first used with the test key never answers the live
// key's request with the test booking (it books live), nor the reverse; each mode
// replays its own booking.
func TestIdempotencyKeyPerMode(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, live, test := modeCallers(t, o)
		tb, replay, err := svc.Book(ctx, test, "K", hotelBooking("Ana", 3))
		if err != nil || replay || !tb.Test {
			t.Fatalf("test booking = %+v, %v, %v", tb, replay, err)
		}
		lb, replay, err := svc.Book(ctx, live, "K", hotelBooking("Ana", 3))
		if err != nil || replay || lb.Test || lb.Reference == tb.Reference {
			t.Fatalf("live request with the test key's Idempotency-Key = %+v, replay %v, %v; want a new live booking", lb, replay, err)
		}
		p, _ := svc.Store.PartnerGetByID(ctx, live.Partner.ID)
		if p.CreditUsed != 10005 {
			t.Errorf("credit used = %d, want the live booking's 10005", p.CreditUsed)
		}
		for _, c := range []struct {
			caller *booking.Caller
			want   string
		}{{test, tb.Reference}, {live, lb.Reference}} {
			got, replay, err := svc.Book(ctx, c.caller, "K", hotelBooking("Ana", 3))
			if err != nil || !replay || got.Reference != c.want {
				t.Errorf("%s replay = %+v, %v, %v; want %s", c.caller.Key.Mode, got, replay, err, c.want)
			}
		}
	})
}

// TestIdempotencyKeyReused: the same key with another body is 422 idempotency_key_reused
// and books or charges nothing; the same body replays.
func TestIdempotencyKeyReused(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, live, _ := modeCallers(t, o)
		first, _, err := svc.Book(ctx, live, "K", hotelBooking("Ana", 3))
		if err != nil {
			t.Fatal(err)
		}
		for name, req := range map[string]*booking.BookRequest{
			"another guest":  hotelBooking("Bea", 3),
			"another stay":   hotelBooking("Ana", 5),
			"invalid body":   {Guest: &booking.Guest{Name: "Ana"}},
			"partner ref":    func() *booking.BookRequest { r := hotelBooking("Ana", 3); r.PartnerReference = "PO-1"; return r }(),
			"prebook absent": {PrebookToken: "pbk_unknown", Guest: &booking.Guest{Name: "Ana"}},
		} {
			_, _, err := svc.Book(ctx, live, "K", req)
			if tradewind.ErrorCode(err) != tradewind.ECodeIdempotencyKeyReused {
				t.Errorf("%s: %v, want idempotency_key_reused", name, err)
			}
		}
		list, total, _ := svc.Store.BookingList(ctx, store.BookingFilter{PartnerID: live.Partner.ID})
		p, _ := svc.Store.PartnerGetByID(ctx, live.Partner.ID)
		if total != 1 || list[0].Reference != first.Reference || p.CreditUsed != 10005 {
			t.Errorf("after reuses: %d bookings, credit %d; want only %s and 10005", total, p.CreditUsed, first.Reference)
		}
		if again, replay, err := svc.Book(ctx, live, "K", hotelBooking("Ana", 3)); err != nil || !replay || again.Reference != first.Reference {
			t.Errorf("same body = %+v, %v, %v; want a replay", again, replay, err)
		}
	})
}

// TestIdempotencyKeyRace: many requests at once with one key and two bodies create
// exactly one booking; the others replay it (same body) or are refused with
// idempotency_key_reused (the other body). Nothing is charged twice.
func TestIdempotencyKeyRace(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, live, _ := modeCallers(t, o)
		const n = 24
		type answer struct {
			body   string
			view   *booking.BookingView
			replay bool
			err    error
		}
		answers := make([]answer, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := []string{"Ana", "Bea"}[i%2]
				<-start
				v, r, err := svc.Book(ctx, live, "race", hotelBooking(body, 3))
				answers[i] = answer{body, v, r, err}
			}()
		}
		close(start)
		wg.Wait()
		var winner string
		created := 0
		for _, a := range answers {
			if a.err == nil && !a.replay {
				created++
				winner = a.body
			}
		}
		if created != 1 {
			t.Fatalf("%d bookings created, want 1: %+v", created, answers)
		}
		ref := ""
		for _, a := range answers {
			switch {
			case a.body == winner && a.err == nil:
				if ref == "" {
					ref = a.view.Reference
				} else if a.view.Reference != ref {
					t.Errorf("two references %s and %s", ref, a.view.Reference)
				}
			case a.body != winner && tradewind.ErrorCode(a.err) == tradewind.ECodeIdempotencyKeyReused:
			default:
				t.Errorf("body %s (winner %s): %+v, replay %v, %v", a.body, winner, a.view, a.replay, a.err)
			}
		}
		_, total, _ := svc.Store.BookingList(ctx, store.BookingFilter{PartnerID: live.Partner.ID})
		p, _ := svc.Store.PartnerGetByID(ctx, live.Partner.ID)
		if total != 1 || p.CreditUsed != 10005 {
			t.Errorf("%d bookings, credit %d; want 1 and 10005", total, p.CreditUsed)
		}
	})
}

// TestIdempotencyFingerprintOnBooking: a booking keeps its request's fingerprint on its
// own row and writes no record of its key beside it (migration 00031), so the body
// check holds for as long as the booking exists, not only while a record is kept. A
// booking made before (no fingerprint on its row) is checked against its key's record
// while the record exists, and replays any body once the record is gone.
func TestIdempotencyFingerprintOnBooking(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, live, _ := modeCallers(t, o)
		st := svc.Store
		first, _, err := svc.Book(ctx, live, "K", hotelBooking("Ana", 3))
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.BookingGetByIdempotencyKey(ctx, live.Partner.ID, tradewind.ModeLive, "K")
		if err != nil || len(b.RequestHash) != 64 {
			t.Fatalf("the booking's fingerprint %q (%v); want SHA-256 in hex", b.RequestHash, err)
		}
		if _, err := st.IdempotencyGet(ctx, live.Partner.ID, tradewind.ModeLive, "K"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a record of the key was written beside the booking (%v)", err)
		}
		if _, _, err := svc.Book(ctx, live, "K", hotelBooking("Bea", 3)); tradewind.ErrorCode(err) != tradewind.ECodeIdempotencyKeyReused {
			t.Errorf("another body with no record: %v, want idempotency_key_reused", err)
		}
		if again, replay, err := svc.Book(ctx, live, "K", hotelBooking("Ana", 3)); err != nil || !replay || again.Reference != first.Reference {
			t.Errorf("same body = %+v, %v, %v; want a replay", again, replay, err)
		}

		// A booking from before the migration: no fingerprint on its row, one in its
		// key's record while the record is kept.
		old, _, err := svc.Book(ctx, live, "OLD", hotelBooking("Old", 4))
		if err != nil {
			t.Fatal(err)
		}
		db := st.(interface{ SQL() *sql.DB }).SQL()
		if _, err := db.ExecContext(ctx, `UPDATE bookings SET request_hash = '' WHERE reference = $1`, old.Reference); err != nil {
			t.Fatal(err)
		}
		rec := store.IdempotencyRecord{PartnerID: live.Partner.ID, Mode: tradewind.ModeLive, Key: "OLD", RequestHash: "recorded", CreatedAt: apitest.Start}
		if err := st.IdempotencyClaim(ctx, rec); err != nil {
			t.Fatal(err)
		}
		if _, _, err := svc.Book(ctx, live, "OLD", hotelBooking("Old", 4)); tradewind.ErrorCode(err) != tradewind.ECodeIdempotencyKeyReused {
			t.Errorf("old booking, a body its record does not fingerprint: %v, want idempotency_key_reused", err)
		}
		if _, err := db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE key = 'OLD'`); err != nil {
			t.Fatal(err)
		}
		if again, replay, err := svc.Book(ctx, live, "OLD", hotelBooking("Other", 9)); err != nil || !replay || again.Reference != old.Reference {
			t.Errorf("old booking, record deleted: %+v, %v, %v; want a replay of %s", again, replay, err, old.Reference)
		}
		_, total, _ := st.BookingList(ctx, store.BookingFilter{PartnerID: live.Partner.ID})
		if total != 2 {
			t.Errorf("%d bookings, want 2", total)
		}
	})
}

// takenOnce is a store whose first booking insert meets a reference already taken (a
// plain conflict, not the key's nor the partner reference's), as a random part can.
type takenOnce struct {
	store.Store
	taken atomic.Bool
}

func (s *takenOnce) InTx(ctx context.Context, fn func(q store.Querier) error) error {
	return s.Store.InTx(ctx, func(q store.Querier) error {
		return fn(&takenOnceTx{Querier: q, ForwardSavepoints: store.ForwardSavepoints{Tx: q}, s: s})
	})
}

type takenOnceTx struct {
	store.Querier
	store.ForwardSavepoints
	s *takenOnce
}

func (q *takenOnceTx) BookingCreate(ctx context.Context, b *tradewind.Booking, events ...*tradewind.Event) error {
	if q.s.taken.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: reference %s taken", store.ErrConflict, b.Reference)
	}
	return q.Querier.BookingCreate(ctx, b, events...)
}

// InventoryClaimBooking is the insert of a booking priced ahead (createBooking).
func (q *takenOnceTx) InventoryClaimBooking(ctx context.Context, c store.Claim, b *tradewind.Booking, events ...*tradewind.Event) ([]store.InventoryRow, bool, error) {
	if q.s.taken.CompareAndSwap(false, true) {
		return nil, false, fmt.Errorf("%w: reference %s taken", store.ErrConflict, b.Reference)
	}
	return q.Querier.InventoryClaimBooking(ctx, c, b, events...)
}

// TestBookingReferenceShapeAndTaken: a reference is its product's prefix, a hyphen and 8
// alphanumerics, the first 3 counting the booking's time (ids.Cyclic, in steps of 4 ms),
// so references made one after another sort by time. A booking whose reference is taken
// runs again with a new one and is booked, in a group commit and alone.
func TestBookingReferenceShapeAndTaken(t *testing.T) {
	shape := regexp.MustCompile(`^HTL-[0-9A-Z]{8}$`)
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		for _, alone := range []bool{false, true} {
			ctx := context.Background()
			clock := apitest.NewClock(apitest.Start)
			svc, c := liveService(t, o, clock, apitest.Catalog(), "10000")
			if alone {
				svc.BookGroupMax = 1
			}
			first, _, err := svc.Book(ctx, c, "first", hotelBooking("Ana", 3))
			if err != nil {
				t.Fatal(err)
			}
			clock.Advance(4 * time.Millisecond)
			taken := &takenOnce{Store: svc.Store}
			retry := booking.New(taken, clock, nil)
			retry.BookGroupMax = svc.BookGroupMax
			second, replay, err := retry.Book(ctx, c, "second", hotelBooking("Bea", 5))
			if err != nil || replay || !taken.taken.Load() {
				t.Fatalf("alone %v: a booking whose reference was taken: %+v, %v, %v (conflict met: %v)", alone, second, replay, err, taken.taken.Load())
			}
			for _, v := range []*booking.BookingView{first, second} {
				if !shape.MatchString(v.Reference) {
					t.Errorf("reference %q: want HTL- and 8 of [0-9A-Z]", v.Reference)
				}
			}
			at := apitest.Start
			if got, want := first.Reference[4:7], ids.Cyclic(ids.SortableAlnum, at, 4*time.Millisecond, 3); got != want {
				t.Errorf("first reference's time part %q, want %q", got, want)
			}
			if second.Reference[4:7] <= first.Reference[4:7] {
				t.Errorf("references %s then %s 4 ms later: want them in time order", first.Reference, second.Reference)
			}
		}
	})
}
