package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

type feedEvent struct {
	ID      string         `json:"id"`
	Type    string         `json:"type"`
	Partner string         `json:"partner"`
	Data    map[string]any `json:"data"`
}

type feedMeta struct {
	PerPage   int     `json:"per_page"`
	HasMore   bool    `json:"has_more"`
	NextAfter *string `json:"next_after"`
}

// feedPage reads one page of GET /events?query.
func feedPage(t *testing.T, env *apitest.Env, key, query string) ([]feedEvent, feedMeta) {
	t.Helper()
	r := env.Get(key, "/events?"+query).Expect(t, 200, "")
	var list []feedEvent
	var meta feedMeta
	r.Decode(t, &list)
	if err := json.Unmarshal(r.Meta, &meta); err != nil {
		t.Fatal(err)
	}
	return list, meta
}

// feedAll walks the feed from after with pages of per, returning every event and the
// last cursor.
func feedAll(t *testing.T, env *apitest.Env, key, after string, per int, extra string) ([]feedEvent, string, int) {
	t.Helper()
	var all []feedEvent
	pages := 0
	for {
		q := fmt.Sprintf("per_page=%d%s", per, extra)
		if after != "" {
			q += "&after=" + after
		}
		list, meta := feedPage(t, env, key, q)
		pages++
		all = append(all, list...)
		if meta.NextAfter != nil {
			after = *meta.NextAfter
		}
		if !meta.HasMore {
			return all, after, pages
		}
		if pages > 100 {
			t.Fatal("the feed does not end")
		}
	}
}

func describe(list []feedEvent) string {
	var out []string
	for _, e := range list {
		s := e.Type
		if r, ok := e.Data["reference"].(string); ok {
			s += " " + r
		}
		if test, ok := e.Data["test"].(bool); ok {
			s += fmt.Sprintf(" test=%v", test)
		}
		if it, ok := e.Data["item_id"].(float64); ok {
			s += fmt.Sprintf(" %s %d", e.Data["product_type"], int64(it))
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

func TestEventFeed(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		// The catalog's import made availability.changed events; start after them.
		initial, start, _ := feedAll(t, env, p.TestKey, "", 100, "")
		if len(initial) != 4 || initial[0].Type != "availability.changed" {
			t.Fatalf("after the import: %s", describe(initial))
		}
		// No subscription at all: the feed has the partner's booking events all the same.
		b1 := bookOK(t, env, p.TestKey, "e1", hotelQuote(1, 2, 1, 2))["reference"].(string)
		b2 := bookOK(t, env, p.LiveKey, "e2", hotelQuote(1, 2, 1, 2))["reference"].(string)
		cancelBooking(env, p.LiveKey, b2).Expect(t, 200, "")
		other := env.NewPartner("globex", booking.PartnerParams{})
		bookOK(t, env, other.LiveKey, "o1", hotelQuote(4, 5, 1, 2))
		// A catalog change: availability.changed for every partner with hotels enabled.
		cat := apitest.Catalog()
		cat.Hotels[0].Rooms[0].Inventory[0].Price++
		env.Import(cat)
		// Five more test bookings, for paging.
		var more []string
		for i := range 5 {
			more = append(more, bookOK(t, env, p.TestKey, fmt.Sprint("m", i), hotelQuote(2, 3, 1, 1))["reference"].(string))
		}

		all, last, pages := feedAll(t, env, p.TestKey, start, 2, "")
		want := []string{"booking.confirmed " + b1 + " test=true", "booking.confirmed " + b2 + " test=false",
			"booking.cancelled " + b2 + " test=false", "availability.changed hotel 501"}
		for _, r := range more {
			want = append(want, "booking.confirmed "+r+" test=true")
		}
		if got := describe(all); got != strings.Join(want, "; ") {
			t.Fatalf("feed =\n%s\nwant\n%s", got, strings.Join(want, "; "))
		}
		if pages != 5 || last != all[len(all)-1].ID {
			t.Errorf("pages %d, last cursor %s", pages, last)
		}
		for _, e := range all {
			if e.Partner != "acme" || !strings.HasPrefix(e.ID, "evt_") {
				t.Errorf("event %+v", e)
			}
		}
		// Resuming from the last cursor: nothing new, the cursor stays.
		list, meta := feedPage(t, env, p.TestKey, "after="+last)
		if len(list) != 0 || meta.HasMore || meta.NextAfter == nil || *meta.NextAfter != last {
			t.Errorf("at the end: %v %+v", list, meta)
		}
		// A new event arrives after the cursor.
		cancelBooking(env, p.TestKey, b1).Expect(t, 200, "")
		list, _ = feedPage(t, env, p.TestKey, "after="+last)
		if describe(list) != "booking.cancelled "+b1+" test=true" {
			t.Errorf("after the cursor: %s", describe(list))
		}

		// Filters: type (repeated or comma-separated) and booking reference.
		typed, _, _ := feedAll(t, env, p.TestKey, start, 100, "&type=booking.cancelled")
		if describe(typed) != "booking.cancelled "+b2+" test=false; booking.cancelled "+b1+" test=true" {
			t.Errorf("type filter: %s", describe(typed))
		}
		typed, _, _ = feedAll(t, env, p.TestKey, start, 100, "&type=availability.changed,booking.cancelled&type=booking.cancelled")
		if len(typed) != 3 {
			t.Errorf("two types: %s", describe(typed))
		}
		byRef, _, _ := feedAll(t, env, p.TestKey, "", 100, "&reference="+b2)
		if describe(byRef) != "booking.confirmed "+b2+" test=false; booking.cancelled "+b2+" test=false" {
			t.Errorf("reference filter: %s", describe(byRef))
		}

		// One event by id; another partner's is 404; a key without hotels does not see
		// the hotel availability event.
		got := env.Get(p.LiveKey, "/events/"+all[0].ID).Expect(t, 200, "").Map(t)
		if got["id"] != all[0].ID || got["type"] != "booking.confirmed" {
			t.Errorf("event = %v", got)
		}
		theirs, _ := feedPage(t, env, other.LiveKey, "")
		if describe(theirs) == "" || strings.Contains(describe(theirs), b1) {
			t.Errorf("globex feed: %s", describe(theirs))
		}
		env.Get(other.LiveKey, "/events/"+all[0].ID).Expect(t, 404, "not_found")
		env.Get(p.LiveKey, "/events/evt_unknown").Expect(t, 404, "not_found")
		env.Get(p.LiveKey, "/events/nope").Expect(t, 404, "not_found")
		noHotels := env.NewKey("acme", booking.KeyParams{Mode: "test", Products: []string{"activity"}})
		list, _ = feedPage(t, env, noHotels, "per_page=100")
		if strings.Contains(describe(list), "availability.changed") || len(list) != len(all) { // all less one availability, plus one cancel
			t.Errorf("without hotels: %s", describe(list))
		}
		env.Get(noHotels, "/events/"+all[3].ID).Expect(t, 404, "not_found")

		// A cursor of another partner is treated as unknown: 410.
		env.Get(other.LiveKey, "/events?after="+all[0].ID).Expect(t, 410, "cursor_expired")
		env.Get(p.LiveKey, "/events?after=evt_doesnotexist").Expect(t, 410, "cursor_expired")

		// Bad parameters are listed at once.
		bad := env.Get(p.LiveKey, "/events?after=x&type=booking.updated&reference=nope&per_page=101").Expect(t, 400, "bad_request")
		wantErrors(t, bad, "after", "type", "reference", "per_page")
		// per_page is read as every list's is.
		wantErrors(t, bad, "per_page: must be 1–100")
		wantErrors(t, env.Get(p.LiveKey, "/events?per_page=ten").Expect(t, 400, "bad_request"), "per_page: must be an integer")
		wantErrors(t, env.Get(p.LiveKey, "/events?per_page=5&per_page=6").Expect(t, 400, "bad_request"), "per_page: given 2 times; give it once")

		// The scope is booking:read.
		noRead := env.NewKey("acme", booking.KeyParams{Mode: "test", Scopes: []string{"booking:write"}})
		env.Get(noRead, "/events").Expect(t, 403, "insufficient_scope")
	})
}

func TestEventFeedRetention(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		old := bookOK(t, env, p.TestKey, "r1", hotelQuote(40, 41, 1, 1))["reference"].(string)
		first, _ := feedPage(t, env, p.TestKey, "type=booking.confirmed")
		if len(first) != 1 {
			t.Fatalf("feed = %s", describe(first))
		}
		env.Clock.Advance(29 * 24 * time.Hour)
		recent := bookOK(t, env, p.TestKey, "r2", hotelQuote(40, 41, 1, 1))["reference"].(string)
		// At 29 days the old cursor still works.
		list, _ := feedPage(t, env, p.TestKey, "after="+first[0].ID)
		if describe(list) != "booking.confirmed "+recent+" test=true" {
			t.Errorf("after 29 days: %s", describe(list))
		}
		// Past 30 days the cursor is expired, and the feed starts after the old event.
		env.Clock.Advance(24*time.Hour + time.Minute)
		r := env.Get(p.TestKey, "/events?after="+first[0].ID).Expect(t, 410, "cursor_expired")
		if !strings.Contains(*r.Message, "30 days") {
			t.Errorf("message = %s", *r.Message)
		}
		env.Get(p.TestKey, "/events/"+first[0].ID).Expect(t, 404, "not_found")
		list, _ = feedPage(t, env, p.TestKey, "")
		if describe(list) != "booking.confirmed "+recent+" test=true" || strings.Contains(describe(list), old) {
			t.Errorf("after 30 days: %s", describe(list))
		}
	})
}

// TestEventFeedUnderConcurrentWrites reads the feed while bookings commit at once: a
// reader resuming from its cursor sees every event exactly once, none skipped.
func TestEventFeedUnderConcurrentWrites(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		_, cursor, _ := feedAll(t, env, p.TestKey, "", 100, "")
		seen := map[string]int{}
		done := make(chan struct{})
		var readErr error
		go func() {
			defer close(done)
			for i := 0; i < 200 && len(seen) < 24; i++ {
				q := "per_page=3&type=booking.confirmed&after=" + cursor
				r := env.For(t).Get(p.TestKey, "/events?"+q)
				if r.Status != 200 {
					readErr = fmt.Errorf("read: %s", r.Raw)
					return
				}
				var list []feedEvent
				var meta feedMeta
				_ = json.Unmarshal(r.Data, &list)
				_ = json.Unmarshal(r.Meta, &meta)
				for _, e := range list {
					seen[e.Data["reference"].(string)]++
				}
				cursor = *meta.NextAfter
			}
		}()
		rs := hammer(24, func(i int) *apitest.Response {
			return env.Book(p.TestKey, fmt.Sprint("c", i), withGuest(hotelQuote(1+i%5, 2+i%5, 1, 1)))
		})
		<-done
		if readErr != nil {
			t.Fatal(readErr)
		}
		// Whatever the reader had not reached yet is after its cursor.
		rest, _, _ := feedAll(t, env, p.TestKey, cursor, 100, "&type=booking.confirmed")
		for _, e := range rest {
			seen[e.Data["reference"].(string)]++
		}
		for _, r := range rs {
			r.Expect(t, 201, "")
			if ref := r.Map(t)["reference"].(string); seen[ref] != 1 {
				t.Errorf("%s seen %d times", ref, seen[ref])
			}
		}
		if len(seen) != 24 {
			t.Errorf("seen %d bookings, want 24", len(seen))
		}
	})
}
