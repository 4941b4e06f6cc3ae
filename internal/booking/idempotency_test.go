package booking_test

import (
	"context"
	"sync"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

type pauseKey struct{}

// pause is how a test holds a request: reached is closed once the request's first
// idempotency lookup has read the store, and every lookup then waits for hold.
type pause struct {
	once          sync.Once
	reached, hold chan struct{}
}

// pausingStore holds a request marked in its context with a *pause right after its first
// idempotency lookup, so that another request with the same key can commit in between.
type pausingStore struct{ store.Store }

func (p pausingStore) BookingGetByIdempotencyKey(ctx context.Context, partnerID int64, key string) (*tradewind.Booking, error) {
	b, err := p.Store.BookingGetByIdempotencyKey(ctx, partnerID, key)
	if ps, ok := ctx.Value(pauseKey{}).(*pause); ok {
		ps.once.Do(func() { close(ps.reached) })
		<-ps.hold
	}
	return b, err
}

// TestReplayWhileFirstRequestCommits: a retry that looked up its key just before the
// original committed must answer with the original booking, even though the original
// took the last room or the prebook token it is checking.
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
				retry := booking.New(pausingStore{st}, clock, nil)
				ps := &pause{reached: make(chan struct{}), hold: make(chan struct{})}
				type answer struct {
					view   *booking.BookingView
					replay bool
					err    error
				}
				done := make(chan answer, 1)
				go func() {
					v, r, err := retry.Book(context.WithValue(ctx, pauseKey{}, ps), c, "K", req())
					done <- answer{v, r, err}
				}()
				<-ps.reached // the retry has looked its key up and found nothing
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
