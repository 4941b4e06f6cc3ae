package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// exerciseLookups covers the list and lookup methods the other cases do not reach,
// each with its sentinel for a missing row.
func exerciseLookups(t *testing.T, s store.Store) {
	ctx := context.Background()
	if ids, err := s.PartnerListIDs(ctx); err != nil || len(ids) != 0 {
		t.Errorf("PartnerListIDs on an empty store = %v, %v", ids, err)
	}
	b, a := newPartner(t, s, "globex"), newPartner(t, s, "acme")
	if ids, err := s.PartnerListIDs(ctx); err != nil || !slices.Equal(ids, []int64{b.ID, a.ID}) {
		t.Errorf("PartnerListIDs = %v, %v; want ascending [%d %d]", ids, err, b.ID, a.ID)
	}
	if list, err := s.PartnerList(ctx); err != nil || len(list) != 2 || list[0].Name != "acme" {
		t.Errorf("PartnerList is by name: %v, %v", list, err)
	}
	if _, err := s.PartnerGetByName(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PartnerGetByName(missing) = %v; want ErrNotFound", err)
	}
	if err := s.PartnerUpdate(ctx, &tradewind.Partner{ID: 9999, Name: "x", PricingMode: tradewind.PricingNet, Currency: "EUR"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PartnerUpdate(missing) = %v; want ErrNotFound", err)
	}

	if keys, err := s.KeyListByPartner(ctx, a.ID); err != nil || len(keys) != 0 {
		t.Errorf("KeyListByPartner without keys = %v, %v", keys, err)
	}
	for i, p := range []*tradewind.Partner{a, b, a} {
		k := &tradewind.APIKey{PartnerID: p.ID, Prefix: "tw_test_x", Hash: fmt.Sprintf("h%d", i), Mode: tradewind.ModeTest,
			Scopes: []tradewind.Scope{tradewind.ScopeBookingRead}, Products: []tradewind.ProductType{tradewind.ProductRental}, CreatedAt: now}
		if err := s.KeyCreate(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := s.KeyListByPartner(ctx, a.ID)
	if err != nil || len(keys) != 2 || keys[0].Hash != "h0" || keys[1].Hash != "h2" ||
		!slices.Equal(keys[0].Scopes, []tradewind.Scope{tradewind.ScopeBookingRead}) ||
		!slices.Equal(keys[0].Products, []tradewind.ProductType{tradewind.ProductRental}) {
		t.Errorf("KeyListByPartner = %+v, %v; want the partner's two keys, oldest first", keys, err)
	}
	if _, err := s.KeyGetByID(ctx, 9999); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("KeyGetByID(missing) = %v; want ErrNotFound", err)
	}

	if err := s.BookingCreate(ctx, newBooking(a, "HTL-AAAAAAAA", "PO-7", "")); err != nil {
		t.Fatal(err)
	}
	if err := s.BookingCreate(ctx, newBooking(b, "HTL-AAAAAAAA", "PO-8", "")); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate reference = %v; want ErrConflict", err)
	}
	got, err := s.BookingGetByPartnerReference(ctx, a.ID, "PO-7")
	if err != nil || got.Reference != "HTL-AAAAAAAA" || got.PartnerID != a.ID {
		t.Errorf("BookingGetByPartnerReference = %+v, %v", got, err)
	}
	if _, err := s.BookingGetByPartnerReference(ctx, b.ID, "PO-7"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another partner's reference = %v; want ErrNotFound", err)
	}
	if _, err := s.BookingGetByReference(ctx, 0, "HTL-ZZZZZZZZ"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("BookingGetByReference(missing) = %v; want ErrNotFound", err)
	}
	if _, err := s.BookingGetByIdempotencyKey(ctx, a.ID, tradewind.ModeLive, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("BookingGetByIdempotencyKey(missing) = %v; want ErrNotFound", err)
	}
	if _, err := s.PrebookGet(ctx, "pbk_missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PrebookGet(missing) = %v; want ErrNotFound", err)
	}
	if _, err := s.ItemGet(ctx, tradewind.ProductHotel, 404); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ItemGet(missing) = %v; want ErrNotFound", err)
	}
}

// concurrently runs fn n times at once and returns how many calls succeeded; any
// error that is not want fails the test.
func concurrently(t *testing.T, n int, want error, fn func(i int) (bool, error)) int {
	t.Helper()
	var (
		wg sync.WaitGroup
		mu sync.Mutex
		ok int
	)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			done, err := fn(i)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && (want == nil || !errors.Is(err, want)):
				t.Errorf("call %d: %v", i, err)
			case err == nil && done:
				ok++
			}
		}()
	}
	close(start)
	wg.Wait()
	return ok
}

// exerciseConcurrentCreditDraw: many draws at once never pass the limit.
func exerciseConcurrentCreditDraw(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme") // limit 10000
	ok := concurrently(t, 40, nil, func(int) (bool, error) {
		var drawn bool
		err := s.InTx(ctx, func(q store.Querier) (err error) {
			drawn, err = q.CreditDraw(ctx, p.ID, 300)
			return err
		})
		return drawn, err
	})
	if ok != 33 {
		t.Errorf("%d draws of 300 succeeded against a limit of 10000; want exactly 33", ok)
	}
	if got, err := s.PartnerGetByID(ctx, p.ID); err != nil || got.CreditUsed != 9900 {
		t.Errorf("credit used = %+v, %v; want 9900", got, err)
	}
}

// exerciseConcurrentInventoryClaim: many claims at once over the same days take
// exactly the capacity, all days or none.
func exerciseConcurrentInventoryClaim(t *testing.T, s store.Store) {
	ctx := context.Background()
	if err := s.InventoryPut(ctx, rows(tradewind.UnitRoom, 1, 7, 5, "2027-01-01", "2027-01-02", "2027-01-03")); err != nil {
		t.Fatal(err)
	}
	ok := concurrently(t, 30, nil, func(i int) (bool, error) {
		from := "2027-01-01" // every other claim starts a day later: they overlap on 2027-01-02 and 03
		if i%2 == 1 {
			from = "2027-01-02"
		}
		var claimed bool
		err := s.InTx(ctx, func(q store.Querier) (err error) {
			_, claimed, err = q.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 1, From: from, To: "2027-01-03", Quantity: 1})
			return err
		})
		return claimed, err
	})
	if ok != 5 {
		t.Errorf("%d claims succeeded on 5 rooms; want exactly 5", ok)
	}
	got, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, UnitIDs: []int64{1}, From: "2027-01-01", To: "2027-01-03"})
	if err != nil || len(got) != 3 || got[1].Sold != 5 || got[2].Sold != 5 || got[0].Sold > 5 {
		t.Errorf("after the claims = %+v, %v; want the overlapping days sold out, none oversold", got, err)
	}
}

// exerciseConcurrentBookingKey: many transactions at once insert a booking with one
// partner's Idempotency-Key in one mode (what a booking's transaction does since
// migration 00031, no record of the key beside it): exactly one commits, every other
// is refused with ErrIdempotencyKeyTaken.
func exerciseConcurrentBookingKey(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	ok := concurrently(t, 20, store.ErrIdempotencyKeyTaken, func(i int) (bool, error) {
		err := s.InTx(ctx, func(q store.Querier) error {
			b := newBooking(p, fmt.Sprintf("HTL-K%07d", i), "", "same-key")
			b.RequestHash = fmt.Sprint("h", i%2)
			return q.BookingCreate(ctx, b)
		})
		return err == nil, err
	})
	if ok != 1 {
		t.Errorf("%d bookings of one key committed; want exactly 1", ok)
	}
}

// exerciseConcurrentIdempotencyClaim: one key claimed by many transactions at once is
// held by exactly one, whatever request each fingerprints; the others get ErrConflict.
func exerciseConcurrentIdempotencyClaim(t *testing.T, s store.Store) {
	ctx := context.Background()
	ok := concurrently(t, 20, store.ErrConflict, func(i int) (bool, error) {
		err := s.InTx(ctx, func(q store.Querier) error {
			return q.IdempotencyClaim(ctx, store.IdempotencyRecord{PartnerID: 1, Mode: tradewind.ModeLive, Key: "same-key",
				RequestHash: fmt.Sprint("h", i%2), CreatedAt: now})
		})
		return err == nil, err
	})
	if ok != 1 {
		t.Errorf("%d claims of one key succeeded; want exactly 1", ok)
	}
}
