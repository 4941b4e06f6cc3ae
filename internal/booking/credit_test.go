package booking_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestCreditLedgerAddsUp: many live bookings, cancellations and supplier rejections at
// once, some bookings refused by the credit limit, and test bookings beside them, leave
// a ledger with one draw per live booking and one release per ended one, each entry's
// balance the sum of those before it, ending at the partner's credit used.
func TestCreditLedgerAddsUp(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		svc, live := liveService(t, o, apitest.NewClock(apitest.Start), apitest.Catalog(), "1000") // about ten nights
		k, _, err := svc.IssueKey(ctx, "p", booking.KeyParams{Mode: "test"})
		if err != nil {
			t.Fatal(err)
		}
		test := &booking.Caller{Partner: live.Partner, Key: k}
		onRequest := func(guest string) *booking.BookRequest {
			return &booking.BookRequest{QuoteRequest: booking.QuoteRequest{ProductType: "hotel", HotelID: apitest.HotelOnRequest,
				RoomID: apitest.RoomOnRequest, CheckIn: apitest.Day(5), CheckOut: apitest.Day(6), Rooms: 1, Adults: 1},
				Guest: &booking.Guest{Name: guest}}
		}
		var (
			mu      sync.Mutex
			booked  []*booking.BookingView
			refused int // draws refused for want of credit
			wg      sync.WaitGroup
		)
		// run does fn n times at once; an error other than a refused draw fails the test.
		run := func(n int, fn func(i int) (*booking.BookingView, error)) {
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					v, err := fn(i)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil && v != nil && !v.Test:
						booked = append(booked, v)
					case tradewind.ErrorCode(err) == tradewind.ECodeInsufficientCredit:
						refused++
					case err != nil:
						t.Errorf("call %d: %v", i, err)
					}
				}()
			}
			close(start)
			wg.Wait()
		}
		book := func(c *booking.Caller, key string, req *booking.BookRequest) (*booking.BookingView, error) {
			v, _, err := svc.Book(ctx, c, key, req)
			return v, err
		}
		run(28, func(i int) (*booking.BookingView, error) {
			switch {
			case i%7 == 0 && i < 21:
				// Three: the suite has three units a night, and a fourth, arriving once
				// three were sold, was refused as sold out (invalid_quote), not for credit.
				return book(live, fmt.Sprint("req-", i), onRequest("R"))
			case i%7 == 1:
				return book(test, fmt.Sprint("test-", i), hotelBooking("T", 3+i))
			}
			return book(live, fmt.Sprint("a-", i), hotelBooking("A", 3+i))
		})
		first := append([]*booking.BookingView(nil), booked...)
		// Which bookings fit depends on the order they arrive in (three 300.00 suites on
		// request leave room for no 100.05 night): at least those three, and some refused.
		if len(first) < 3 || refused == 0 {
			t.Fatalf("%d live bookings of 24 fit the limit, %d refused; the test wants some of each", len(first), refused)
		}
		// End half of them (rejecting the on-request ones) while more bookings arrive.
		run(len(first)+12, func(i int) (*booking.BookingView, error) {
			if i >= len(first) {
				return book(live, fmt.Sprint("b-", i), hotelBooking("B", 40+i))
			}
			b := first[i]
			switch {
			case b.Status == tradewind.StatusOnRequest:
				_, err := svc.Reject(ctx, b.Reference, "")
				return nil, err
			case i%2 == 0:
				_, err := svc.Cancel(ctx, live, b.Reference, "")
				return nil, err
			}
			return nil, nil
		})

		p, err := svc.Store.PartnerGetByID(ctx, live.Partner.ID)
		if err != nil {
			t.Fatal(err)
		}
		var entries []*store.LedgerEntry
		for before := int64(0); ; {
			page, err := svc.Store.CreditLedgerList(ctx, store.LedgerQuery{PartnerID: p.ID, BeforeID: before, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			entries = append(entries, page...) // newest first; reversed below
			if len(page) < 10 {
				break
			}
			before = page[len(page)-1].ID
		}
		for i, j := 0, len(entries)-1; i < j; i, j = i+1, j-1 {
			entries[i], entries[j] = entries[j], entries[i]
		}
		var sum int64
		draws, releases := map[string]bool{}, map[string]bool{}
		for _, e := range entries {
			if e.Kind == store.LedgerDraw {
				sum += e.Amount
				draws[e.Reference] = true
			} else {
				sum -= e.Amount
				releases[e.Reference] = true
			}
			if e.BalanceAfter != sum {
				t.Fatalf("entry %d (%s %s) says %d used after it; the entries before add up to %d", e.ID, e.Kind, e.Reference, e.BalanceAfter, sum)
			}
		}
		if sum != p.CreditUsed {
			t.Fatalf("the ledger adds up to %d; the partner uses %d", sum, p.CreditUsed)
		}
		list, _, err := svc.Store.BookingList(ctx, store.BookingFilter{PartnerID: p.ID})
		if err != nil {
			t.Fatal(err)
		}
		var ended int
		for _, b := range list {
			switch {
			case b.Test && (draws[b.Reference] || releases[b.Reference]):
				t.Errorf("test booking %s is in the ledger", b.Reference)
			case !b.Test && !draws[b.Reference]:
				t.Errorf("live booking %s drew no entry", b.Reference)
			case !b.Test && (b.Status == tradewind.StatusCancelled) != releases[b.Reference]:
				t.Errorf("booking %s is %s; released in the ledger: %v", b.Reference, b.Status, releases[b.Reference])
			}
			if !b.Test && b.Status == tradewind.StatusCancelled {
				ended++
			}
		}
		if ended == 0 || len(draws) != len(booked) {
			t.Fatalf("%d ended, %d draws for %d live bookings", ended, len(draws), len(booked))
		}
	})
}
