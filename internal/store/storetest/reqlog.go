package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// exerciseUsageCounters: UsageAdd adds to counters (also from many writers at once and
// with one counter repeated in a call), UsageList reads the partner's hours in [from, to)
// over at most store.UsageListMaxSpan, UsageRollup folds old hours into their day exactly.
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
		return tradewind.UsageRow{PartnerID: partner, Mode: mode, Hour: day(d), Route: route, Status: status, ErrorCode: code, Count: n}
	}
	search, book := "GET /hotels/search", "POST /bookings"
	// An hour given as any time in that hour counts on its UTC hour; the same counter
	// twice in one call is summed.
	late := row(a.ID, tradewind.ModeTest, 4, search, 200, "", 2)
	late.Hour = time.Date(2027, 1, 4, 0, 59, 0, 0, time.UTC).In(time.FixedZone("UTC+5", 5*3600)) // 05:59 there
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
	// A span longer than UsageListMaxSpan is cut at its start.
	if got := list(a.ID, day(1).AddDate(-1, 0, 0), day(5).Add(store.UsageListMaxSpan)); len(got) != 1 || got[0].Count != 7 {
		t.Errorf("UsageList of a too long span = %+v, want its last %v (day 5 alone)", got, store.UsageListMaxSpan)
	}

	// Hours: counted apart, listed by hour, rolled into their day's 00:00 hour before a
	// cut-off, in batches, without losing a request.
	feb := func(d, h int) time.Time { return time.Date(2027, 2, d, h, 0, 0, 0, time.UTC) }
	hourly := func(partner int64, at time.Time, n int64) tradewind.UsageRow {
		return tradewind.UsageRow{PartnerID: partner, Mode: tradewind.ModeLive, Hour: at, Route: search, Status: 200, Count: n}
	}
	add(hourly(a.ID, feb(1, 0), 1), hourly(a.ID, feb(1, 5), 2), hourly(a.ID, feb(1, 23), 4), hourly(a.ID, feb(2, 3), 8),
		hourly(b.ID, feb(1, 7), 16))
	if d := cmp.Diff([]tradewind.UsageRow{hourly(a.ID, feb(1, 5), 2), hourly(a.ID, feb(1, 23), 4)}, list(a.ID, feb(1, 1), feb(2, 3))); d != "" {
		t.Errorf("UsageList of hours [1 01:00, 2 03:00) (-want +got):\n%s", d)
	}
	for _, want := range []int{2, 1, 0} {
		n, err := s.UsageRollup(ctx, store.PruneParams{Before: feb(2, 0), Limit: 2})
		if err != nil || n != want {
			t.Fatalf("UsageRollup = %d, %v; want %d (limit 2, 3 hours to fold)", n, err, want)
		}
	}
	if d := cmp.Diff([]tradewind.UsageRow{hourly(a.ID, feb(1, 0), 7), hourly(a.ID, feb(2, 3), 8)}, list(a.ID, feb(1, 0), feb(3, 0))); d != "" {
		t.Errorf("partner a after UsageRollup (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]tradewind.UsageRow{hourly(b.ID, feb(1, 0), 16)}, list(b.ID, feb(1, 0), feb(3, 0))); d != "" {
		t.Errorf("partner b after UsageRollup (-want +got):\n%s", d)
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

// exerciseRequestLogs: entries are written in batches and read back whole (bodies with
// any bytes), listed newest first with every filter and keyset paging, scoped to their
// partner, and pruned per mode exactly up to the cut-off.
func exerciseRequestLogs(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := newPartner(t, s, "a"), newPartner(t, s, "b")
	entry := func(partner int64, mode tradewind.Mode, at time.Time, method, path string, status int) *store.RequestLogEntry {
		return &store.RequestLogEntry{PartnerID: partner, Mode: mode, At: at, Method: method, Path: path, Query: "city=Paris",
			Route: method + " " + path, Status: status, Duration: 1500 * time.Microsecond, KeyID: 7, KeyPrefix: "tw_test_ab",
			ClientAddr: "10.0.0.1", UserAgent: "sdk/1", RequestID: fmt.Sprintf("req-%s-%d", path, status),
			RequestBody: []byte(`{"a":1}`), RequestSize: 7, ResponseBody: []byte{'{', 0xff, 0, '}'}, ResponseSize: 100 << 10}
	}
	var all []*store.RequestLogEntry
	for i := range 450 { // more than one insert statement
		e := entry(a.ID, tradewind.ModeTest, now.Add(time.Duration(i)*time.Second), "GET", "/api/partner/v1/hotels/search", 200)
		if i%10 == 0 {
			e.Status, e.ErrorCode, e.Method, e.Path, e.RequestID = 404, "not_found", "POST", "/api/partner/v1/bookings", "same-id"
		}
		if i%3 == 0 {
			e.At = now.Add(time.Duration(i-1) * time.Second) // equal times: the id orders them
		}
		all = append(all, e)
	}
	live := entry(a.ID, tradewind.ModeLive, now, "GET", "/api/partner/v1/bookings", 500)
	live.Console, live.IdempotencyKey, live.ErrorCode = true, "idem-1", "internal_error"
	other := entry(b.ID, tradewind.ModeTest, now, "GET", "/api/partner/v1/hotels/search", 200)
	// Big bodies (the store may compress them) come back byte for byte, any bytes.
	other.RequestBody = []byte(`{"city":"` + strings.Repeat("LISBON ", 200) + `"}`)
	other.ResponseBody = append(bytes.Repeat([]byte{'{', 0xff, 0, 0x28, 0xb5, 0x2f, 0xfd, '}'}, 1000), `{"hotels":[]}`...)
	other.RequestSize, other.ResponseSize = int64(len(other.RequestBody)), int64(len(other.ResponseBody))
	if err := s.RequestLogInsert(ctx, append(all, live, other)); err != nil {
		t.Fatalf("RequestLogInsert: %v", err)
	}
	list := func(f store.RequestLogFilter) []*store.RequestLogEntry {
		t.Helper()
		if f.Limit == 0 {
			f.Limit = 1000
		}
		got, err := s.RequestLogList(ctx, f)
		if err != nil {
			t.Fatalf("RequestLogList(%+v): %v", f, err)
		}
		return got
	}
	// Paging through partner a's test entries, 7 at a time, gives each once, newest first.
	var paged []*store.RequestLogEntry
	f := store.RequestLogFilter{PartnerID: a.ID, Mode: tradewind.ModeTest, Limit: 7}
	for {
		page := list(f)
		paged = append(paged, page...)
		if len(page) < f.Limit {
			break
		}
		f.BeforeAt, f.BeforeID = page[len(page)-1].At, page[len(page)-1].ID
	}
	if len(paged) != len(all) {
		t.Fatalf("paging gave %d entries, want %d", len(paged), len(all))
	}
	for i := 1; i < len(paged); i++ {
		p, c := paged[i-1], paged[i]
		if c.At.After(p.At) || (c.At.Equal(p.At) && c.ID >= p.ID) {
			t.Fatalf("entries %d and %d out of order: %v/%d then %v/%d", i-1, i, p.At, p.ID, c.At, c.ID)
		}
	}
	if got := paged[0]; got.RequestBody != nil || got.ResponseBody != nil || got.KeyPrefix != "tw_test_ab" || got.Duration != 1500*time.Microsecond ||
		got.Query != "city=Paris" || got.ResponseSize != 100<<10 || got.PartnerID != a.ID {
		t.Errorf("list row = %+v", got)
	}
	count := func(f store.RequestLogFilter, want int) {
		t.Helper()
		if got := list(f); len(got) != want {
			t.Errorf("RequestLogList(%+v): %d entries, want %d", f, len(got), want)
		}
	}
	count(store.RequestLogFilter{PartnerID: a.ID}, 451)
	count(store.RequestLogFilter{PartnerID: a.ID, Mode: tradewind.ModeLive}, 1)
	count(store.RequestLogFilter{PartnerID: a.ID, StatusClass: 4}, 45)
	count(store.RequestLogFilter{PartnerID: a.ID, StatusClass: 5}, 1)
	count(store.RequestLogFilter{PartnerID: a.ID, Status: 404, ErrorCode: "not_found"}, 45)
	count(store.RequestLogFilter{PartnerID: a.ID, Method: "POST"}, 45)
	count(store.RequestLogFilter{PartnerID: a.ID, PathPrefix: "/api/partner/v1/hotels"}, 405)
	count(store.RequestLogFilter{PartnerID: a.ID, PathPrefix: "/api/partner/v1/hotels_"}, 0) // _ is no wildcard
	count(store.RequestLogFilter{PartnerID: a.ID, KeyPrefix: "tw_test_ab"}, 451)
	count(store.RequestLogFilter{PartnerID: a.ID, KeyPrefix: "tw_test_a"}, 0)
	count(store.RequestLogFilter{PartnerID: a.ID, Mode: tradewind.ModeTest, From: now.Add(100 * time.Second), To: now.Add(200 * time.Second)}, 100)
	count(store.RequestLogFilter{PartnerID: a.ID, RequestID: "req-/api/partner/v1/bookings-500"}, 1)
	count(store.RequestLogFilter{PartnerID: a.ID, RequestID: "same-id"}, 45) // every entry with the id
	count(store.RequestLogFilter{PartnerID: b.ID}, 1)
	count(store.RequestLogFilter{PartnerID: b.ID, RequestID: "req-/api/partner/v1/bookings-500"}, 0)

	got, err := s.RequestLogGet(ctx, a.ID, list(store.RequestLogFilter{PartnerID: a.ID, Mode: tradewind.ModeLive})[0].ID)
	if err != nil {
		t.Fatalf("RequestLogGet: %v", err)
	}
	want := *live
	want.ID, want.At = got.ID, got.At
	if d := cmp.Diff(&want, got); d != "" || !got.At.Equal(now.Truncate(time.Microsecond)) {
		t.Errorf("RequestLogGet (-want +got):\n%s (at %v)", d, got.At)
	}
	if !got.ResponseBodyTruncated() || got.RequestBodyTruncated() {
		t.Errorf("truncation marks: request %v response %v", got.RequestBodyTruncated(), got.ResponseBodyTruncated())
	}
	if _, err := s.RequestLogGet(ctx, b.ID, got.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RequestLogGet of another partner's entry: %v, want ErrNotFound", err)
	}
	gotOther, err := s.RequestLogGet(ctx, b.ID, list(store.RequestLogFilter{PartnerID: b.ID})[0].ID)
	if err != nil {
		t.Fatalf("RequestLogGet: %v", err)
	}
	if !bytes.Equal(gotOther.RequestBody, other.RequestBody) || !bytes.Equal(gotOther.ResponseBody, other.ResponseBody) ||
		gotOther.RequestBodyTruncated() || gotOther.ResponseBodyTruncated() {
		t.Errorf("big bodies read back as %d and %d bytes, want %d and %d", len(gotOther.RequestBody), len(gotOther.ResponseBody),
			len(other.RequestBody), len(other.ResponseBody))
	}

	// Pruning test entries older than now+100s deletes exactly those 100 (i < 100 and the
	// entries placed a second earlier), in batches; the live entry and partner b's test
	// entry at now go too only where they match the mode.
	cut := now.Add(100 * time.Second)
	var wantGone int
	for _, e := range all {
		if e.At.Before(cut) {
			wantGone++
		}
	}
	wantGone++ // partner b's test entry at now
	total := 0
	for {
		n, err := s.RequestLogPrune(ctx, store.RequestLogPruneParams{Mode: tradewind.ModeTest, Before: cut, Limit: 30})
		if err != nil {
			t.Fatalf("RequestLogPrune: %v", err)
		}
		if n > 30 {
			t.Fatalf("RequestLogPrune deleted %d, more than its limit", n)
		}
		if total += n; n < 30 {
			break
		}
	}
	if total != wantGone {
		t.Errorf("RequestLogPrune deleted %d, want %d", total, wantGone)
	}
	count(store.RequestLogFilter{PartnerID: a.ID, Mode: tradewind.ModeTest, To: cut}, 0)
	count(store.RequestLogFilter{PartnerID: a.ID, Mode: tradewind.ModeTest}, len(all)-wantGone+1)
	count(store.RequestLogFilter{PartnerID: a.ID, Mode: tradewind.ModeLive}, 1)

	// Usage counters of days before the cut-off go, in batches.
	var rows []tradewind.UsageRow
	for d := 1; d <= 5; d++ {
		rows = append(rows, tradewind.UsageRow{PartnerID: a.ID, Mode: tradewind.ModeLive, Hour: time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC),
			Route: "GET /x", Status: 200, Count: 1})
	}
	if err := s.UsageAdd(ctx, rows); err != nil {
		t.Fatal(err)
	}
	n, err := s.UsagePrune(ctx, store.PruneParams{Before: time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC), Limit: 2})
	if err != nil || n != 2 {
		t.Fatalf("UsagePrune = %d, %v; want 2 (its limit)", n, err)
	}
	n, err = s.UsagePrune(ctx, store.PruneParams{Before: time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC), Limit: 2})
	if err != nil || n != 1 {
		t.Fatalf("second UsagePrune = %d, %v; want 1", n, err)
	}
	left, err := s.UsageList(ctx, a.ID, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	if err != nil || len(left) != 2 || left[0].Hour.Day() != 4 {
		t.Errorf("usage left after pruning = %+v, %v; want days 4 and 5", left, err)
	}
}
