package httpapi_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestTravellerAgeOnTravelDate: a child's or an infant's age is judged on the travel
// date: one who is young enough today but not when the package starts is refused, on
// prebook and on book, for open and fixed packages.
func TestTravellerAgeOnTravelDate(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o) // today is 2027-01-04
		party := func(child, infant string) []map[string]any {
			return []map[string]any{{"type": "adult", "first_name": "Ana", "last_name": "Silva"},
				{"type": "child", "first_name": "Rui", "last_name": "Silva", "birth_date": child},
				{"type": "infant", "first_name": "Eva", "last_name": "Silva", "birth_date": infant}}
		}
		open := openQuote(90, 1, 1, 1) // travels 2027-04-04
		fixed := fixedQuote(apitest.DepartureLater, 1, 1, 1)
		for _, q := range []map[string]any{open, fixed} {
			// 18 on 2027-02-01 and 2 on 2027-02-01: right for today, too old on travel.
			q["travellers"] = party("2009-02-01", "2025-02-01")
			r := env.Post(p.LiveKey, "/bookings/prebook", q).Expect(t, 400, "bad_request")
			if len(r.Errors) != 2 || !strings.Contains(r.Errors[0], "travellers[1].birth_date: a child is under 18 on the travel date") ||
				!strings.Contains(r.Errors[1], "travellers[2].birth_date: an infant is under 2 on the travel date") {
				t.Errorf("errors = %q", r.Errors)
			}
			env.Book(p.LiveKey, "age-"+q["product_type"].(string), withGuest(q)).Expect(t, 400, "bad_request")
			// Young enough on the travel date: booked.
			q["travellers"] = party("2009-06-01", "2025-06-01")
			env.Post(p.LiveKey, "/bookings/prebook", q).Expect(t, 200, "")
		}
		bookOK(t, env, p.LiveKey, "age-ok", open)
	})
}

// TestFixedDepartureBeyond500Days: a departure more than 500 days ahead is refused like
// any other date: 400 on availability, prebook and book, and not listed on the record.
func TestFixedDepartureBeyond500Days(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		doc := apitest.ProductsCatalog()
		const far, edge = 80199, 80198
		for i := range doc.Packages {
			if doc.Packages[i].ID == apitest.PackageFixed {
				doc.Packages[i].Departures = append(doc.Packages[i].Departures,
					catalog.Departure{ID: far, Date: apitest.Day(501), Capacity: 5, Pricing: catalog.PersonPrices{Adult: 1000}},
					catalog.Departure{ID: edge, Date: apitest.Day(500), Capacity: 5, Pricing: catalog.PersonPrices{Adult: 1000}})
			}
		}
		env.Import(doc)
		p := env.NewPartner("acme", booking.PartnerParams{})
		for _, id := range []int64{far, edge} {
			q := fixedQuote(id, 1, 0, 0)
			aq := maps.Clone(q)
			delete(aq, "product_type")
			avail := env.Post(p.LiveKey, "/packages/availability", aq)
			prebook := env.Post(p.LiveKey, "/bookings/prebook", withTravellers(q, 1, 0, 0))
			book := env.Book(p.LiveKey, "far", withGuest(withTravellers(q, 1, 0, 0)))
			if id == edge {
				avail.Expect(t, 200, "")
				prebook.Expect(t, 200, "")
				book.Expect(t, 201, "")
				continue
			}
			for _, r := range []*apitest.Response{avail, prebook, book} {
				r.Expect(t, 400, "bad_request")
				if !slices.Equal(r.Errors, []string{"departure_id: the departure on " + apitest.Day(501) + " is more than 500 days ahead"}) {
					t.Errorf("errors = %q", r.Errors)
				}
			}
		}
		var rec struct {
			Departures []struct {
				ID int64 `json:"id"`
			} `json:"departures"`
		}
		env.Get(p.LiveKey, "/packages/801").Expect(t, 200, "").Decode(t, &rec)
		var ids []int64
		for _, d := range rec.Departures {
			ids = append(ids, d.ID)
		}
		if slices.Contains(ids, far) || !slices.Contains(ids, edge) {
			t.Errorf("record lists departures %v; want %d, not %d", ids, edge, far)
		}
	})
}

// availabilityEvents counts the partner's availability.changed events, and those of
// them whose date range is span.
func availabilityEvents(t *testing.T, env *apitest.Env, partnerID int64, span string) (int, int) {
	t.Helper()
	rows, err := env.Store.SQL().QueryContext(context.Background(),
		`SELECT data FROM events WHERE partner_id = $1 AND type = 'availability.changed' ORDER BY created_at, id`, partnerID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n, of := 0, 0
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var d map[string]any
		_ = json.Unmarshal([]byte(raw), &d)
		n++
		if d["start"].(string)+".."+d["end"].(string) == span {
			of++
		}
	}
	return n, of
}

// TestNoReopenedEventForClosedDay: an import that closes a sold-out day tells
// subscribers once; cancelling the booking of that day later does not announce it
// available again, because it is not. A sold-out day that is still open is announced.
func TestNoReopenedEventForClosedDay(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o, apitest.AllowPrivateWebhooks)
		env.Import(apitest.ProductsCatalog())
		p := env.NewPartner("acme", booking.PartnerParams{})
		env.Post(p.LiveKey, "/webhooks", map[string]any{"url": "https://127.0.0.1:9/hook", "event_types": []string{"availability.changed"}}).Expect(t, 201, "")
		closed := bookOK(t, env, p.LiveKey, "closed", activityQuote(apitest.ActivityCooking, 2, 3, 0, 0))["reference"].(string)
		open := bookOK(t, env, p.LiveKey, "open", activityQuote(apitest.ActivityCooking, 3, 3, 0, 0))["reference"].(string)
		day2, day3 := apitest.Day(2)+".."+apitest.Day(2), apitest.Day(3)+".."+apitest.Day(3)
		if n, _ := availabilityEvents(t, env, p.ID, ""); n != 2 {
			t.Fatalf("%d events after two sell-outs, want 2", n)
		}
		doc := apitest.ProductsCatalog()
		for i := range doc.Activities {
			if doc.Activities[i].ID == apitest.ActivityCooking {
				doc.Activities[i].Availability = append(doc.Activities[i].Availability, catalog.ActivityDays{Start: apitest.Day(2), End: apitest.Day(2), Capacity: 0})
			}
		}
		env.Import(doc)
		if n, of := availabilityEvents(t, env, p.ID, day2); n != 3 || of != 2 {
			t.Fatalf("after closing day 2: %d events, %d of day 2; want 3, 2 (sold out, closed)", n, of)
		}
		cancelBooking(env, p.LiveKey, closed).Expect(t, 200, "")
		if n, _ := availabilityEvents(t, env, p.ID, ""); n != 3 {
			t.Errorf("cancelling on a closed day emitted availability.changed (%d events)", n)
		}
		cancelBooking(env, p.LiveKey, open).Expect(t, 200, "")
		if n, of := availabilityEvents(t, env, p.ID, day3); n != 4 || of != 2 {
			t.Errorf("cancelling on an open sold-out day: %d events, %d of day 3; want 4, 2 (sold out, reopened)", n, of)
		}
	})
}
