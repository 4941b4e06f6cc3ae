package booking

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// benchDoc is 500 hotels (one import batch) with a year of inventory.
func benchDoc() *catalog.Document {
	return catalog.Generate(catalog.GenerateOptions{Hotels: 500, Cities: 5, Days: 365, Seed: 1,
		Start: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)})
}

// BenchmarkStageAndExpand: staging a batch of 500 hotels and expanding it into day rows
// (about 450 000), what an import does to every item whose fingerprint changed.
func BenchmarkStageAndExpand(b *testing.B) {
	doc := benchDoc()
	b.ReportAllocs()
	for b.Loop() {
		staged, err := stageItems(doc)
		if err != nil {
			b.Fatal(err)
		}
		names := dayNames{}
		var rows []store.InventoryRow
		for i := range staged {
			rows = names.expand(rows[:0], &staged[i])
		}
	}
}

// BenchmarkDiffInventory: comparing one hotel's year of rows (one night changed) with
// its stored rows, per hotel.
func BenchmarkDiffInventory(b *testing.B) {
	doc := benchDoc()
	staged, _ := stageItems(doc)
	names := dayNames{}
	var total int
	type pair struct{ stored, doc []store.InventoryRow }
	pairs := make([]pair, len(staged))
	for i := range staged {
		rows := names.expand(nil, &staged[i])
		stored := append([]store.InventoryRow(nil), rows...)
		stored[len(stored)/2].Price++
		pairs[i] = pair{stored, rows}
		total += len(rows)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var added, changed []store.InventoryRow
	for i := 0; b.Loop(); i++ {
		p := pairs[i%len(pairs)]
		added, changed, _, _ = diffInventory(added[:0], changed[:0], p.stored, p.doc, false)
		if len(changed) != 1 || len(added) != 0 {
			b.Fatalf("changed = %d rows", len(changed))
		}
	}
	b.ReportMetric(float64(total)/float64(len(pairs)), "rows/op")
}

// BenchmarkInventoryInsert: the bulk insert of the new rows of one import batch
// (20 000 per op here): COPY straight into the table on PostgreSQL, prepared multi-row
// INSERTs on SQLite.
func BenchmarkInventoryInsert(b *testing.B) {
	benchWrite(b, func(rows []store.InventoryRow, i int) {
		for j := range rows {
			rows[j].Kind = tradewind.UnitKind(fmt.Sprint("bench", i)) // new keys every time
		}
	}, store.Querier.InventoryInsert)
}

// BenchmarkInventoryPut: the bulk upsert of the changed rows of one import batch
// (20 000 per op here): COPY through a staging table and one INSERT … ON CONFLICT on
// PostgreSQL, prepared multi-row upserts on SQLite.
func BenchmarkInventoryPut(b *testing.B) {
	benchWrite(b, func(rows []store.InventoryRow, i int) {
		for j := range rows {
			rows[j].Price = int64(i) // a change every time: inserts first, then updates
		}
	}, store.Querier.InventoryPut)
}

// benchWrite runs write over 20 000 rows, changed by change before each operation, in a
// transaction, on each database, and reports rows per second.
func benchWrite(b *testing.B, change func(rows []store.InventoryRow, i int), write func(store.Querier, context.Context, []store.InventoryRow) error) {
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: 40, Cities: 2, Days: 365, Seed: 1,
		Start: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)})
	staged, _ := stageItems(doc)
	names := dayNames{}
	var rows []store.InventoryRow
	for i := range staged {
		rows = names.expand(rows, &staged[i])
	}
	rows = rows[:min(len(rows), 20000)]
	for _, o := range storetest.Openers() {
		b.Run(o.Name, func(b *testing.B) {
			st := o.Open(b)
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				change(rows, i)
				if err := st.InTx(ctx, func(q store.Querier) error { return write(q, ctx, rows) }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkFirstImport: a whole first import (into a new, migrated database, opened in
// each operation) of a generated catalog of 250 hotels, 60 activities, 60 rentals and
// 12 packages with a year of inventory (about 300 000 rows); TRADEWIND_BENCH_IMPORT_HOTELS
// scales it (the others in proportion). For CPU profiles and instruction counts
// (callgrind) of the import as the CLI runs it.
func BenchmarkFirstImport(b *testing.B) {
	hotels := 250
	if n, err := strconv.Atoi(os.Getenv("TRADEWIND_BENCH_IMPORT_HOTELS")); err == nil && n > 0 {
		hotels = n
	}
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: hotels, Activities: hotels * 6 / 25,
		Rentals: hotels * 6 / 25, Packages: hotels * 6 / 125, Cities: 20, Days: 365, Seed: 7,
		Start: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)})
	for _, o := range storetest.Openers() {
		b.Run(o.Name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				svc := New(o.Open(b), nil, nil)
				rep, err := svc.ImportCatalog(ctx, doc)
				if err != nil || rep.Created != len(doc.Hotels)+len(doc.Activities)+len(doc.Rentals)+len(doc.Packages) {
					b.Fatalf("import: %+v, %v", rep, err)
				}
			}
		})
	}
}
