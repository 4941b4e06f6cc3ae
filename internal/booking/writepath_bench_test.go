package booking_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// writers is how many goroutines book at once in the parallel benchmarks, the load
// benchmark's 16 write connections: b.SetParallelism multiplies it by GOMAXPROCS.
const writers = 16

func parallelism(b *testing.B) {
	b.SetParallelism(max(1, writers/testingProcs()))
}

// BenchmarkBookParallel books through the service from 16 goroutines at once, one
// night each in hotels spread over the catalog (live key: claim, credit draw, booking
// and event in one transaction). Compare its ns/op with BenchmarkCommitFloor's:
//
//	go test -run XXX -bench 'BookParallel|CommitFloor' ./internal/booking/
//
// Each database runs twice: "group" with group commits (the default, group.go) and
// "alone" with every booking in a transaction of its own (BookGroupMax 1), for an A/B
// comparison in the same run; PostgreSQL also "group1", one group running its
// bookings at a time (BookGroupsAtOnce 1, as SQLite's one writer has it).
func BenchmarkBookParallel(b *testing.B) {
	for _, o := range storetest.Openers() {
		for _, mode := range []struct {
			name   string
			max    int
			atOnce int
		}{{"group", booking.DefaultBookGroupMax, 0}, {"alone", 1, 0}, {"group1", booking.DefaultBookGroupMax, 1}} {
			if mode.atOnce == 1 && o.Name == "sqlite" {
				continue // the same as "group" there
			}
			b.Run(o.Name+"/"+mode.name, func(b *testing.B) {
				svc, c, doc := benchService(b, o)
				svc.BookGroupMax = mode.max
				svc.BookGroupsAtOnce = mode.atOnce
				var n atomic.Int64
				parallelism(b)
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						i := int(n.Add(1))
						h := doc.Hotels[i%len(doc.Hotels)]
						req := &booking.BookRequest{QuoteRequest: booking.QuoteRequest{ProductType: "hotel", HotelID: h.ID,
							RoomID: h.Rooms[i%len(h.Rooms)].ID, CheckIn: apitest.Day(1 + i%50), CheckOut: apitest.Day(2 + i%50), Rooms: 1, Adults: 1},
							Guest: &booking.Guest{Name: "Bench"}}
						if _, _, err := svc.Book(context.Background(), c, fmt.Sprint("bench-", i), req); err != nil && !isSoldOut(err) {
							b.Errorf("book: %v", err)
							return
						}
					}
				})
				if kept, missed := svc.BookAheadStats(); kept+missed > 0 {
					b.ReportMetric(float64(missed)/float64(kept+missed), "repriced/op")
				}
				if groups, grouped := svc.BookGroupStats(); groups > 0 {
					b.ReportMetric(float64(grouped)/float64(groups), "bookings/group")
					b.ReportMetric(float64(grouped)/float64(b.N), "grouped/op")
				}
			})
		}
	}
}

// BenchmarkCommitFloor is the store's floor: single-row durable commits (INSERT in
// autocommit) through the store's own connections, 16 writers at once.
func BenchmarkCommitFloor(b *testing.B) {
	for _, o := range storetest.Openers() {
		b.Run(o.Name, func(b *testing.B) {
			st := o.Open(b)
			ctx := context.Background()
			if _, err := st.SQL().ExecContext(ctx, `CREATE TABLE commit_floor (id BIGINT NOT NULL, v TEXT NOT NULL)`); err != nil {
				b.Fatal(err)
			}
			var n atomic.Int64
			parallelism(b)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := st.SQL().ExecContext(ctx, `INSERT INTO commit_floor (id, v) VALUES ($1, $2)`, n.Add(1), "commit"); err != nil {
						b.Errorf("insert: %v", err)
						return
					}
				}
			})
		})
	}
}

func testingProcs() int { return runtime.GOMAXPROCS(0) }

// BenchmarkPrebookParallel prebooks from 16 goroutines at once (prebookQuote), the
// load benchmark's prebook scenario without HTTP. Compare its ns/op with
// BenchmarkCommitFloor's.
func BenchmarkPrebookParallel(b *testing.B) {
	for _, o := range storetest.Openers() {
		b.Run(o.Name, func(b *testing.B) {
			svc, c, doc := benchService(b, o)
			var n atomic.Int64
			parallelism(b)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					q := prebookQuote(doc, int(n.Add(1)))
					if _, err := svc.Prebook(context.Background(), c, &q); err != nil {
						b.Errorf("prebook: %v", err)
						return
					}
				}
			})
		})
	}
}
