package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// Exercise runs the conformance suite against stores opened by open. Every store
// implementation must pass it; a store change starts with a case here.
func Exercise(t *testing.T, open func(tb testing.TB) store.Store) {
	t.Helper()
	cases := map[string]func(t *testing.T, s store.Store){
		"Partners":              exercisePartners,
		"Keys":                  exerciseKeys,
		"KeyLastUsed":           exerciseKeyLastUsed, // auth.go
		"AuthVersion":           exerciseAuthVersion,
		"Items":                 exerciseItems,
		"Inventory":             exerciseInventory,
		"InventoryUnitOwners":   exerciseInventoryUnitOwners,
		"InventoryItemUnits":    exerciseInventoryItemUnits,
		"InventoryOfItemDays":   exerciseInventoryOfItemDays,
		"ItemWithUnitDays":      exerciseItemWithUnitDays,
		"BulkWrites":            exerciseBulkWrites,           // bulk.go
		"InventoryItemIndex":    exerciseInventoryItemIndex,   // bulk.go
		"InventoryRuns":         exerciseInventoryRuns,        // bulk.go
		"InventoryUnitOneItem":  exerciseInventoryUnitOneItem, // bulk.go
		"Bookings":              exerciseBookings,
		"Idempotency":           exerciseIdempotency,
		"Prebooks":              exercisePrebooks,
		"PrebookIfStored":       exercisePrebookIfStored,
		"TxRollback":            exerciseTxRollback,
		"TxPanic":               exerciseTxPanic,
		"AfterCommit":           exerciseAfterCommit,
		"Savepoints":            exerciseSavepoints,
		"SavepointNext":         exerciseSavepointNext,
		"Events":                exerciseEvents,
		"BookingWithEvents":     exerciseBookingWithEvents,
		"InventoryClaimBooking": exerciseInventoryClaimBooking, // claimbooking.go
		"SavepointHeld":         exerciseSavepointHeld,
		"ClaimAfterSavepoint":   exerciseClaimAfterSavepoint,
		"LockWaits":             exerciseLockWaits,
		// Lookups, sentinels and concurrency: coverage.go.
		"Lookups":                    exerciseLookups,
		"ConcurrentCreditDraw":       exerciseConcurrentCreditDraw,
		"ConcurrentInventoryClaim":   exerciseConcurrentInventoryClaim,
		"ConcurrentIdempotencyClaim": exerciseConcurrentIdempotencyClaim,
		"ConcurrentBookingKey":       exerciseConcurrentBookingKey,
		// Webhook subscriptions and deliveries: webhooks.go.
		"Subscriptions":     exerciseSubscriptions,
		"Deliveries":        exerciseDeliveries,
		"DeliveryClaims":    exerciseDeliveryClaims,
		"DeliveryClaimLast": exerciseDeliveryClaimLast,
		// Booking filters, event feed, subscription pause, sandbox timers: feed.go.
		"BookingFilters":    exerciseBookingFilters,
		"EventFeed":         exerciseEventFeed,
		"SubscriptionPause": exerciseSubscriptionPause,
		"SampleEvents":      exerciseSampleEvents,
		"SandboxTimers":     exerciseSandboxTimers,
		// Replay records of request signatures: replays.go.
		"SignatureReplays": exerciseSignatureReplays,
		// Job leases and retention deletes: maintenance.go.
		"JobLeases":          exerciseJobLeases,
		"EventPrune":         exerciseEventPrune,
		"SubscriptionPrune":  exerciseSubscriptionPrune,
		"PrebookPrune":       exercisePrebookPrune,
		"IdempotencyPrune":   exerciseIdempotencyPrune,
		"SigningSecretPrune": exerciseSigningSecretPrune,
		// The read model's change feed: changes.go.
		"Changes": exerciseChanges,
		// The portal: portal.go.
		"PartnerStatus":        exercisePartnerStatus,
		"PortalUsers":          exercisePortalUsers,
		"PortalSessions":       exercisePortalSessions,
		"PortalInvitations":    exercisePortalInvitations,
		"Throttle":             exerciseThrottle,
		"Audit":                exerciseAudit,
		"BookingDaily":         exerciseBookingDaily, // usage.go
		"PortalBookingFilters": exercisePortalBookingFilters,
		"PortalEvents":         exercisePortalEvents,
		// The credit ledger and TOTP steps: ledger.go.
		"CreditLedger":           exerciseCreditLedger,
		"ConcurrentCreditLedger": exerciseConcurrentCreditLedger,
		"CreditDrawAll":          exerciseCreditDrawAll,
		"TOTPStep":               exerciseTOTPStep,
		"RecoveryCodeUse":        exerciseRecoveryCodeUse,
		// Request logs and usage counters: reqlog.go.
		"UsageCounters": exerciseUsageCounters,
		"RequestLogs":   exerciseRequestLogs,
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, open(t))
		})
	}
}

var now = time.Date(2027, 1, 4, 9, 30, 0, 123456000, time.UTC)

func newPartner(t *testing.T, s store.Store, name string) *tradewind.Partner {
	t.Helper()
	p := &tradewind.Partner{Name: name, PricingMode: "net", Currency: "EUR", CreditLimit: 10000, RateLimit: 120,
		AllowIPs: []string{"10.0.0.0/8"}, CreatedAt: now}
	if err := s.PartnerCreate(context.Background(), p); err != nil {
		t.Fatalf("PartnerCreate: %v", err)
	}
	return p
}

func exercisePartners(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	if p.ID == 0 {
		t.Fatal("PartnerCreate did not set the id")
	}
	if err := s.PartnerCreate(ctx, &tradewind.Partner{Name: "acme", PricingMode: "net", Currency: "EUR", CreatedAt: now}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate name: %v, want ErrConflict", err)
	}
	got, err := s.PartnerGetByName(ctx, "acme")
	if err != nil || got.ID != p.ID || len(got.AllowIPs) != 1 || !got.CreatedAt.Equal(now.Truncate(time.Microsecond)) {
		t.Fatalf("PartnerGetByName = %+v, %v", got, err)
	}
	if _, err := s.PartnerGetByID(ctx, 9999); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing partner: %v", err)
	}
	got.Blocked, got.CreditLimit, got.SigningSecret = true, 500, "tws_x"
	got.PrevSecretUntil = now.Add(time.Hour)
	if err := s.PartnerUpdate(ctx, got); err != nil {
		t.Fatal(err)
	}
	again, _ := s.PartnerGetByID(ctx, p.ID)
	if !again.Blocked || again.CreditLimit != 500 || again.SigningSecret != "tws_x" || !again.PrevSecretUntil.Equal(now.Add(time.Hour).Truncate(time.Microsecond)) {
		t.Errorf("after update: %+v", again)
	}
	// Credit draws are refused while blocked, and never pass the limit.
	if ok, err := s.CreditDraw(ctx, p.ID, 100); err != nil || ok {
		t.Errorf("draw while blocked = %v, %v", ok, err)
	}
	again.Blocked = false
	_ = s.PartnerUpdate(ctx, again)
	for _, tc := range []struct {
		amount int64
		ok     bool
	}{{300, true}, {200, true}, {1, false}} {
		if ok, err := s.CreditDraw(ctx, p.ID, tc.amount); err != nil || ok != tc.ok {
			t.Errorf("draw %d = %v, %v; want %v", tc.amount, ok, err, tc.ok)
		}
	}
	if err := s.CreditRelease(ctx, p.ID, 300); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.PartnerGetByID(ctx, p.ID); got.CreditUsed != 200 {
		t.Errorf("credit used = %d, want 200", got.CreditUsed)
	}
	list, err := s.PartnerList(ctx)
	if err != nil || len(list) != 1 {
		t.Errorf("PartnerList = %v, %v", list, err)
	}
}

func exerciseKeys(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	k := &tradewind.APIKey{PartnerID: p.ID, Prefix: "tw_live_abcd", Hash: "h1", Mode: tradewind.ModeLive,
		Scopes: []tradewind.Scope{"catalog:read"}, Products: []tradewind.ProductType{"hotel", "package"}, CreatedAt: now}
	if err := s.KeyCreate(ctx, k); err != nil || k.ID == 0 {
		t.Fatalf("KeyCreate: %v", err)
	}
	if err := s.KeyCreate(ctx, &tradewind.APIKey{PartnerID: p.ID, Hash: "h1", Mode: "test", CreatedAt: now}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate hash: %v", err)
	}
	got, err := s.KeyGetByHash(ctx, "h1")
	if err != nil || got.ID != k.ID || len(got.Products) != 2 || got.Scopes[0] != "catalog:read" || !got.ExpiresAt.IsZero() {
		t.Fatalf("KeyGetByHash = %+v, %v", got, err)
	}
	if err := s.KeyRevoke(ctx, k.ID, now); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.KeyGetByID(ctx, k.ID); got.RevokedAt.IsZero() || got.Usable(now) {
		t.Errorf("revoked key: %+v", got)
	}
	if err := s.KeyRevoke(ctx, 9999, now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoke missing: %v", err)
	}
	if _, err := s.KeyGetByHash(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing hash: %v", err)
	}
}

func exerciseItems(t *testing.T, s store.Store) {
	ctx := context.Background()
	it := &store.Item{Kind: tradewind.ProductHotel, ID: 7, CityKey: "lisbon", Data: []byte(`{"a":1}`)}
	for i, want := range []bool{true, false} {
		if changed, err := s.ItemPut(ctx, it); err != nil || changed != want {
			t.Errorf("ItemPut #%d = %v, %v; want %v", i, changed, err, want)
		}
	}
	it.Data = []byte(`{"a":2}`)
	if changed, _ := s.ItemPut(ctx, it); !changed {
		t.Error("a changed item should report the change")
	}
	list, err := s.ItemListByCity(ctx, tradewind.ProductHotel, "lisbon")
	if err != nil || len(list) != 1 || string(list[0].Data) != `{"a":2}` {
		t.Errorf("ItemListByCity = %v, %v", list, err)
	}
	if _, err := s.ItemGet(ctx, tradewind.ProductActivity, 7); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("kind is part of the key: %v", err)
	}
}

func rows(kind tradewind.UnitKind, unit, item int64, capacity int, days ...string) []store.InventoryRow {
	var out []store.InventoryRow
	for _, d := range days {
		out = append(out, store.InventoryRow{Kind: kind, UnitID: unit, ItemID: item, Day: d, Capacity: capacity, Price: 1000})
	}
	return out
}

func exerciseInventory(t *testing.T, s store.Store) {
	ctx := context.Background()
	if err := s.InventoryPut(ctx, rows(tradewind.UnitRoom, 1, 7, 2, "2027-01-01", "2027-01-02", "2027-01-03")); err != nil {
		t.Fatal(err)
	}
	claim := store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 1, From: "2027-01-01", To: "2027-01-02", Quantity: 2}
	after, ok, err := s.InventoryClaim(ctx, claim)
	if err != nil || !ok {
		t.Fatalf("claim = %v, %v", ok, err)
	}
	// The claim's rows as they stand after it, by day.
	if len(after) != 2 || after[0].Day != "2027-01-01" || after[1].Day != "2027-01-02" || after[0].Sold != 2 ||
		after[1].Capacity != 2 || after[0].ItemID != 7 || after[0].Price != 1000 || after[0].UnitID != 1 || after[0].Kind != tradewind.UnitRoom {
		t.Errorf("claimed rows = %+v", after)
	}
	if after, ok, _ := s.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 1, From: "2027-01-02", To: "2027-01-03", Quantity: 1}); ok || after != nil {
		t.Error("a claim over a full day must fail")
	}
	// A claim conditional on an item's document takes only while the item is stored so.
	item := &store.Item{Kind: tradewind.ProductHotel, ID: 7, CityKey: "lisbon", Data: []byte(`{"id":7,"v":1}`)}
	if _, err := s.ItemPut(ctx, item); err != nil {
		t.Fatal(err)
	}
	other := *item
	other.Data = []byte(`{"id":7,"v":2}`)
	missing := *item
	missing.ID = 8
	for _, it := range []*store.Item{&other, &missing} {
		if after, ok, err := s.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 1, From: "2027-01-03", To: "2027-01-03", Quantity: 1, IfItem: it}); err != nil || ok || after != nil {
			t.Errorf("claim if item %d is %s = %v, %v, %v; want nothing taken", it.ID, it.Data, after, ok, err)
		}
	}
	if after, ok, err := s.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 1, From: "2027-01-03", To: "2027-01-03", Quantity: 1, IfItem: item}); err != nil || !ok || len(after) != 1 || after[0].Sold != 1 {
		t.Fatalf("claim if item is as stored = %v, %v, %v", after, ok, err)
	}
	if err := s.InventoryRelease(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 1, From: "2027-01-03", To: "2027-01-03", Quantity: 1}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 1, From: "2027-01-03", To: "2027-01-04", Quantity: 1}); ok {
		t.Error("a claim over a day without inventory must fail")
	}
	// Re-putting keeps what is sold and changes capacity and price.
	if err := s.InventoryPut(ctx, rows(tradewind.UnitRoom, 1, 7, 5, "2027-01-01")); err != nil {
		t.Fatal(err)
	}
	got, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: []int64{7}, From: "2027-01-01", To: "2027-01-31"})
	if err != nil || len(got) != 3 || got[0].Sold != 2 || got[0].Capacity != 5 || got[1].Sold != 2 {
		t.Fatalf("InventoryList = %+v, %v", got, err)
	}
	if err := s.InventoryRelease(ctx, claim); err != nil {
		t.Fatal(err)
	}
	got, _ = s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, UnitIDs: []int64{1}, From: "2027-01-01", To: "2027-01-03"})
	for _, r := range got {
		if r.Sold != 0 {
			t.Errorf("after release: %+v", r)
		}
	}
	// A large id list is chunked.
	many := make([]int64, 1200)
	for i := range many {
		many[i] = int64(i + 1)
	}
	if got, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, UnitIDs: many, From: "2027-01-01", To: "2027-01-03"}); err != nil || len(got) != 3 {
		t.Errorf("chunked list = %d rows, %v", len(got), err)
	}
}

// exerciseInventoryOfItemDays reads many items' day ranges at once (the read model's
// reload of a group's claims): each span's rows of its item's units of the kind asked,
// a span repeated or overlapping another read again, more spans than one statement holds.
func exerciseInventoryOfItemDays(t *testing.T, s store.Store) {
	ctx := context.Background()
	days := []string{"2027-01-01", "2027-01-02", "2027-01-03", "2027-01-04", "2027-01-05"}
	for _, r := range [][]store.InventoryRow{
		rows(tradewind.UnitRoom, 1, 7, 2, days...),
		rows(tradewind.UnitRoom, 2, 7, 3, days[:3]...),
		rows(tradewind.UnitRoom, 3, 8, 4, days...),
		rows(tradewind.UnitSpace, 4, 7, 5, days...), // another kind of the same item id
		rows(tradewind.UnitRoom, 5, 9, 6, days...),
	} {
		if err := s.InventoryPut(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	key := func(r store.InventoryRow) string {
		return fmt.Sprintf("%s/%d/%d/%s/%d", r.Kind, r.ItemID, r.UnitID, r.Day, r.Capacity)
	}
	spans := []store.ItemDays{
		{ItemID: 7, From: "2027-01-02", To: "2027-01-03"},
		{ItemID: 7, From: "2027-01-03", To: "2027-01-05"}, // overlaps the first
		{ItemID: 8, From: "2027-01-05", To: "2027-01-05"},
		{ItemID: 10, From: "2027-01-01", To: "2027-01-05"}, // no such item
	}
	for i := range 70 { // past one statement's spans
		spans = append(spans, store.ItemDays{ItemID: 9, From: days[i%5], To: days[i%5]})
	}
	var want []string
	for _, sp := range spans {
		r, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: []int64{sp.ItemID}, From: sp.From, To: sp.To})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range r {
			want = append(want, key(row))
		}
	}
	got, err := s.InventoryOfItemDays(ctx, tradewind.UnitRoom, spans)
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, r := range got {
		if r.Price != 1000 || r.Sold != 0 {
			t.Errorf("row %+v", r)
		}
		have = append(have, key(r))
	}
	slices.Sort(want)
	slices.Sort(have)
	if len(want) != 4+4+1+70 || !slices.Equal(have, want) {
		t.Errorf("InventoryOfItemDays = %d rows %v,\nwant %d rows %v", len(have), have, len(want), want)
	}
	if got, err := s.InventoryOfItemDays(ctx, tradewind.UnitRoom, nil); err != nil || len(got) != 0 {
		t.Errorf("no spans = %v, %v", got, err)
	}
	// Spans of one unit (a claim's): that unit's rows only, of the kind asked and its
	// item; alone, and beside a span of a whole item.
	unitSpans := []store.ItemDays{
		{ItemID: 7, UnitID: 2, From: "2027-01-02", To: "2027-01-05"}, // unit 2 has days to the 3rd
		{ItemID: 7, UnitID: 4, From: "2027-01-01", To: "2027-01-05"}, // a space, not a room
		{ItemID: 8, UnitID: 1, From: "2027-01-01", To: "2027-01-05"}, // item 7's room
		{ItemID: 9, UnitID: 5, From: "2027-01-01", To: "2027-01-01"},
	}
	for _, tc := range []struct {
		spans []store.ItemDays
		want  []string
	}{
		{unitSpans, []string{"room/7/2/2027-01-02/3", "room/7/2/2027-01-03/3", "room/9/5/2027-01-01/6"}},
		{append(slices.Clone(unitSpans), store.ItemDays{ItemID: 7, From: "2027-01-05", To: "2027-01-05"}),
			[]string{"room/7/1/2027-01-05/2", "room/7/2/2027-01-02/3", "room/7/2/2027-01-03/3", "room/9/5/2027-01-01/6"}},
	} {
		got, err := s.InventoryOfItemDays(ctx, tradewind.UnitRoom, tc.spans)
		if err != nil {
			t.Fatal(err)
		}
		var have []string
		for _, r := range got {
			have = append(have, key(r))
		}
		slices.Sort(have)
		if !slices.Equal(have, tc.want) {
			t.Errorf("InventoryOfItemDays(%+v) = %v, want %v", tc.spans, have, tc.want)
		}
	}
}

// exerciseInventoryItemUnits lists inventory by items and units at once: the rows of
// those units that are those items' (a quote's one room of one hotel), by unit and day.
func exerciseInventoryItemUnits(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, r := range [][]store.InventoryRow{
		rows(tradewind.UnitRoom, 1, 7, 2, "2027-01-03", "2027-01-01", "2027-01-02"),
		rows(tradewind.UnitRoom, 2, 7, 3, "2027-01-02", "2027-01-01"),
		rows(tradewind.UnitRoom, 3, 8, 4, "2027-01-01"),
		rows(tradewind.UnitSpace, 2, 7, 5, "2027-01-01"),
	} {
		if err := s.InventoryPut(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []struct {
		items, units []int64
		want         []string // unit/day of each row, in order
	}{
		{[]int64{7}, []int64{2}, []string{"2/2027-01-01", "2/2027-01-02"}},
		{[]int64{7}, []int64{1}, []string{"1/2027-01-01", "1/2027-01-02"}}, // not the 3rd
		{[]int64{8}, []int64{2}, nil},                                      // unit 2 is item 7's
		{[]int64{7}, []int64{3}, nil},
		{[]int64{7, 8}, []int64{3, 1}, []string{"1/2027-01-01", "1/2027-01-02", "3/2027-01-01"}},
		{[]int64{8, 9}, []int64{1, 2}, nil},
	} {
		got, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: q.items, UnitIDs: q.units,
			From: "2027-01-01", To: "2027-01-02"})
		if err != nil {
			t.Fatalf("items %v units %v: %v", q.items, q.units, err)
		}
		var days []string
		for _, r := range got {
			if r.Kind != tradewind.UnitRoom || r.Price != 1000 || r.Capacity < 2 || !slices.Contains(q.items, r.ItemID) {
				t.Errorf("items %v units %v: row %+v", q.items, q.units, r)
			}
			days = append(days, fmt.Sprintf("%d/%s", r.UnitID, r.Day))
		}
		if !slices.Equal(days, q.want) {
			t.Errorf("items %v units %v: rows %v, want %v", q.items, q.units, days, q.want)
		}
	}
}

func exerciseInventoryUnitOwners(t *testing.T, s store.Store) {
	ctx := context.Background()
	put := func(r []store.InventoryRow) {
		t.Helper()
		if err := s.InventoryPut(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	put(rows(tradewind.UnitRoom, 11, 7, 2, "2027-01-01", "2027-01-02"))
	put(rows(tradewind.UnitRoom, 12, 7, 2, "2027-01-01"))
	put(rows(tradewind.UnitRoom, 1100, 8, 1, "2027-01-01")) // in the third chunk of the list below
	put(rows(tradewind.UnitSpace, 11, 9, 1, "2027-01-01"))  // same unit id, other kind
	put(rows(tradewind.UnitRoom, 13, 8, 1, "2027-01-01"))
	// Unit 13 cannot also be item 7's (migration 00029's inventory_units; before it, an
	// import predating the owner check could leave a unit split between two items).
	if err := s.InventoryPut(ctx, rows(tradewind.UnitRoom, 13, 7, 1, "2027-01-02")); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("room 13 of item 7 after item 8's: %v, want ErrConflict", err)
	}
	put(rows(tradewind.UnitDeparture, 11, 5, 9, "2027-03-01")) // departures are keyed the same way

	if got, err := s.InventoryUnitOwners(ctx, tradewind.UnitRoom, nil); err != nil || len(got) != 0 {
		t.Errorf("no ids = %v, %v", got, err)
	}
	ids := make([]int64, 1200)
	for i := range ids {
		ids[i] = int64(i + 1) // 1..1200: three chunks
	}
	ids = append(ids, 11, 12) // repeated ids, in another chunk
	got, err := s.InventoryUnitOwners(ctx, tradewind.UnitRoom, ids)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64][]int64{11: {7}, 12: {7}, 13: {8}, 1100: {8}}
	if len(got) != len(want) {
		t.Errorf("InventoryUnitOwners(room) = %v, want %v", got, want)
	}
	for unit, items := range want {
		if !slices.Equal(got[unit], items) {
			t.Errorf("owners of room %d = %v, want %v", unit, got[unit], items)
		}
	}
	for _, tc := range []struct {
		kind tradewind.UnitKind
		want int64
	}{{tradewind.UnitSpace, 9}, {tradewind.UnitDeparture, 5}} {
		got, err := s.InventoryUnitOwners(ctx, tc.kind, []int64{11, 12, 404})
		if err != nil || len(got) != 1 || !slices.Equal(got[11], []int64{tc.want}) {
			t.Errorf("InventoryUnitOwners(%s) = %v, %v; want 11 → [%d]", tc.kind, got, err, tc.want)
		}
	}
	// Inside a transaction too.
	err = s.InTx(ctx, func(q store.Querier) error {
		got, err := q.InventoryUnitOwners(ctx, tradewind.UnitRoom, []int64{12})
		if err == nil && !slices.Equal(got[12], []int64{7}) {
			t.Errorf("in a transaction: %v", got)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func newBooking(p *tradewind.Partner, ref, partnerRef, key string) *tradewind.Booking {
	return &tradewind.Booking{Reference: ref, PartnerID: p.ID, ProductType: "hotel", Status: tradewind.StatusConfirmed,
		PricingMode: "net", TotalPrice: 100, Currency: "EUR", PartnerReference: partnerRef, IdempotencyKey: key,
		ItemID: 7, StartDate: "2027-01-01", EndDate: "2027-01-03", Quote: []byte(`{}`), Guest: []byte(`{}`), Details: []byte(`{}`),
		CreatedAt: now, UpdatedAt: now}
}

func exerciseBookings(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	q := newPartner(t, s, "globex")
	b := newBooking(p, "HTL-AAAAAAAA", "PO-1", "k1")
	b.RequestHash = "fingerprint-1"
	if err := s.BookingCreate(ctx, b); err != nil || b.ID == 0 {
		t.Fatalf("BookingCreate: %v", err)
	}
	if err := s.BookingCreate(ctx, newBooking(p, "HTL-BBBBBBBB", "PO-1", "k2")); !errors.Is(err, store.ErrPartnerReferenceTaken) ||
		errors.Is(err, store.ErrIdempotencyKeyTaken) {
		t.Errorf("duplicate partner reference: %v", err)
	}
	if err := s.BookingCreate(ctx, newBooking(p, "HTL-AAAAAAAA", "", "k9")); !errors.Is(err, store.ErrConflict) ||
		errors.Is(err, store.ErrPartnerReferenceTaken) || errors.Is(err, store.ErrIdempotencyKeyTaken) {
		t.Errorf("duplicate reference: %v, want a plain conflict", err)
	}
	if err := s.BookingCreate(ctx, newBooking(q, "HTL-CCCCCCCC", "PO-1", "k1")); err != nil {
		t.Errorf("another partner may reuse references and keys: %v", err)
	}
	if err := s.BookingCreate(ctx, newBooking(p, "HTL-DDDDDDDD", "", "")); err != nil {
		t.Errorf("bookings without partner reference: %v", err)
	}
	if err := s.BookingCreate(ctx, newBooking(p, "HTL-EEEEEEEE", "", "")); err != nil {
		t.Errorf("several bookings without partner reference: %v", err)
	}
	if _, err := s.BookingGetByReference(ctx, q.ID, "HTL-AAAAAAAA"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another partner's booking: %v", err)
	}
	got, err := s.BookingGetByIdempotencyKey(ctx, p.ID, tradewind.ModeLive, "k1")
	if err != nil || got.Reference != "HTL-AAAAAAAA" || got.PartnerReference != "PO-1" || got.RequestHash != "fingerprint-1" {
		t.Fatalf("by key = %+v, %v", got, err)
	}
	if ok, err := s.BookingSetStatus(ctx, store.BookingSetStatusParams{ID: b.ID, From: []tradewind.BookingStatus{"pending"}, Status: tradewind.StatusCancelled, Reason: "x", At: now}); err != nil || ok {
		t.Errorf("status change from the wrong state = %v, %v", ok, err)
	}
	if ok, _ := s.BookingSetStatus(ctx, store.BookingSetStatusParams{ID: b.ID, From: []tradewind.BookingStatus{"confirmed"}, Status: tradewind.StatusCancelled, Reason: "why", At: now}); !ok {
		t.Error("status change failed")
	}
	got, _ = s.BookingGetByReference(ctx, 0, "HTL-AAAAAAAA")
	if got.Status != tradewind.StatusCancelled || got.CancelReason != "why" || got.CancelledAt.IsZero() {
		t.Errorf("after cancel: %+v", got)
	}
	list, total, err := s.BookingList(ctx, store.BookingFilter{PartnerID: p.ID, Limit: 2})
	if err != nil || total != 3 || len(list) != 2 || list[0].Reference != "HTL-EEEEEEEE" {
		t.Errorf("BookingList = %d of %d, %v", len(list), total, err)
	}
	if _, total, _ := s.BookingList(ctx, store.BookingFilter{Statuses: []store.StatusTerm{{Status: tradewind.StatusCancelled}}}); total != 1 {
		t.Errorf("by status: %d", total)
	}
	if _, total, _ := s.BookingList(ctx, store.BookingFilter{Statuses: []store.StatusTerm{{EndBefore: "2027-01-04"}}}); total != 4 {
		t.Errorf("ended before: %d", total)
	}
	// Terms are alternatives: cancelled, or any that ended before the day.
	either := []store.StatusTerm{{Status: tradewind.StatusCancelled}, {EndBefore: "2027-01-04"}}
	if _, total, _ := s.BookingList(ctx, store.BookingFilter{Statuses: either}); total != 4 {
		t.Errorf("cancelled or ended before: %d", total)
	}
	// A key is scoped to the mode: the live booking's key names no test booking, and a
	// test booking may use it too.
	if _, err := s.BookingGetByIdempotencyKey(ctx, p.ID, tradewind.ModeTest, "k1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("live key looked up in test mode: %v", err)
	}
	tb := newBooking(p, "HTL-TTTTTTTT", "", "k1")
	tb.Test = true
	if err := s.BookingCreate(ctx, tb); err != nil {
		t.Fatalf("a test booking with a live booking's key: %v", err)
	}
	if got, err := s.BookingGetByIdempotencyKey(ctx, p.ID, tradewind.ModeTest, "k1"); err != nil || got.Reference != "HTL-TTTTTTTT" {
		t.Errorf("test booking by key = %+v, %v", got, err)
	}
	if err := s.BookingCreate(ctx, newBooking(p, "HTL-FFFFFFFF", "", "k1")); !errors.Is(err, store.ErrIdempotencyKeyTaken) {
		t.Errorf("second live booking with one key: %v", err)
	}
	// With a partner reference too, the key's conflict is told (PostgreSQL checks the
	// unique indexes in their order; either answer is right, but it must be named).
	if err := s.BookingCreate(ctx, newBooking(p, "HTL-GGGGGGGG", "PO-1", "k1")); !errors.Is(err, store.ErrIdempotencyKeyTaken) &&
		!errors.Is(err, store.ErrPartnerReferenceTaken) {
		t.Errorf("second live booking with one key and one partner reference: %v", err)
	}
}

func exerciseIdempotency(t *testing.T, s store.Store) {
	ctx := context.Background()
	rec := store.IdempotencyRecord{PartnerID: 1, Mode: tradewind.ModeLive, Key: "k", RequestHash: "h1", CreatedAt: now}
	if err := s.IdempotencyClaim(ctx, rec); err != nil {
		t.Fatal(err)
	}
	again := rec
	again.RequestHash = "h2"
	if err := s.IdempotencyClaim(ctx, again); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second claim: %v", err)
	}
	other := rec
	other.PartnerID = 2
	if err := s.IdempotencyClaim(ctx, other); err != nil {
		t.Errorf("keys are per partner: %v", err)
	}
	test := rec
	test.Mode, test.RequestHash = tradewind.ModeTest, "h3"
	if err := s.IdempotencyClaim(ctx, test); err != nil {
		t.Errorf("keys are per mode: %v", err)
	}
	got, err := s.IdempotencyGet(ctx, 1, tradewind.ModeLive, "k")
	if err != nil || got.RequestHash != "h1" || got.Mode != tradewind.ModeLive || !got.CreatedAt.Equal(now.Truncate(time.Microsecond)) {
		t.Errorf("IdempotencyGet live = %+v, %v", got, err)
	}
	if got, err := s.IdempotencyGet(ctx, 1, tradewind.ModeTest, "k"); err != nil || got.RequestHash != "h3" {
		t.Errorf("IdempotencyGet test = %+v, %v", got, err)
	}
	if _, err := s.IdempotencyGet(ctx, 3, tradewind.ModeLive, "k"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another partner's key: %v", err)
	}
}

func exercisePrebooks(t *testing.T, s store.Store) {
	ctx := context.Background()
	pb := &tradewind.Prebook{Token: "pbk_1", PartnerID: 1, Mode: "live", Quote: []byte(`{"q":1}`), TotalPrice: 100,
		Currency: "EUR", ExpiresAt: now.Add(15 * time.Minute), CreatedAt: now}
	if err := s.PrebookCreate(ctx, pb); err != nil {
		t.Fatal(err)
	}
	got, err := s.PrebookGet(ctx, "pbk_1")
	if err != nil || got.BookingID != 0 || !got.ExpiresAt.Equal(pb.ExpiresAt.Truncate(time.Microsecond)) || string(got.Quote) != `{"q":1}` {
		t.Fatalf("PrebookGet = %+v, %v", got, err)
	}
	if ok, _ := s.PrebookConsume(ctx, "pbk_1", 5); !ok {
		t.Error("first consume failed")
	}
	if ok, _ := s.PrebookConsume(ctx, "pbk_1", 6); ok {
		t.Error("a token is single-use")
	}
}

// exercisePrebookIfStored: a prebook priced outside the store is inserted only while
// the item's document and the unit's days (free units and price) are stored as priced.
func exercisePrebookIfStored(t *testing.T, s store.Store) {
	ctx := context.Background()
	item := &store.Item{Kind: tradewind.ProductHotel, ID: 7, CityKey: "lisbon", Data: []byte(`{"id":7,"name":"it's"}`)}
	if _, err := s.ItemPut(ctx, item); err != nil {
		t.Fatal(err)
	}
	stay := rows(tradewind.UnitRoom, 1, 7, 3, "2027-01-01", "2027-01-02", "2027-01-03")
	stay[1].Price = 1250
	if err := s.InventoryPut(ctx, append(stay, rows(tradewind.UnitRoom, 2, 7, 3, "2027-01-01", "2027-01-02")...)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 1, From: "2027-01-02", To: "2027-01-02", Quantity: 1}); err != nil || !ok {
		t.Fatalf("claim = %v, %v", ok, err)
	}
	priced := func() store.PricedFrom {
		return store.PricedFrom{Item: *item, Kind: tradewind.UnitRoom, UnitID: 1, From: "2027-01-01", To: "2027-01-02",
			Days: []store.PricedDay{{Day: "2027-01-01", Free: 3, Price: 1000}, {Day: "2027-01-02", Free: 2, Price: 1250}}}
	}
	n := 0
	create := func(from store.PricedFrom) (bool, error) {
		n++
		pb := &tradewind.Prebook{Token: fmt.Sprintf("pbk_%d", n), PartnerID: 1, Mode: tradewind.ModeLive, Quote: []byte(`{"q":1}`),
			TotalPrice: 2250, Currency: "EUR", ExpiresAt: now.Add(15 * time.Minute), CreatedAt: now}
		ok, err := s.PrebookCreateIfStored(ctx, pb, from)
		got, gerr := s.PrebookGet(ctx, pb.Token)
		if ok != (gerr == nil) {
			t.Errorf("PrebookCreateIfStored said %v, and the prebook's read gave %v", ok, gerr)
		}
		if ok && (got.TotalPrice != 2250 || got.Mode != tradewind.ModeLive || !got.ExpiresAt.Equal(pb.ExpiresAt.Truncate(time.Microsecond))) {
			t.Errorf("stored prebook = %+v", got)
		}
		return ok, err
	}
	if ok, err := create(priced()); err != nil || !ok {
		t.Fatalf("priced as stored = %v, %v; want inserted", ok, err)
	}
	// Day 3 alone, as stored: inserted (the case "a day not stored" differs by day 4 only).
	day3 := priced()
	day3.From, day3.To, day3.Days = "2027-01-03", "2027-01-03", []store.PricedDay{{Day: "2027-01-03", Free: 3, Price: 1000}}
	if ok, err := create(day3); err != nil || !ok {
		t.Fatalf("day 3 priced as stored = %v, %v; want inserted", ok, err)
	}
	changed := map[string]func(*store.PricedFrom){
		"another document": func(f *store.PricedFrom) { f.Item.Data = []byte(`{"id":7,"name":"its"}`) },
		"another item":     func(f *store.PricedFrom) { f.Item.ID = 8 },
		"a sale since":     func(f *store.PricedFrom) { f.Days[1].Free = 3 },
		"another price":    func(f *store.PricedFrom) { f.Days[0].Price = 999 },
		"a day missing":    func(f *store.PricedFrom) { f.Days = f.Days[:1] },
		"a day not stored": func(f *store.PricedFrom) { // day 3 stored as priced, day 4 not at all
			f.From, f.To = "2027-01-03", "2027-01-04"
			f.Days = []store.PricedDay{{Day: "2027-01-03", Free: 3, Price: 1000}, {Day: "2027-01-04", Free: 3, Price: 1000}}
		},
		"no day stored in the range": func(f *store.PricedFrom) { // the aggregate of no rows
			f.From, f.To = "2027-02-01", "2027-02-01"
			f.Days = []store.PricedDay{{Day: "2027-02-01", Free: 3, Price: 1000}}
		},
		"another unit's days": func(f *store.PricedFrom) { f.UnitID = 2 },
		"no days":             func(f *store.PricedFrom) { f.Days = nil },
	}
	for name, change := range changed {
		from := priced()
		change(&from)
		if ok, err := create(from); err != nil || ok {
			t.Errorf("%s: PrebookCreateIfStored = %v, %v; want nothing inserted", name, ok, err)
		}
	}
}

// exerciseAfterCommit: InTx runs the function of store.WithAfterCommit once, after a
// successful COMMIT (what the transaction wrote is then readable outside it), and not
// when the transaction fails.
func exerciseAfterCommit(t *testing.T, s store.Store) {
	p := newPartner(t, s, "acme")
	calls := 0
	var used int64 = -1
	ctx := store.WithAfterCommit(context.Background(), func() {
		calls++
		if got, err := s.PartnerGetByID(context.Background(), p.ID); err == nil {
			used = got.CreditUsed
		}
	})
	err := s.InTx(ctx, func(q store.Querier) error {
		if ok, err := q.CreditDraw(ctx, p.ID, 100); err != nil || !ok {
			t.Fatalf("draw: %v %v", ok, err)
		}
		if calls != 0 {
			t.Error("the after-commit function ran before the COMMIT")
		}
		return nil
	})
	if err != nil || calls != 1 || used != 100 {
		t.Errorf("committed: InTx %v, after-commit ran %d times and read credit used %d; want once, 100", err, calls, used)
	}
	boom := errors.New("boom")
	if err := s.InTx(ctx, func(q store.Querier) error { return boom }); !errors.Is(err, boom) || calls != 1 {
		t.Errorf("failed: InTx %v, after-commit ran %d times in all; want once (not for the failure)", err, calls)
	}
}

func exerciseTxRollback(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	boom := errors.New("boom")
	err := s.InTx(ctx, func(q store.Querier) error {
		if ok, err := q.CreditDraw(ctx, p.ID, 100); err != nil || !ok {
			t.Fatalf("draw: %v %v", ok, err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx = %v", err)
	}
	if got, _ := s.PartnerGetByID(ctx, p.ID); got.CreditUsed != 0 {
		t.Errorf("rolled-back draw persisted: %d", got.CreditUsed)
	}
}

// exerciseTxPanic: a transaction function that panics leaves nothing written, the panic
// reaches InTx's caller, and the store writes on: the transaction is rolled back as it
// unwinds. (It was not: on SQLite the one writer connection stayed held by a
// transaction nobody ended, and every later write, and the panicking goroutine's own
// unwinding, waited for it for ever.)
func exerciseTxPanic(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		_ = s.InTx(ctx, func(q store.Querier) error {
			if ok, err := q.CreditDraw(ctx, p.ID, 100); err != nil || !ok {
				t.Errorf("draw: %v %v", ok, err)
			}
			panic("boom")
		})
	}()
	select {
	case v := <-done:
		if v != "boom" {
			t.Fatalf("InTx's caller recovered %v, want the panic", v)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the panicking transaction never unwound")
	}
	wrote := make(chan error, 1)
	go func() {
		wrote <- s.InTx(ctx, func(q store.Querier) error {
			_, err := q.CreditDraw(ctx, p.ID, 7)
			return err
		})
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatalf("a transaction after the panic: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a transaction after the panic never ran: the store's connection is still held")
	}
	if got, _ := s.PartnerGetByID(ctx, p.ID); got.CreditUsed != 7 {
		t.Errorf("credit used %d, want 7: the panicking transaction's draw was kept", got.CreditUsed)
	}
}

// exerciseSavepointNext: SavepointNext keeps the part before it, starts one that rolls
// back alone (also after a failed statement), and COMMIT keeps the last part unreleased.
func exerciseSavepointNext(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	key := func(k string) store.IdempotencyRecord { return liveKey(p, k) }
	err := s.InTx(ctx, func(q store.Querier) error {
		sp := q.(store.Savepoints)
		if err := sp.Savepoint(ctx, "part"); err != nil {
			t.Fatal(err)
		}
		if ok, err := q.CreditDraw(ctx, p.ID, 5); err != nil || !ok {
			t.Fatalf("draw: %v %v", ok, err)
		}
		if err := q.IdempotencyClaim(ctx, key("a")); err != nil {
			t.Fatal(err)
		}
		// Undone alone: a draw, a claim and a failed statement after SavepointNext.
		if err := sp.SavepointNext(ctx, "part"); err != nil {
			t.Fatal(err)
		}
		if ok, err := q.CreditDraw(ctx, p.ID, 7); err != nil || !ok {
			t.Fatalf("draw: %v %v", ok, err)
		}
		if err := q.IdempotencyClaim(ctx, key("b")); err != nil {
			t.Fatal(err)
		}
		if err := q.IdempotencyClaim(ctx, key("a")); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("claim of a used key = %v, want ErrConflict", err)
		}
		if err := sp.RollbackToSavepoint(ctx, "part"); err != nil {
			t.Fatal(err)
		}
		// Kept without a release: the last part, committed with the transaction.
		if err := sp.SavepointNext(ctx, "part"); err != nil {
			t.Fatal(err)
		}
		if ok, err := q.CreditDraw(ctx, p.ID, 11); err != nil || !ok {
			t.Fatalf("draw: %v %v", ok, err)
		}
		return q.IdempotencyClaim(ctx, key("c"))
	})
	if err != nil {
		t.Fatalf("InTx = %v", err)
	}
	if got, _ := s.PartnerGetByID(ctx, p.ID); got.CreditUsed != 16 {
		t.Errorf("credit used %d, want 16 (5 and 11; the 7 rolled back to its savepoint)", got.CreditUsed)
	}
	keysPresent(t, s, p, map[string]bool{"a": true, "b": false, "c": true})
}

// exerciseSavepoints: a part of a transaction rolled back to its savepoint leaves no
// trace, also after a failed statement (PostgreSQL aborts the transaction until then);
// the parts before and after it commit.
func exerciseSavepoints(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	key := func(k string) store.IdempotencyRecord { return liveKey(p, k) }
	err := s.InTx(ctx, func(q store.Querier) error {
		sp, ok := q.(store.Savepoints)
		if !ok {
			t.Fatal("a transaction's Querier does not implement store.Savepoints")
		}
		if ok, err := q.CreditDraw(ctx, p.ID, 100); err != nil || !ok {
			t.Fatalf("draw: %v %v", ok, err)
		}
		if err := q.IdempotencyClaim(ctx, key("a")); err != nil {
			t.Fatal(err)
		}
		// Undone: a draw and a claim, then a failed statement.
		if err := sp.Savepoint(ctx, "part"); err != nil {
			t.Fatal(err)
		}
		if ok, err := q.CreditDraw(ctx, p.ID, 20); err != nil || !ok {
			t.Fatalf("draw: %v %v", ok, err)
		}
		if err := q.IdempotencyClaim(ctx, key("b")); err != nil {
			t.Fatal(err)
		}
		if err := q.IdempotencyClaim(ctx, key("a")); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("claim of a used key = %v, want ErrConflict", err)
		}
		if err := sp.RollbackToSavepoint(ctx, "part"); err != nil {
			t.Fatal(err)
		}
		if err := sp.ReleaseSavepoint(ctx, "part"); err != nil {
			t.Fatal(err)
		}
		// Kept: a part released without a rollback, and what follows it.
		if err := sp.Savepoint(ctx, "part"); err != nil {
			t.Fatal(err)
		}
		if ok, err := q.CreditDraw(ctx, p.ID, 3); err != nil || !ok {
			t.Fatalf("draw: %v %v", ok, err)
		}
		if err := sp.ReleaseSavepoint(ctx, "part"); err != nil {
			t.Fatal(err)
		}
		return q.IdempotencyClaim(ctx, key("c"))
	})
	if err != nil {
		t.Fatalf("InTx = %v", err)
	}
	if got, _ := s.PartnerGetByID(ctx, p.ID); got.CreditUsed != 103 {
		t.Errorf("credit used %d, want 103 (100 and 3; the 20 rolled back to its savepoint)", got.CreditUsed)
	}
	keysPresent(t, s, p, map[string]bool{"a": true, "b": false, "c": true})
	if sp, ok := s.(store.Savepoints); ok {
		if err := sp.Savepoint(ctx, "x"); err == nil {
			t.Error("a savepoint outside a transaction was accepted")
		}
	}
	if err := s.InTx(ctx, func(q store.Querier) error {
		return q.(store.Savepoints).Savepoint(ctx, "x; DROP TABLE partners")
	}); err == nil {
		t.Error("a savepoint name that is not an identifier was accepted")
	}
}

func exerciseEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	e := &tradewind.Event{ID: "evt_1", PartnerID: p.ID, Type: tradewind.EventBookingConfirmed, Data: []byte(`{}`), CreatedAt: now}
	if err := s.EventCreate(ctx, e); err != nil {
		t.Fatalf("EventCreate: %v", err)
	}
	if err := s.EventCreate(ctx, e); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate event id: %v", err)
	}
}

// exerciseBookingWithEvents: BookingCreate writes the booking and the events given
// with it, each with one pending delivery per matching subscription, or none of them
// (a partner reference taken, in the transaction that rolls back).
func exerciseBookingWithEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	sub := newSubscription(t, s, p.ID, "https://a.example/1", tradewind.EventBookingConfirmed)
	event := func(id, ref string) *tradewind.Event {
		return &tradewind.Event{ID: id, PartnerID: p.ID, Type: tradewind.EventBookingConfirmed,
			Data: []byte(`{"reference":"` + ref + `","product_type":"hotel"}`), CreatedAt: now}
	}
	b := newBooking(p, "HTL-AAAAAAAA", "PO-1", "k1")
	if err := s.InTx(ctx, func(q store.Querier) error {
		return q.BookingCreate(ctx, b, event("evt_b1", b.Reference))
	}); err != nil || b.ID == 0 {
		t.Fatalf("BookingCreate with an event: %v (id %d)", err, b.ID)
	}
	if got, err := s.BookingGetByReference(ctx, p.ID, b.Reference); err != nil || got.ID != b.ID {
		t.Fatalf("booking = %+v, %v", got, err)
	}
	evs, err := s.EventListByBooking(ctx, p.ID, b.Reference)
	if err != nil || len(evs) != 1 || evs[0].ID != "evt_b1" {
		t.Fatalf("events of the booking = %+v, %v", evs, err)
	}
	if list, err := s.DeliveryList(ctx, store.DeliveryFilter{EventID: "evt_b1"}); err != nil || len(list) != 1 ||
		list[0].SubscriptionID != sub.ID || list[0].Status != store.DeliveryPending {
		t.Fatalf("deliveries = %+v, %v", list, err)
	}
	// A taken partner reference: ErrConflict, and neither booking nor event stays.
	dup := newBooking(p, "HTL-BBBBBBBB", "PO-1", "k2")
	err = s.InTx(ctx, func(q store.Querier) error {
		return q.BookingCreate(ctx, dup, event("evt_b2", dup.Reference))
	})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("duplicate partner reference with an event: %v", err)
	}
	if evs, err := s.EventListByBooking(ctx, p.ID, dup.Reference); err != nil || len(evs) != 0 {
		t.Errorf("the refused booking's event stayed: %+v, %v", evs, err)
	}
	// Without events, as before; two events at once.
	if err := s.BookingCreate(ctx, newBooking(p, "HTL-CCCCCCCC", "", "k3")); err != nil {
		t.Errorf("BookingCreate without events: %v", err)
	}
	two := newBooking(p, "HTL-DDDDDDDD", "", "k4")
	if err := s.InTx(ctx, func(q store.Querier) error {
		return q.BookingCreate(ctx, two, event("evt_b3", two.Reference), event("evt_b4", two.Reference))
	}); err != nil {
		t.Fatalf("BookingCreate with two events: %v", err)
	}
	if evs, err := s.EventListByBooking(ctx, p.ID, two.Reference); err != nil || len(evs) != 2 {
		t.Errorf("events of the booking with two = %+v, %v", evs, err)
	}
}

// exerciseSavepointHeld: a savepoint taken just before a statement that fails is in
// place when it fails (PostgreSQL sends the savepoint with that statement), so the
// rollback to it keeps what came before; a savepoint that nothing followed commits.
func exerciseSavepointHeld(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	key := func(k string) store.IdempotencyRecord { return liveKey(p, k) }
	err := s.InTx(ctx, func(q store.Querier) error {
		sp := q.(store.Savepoints)
		if err := q.IdempotencyClaim(ctx, key("a")); err != nil {
			t.Fatal(err)
		}
		if err := sp.Savepoint(ctx, "part"); err != nil {
			t.Fatal(err)
		}
		if err := q.IdempotencyClaim(ctx, key("a")); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("claim of a used key = %v, want ErrConflict", err)
		}
		if err := sp.RollbackToSavepoint(ctx, "part"); err != nil {
			t.Fatalf("rollback to the savepoint sent with the failed statement: %v", err)
		}
		if err := q.IdempotencyClaim(ctx, key("b")); err != nil {
			t.Fatal(err)
		}
		// A query after a held savepoint, then a part rolled back alone.
		if err := sp.SavepointNext(ctx, "part"); err != nil {
			t.Fatal(err)
		}
		if _, err := q.IdempotencyGet(ctx, p.ID, "live", "b"); err != nil {
			t.Fatalf("read after a held savepoint: %v", err)
		}
		if err := q.IdempotencyClaim(ctx, key("c")); err != nil {
			t.Fatal(err)
		}
		if err := sp.RollbackToSavepoint(ctx, "part"); err != nil {
			t.Fatal(err)
		}
		// Nothing follows the last one.
		return sp.SavepointNext(ctx, "part")
	})
	if err != nil {
		t.Fatalf("InTx = %v", err)
	}
	keysPresent(t, s, p, map[string]bool{"a": true, "b": true, "c": false})
}

// exerciseClaimAfterSavepoint: an inventory claim right after a savepoint statement
// (which PostgreSQL's transactions send in one round trip with it) runs after it: a
// rollback to the savepoint gives the claim back, a part kept keeps it, and a claim
// that finds a day full takes nothing. A savepoint statement that fails fails the
// claim it travels with, which then took nothing.
func exerciseClaimAfterSavepoint(t *testing.T, s store.Store) {
	ctx := context.Background()
	if err := s.InventoryPut(ctx, rows(tradewind.UnitRoom, 1, 7, 2, "2027-01-01", "2027-01-02")); err != nil {
		t.Fatal(err)
	}
	night := func(day string, n int) store.Claim {
		return store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 1, From: day, To: day, Quantity: n}
	}
	err := s.InTx(ctx, func(q store.Querier) error {
		sp := q.(store.Savepoints)
		if err := sp.Savepoint(ctx, "booking"); err != nil {
			return err
		}
		if after, ok, err := q.InventoryClaim(ctx, night("2027-01-01", 2)); err != nil || !ok || len(after) != 1 || after[0].Sold != 2 {
			t.Fatalf("claim after a savepoint = %+v, %v, %v", after, ok, err)
		}
		if err := sp.RollbackToSavepoint(ctx, "booking"); err != nil {
			return err
		}
		if err := sp.SavepointNext(ctx, "booking"); err != nil {
			return err
		}
		if after, ok, err := q.InventoryClaim(ctx, night("2027-01-01", 1)); err != nil || !ok || len(after) != 1 || after[0].Sold != 1 {
			t.Fatalf("claim after the first was rolled back = %+v, %v, %v", after, ok, err)
		}
		if err := sp.SavepointNext(ctx, "booking"); err != nil {
			return err
		}
		if after, ok, err := q.InventoryClaim(ctx, night("2027-01-01", 2)); err != nil || ok || after != nil {
			t.Fatalf("claim over a full day = %+v, %v, %v; want nothing taken", after, ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("InTx = %v", err)
	}
	// A savepoint released that was never taken: the claim after it fails with it.
	err = s.InTx(ctx, func(q store.Querier) error {
		if err := q.(store.Savepoints).ReleaseSavepoint(ctx, "never_taken"); err != nil {
			return err
		}
		_, _, err := q.InventoryClaim(ctx, night("2027-01-02", 1))
		if err == nil {
			t.Error("a claim after a failed savepoint statement succeeded")
		}
		return err
	})
	if err == nil {
		t.Error("a transaction whose savepoint statement failed committed")
	}
	got, err := s.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: []int64{7}, From: "2027-01-01", To: "2027-01-02"})
	if err != nil || len(got) != 2 || got[0].Sold != 1 || got[1].Sold != 0 {
		t.Errorf("inventory after = %+v, %v; want 1 sold the first night (the kept claim), none the second", got, err)
	}
}

// exerciseLockWaits: LimitLockWait bounds a transaction's wait for a row another
// transaction holds (its statement fails instead of waiting), 0 lifts the bound; on
// SQLite, whose transactions never wait for a row, it does nothing.
func exerciseLockWaits(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := newPartner(t, s, "acme")
	bounded := func(d time.Duration, lift bool) error {
		return s.InTx(ctx, func(q store.Querier) error {
			lw, ok := q.(store.LockWaits)
			if !ok {
				t.Fatal("the transaction's Querier does not implement store.LockWaits")
			}
			if err := lw.LimitLockWait(ctx, d); err != nil {
				return err
			}
			if lift {
				if err := lw.LimitLockWait(ctx, 0); err != nil {
					return err
				}
			}
			if ok, err := q.CreditDraw(ctx, p.ID, 1); err != nil || !ok {
				return fmt.Errorf("draw %v: %w", ok, err)
			}
			return nil
		})
	}
	if s.Dialect() != "postgres" {
		if err := bounded(time.Millisecond, false); err != nil {
			t.Fatalf("a bounded transaction alone: %v", err)
		}
		return
	}
	// Another transaction holds the partner's row for hold.
	const hold = 1500 * time.Millisecond
	holding := func() chan error {
		held, done := make(chan struct{}), make(chan error, 1)
		go func() {
			done <- s.InTx(ctx, func(q store.Querier) error {
				if ok, err := q.CreditDraw(ctx, p.ID, 1); err != nil || !ok {
					return fmt.Errorf("holder's draw %v: %w", ok, err)
				}
				close(held)
				time.Sleep(hold)
				return nil
			})
		}()
		<-held
		return done
	}
	done := holding()
	start := time.Now()
	err := bounded(100*time.Millisecond, false)
	if waited := time.Since(start); err == nil || waited >= hold {
		t.Errorf("a draw bounded to 100 ms on a row held for %v: %v after %v; want a failure before the holder commits", hold, err, waited)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	done = holding()
	start = time.Now()
	if err := bounded(100*time.Millisecond, true); err != nil {
		t.Errorf("a draw whose bound was lifted: %v", err)
	}
	if waited := time.Since(start); waited < hold/2 {
		t.Errorf("a draw whose bound was lifted answered after %v, before the holder committed", waited)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, err := s.PartnerGetByID(ctx, p.ID); err != nil || got.CreditUsed != 3 {
		t.Errorf("credit used %d, %v; want 3 (two holders' draws and the lifted one's)", got.CreditUsed, err)
	}
}

// exerciseItemWithUnitDays: one item and its unit's days in one call answer what ItemGet
// and InventoryList answer; ErrNotFound without the item, no days without inventory.
func exerciseItemWithUnitDays(t *testing.T, s store.Store) {
	ctx := context.Background()
	item := &store.Item{Kind: tradewind.ProductHotel, ID: 7, CityKey: "lisbon", Data: []byte(`{"id":7,"name":"it's"}`)}
	if _, err := s.ItemPut(ctx, item); err != nil {
		t.Fatal(err)
	}
	inv := append(rows(tradewind.UnitRoom, 1, 7, 3, "2027-01-01", "2027-01-02", "2027-01-03", "2027-01-04"),
		rows(tradewind.UnitRoom, 2, 7, 5, "2027-01-02")...)
	inv[2].Price = 1500
	if err := s.InventoryPut(ctx, inv); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: 7, UnitID: 1, From: "2027-01-02", To: "2027-01-02", Quantity: 2}); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	q := store.InventoryQuery{Kind: tradewind.UnitRoom, ItemIDs: []int64{7}, UnitIDs: []int64{1}, From: "2027-01-02", To: "2027-01-03"}
	it, days, err := s.ItemWithUnitDays(ctx, tradewind.ProductHotel, 7, q)
	if err != nil {
		t.Fatalf("ItemWithUnitDays: %v", err)
	}
	want, _ := s.ItemGet(ctx, tradewind.ProductHotel, 7)
	if it.Kind != want.Kind || it.ID != want.ID || it.CityKey != want.CityKey || string(it.Data) != string(want.Data) {
		t.Errorf("item = %+v, want %+v", it, want)
	}
	wantDays, _ := s.InventoryList(ctx, q)
	if !slices.Equal(days, wantDays) || len(days) != 2 || days[0].Sold != 2 || days[1].Price != 1500 {
		t.Errorf("days = %+v, want %+v", days, wantDays)
	}
	q.From, q.To = "2027-02-01", "2027-02-02"
	if it, days, err := s.ItemWithUnitDays(ctx, tradewind.ProductHotel, 7, q); err != nil || it == nil || len(days) != 0 {
		t.Errorf("days without inventory = %+v, %+v, %v; want the item and none", it, days, err)
	}
	q.ItemIDs = []int64{8}
	if _, _, err := s.ItemWithUnitDays(ctx, tradewind.ProductHotel, 8, q); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a missing item: %v, want ErrNotFound", err)
	}
}

// liveKey is the live idempotency record of p's key k.
func liveKey(p *tradewind.Partner, k string) store.IdempotencyRecord {
	return store.IdempotencyRecord{PartnerID: p.ID, Mode: "live", Key: k, RequestHash: "h", CreatedAt: now}
}

// keysPresent checks which of p's live idempotency keys are recorded.
func keysPresent(t *testing.T, s store.Store, p *tradewind.Partner, want map[string]bool) {
	t.Helper()
	for k, w := range want {
		if _, err := s.IdempotencyGet(context.Background(), p.ID, "live", k); (err == nil) != w {
			t.Errorf("key %s: %v, want present %v", k, err, w)
		}
	}
}
