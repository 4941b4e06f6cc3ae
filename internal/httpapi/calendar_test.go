package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// calendarDate is one date of a calendar's answer, the unit under either name.
type calendarDate struct {
	CheckIn    string       `json:"check_in"`
	CheckOut   string       `json:"check_out"`
	Available  bool         `json:"available"`
	TotalPrice *json.Number `json:"total_price"`
	RoomID     *int64       `json:"room_id"`
	SpaceID    *int64       `json:"space_id"`
}

type calendarData struct {
	HotelID     int64          `json:"hotel_id"`
	RentalID    int64          `json:"rental_id"`
	From        string         `json:"from"`
	To          string         `json:"to"`
	Nights      int            `json:"nights"`
	Rooms       int            `json:"rooms"`
	Guests      int            `json:"guests"`
	Currency    string         `json:"currency"`
	PricingMode string         `json:"pricing_mode"`
	Dates       []calendarDate `json:"dates"`
}

func calendar(t *testing.T, env *apitest.Env, key, path string, body map[string]any) (calendarData, *apitest.Response) {
	t.Helper()
	r := env.Post(key, path, body).Expect(t, 200, "")
	var data calendarData
	r.Decode(t, &data)
	return data, r
}

// cheapestOffer is the first offer of an availability's list (cheapest first), as
// unit id and total, or 0 and "" when it lists none.
func cheapestOffer(t *testing.T, env *apitest.Env, key, path, list, idField string, body map[string]any) (int64, string) {
	t.Helper()
	var data map[string]json.RawMessage
	env.Post(key, path, body).Expect(t, 200, "").Decode(t, &data)
	var offers []map[string]any
	dec := json.NewDecoder(bytes.NewReader(data[list]))
	dec.UseNumber()
	if err := dec.Decode(&offers); err != nil {
		t.Fatal(err)
	}
	if len(offers) == 0 {
		return 0, ""
	}
	id, _ := offers[0][idField].(json.Number).Int64()
	return id, offers[0]["total_price"].(json.Number).String()
}

// wantAsAvailability checks every date of a calendar against the item's availability
// for that stay: the same cheapest unit at the same total, or nothing on both.
func wantAsAvailability(t *testing.T, env *apitest.Env, key string, cal calendarData, avail func(checkIn, checkOut string) (int64, string)) {
	t.Helper()
	for _, d := range cal.Dates {
		id, total := avail(d.CheckIn, d.CheckOut)
		unit := d.RoomID
		if unit == nil {
			unit = d.SpaceID
		}
		switch {
		case id == 0 && (d.Available || unit != nil || d.TotalPrice != nil):
			t.Errorf("%s: the availability lists nothing, the calendar %+v", d.CheckIn, d)
		case id != 0 && (!d.Available || unit == nil || *unit != id || d.TotalPrice == nil || d.TotalPrice.String() != total):
			t.Errorf("%s: the availability's cheapest is %d at %s, the calendar %+v", d.CheckIn, id, total, d)
		}
	}
}

func TestCalendars(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		for _, reads := range []string{"store", "model"} {
			t.Run(reads, func(t *testing.T) {
				t.Parallel()
				testCalendars(t, o, reads == "model")
			})
		}
	})
}

func testCalendars(t *testing.T, o storetest.Opener, withModel bool) {
	env := apitest.New(t, o)
	env.Import(apitest.Catalog())
	env.Import(apitest.ProductsCatalog())
	p := env.NewPartner("acme", booking.PartnerParams{})
	markup := env.NewPartner("markup", booking.PartnerParams{PricingMode: ptr("markup"), MarkupPercent: ptr("12.5")})
	if withModel {
		env.UseReadModel(false)
	}
	hotelAvail := func(key string, party map[string]any) func(in, out string) (int64, string) {
		return func(in, out string) (int64, string) {
			body := map[string]any{"hotel_id": apitest.HotelLisbon, "check_in": in, "check_out": out}
			for k, v := range party {
				body[k] = v
			}
			return cheapestOffer(t, env, key, "/hotels/availability", "available_rooms", "room_id", body)
		}
	}
	hotelCal := func(from, to int, extra ...any) map[string]any {
		body := map[string]any{"hotel_id": apitest.HotelLisbon, "from": apitest.Day(from), "to": apitest.Day(to)}
		for i := 0; i+1 < len(extra); i += 2 {
			body[extra[i].(string)] = extra[i+1]
		}
		return body
	}

	t.Run("hotel dates priced as the availability prices them", func(t *testing.T) {
		// Two adults fit only the Double, 100.05 a night but 200.00 on days 20 and 21.
		cal, r := calendar(t, env, p.TestKey, "/hotels/calendar", hotelCal(15, 25, "nights", 3))
		if cal.HotelID != apitest.HotelLisbon || cal.From != apitest.Day(15) || cal.To != apitest.Day(25) || cal.Nights != 3 ||
			cal.Rooms != 1 || cal.Currency != "EUR" || cal.PricingMode != "net" || len(cal.Dates) != 11 {
			t.Fatalf("calendar = %s", r.Raw)
		}
		if r.Message != nil {
			t.Errorf("message %q, want null", *r.Message)
		}
		for i, d := range cal.Dates {
			if d.CheckIn != apitest.Day(15+i) || d.CheckOut != apitest.Day(18+i) {
				t.Errorf("date %d: %s–%s, want %s–%s", i, d.CheckIn, d.CheckOut, apitest.Day(15+i), apitest.Day(18+i))
			}
		}
		want := map[int]string{15: "300.15", 18: "400.10", 19: "500.05", 20: "500.05", 21: "400.10", 22: "300.15"}
		for day, total := range want {
			d := cal.Dates[day-15]
			if d.TotalPrice == nil || d.TotalPrice.String() != total || d.RoomID == nil || *d.RoomID != apitest.RoomDouble {
				t.Errorf("check-in day %d: %+v, want the Double at %s", day, d, total)
			}
		}
		wantAsAvailability(t, env, p.TestKey, cal, hotelAvail(p.TestKey, nil))

		// One adult: the Single (80.00) is cheaper on every night; a market and markup
		// price as the availability does, per night then rounded once.
		one, _ := calendar(t, env, p.TestKey, "/hotels/calendar", hotelCal(18, 22, "nights", 2, "adults", 1))
		wantAsAvailability(t, env, p.TestKey, one, hotelAvail(p.TestKey, map[string]any{"adults": 1}))
		if d := one.Dates[0]; d.RoomID == nil || *d.RoomID != apitest.RoomSmall || d.TotalPrice.String() != "160.00" {
			t.Errorf("one adult: %+v, want the Single at 160.00", d)
		}
		gb, _ := calendar(t, env, markup.TestKey, "/hotels/calendar", hotelCal(18, 22, "nights", 2, "nationality_code", "GB", "rooms", 2, "adults", 3))
		wantAsAvailability(t, env, markup.TestKey, gb, hotelAvail(markup.TestKey, map[string]any{"nationality_code": "GB", "rooms": 2, "adults": 3}))
		if gb.PricingMode != "markup" || gb.Rooms != 2 || !gb.Dates[0].Available {
			t.Errorf("markup, GB, 2 rooms: %+v", gb)
		}
	})

	t.Run("the inventory's end and a default stay of one night", func(t *testing.T) {
		// The inventory's last night is day 99: a stay of 3 from day 97 ends it.
		cal, _ := calendar(t, env, p.TestKey, "/hotels/calendar", hotelCal(95, 100, "nights", 3))
		for i, d := range cal.Dates {
			if want := 95+i <= 97; d.Available != want || (d.RoomID == nil) == want || (d.TotalPrice == nil) == want {
				t.Errorf("check-in day %d: %+v, want available %v", 95+i, d, want)
			}
		}
		one, _ := calendar(t, env, p.TestKey, "/hotels/calendar", hotelCal(99, 99))
		if one.Nights != 1 || len(one.Dates) != 1 || one.Dates[0].CheckOut != apitest.Day(100) || one.Dates[0].TotalPrice.String() != "100.05" {
			t.Errorf("one date, default nights: %+v", one)
		}
	})

	t.Run("a month view may start in the past", func(t *testing.T) {
		// Today is day 0: days -3 to -1 are listed, with nothing available.
		cal, _ := calendar(t, env, p.TestKey, "/hotels/calendar", hotelCal(-3, 2, "nights", 2))
		if len(cal.Dates) != 6 || cal.Dates[0].CheckIn != apitest.Day(-3) {
			t.Fatalf("calendar = %+v", cal)
		}
		for i, d := range cal.Dates {
			if want := i >= 3; d.Available != want || (d.TotalPrice == nil) == want {
				t.Errorf("check-in day %d: %+v, want available %v", i-3, d, want)
			}
		}
		wantAsAvailability(t, env, p.TestKey, calendarData{Dates: cal.Dates[3:]}, hotelAvail(p.TestKey, nil))
		var act struct {
			Dates []struct {
				Available      bool `json:"available"`
				SeatsAvailable int  `json:"seats_available"`
			} `json:"dates"`
		}
		env.Post(p.TestKey, "/activities/calendar", map[string]any{"activity_id": apitest.ActivityTram, "from": apitest.Day(-2),
			"to": apitest.Day(0)}).Expect(t, 200, "").Decode(t, &act)
		if len(act.Dates) != 3 || act.Dates[0].Available || act.Dates[1].SeatsAvailable != 0 || !act.Dates[2].Available || act.Dates[2].SeatsAvailable != 10 {
			t.Errorf("activity days -2..0 = %+v", act.Dates)
		}
	})

	t.Run("a live sale shows at once, a test booking takes nothing", func(t *testing.T) {
		before, _ := calendar(t, env, p.LiveKey, "/hotels/calendar", hotelCal(40, 44, "nights", 2))
		// Every Double of night 42 sold, live: the check-ins of days 41 and 42 have no
		// room for two; the test booking of night 44 changes nothing.
		env.Book(p.LiveKey, "cal-live", withGuest(hotelQuote(42, 43, 5, 5))).Expect(t, 201, "")
		env.Book(p.TestKey, "cal-test", withGuest(hotelQuote(44, 45, 5, 5))).Expect(t, 201, "")
		after, _ := calendar(t, env, p.LiveKey, "/hotels/calendar", hotelCal(40, 44, "nights", 2))
		for i, d := range after.Dates {
			day := 40 + i
			if want := day != 41 && day != 42; d.Available != want {
				t.Errorf("check-in day %d after the sale: %+v, want available %v (before: %+v)", day, d, want, before.Dates[i])
			}
		}
		wantAsAvailability(t, env, p.LiveKey, after, hotelAvail(p.LiveKey, nil))
	})

	t.Run("a party no room takes says so", func(t *testing.T) {
		cal, r := calendar(t, env, p.TestKey, "/hotels/calendar", hotelCal(10, 12, "adults", 5))
		for _, d := range cal.Dates {
			if d.Available {
				t.Errorf("5 adults in one room: %+v", d)
			}
		}
		if r.Message == nil || *r.Message != "No room of Casa Teste takes 5 adults in 1 room; 3 rooms of Double would (rooms: 3)." {
			t.Errorf("message = %v", r.Message)
		}
	})

	t.Run("rental dates priced as the availability prices them", func(t *testing.T) {
		rentalAvail := func(guests int) func(in, out string) (int64, string) {
			return func(in, out string) (int64, string) {
				return cheapestOffer(t, env, p.LiveKey, "/rentals/availability", "available_spaces", "space_id",
					map[string]any{"rental_id": apitest.RentalLofts, "check_in": in, "check_out": out, "guests": guests})
			}
		}
		body := func(guests int) map[string]any {
			return map[string]any{"rental_id": apitest.RentalLofts, "from": apitest.Day(50), "to": apitest.Day(56), "nights": 2, "guests": guests}
		}
		// The studio (90.05, 2 guests) is cheaper than the loft (120.00, 4 guests);
		// 3 guests take only the loft. Then the studio is sold for night 53.
		two, r := calendar(t, env, p.LiveKey, "/rentals/calendar", body(2))
		if two.RentalID != apitest.RentalLofts || two.Guests != 2 || two.Currency != "EUR" || len(two.Dates) != 7 {
			t.Fatalf("calendar = %s", r.Raw)
		}
		if d := two.Dates[0]; d.SpaceID == nil || *d.SpaceID != apitest.SpaceStudio || d.TotalPrice.String() != "180.10" {
			t.Errorf("2 guests: %+v, want the studio at 180.10", d)
		}
		env.Book(p.LiveKey, "cal-rental", withGuest(rentalQuote(apitest.RentalLofts, apitest.SpaceStudio, 53, 54, 2))).Expect(t, 201, "")
		two, _ = calendar(t, env, p.LiveKey, "/rentals/calendar", body(2))
		for i, d := range two.Dates {
			want := int64(apitest.SpaceStudio)
			if day := 50 + i; day == 52 || day == 53 {
				want = apitest.SpaceLoft
			}
			if d.SpaceID == nil || *d.SpaceID != want {
				t.Errorf("check-in day %d: %+v, want space %d", 50+i, d, want)
			}
		}
		wantAsAvailability(t, env, p.LiveKey, two, rentalAvail(2))
		three, _ := calendar(t, env, p.LiveKey, "/rentals/calendar", body(3))
		wantAsAvailability(t, env, p.LiveKey, three, rentalAvail(3))
		if d := three.Dates[0]; d.SpaceID == nil || *d.SpaceID != apitest.SpaceLoft {
			t.Errorf("3 guests: %+v, want the loft", d)
		}
		seven, r7 := calendar(t, env, p.LiveKey, "/rentals/calendar", body(7))
		if seven.Dates[0].Available {
			t.Errorf("7 guests fit no space: %+v", seven.Dates[0])
		}
		// Said once as the availability says it, which names the largest space.
		const tooMany = "No space of Alfama Lofts takes 7 guests; the largest, Loft, takes 4 guests."
		if r7.Message == nil || *r7.Message != tooMany {
			t.Errorf("7 guests: message %v, want %q", r7.Message, tooMany)
		}
		avail := env.Post(p.LiveKey, "/rentals/availability", map[string]any{"rental_id": apitest.RentalLofts,
			"check_in": apitest.Day(50), "check_out": apitest.Day(52), "guests": 7}).Expect(t, 200, "")
		if avail.Message == nil || *avail.Message != tooMany {
			t.Errorf("7 guests' availability: message %v, want %q", avail.Message, tooMany)
		}
		if _, r3 := calendar(t, env, p.LiveKey, "/rentals/calendar", body(3)); r3.Message != nil {
			t.Errorf("3 guests: message %q, want none", *r3.Message)
		}
	})

	t.Run("activity seats by date as the availability tells them", func(t *testing.T) {
		// The tram has 10 seats a day but none on day 30, and no inventory past day 99;
		// the cooking class 3 a day, of which a live booking takes 3 on day 61.
		env.Book(p.LiveKey, "cal-activity", withGuest(activityQuote(apitest.ActivityCooking, 61, 2, 1, 0))).Expect(t, 201, "")
		for _, tc := range []struct {
			id       int64
			from, to int
			party    map[string]any
		}{
			{apitest.ActivityTram, 28, 32, map[string]any{"adults": 2, "children": 1, "infants": 1}},
			{apitest.ActivityTram, 97, 101, nil},
			{apitest.ActivityCooking, 59, 63, map[string]any{"adults": 3}},
			{apitest.ActivityCooking, 59, 63, map[string]any{"adults": 4}},
		} {
			body := map[string]any{"activity_id": tc.id, "from": apitest.Day(tc.from), "to": apitest.Day(tc.to)}
			for k, v := range tc.party {
				body[k] = v
			}
			r := env.Post(p.LiveKey, "/activities/calendar", body).Expect(t, 200, "")
			var cal struct {
				ActivityID int64       `json:"activity_id"`
				Adults     int         `json:"adults"`
				TotalPrice json.Number `json:"total_price"`
				Dates      []struct {
					Date           string `json:"date"`
					Available      bool   `json:"available"`
					SeatsAvailable int    `json:"seats_available"`
				} `json:"dates"`
			}
			r.Decode(t, &cal)
			if cal.ActivityID != tc.id || len(cal.Dates) != tc.to-tc.from+1 {
				t.Fatalf("calendar = %s", r.Raw)
			}
			for i, d := range cal.Dates {
				one := map[string]any{"activity_id": tc.id, "date": apitest.Day(tc.from + i)}
				for k, v := range tc.party {
					one[k] = v
				}
				var avail struct {
					Available      bool        `json:"available"`
					SeatsAvailable int         `json:"seats_available"`
					TotalPrice     json.Number `json:"total_price"`
				}
				env.Post(p.LiveKey, "/activities/availability", one).Expect(t, 200, "").Decode(t, &avail)
				if d.Date != apitest.Day(tc.from+i) || d.Available != avail.Available || d.SeatsAvailable != avail.SeatsAvailable ||
					cal.TotalPrice != avail.TotalPrice {
					t.Errorf("activity %d day %d: calendar %+v at %s, availability %+v", tc.id, tc.from+i, d, cal.TotalPrice, avail)
				}
			}
		}
		// The expected values themselves, not only the agreement.
		var tram struct {
			TotalPrice json.Number `json:"total_price"`
			Dates      []struct {
				Available      bool `json:"available"`
				SeatsAvailable int  `json:"seats_available"`
			} `json:"dates"`
		}
		env.Post(p.LiveKey, "/activities/calendar", map[string]any{"activity_id": apitest.ActivityTram, "from": apitest.Day(29),
			"to": apitest.Day(31), "adults": 2, "children": 1}).Expect(t, 200, "").Decode(t, &tram)
		if tram.TotalPrice != "62.60" || tram.Dates[0].SeatsAvailable != 10 || tram.Dates[1].Available || tram.Dates[1].SeatsAvailable != 0 || !tram.Dates[2].Available {
			t.Errorf("tram days 29–31 = %+v", tram)
		}
	})

	t.Run("bad requests list every problem", func(t *testing.T) {
		r := env.Post(p.TestKey, "/hotels/calendar", map[string]any{"hotel_id": 0, "nights": 31, "adults": 0, "rooms": 10}).Expect(t, 400, "bad_request")
		wantErrors(t, r, "hotel_id", "from is required", "to is required", "nights: 31 is outside 1–30", "adults: 0 is outside", "rooms: 10 is outside")
		r = env.Post(p.TestKey, "/hotels/calendar", hotelCal(-9, -1)).Expect(t, 400, "bad_request")
		wantErrors(t, r, fmt.Sprintf("to: %s is in the past", apitest.Day(-1)))
		r = env.Post(p.TestKey, "/hotels/calendar", hotelCal(10, 9)).Expect(t, 400, "bad_request")
		wantErrors(t, r, fmt.Sprintf("to: %s is before from (%s)", apitest.Day(9), apitest.Day(10)))
		r = env.Post(p.TestKey, "/hotels/calendar", hotelCal(10, 72)).Expect(t, 400, "bad_request")
		wantErrors(t, r, fmt.Sprintf("to: 63 dates from %s; at most 62 (to at most %s)", apitest.Day(10), apitest.Day(71)))
		if cal, _ := calendar(t, env, p.TestKey, "/hotels/calendar", hotelCal(10, 71)); len(cal.Dates) != 62 {
			t.Errorf("62 dates: %d", len(cal.Dates))
		}
		r = env.Post(p.TestKey, "/hotels/calendar", hotelCal(10, 12, "check_in", apitest.Day(10))).Expect(t, 400, "bad_request")
		wantErrors(t, r, "check_in")
		r = env.Post(p.TestKey, "/rentals/calendar", map[string]any{"rental_id": apitest.RentalLofts, "from": "2027-02-30", "to": apitest.Day(3), "guests": 0}).Expect(t, 400, "bad_request")
		wantErrors(t, r, `from: "2027-02-30" is not a date`, "guests: 0 is outside")
		env.Post(p.TestKey, "/hotels/calendar", map[string]any{"hotel_id": 999999, "from": apitest.Day(1), "to": apitest.Day(2)}).Expect(t, 404, "not_found")
		env.Post(p.TestKey, "/rentals/calendar", map[string]any{"rental_id": apitest.HotelLisbon, "from": apitest.Day(1), "to": apitest.Day(2)}).Expect(t, 404, "not_found")
		r = env.Post(p.TestKey, "/activities/calendar", map[string]any{"activity_id": apitest.ActivityTram, "from": apitest.Day(1), "to": apitest.Day(80), "nights": 2, "adults": 31}).Expect(t, 400, "bad_request")
		wantErrors(t, r, "nights: unknown field", "to: 80 dates from", "adults: 31 is outside 1–30")
		env.Post(p.TestKey, "/activities/calendar", map[string]any{"activity_id": apitest.RentalLofts, "from": apitest.Day(1), "to": apitest.Day(2)}).Expect(t, 404, "not_found")
		rentalsOnly := env.NewKey("acme", booking.KeyParams{Mode: "test", Products: []string{"rental"}})
		env.Post(rentalsOnly, "/hotels/calendar", hotelCal(1, 2)).Expect(t, 403, "product_not_enabled")
		catalogOnly := env.NewKey("acme", booking.KeyParams{Mode: "test", Scopes: []string{"catalog:read"}})
		env.Post(catalogOnly, "/rentals/calendar", map[string]any{"rental_id": apitest.RentalLofts, "from": apitest.Day(1), "to": apitest.Day(2)}).Expect(t, 403, "insufficient_scope")
	})
}
