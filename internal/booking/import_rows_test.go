package booking

import (
	"context"
	"fmt"
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
