package booking_test

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
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
		}{{"group", 0, 0}, {"alone", 1, 0}, {"group1", booking.DefaultBookGroupMax, 1}} {
			if mode.atOnce == 1 && o.Name == "sqlite" {
				continue // the same as "group" there
			}
			b.Run(o.Name+"/"+mode.name, func(b *testing.B) {
				svc, c, doc := benchService(b, o)
				svc.BookGroupMax = mode.max
				svc.BookGroupsAtOnce = mode.atOnce
				writeParallel(b, svc, doc, func(i int, h *catalog.Hotel) error {
					req := &booking.BookRequest{QuoteRequest: booking.QuoteRequest{ProductType: "hotel", HotelID: h.ID,
						RoomID: h.Rooms[i%len(h.Rooms)].ID, CheckIn: apitest.Day(1 + i%50), CheckOut: apitest.Day(2 + i%50), Rooms: 1, Adults: 1},
						Guest: &booking.Guest{Name: "Bench"}}
					if _, _, err := svc.Book(context.Background(), c, fmt.Sprint("bench-", i), req); err != nil && !isSoldOut(err) {
						return err
					}
					return nil
				})
				if kept, missed := svc.BookAheadStats(); kept+missed > 0 {
					b.ReportMetric(float64(missed)/float64(kept+missed), "repriced/op")
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
			writeParallel(b, svc, doc, func(i int, _ *catalog.Hotel) error {
				q := prebookQuote(doc, i)
				_, err := svc.Prebook(context.Background(), c, &q)
				return err
			})
		})
	}
}

// benchRequestHash stands for a request's fingerprint: SHA-256 in hex, as requestHash makes.
const benchRequestHash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

// BenchmarkBookStatementsParallel is the store's part of BenchmarkBookParallel alone: from
// 16 goroutines at once, each booking is only the statements a live hotel booking sends
// in its group commit (the inventory claim with its item checked, the booking with its
// request's fingerprint, its confirmation event and deliveries, its share of the group's credit
// draw), with arguments made before it and no quote, pricing, validation or JSON. It
// tells how far the store's own work per booking lets bookings go against
// BenchmarkCommitFloor, whatever the service and HTTP around them cost. Each booking
// claims one night; the variants leave one part out each, to price it
// (docs/performance-history.md, "Night"), and three-nights claims three, as a hotel
// stay often does (the change rows of each night: "Night 4"):
//
//	go test -run XXX -bench 'BookStatementsParallel|BookParallel/.*/group$|CommitFloor' ./internal/booking/
func BenchmarkBookStatementsParallel(b *testing.B) {
	type variant struct {
		name                   string
		itemCheck, event, draw bool
		dropIndexes            []string // dropped before the run: the list filters' and lookups' indexes
		nights                 int      // claimed; 0: one
	}
	filterIndexes := []string{"bookings_partner_test", "bookings_partner_status", "bookings_partner_product",
		"bookings_partner_created_at", "bookings_partner_service", "events_booking_reference"}
	variants := []variant{
		{name: "all", itemCheck: true, event: true, draw: true},
		{name: "no-item-check", event: true, draw: true},
		{name: "no-event", itemCheck: true, draw: true},
		{name: "no-draw", itemCheck: true, event: true},
		{name: "no-filter-indexes", itemCheck: true, event: true, draw: true, dropIndexes: filterIndexes},
		{name: "claim-and-booking-only"},
		{name: "three-nights", itemCheck: true, event: true, draw: true, nights: 3},
	}
	for _, o := range storetest.Openers() {
		for _, v := range variants {
			b.Run(o.Name+"/"+v.name, func(b *testing.B) {
				svc, c, doc := benchService(b, o)
				ctx := context.Background()
				for _, ix := range v.dropIndexes {
					if _, err := svc.Store.(interface{ SQL() *sql.DB }).SQL().ExecContext(ctx, `DROP INDEX `+ix); err != nil {
						b.Fatal(err)
					}
				}
				// Every hotel's stored document, as a quote ahead checks it in the claim.
				stored := make(map[int64][]byte, len(doc.Hotels))
				for _, h := range doc.Hotels {
					it, err := svc.Store.ItemGet(ctx, tradewind.ProductHotel, h.ID)
					if err != nil {
						b.Fatal(err)
					}
					stored[h.ID] = it.Data
				}
				// A booking's documents, of the sizes a hotel booking stores.
				quote := []byte(`{"product_type":"hotel","hotel_id":1000001,"room_id":2000001,"check_in":"2027-01-10","check_out":"2027-01-11","rooms":1,"adults":1,"children_ages":null}`)
				guest := []byte(`{"name":"Bench"}`)
				details := []byte(`{"board":"room_only","cancellation_policy":"free_until_48h","guest_name":"Bench","hotel_name":"Bench Hotel","nights":1,"room_name":"Double","rooms":1}`)
				writeParallel(b, svc, doc, func(i int, h *catalog.Hotel) error {
					room := h.Rooms[i%len(h.Rooms)]
					nights := max(v.nights, 1)
					from := apitest.Day(1 + i%50)
					now := svc.Clock.Now()
					key := fmt.Sprint("stmts-", i)
					bk := &tradewind.Booking{Reference: fmt.Sprintf("HTL-%08d", i), PartnerID: c.Partner.ID, KeyID: c.Key.ID,
						ProductType: tradewind.ProductHotel, Status: tradewind.StatusConfirmed, PricingMode: c.Partner.PricingMode,
						TotalPrice: 10000, Currency: c.Partner.Currency, IdempotencyKey: key, RequestHash: benchRequestHash, ItemID: h.ID, UnitKind: "room",
						UnitID: room.ID, StartDate: from, EndDate: apitest.Day(1 + nights + i%50), Quantity: 1, CreditDrawn: 10000,
						Quote: quote, Guest: guest, Details: details, CreatedAt: now, UpdatedAt: now}
					var events []*tradewind.Event
					if v.event {
						events = append(events, &tradewind.Event{ID: booking.NewEventID(now), PartnerID: c.Partner.ID,
							Type: tradewind.EventBookingConfirmed, Data: details, CreatedAt: now})
					}
					claim := store.Claim{Kind: "room", ItemID: h.ID, UnitID: room.ID, From: from, To: apitest.Day(nights + i%50), Quantity: 1}
					if v.itemCheck {
						claim.IfItem = &store.Item{Kind: tradewind.ProductHotel, ID: h.ID, Data: stored[h.ID]}
					}
					err := booking.BookTx(svc, ctx, func(ctx context.Context, tx store.Querier) error {
						if _, ok, err := tx.InventoryClaim(ctx, claim); err != nil || !ok {
							return cmp.Or(err, errSoldOut)
						}
						if err := tx.BookingCreate(ctx, bk, events...); err != nil {
							return err
						}
						if !v.draw {
							return nil
						}
						return booking.DrawCredit(svc, ctx, tx, bk)
					})
					if errors.Is(err, errSoldOut) {
						return nil
					}
					return err
				})
			})
		}
	}
}

// writeParallel runs write b.N times from the writers at once, the i-th time with the
// catalog's hotel i (modulo their number), and reports the mean group commit of the
// bookings among them.
func writeParallel(b *testing.B, svc *booking.Service, doc *catalog.Document, write func(i int, h *catalog.Hotel) error) {
	var n atomic.Int64
	parallelism(b)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(n.Add(1))
			if err := write(i, &doc.Hotels[i%len(doc.Hotels)]); err != nil {
				b.Errorf("%s: %v", b.Name(), err)
				return
			}
		}
	})
	if groups, grouped := svc.BookGroupStats(); groups > 0 {
		b.ReportMetric(float64(grouped)/float64(groups), "bookings/group")
		b.ReportMetric(float64(grouped)/float64(b.N), "grouped/op")
	}
}

// errSoldOut is a claim that found its night taken.
var errSoldOut = errors.New("sold out")
