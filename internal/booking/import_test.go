package booking_test

import (
	"context"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestImportRewritesOnlyChanges: a re-import compares in bulk and writes only what
// changed: an unchanged catalog changes nothing and sends nothing; one changed price
// updates one item and sends one availability.changed per subscriber; sold rooms stay
// sold; a dropped range is closed; items stored before the fingerprint existed are
// compared row by row, not skipped.
func TestImportRewritesOnlyChanges(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := o.Open(t)
			svc := booking.New(st, apitest.NewClock(apitest.Start), nil)
			// 1 200 hotels: three batches, and enough rows for the bulk paths.
			gen := catalog.GenerateOptions{Hotels: 1200, Activities: 30, Rentals: 30, Packages: 30, Cities: 5, Days: 40, Seed: 3, Start: apitest.Start}
			doc := catalog.Generate(gen)
			total := len(doc.Hotels) + len(doc.Activities) + len(doc.Rentals) + len(doc.Packages)
			var progress []booking.ImportProgress
			rep, err := svc.ImportCatalogWith(ctx, doc, booking.ImportOptions{Progress: func(p booking.ImportProgress) { progress = append(progress, p) }})
			if err != nil || rep.Created != total || rep.Events != 0 {
				t.Fatalf("first import = %+v, %v; want %d created", rep, err, total)
			}
			if last := progress[len(progress)-1]; len(progress) < 4 || last.Items != total || last.Total != total || last.Rows == 0 {
				t.Errorf("progress = %+v", progress)
			}
			p := &tradewind.Partner{Name: "sub", PricingMode: tradewind.PricingNet, Currency: "EUR", CreatedAt: apitest.Start}
			if err := st.PartnerCreate(ctx, p); err != nil {
				t.Fatal(err)
			}
			if _, err := st.SubscriptionCreate(ctx, store.SubscriptionCreateParams{PartnerID: p.ID, URL: "https://example.com/h",
				EventTypes: []tradewind.EventType{tradewind.EventAvailabilityChanged}, Secret: "s", CreatedAt: apitest.Start}); err != nil {
				t.Fatal(err)
			}
			if rep, err := svc.ImportCatalog(ctx, doc); err != nil || rep.Unchanged != total || rep.Events != 0 {
				t.Fatalf("same catalog again = %+v, %v", rep, err)
			}

			// Sell a room of hotel 700, then change one price of hotel 700 and drop the
			// last range of a room of hotel 1100 (rooms, like hotels, stay in batches).
			h, g := &doc.Hotels[700], &doc.Hotels[1100]
			room := h.Rooms[0]
			day := apitest.Day(5)
			if _, ok, err := st.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: h.ID, UnitID: room.ID, From: day, To: day, Quantity: 1}); err != nil || !ok {
				t.Fatalf("claim = %v, %v", ok, err)
			}
			h.Rooms[0].Inventory = append(h.Rooms[0].Inventory, catalog.RoomNights{Start: day, End: day, Allotment: 7, Price: 12345})
			g.Rooms[0].Inventory = nil
			rep, err = svc.ImportCatalog(ctx, doc)
			if err != nil || rep.Updated != 2 || rep.Created != 0 || rep.Unchanged != total-2 || rep.Events != 2 {
				t.Fatalf("two changed hotels = %+v, %v", rep, err)
			}
			got, err := st.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, UnitIDs: []int64{room.ID}, From: day, To: day})
			if err != nil || len(got) != 1 || got[0].Capacity != 7 || got[0].Price != 12345 || got[0].Sold != 1 {
				t.Errorf("changed night = %+v, %v; want capacity 7, price 12345, sold 1", got, err)
			}
			closed, _ := st.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, UnitIDs: []int64{g.Rooms[0].ID}, From: "0000-01-01", To: "9999-12-31"})
			if len(closed) != gen.Days {
				t.Fatalf("dropped room has %d rows, want %d kept", len(closed), gen.Days)
			}
			for _, r := range closed {
				if r.Capacity != 0 {
					t.Fatalf("dropped night %+v not closed", r)
				}
			}

			// An item stored without a fingerprint (as before migration 00006) is compared:
			// its inventory, changed behind the fingerprint's back, is put right.
			it, err := st.ItemGet(ctx, tradewind.ProductHotel, h.ID)
			if err != nil {
				t.Fatal(err)
			}
			it.InventoryHash = ""
			if err := st.ItemPutMany(ctx, []*store.Item{it}); err != nil {
				t.Fatal(err)
			}
			if err := st.InventoryPut(ctx, []store.InventoryRow{{Kind: tradewind.UnitRoom, UnitID: room.ID, ItemID: h.ID, Day: day, Capacity: 1, Price: 1}}); err != nil {
				t.Fatal(err)
			}
			if rep, err := svc.ImportCatalog(ctx, doc); err != nil || rep.Updated != 1 || rep.Events != 1 {
				t.Fatalf("unknown fingerprint = %+v, %v; want the hotel compared and updated", rep, err)
			}
			got, _ = st.InventoryList(ctx, store.InventoryQuery{Kind: tradewind.UnitRoom, UnitIDs: []int64{room.ID}, From: day, To: day})
			if len(got) != 1 || got[0].Capacity != 7 || got[0].Price != 12345 || got[0].Sold != 1 {
				t.Errorf("repaired night = %+v", got)
			}
		})
	}
}

// TestImportChangedPercent: re-importing the catalog generated with ChangePercent (the
// benchmark's 1 %-changed catalog) updates exactly the changed items, on both databases.
func TestImportChangedPercent(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			svc := booking.New(o.Open(t), apitest.NewClock(apitest.Start), nil)
			gen := catalog.GenerateOptions{Hotels: 100, Activities: 20, Rentals: 20, Packages: 20, Cities: 3, Days: 30, Seed: 9, Start: apitest.Start}
			if _, err := svc.ImportCatalog(ctx, catalog.Generate(gen)); err != nil {
				t.Fatal(err)
			}
			gen.ChangePercent = 5 // 5 hotels and 1 item of each other kind
			rep, err := svc.ImportCatalog(ctx, catalog.Generate(gen))
			if err != nil || rep.Updated != 8 || rep.Unchanged != 152 || rep.Created != 0 {
				t.Fatalf("re-import = %+v, %v; want 8 updated, 152 unchanged", rep, err)
			}
		})
	}
}
