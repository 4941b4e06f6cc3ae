package booking

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestFirstImportStoresEveryRow: after a first import of a generated catalog (every
// product, overlapping ranges), the stored inventory is exactly the rows the import's
// expansion gives, however a store writes them (SQLite as runs of days).
func TestFirstImportStoresEveryRow(t *testing.T) {
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: 120, Activities: 30, Rentals: 30, Packages: 30,
		Cities: 4, Days: 90, Seed: 5, Start: time.Date(2027, 12, 1, 0, 0, 0, 0, time.UTC)})
	staged, err := stageItems(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]store.InventoryRow{}
	var ids []int64
	names := dayNames{}
	for i := range staged {
		for _, r := range names.expand(nil, &staged[i]) {
			want[fmt.Sprint(r.Kind, r.UnitID, r.Day)] = r
		}
		ids = append(ids, staged[i].item.ID)
	}
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := o.Open(t)
			if _, err := New(st, nil, nil).ImportCatalog(ctx, doc); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, kind := range []tradewind.UnitKind{tradewind.UnitRoom, tradewind.UnitActivity, tradewind.UnitSpace, tradewind.UnitDeparture, tradewind.UnitPackageDay} {
				got, err := st.InventoryList(ctx, store.InventoryQuery{Kind: kind, ItemIDs: ids, From: "0000-01-01", To: "9999-12-31"})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range got {
					if w, ok := want[fmt.Sprint(r.Kind, r.UnitID, r.Day)]; !ok || w != r {
						t.Fatalf("stored %+v, want %+v", r, w)
					}
				}
				n += len(got)
			}
			if n != len(want) {
				t.Errorf("%d rows stored, want %d", n, len(want))
			}
		})
	}
}

// TestStageItemsByID: staged items come product by product, each product's by id,
// whatever the document's order (a first import then writes inventory, keyed by item
// first, in the key's order), and a unit's ranges as the document lists them.
func TestStageItemsByID(t *testing.T) {
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: 30, Activities: 10, Rentals: 10, Packages: 10,
		Cities: 3, Days: 30, Seed: 3, Start: time.Date(2027, 12, 1, 0, 0, 0, 0, time.UTC)})
	sorted, err := stageItems(doc)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(doc.Hotels)
	slices.Reverse(doc.Rentals)
	doc.Activities[0], doc.Activities[5] = doc.Activities[5], doc.Activities[0]
	doc.Packages[1], doc.Packages[8] = doc.Packages[8], doc.Packages[1]
	staged, err := stageItems(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(staged) != len(sorted) {
		t.Fatalf("%d staged, want %d", len(staged), len(sorted))
	}
	for i := range staged {
		a, b := &staged[i], &sorted[i]
		if a.item.Kind != b.item.Kind || a.item.ID != b.item.ID || a.item.InventoryHash != b.item.InventoryHash {
			t.Fatalf("staged[%d] = %s %d, want %s %d", i, a.item.Kind, a.item.ID, b.item.Kind, b.item.ID)
		}
		if i > 0 && staged[i-1].item.Kind == a.item.Kind && staged[i-1].item.ID >= a.item.ID {
			t.Errorf("staged[%d]: %s %d after %d", i, a.item.Kind, a.item.ID, staged[i-1].item.ID)
		}
	}
	var kinds []tradewind.ProductType
	for _, st := range staged {
		if len(kinds) == 0 || kinds[len(kinds)-1] != st.item.Kind {
			kinds = append(kinds, st.item.Kind)
		}
	}
	if !slices.Equal(kinds, []tradewind.ProductType{tradewind.ProductHotel, tradewind.ProductActivity, tradewind.ProductRental, tradewind.ProductPackage}) {
		t.Errorf("products in the order %v", kinds)
	}
}
