package booking_test

import (
	"context"
	"fmt"
	"github.com/tradewind/tradewind"
	"os"
	"strconv"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// benchService loads a generated catalog of 2 000 hotels in 20 cities (about 100 per
// city) with 60 days of inventory, and a partner with a large credit line.
func benchService(b *testing.B, o storetest.Opener) (*booking.Service, *booking.Caller, *catalog.Document) {
	b.Helper()
	hotels := 2000
	if n, err := strconv.Atoi(os.Getenv("TRADEWIND_BENCH_HOTELS")); err == nil && n > 0 {
		hotels = n // a smaller catalog, for instruction counts (callgrind) of the booking path
	}
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: hotels, Cities: 20, Days: 60, Seed: 1, Start: apitest.Start})
	svc, c := liveService(b, o, apitest.NewClock(apitest.Start), doc, "100000000")
	return svc, c, doc
}

// BenchmarkSearchHotels searches one city of ~100 hotels for a 3-night stay.
// Target: well under 10 ms and 2 MB per search on SQLite.
func BenchmarkSearchHotels(b *testing.B) {
	for _, o := range storetest.Openers() {
		b.Run(o.Name, func(b *testing.B) {
			svc, c, doc := benchService(b, o)
			city := doc.Hotels[0].City
			adults := 2
			req := &booking.HotelSearchRequest{Destination: city, CheckIn: apitest.Day(10), CheckOut: apitest.Day(13), Adults: &adults}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				res, _, err := svc.SearchHotels(context.Background(), c, req)
				if err != nil || len(res.Hotels) == 0 {
					b.Fatalf("search: %v", err)
				}
			}
		})
	}
}

// BenchmarkBook books one night in a different hotel each time (live key: inventory
// claim, credit draw, booking and event in one transaction).
func BenchmarkBook(b *testing.B) {
	for _, o := range storetest.Openers() {
		b.Run(o.Name, func(b *testing.B) {
			svc, c, doc := benchService(b, o)
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				h := doc.Hotels[i%len(doc.Hotels)]
				r := h.Rooms[0]
				req := &booking.BookRequest{QuoteRequest: booking.QuoteRequest{ProductType: "hotel", HotelID: h.ID, RoomID: r.ID,
					CheckIn: apitest.Day(1 + i%50), CheckOut: apitest.Day(2 + i%50), Rooms: 1, Adults: 1},
					Guest: &booking.Guest{Name: "Bench"}}
				if _, _, err := svc.Book(context.Background(), c, fmt.Sprint("bench-", i), req); err != nil && !isSoldOut(err) {
					b.Fatalf("book: %v", err)
				}
				i++
			}
		})
	}
}

// isSoldOut reports the 422 of a room whose allotment the benchmark used up.
func isSoldOut(err error) bool { return tradewind.ErrorCode(err) == tradewind.ECodeInvalidQuote }

// BenchmarkPrebook prebooks one night of a room in a different hotel each time, as the
// load benchmark's prebook scenario does (live key: the quote priced from the store,
// the locked quote stored). For callgrind, with TRADEWIND_BENCH_HOTELS to shrink the
// catalog:
//
//	go test -c -o /tmp/x.test ./internal/booking/
//	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind /tmp/x.test -test.run XXX \
//	  -test.bench 'Prebook$/sqlite' -test.cpu 1 -test.benchtime 2000x
func BenchmarkPrebook(b *testing.B) {
	for _, o := range storetest.Openers() {
		b.Run(o.Name, func(b *testing.B) {
			svc, c, doc := benchService(b, o)
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				q := prebookQuote(doc, i)
				if _, err := svc.Prebook(context.Background(), c, &q); err != nil {
					b.Fatalf("prebook: %v", err)
				}
				i++
			}
		})
	}
}

// prebookQuote is the i-th quote of the prebook benchmarks: any hotel, room and night
// in the catalog's first 50 days, spread so that consecutive quotes meet no row twice.
func prebookQuote(doc *catalog.Document, i int) booking.QuoteRequest {
	h := doc.Hotels[(i*7919)%len(doc.Hotels)]
	return booking.QuoteRequest{ProductType: "hotel", HotelID: h.ID, RoomID: h.Rooms[i%len(h.Rooms)].ID,
		CheckIn: apitest.Day(1 + i%50), CheckOut: apitest.Day(2 + i%50), Rooms: 1, Adults: 1}
}

// BenchmarkQuoteRead is a prebook's one read statement alone (store.ItemWithUnitDays: a
// hotel and its room's three nights), one after another on a store nobody writes to,
// so that its cost is the statement's own, not the page cache's.
func BenchmarkQuoteRead(b *testing.B) {
	for _, o := range storetest.Openers() {
		b.Run(o.Name, func(b *testing.B) {
			svc, _, doc := benchService(b, o)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				h := doc.Hotels[(i*7919)%len(doc.Hotels)]
				from := apitest.Day(1 + i%50)
				_, days, err := svc.Store.ItemWithUnitDays(context.Background(), tradewind.ProductHotel, h.ID, store.InventoryQuery{
					Kind: tradewind.UnitRoom, ItemIDs: []int64{h.ID}, UnitIDs: []int64{h.Rooms[i%len(h.Rooms)].ID}, From: from, To: apitest.Day(3 + i%50)})
				if err != nil || len(days) != 3 || days[0].Day != from {
					b.Fatalf("read: %v %v", days, err)
				}
				i++
			}
		})
	}
}
