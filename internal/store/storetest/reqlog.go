package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// exerciseUsageCounters: UsageAdd adds to counters (also from many writers at once and
// with one counter repeated in a call), UsageList reads the partner's days in [from, to).
func exerciseUsageCounters(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := newPartner(t, s, "a"), newPartner(t, s, "b")
	day := func(d int) time.Time { return time.Date(2027, 1, d, 0, 0, 0, 0, time.UTC) }
	add := func(rows ...tradewind.UsageRow) {
		t.Helper()
		if err := s.UsageAdd(ctx, rows); err != nil {
			t.Fatalf("UsageAdd: %v", err)
		}
	}
	list := func(partner int64, from, to time.Time) []tradewind.UsageRow {
		t.Helper()
		rows, err := s.UsageList(ctx, partner, from, to)
		if err != nil {
			t.Fatalf("UsageList: %v", err)
		}
		return rows
	}
	row := func(partner int64, mode tradewind.Mode, d int, route string, status int, code string, n int64) tradewind.UsageRow {
		return tradewind.UsageRow{PartnerID: partner, Mode: mode, Day: day(d), Route: route, Status: status, ErrorCode: code, Count: n}
	}
	search, book := "GET /hotels/search", "POST /bookings"
	// A day given as any time of that day counts on its UTC date; the same counter
	// twice in one call is summed.
	late := row(a.ID, tradewind.ModeTest, 4, search, 200, "", 2)
	late.Day = time.Date(2027, 1, 4, 23, 59, 0, 0, time.UTC).In(time.FixedZone("UTC+5", 5*3600)) // January 5th there
	add(row(a.ID, tradewind.ModeTest, 4, search, 200, "", 3), late,
		row(a.ID, tradewind.ModeLive, 4, search, 200, "", 1),
		row(a.ID, tradewind.ModeTest, 4, book, 409, "no_availability", 1),
		row(a.ID, tradewind.ModeTest, 4, "", 404, "not_found", 1),
		row(a.ID, tradewind.ModeTest, 5, search, 200, "", 7),
		row(b.ID, tradewind.ModeTest, 4, search, 200, "", 100),
		row(a.ID, tradewind.ModeTest, 6, search, 200, "", 0)) // a zero count writes nothing
	add(row(a.ID, tradewind.ModeTest, 4, search, 200, "", 10))
	want := []tradewind.UsageRow{
		row(a.ID, tradewind.ModeLive, 4, search, 200, "", 1),
		row(a.ID, tradewind.ModeTest, 4, "", 404, "not_found", 1),
		row(a.ID, tradewind.ModeTest, 4, search, 200, "", 15),
		row(a.ID, tradewind.ModeTest, 4, book, 409, "no_availability", 1),
		row(a.ID, tradewind.ModeTest, 5, search, 200, "", 7),
	}
	if d := cmp.Diff(want, list(a.ID, day(4), day(6))); d != "" {
		t.Errorf("UsageList (-want +got):\n%s", d)
	}
	if got := list(a.ID, day(5), day(6)); len(got) != 1 || got[0].Count != 7 {
		t.Errorf("UsageList of [5, 6) = %+v, want day 5 alone", got)
	}
	if got := list(a.ID, day(1), day(4)); len(got) != 0 {
		t.Errorf("UsageList of days before any request = %+v", got)
	}
	if got := list(b.ID, day(1), day(30)); len(got) != 1 || got[0].Count != 100 || got[0].PartnerID != b.ID {
		t.Errorf("UsageList of partner b = %+v, want its one counter", got)
	}

	// Several servers add to the same counters at once: nothing is lost, nothing deadlocks.
	var wg sync.WaitGroup
	const writers, adds = 8, 5
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range adds {
				rows := []tradewind.UsageRow{row(b.ID, tradewind.ModeLive, 10, search, 200, "", 1),
					row(b.ID, tradewind.ModeLive, 10, book, 201, "", 2)}
				if w%2 == 1 { // the other order: the store sorts
					rows[0], rows[1] = rows[1], rows[0]
				}
				if err := s.UsageAdd(ctx, rows); err != nil {
					t.Errorf("UsageAdd: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	got := list(b.ID, day(10), day(11))
	want = []tradewind.UsageRow{row(b.ID, tradewind.ModeLive, 10, search, 200, "", writers*adds),
		row(b.ID, tradewind.ModeLive, 10, book, 201, "", 2*writers*adds)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("concurrent UsageAdd (-want +got):\n%s", d)
	}

	// More counters than one statement takes.
	var many []tradewind.UsageRow
	for i := range 2500 {
		many = append(many, row(a.ID, tradewind.ModeLive, 20, fmt.Sprintf("GET /r%d", i), 200, "", 1))
	}
	add(many...)
	add(many...)
	got = list(a.ID, day(20), day(21))
	if len(got) != len(many) {
		t.Fatalf("UsageList after a large add: %d rows, want %d", len(got), len(many))
	}
	for _, r := range got {
		if r.Count != 2 {
			t.Fatalf("counter %+v after two adds of 1", r)
		}
	}
}
