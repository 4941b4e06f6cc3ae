package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// exerciseInventoryClaimBooking: InventoryClaimBooking creates the booking, its event
// and the event's delivery only when the claim takes every day, and the item is stored
// as the claim says; otherwise it takes nothing and creates nothing. A key taken is
// BookingCreate's error, and once rolled back to the savepoint before it, neither its
// claim nor its booking stays, while the work before the savepoint commits.
func exerciseInventoryClaimBooking(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	sub := newSubscription(t, s, p.ID, "https://a.example/1", tradewind.EventBookingConfirmed)
	if err := s.InventoryPut(ctx, rows(tradewind.UnitRoom, 1, 7, 2, "2027-01-01", "2027-01-02", "2027-01-03")); err != nil {
		t.Fatal(err)
	}
	item := &store.Item{Kind: tradewind.ProductHotel, ID: 7, CityKey: "lisbon", Data: []byte(`{"id":7,"v":1}`)}
	if _, err := s.ItemPut(ctx, item); err != nil {
		t.Fatal(err)
	}
	event := func(id, ref string) *tradewind.Event {
		return &tradewind.Event{ID: id, PartnerID: p.ID, Type: tradewind.EventBookingConfirmed,
			Data: []byte(`{"reference":"` + ref + `","product_type":"hotel"}`), CreatedAt: now}
	}
	claim := func(from, to string, qty int, it *store.Item) store.Claim {
		return store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 1, From: from, To: to, Quantity: qty, IfItem: it}
	}
	sold := func() []int {
		t.Helper()
		got, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: []int64{7}, From: "2027-01-01", To: "2027-01-03"})
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, r := range got {
			out = append(out, r.Sold)
		}
		return out
	}
	absent := func(ref, eventID string) {
		t.Helper()
		if _, err := s.BookingGetByReference(ctx, p.ID, ref); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("booking %s: %v; want none", ref, err)
		}
		if list, err := s.DeliveryList(ctx, store.DeliveryFilter{EventID: eventID}); err != nil || len(list) != 0 {
			t.Errorf("deliveries of %s = %+v, %v; want none", eventID, list, err)
		}
		if evs, err := s.EventListByBooking(ctx, p.ID, ref); err != nil || len(evs) != 0 {
			t.Errorf("events of %s = %+v, %v; want none", ref, evs, err)
		}
	}

	// Taken whole: the claim's rows by day, the booking with its id, its event and delivery.
	b := newBooking(p, "HTL-AAAAAAAA", "", "k1")
	var after []store.InventoryRow
	if err := s.InTx(ctx, func(q store.Querier) error {
		var ok bool
		var err error
		after, ok, err = q.InventoryClaimBooking(ctx, claim("2027-01-01", "2027-01-02", 1, item), b, event("evt_c1", b.Reference))
		if err == nil && !ok {
			err = errors.New("not taken")
		}
		return err
	}); err != nil || b.ID == 0 {
		t.Fatalf("InventoryClaimBooking: %v (id %d)", err, b.ID)
	}
	if len(after) != 2 || after[0].Day != "2027-01-01" || after[1].Day != "2027-01-02" || after[0].Sold != 1 || after[1].Capacity != 2 ||
		after[0].Price != 1000 || after[0].ItemID != 7 || after[0].UnitID != 1 || after[0].Kind != tradewind.UnitRoom {
		t.Errorf("claimed rows = %+v", after)
	}
	if got, err := s.BookingGetByReference(ctx, p.ID, b.Reference); err != nil || got.ID != b.ID {
		t.Fatalf("booking = %+v, %v", got, err)
	}
	if list, err := s.DeliveryList(ctx, store.DeliveryFilter{EventID: "evt_c1"}); err != nil || len(list) != 1 || list[0].SubscriptionID != sub.ID {
		t.Fatalf("deliveries = %+v, %v", list, err)
	}
	if got := sold(); len(got) != 3 || got[0] != 1 || got[1] != 1 || got[2] != 0 {
		t.Fatalf("sold = %v; want [1 1 0]", got)
	}

	// Not taken whole (the 2nd lacks two rooms), or the item stored otherwise, or
	// missing: nothing taken, nothing created, outside a transaction too.
	other := *item
	other.Data = []byte(`{"id":7,"v":2}`)
	for i, c := range []store.Claim{claim("2027-01-02", "2027-01-03", 2, nil), claim("2027-01-03", "2027-01-03", 1, &other),
		claim("2027-01-03", "2027-01-04", 1, item)} {
		nb := newBooking(p, "HTL-BBBBBBB"+string(rune('A'+i)), "", "k2")
		after, ok, err := s.InventoryClaimBooking(ctx, c, nb, event("evt_c2", nb.Reference))
		if err != nil || ok || after != nil {
			t.Errorf("claim %+v = %v, %v, %v; want nothing taken", c, after, ok, err)
		}
		absent(nb.Reference, "evt_c2")
	}
	if got := sold(); got[0] != 1 || got[1] != 1 || got[2] != 0 {
		t.Fatalf("sold after the refused claims = %v; want [1 1 0]", got)
	}

	// A key taken, after a savepoint: BookingCreate's error; rolled back to the
	// savepoint, neither claim nor booking stays, and the work before it commits.
	before := newBooking(p, "HTL-CCCCCCCC", "", "k3")
	dup := newBooking(p, "HTL-DDDDDDDD", "", "k1")
	if err := s.InTx(ctx, func(q store.Querier) error {
		if err := q.BookingCreate(ctx, before); err != nil {
			return err
		}
		sp, ok := q.(store.Savepoints)
		if !ok {
			return errors.New("no savepoints")
		}
		if err := sp.Savepoint(ctx, "booking"); err != nil {
			return err
		}
		_, _, err := q.InventoryClaimBooking(ctx, claim("2027-01-03", "2027-01-03", 1, item), dup, event("evt_c3", dup.Reference))
		if !errors.Is(err, store.ErrIdempotencyKeyTaken) {
			t.Errorf("a taken key: %v; want ErrIdempotencyKeyTaken", err)
		}
		return sp.RollbackToSavepoint(ctx, "booking")
	}); err != nil {
		t.Fatal(err)
	}
	absent(dup.Reference, "evt_c3")
	if _, err := s.BookingGetByReference(ctx, p.ID, before.Reference); err != nil {
		t.Errorf("the booking before the savepoint: %v", err)
	}
	if got := sold(); got[0] != 1 || got[1] != 1 || got[2] != 0 {
		t.Errorf("sold after the taken key = %v; want [1 1 0]", got)
	}

	// Two events, each with its delivery; none (a booking not confirmed yet).
	two := newBooking(p, "HTL-EEEEEEEE", "", "k5")
	if _, ok, err := s.InventoryClaimBooking(ctx, claim("2027-01-03", "2027-01-03", 1, nil), two,
		event("evt_c4", two.Reference), event("evt_c5", two.Reference)); err != nil || !ok {
		t.Fatalf("with two events: %v, %v", ok, err)
	}
	if evs, err := s.EventListByBooking(ctx, p.ID, two.Reference); err != nil || len(evs) != 2 {
		t.Errorf("events of the booking with two = %+v, %v", evs, err)
	}
	for _, id := range []string{"evt_c4", "evt_c5"} {
		if list, err := s.DeliveryList(ctx, store.DeliveryFilter{EventID: id}); err != nil || len(list) != 1 {
			t.Errorf("deliveries of %s = %+v, %v", id, list, err)
		}
	}
	none := newBooking(p, "HTL-FFFFFFFF", "PO-9", "k6")
	none.Status = tradewind.StatusOnRequest
	if _, ok, err := s.InventoryClaimBooking(ctx, claim("2027-01-03", "2027-01-03", 1, item), none); err != nil || !ok || none.ID == 0 {
		t.Fatalf("without events: %v, %v (id %d)", ok, err, none.ID)
	}
	if got, err := s.BookingGetByReference(ctx, p.ID, none.Reference); err != nil || got.Status != tradewind.StatusOnRequest {
		t.Errorf("booking without events = %+v, %v", got, err)
	}

	// A partner reference taken: its error, and in the transaction rolled back nothing stays.
	ref := newBooking(p, "HTL-GGGGGGGG", "PO-9", "k7")
	err := s.InTx(ctx, func(q store.Querier) error {
		_, _, err := q.InventoryClaimBooking(ctx, claim("2027-01-01", "2027-01-01", 1, nil), ref, event("evt_c6", ref.Reference))
		return err
	})
	if !errors.Is(err, store.ErrPartnerReferenceTaken) {
		t.Errorf("a taken partner reference: %v; want ErrPartnerReferenceTaken", err)
	}
	absent(ref.Reference, "evt_c6")
	if got := sold(); got[0] != 1 || got[1] != 1 || got[2] != 2 {
		t.Errorf("sold at the end = %v; want [1 1 2]", got)
	}
}
