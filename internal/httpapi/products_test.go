package httpapi_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// newProductsEnv starts the API over the products test catalog with one net-pricing partner.
func newProductsEnv(t *testing.T, o storetest.Opener) (*apitest.Env, *apitest.Partner) {
	t.Helper()
	env := apitest.New(t, o)
	env.Import(apitest.ProductsCatalog())
	return env, env.NewPartner("acme", booking.PartnerParams{})
}

// newCatalogsEnv starts the API over both test catalogs, hotels and the other products,
// with one net-pricing partner.
func newCatalogsEnv(t *testing.T, o storetest.Opener) (*apitest.Env, *apitest.Partner) {
	t.Helper()
	env := apitest.New(t, o)
	env.Import(apitest.Catalog())
	env.Import(apitest.ProductsCatalog())
	return env, env.NewPartner("acme", booking.PartnerParams{})
}

// idsOf returns the idField of every entry of the data array named list, in order.
func idsOf(t *testing.T, r *apitest.Response, list, idField string) []int64 {
	t.Helper()
	var data map[string]json.RawMessage
	r.Decode(t, &data)
	dec := json.NewDecoder(strings.NewReader(string(data[list])))
	dec.UseNumber()
	var raw []map[string]any
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("decode %s: %v (%s)", list, err, r.Raw)
	}
	ids := []int64{}
	for _, e := range raw {
		n, ok := e[idField].(json.Number)
		if !ok {
			t.Fatalf("%s entry without %s: %v", list, idField, e)
		}
		id, _ := n.Int64()
		ids = append(ids, id)
	}
	return ids
}

// wantIDs fails the test unless the search or availability list holds exactly ids.
func wantIDs(t *testing.T, r *apitest.Response, list, idField string, ids ...int64) {
	t.Helper()
	if got := idsOf(t, r, list, idField); !slices.Equal(got, ids) {
		t.Errorf("%s %s = %v, want %v; body %s", list, idField, got, ids, r.Raw)
	}
}

// wantRaw fails the test unless the raw body holds every fragment.
func wantRaw(t *testing.T, r *apitest.Response, fragments ...string) {
	t.Helper()
	for _, f := range fragments {
		if !strings.Contains(string(r.Raw), f) {
			t.Errorf("body lacks %s: %s", f, r.Raw)
		}
	}
}

// wantErrors fails the test unless errors holds an entry containing each want.
func wantErrors(t *testing.T, r *apitest.Response, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !contains(r.Errors, w) {
			t.Errorf("errors %q lack %q", r.Errors, w)
		}
	}
}

func TestActivitySearch(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		search := func(body map[string]any) *apitest.Response {
			return env.Post(p.TestKey, "/activities/search", body).Expect(t, 200, "")
		}
		// Two adults by default; cheapest first, the JPY activity after the EUR ones.
		r := search(map[string]any{"city": "LISBON", "date": apitest.Day(1)})
		wantIDs(t, r, "activities", "activity_id", apitest.ActivityTram, apitest.ActivityBoat, apitest.ActivityCooking, apitest.ActivityJPY)
		wantRaw(t, r, `"from_price":50.10,"currency":"EUR"`, `"from_price":6000,"currency":"JPY"`, `"adults":2,"children":0,"infants":0`,
			`"category":null`, `"pricing_mode":"net"`, `"seats_available":3`, `"total":4`, `"total_pages":1`)
		// Category matches ignoring case; it is echoed.
		r = search(map[string]any{"destination": "lisbon", "date": apitest.Day(1), "category": "FOOD"})
		wantIDs(t, r, "activities", "activity_id", apitest.ActivityCooking)
		wantRaw(t, r, `"category":"FOOD"`)
		// Four adults do not fit the 3-seat class; infants take no seat but pay.
		wantIDs(t, search(map[string]any{"destination": "Lisbon", "date": apitest.Day(1), "adults": 4}), "activities", "activity_id",
			apitest.ActivityTram, apitest.ActivityBoat, apitest.ActivityJPY)
		r = search(map[string]any{"destination": "Lisbon", "date": apitest.Day(1), "adults": 3, "infants": 5, "category": "food"})
		wantIDs(t, r, "activities", "activity_id", apitest.ActivityCooking)
		wantRaw(t, r, `"from_price":175.00`)
		// A closed day and another city.
		wantIDs(t, search(map[string]any{"destination": "Lisbon", "date": apitest.Day(30), "category": "tour"}), "activities", "activity_id")
		wantIDs(t, search(map[string]any{"destination": "Porto", "date": apitest.Day(1)}), "activities", "activity_id", apitest.ActivityPorto)
		// Pagination.
		r = search(map[string]any{"destination": "Lisbon", "date": apitest.Day(1), "page": 2, "per_page": 3})
		wantIDs(t, r, "activities", "activity_id", apitest.ActivityJPY)
		if !strings.Contains(string(r.Meta), `"page":2,"per_page":3,"total":4,"total_pages":2`) {
			t.Errorf("meta = %s", r.Meta)
		}
	})
}

func TestActivityRecordAndAvailability(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		rec := env.Get(p.TestKey, fmt.Sprintf("/activities/%d", apitest.ActivityTram)).Expect(t, 200, "")
		wantRaw(t, rec, `"type":"activity"`, `"languages":["en","pt"]`, `"duration_hours":2.5`,
			`"pricing":{"adult":25.05,"child":12.50,"infant":0.00,"currency":"EUR"}`)
		env.Get(p.TestKey, "/activities/abc").Expect(t, 400, "bad_request")
		env.Get(p.TestKey, "/activities/0").Expect(t, 400, "bad_request")
		env.Get(p.TestKey, "/activities/9999").Expect(t, 404, "not_found")
		env.Get(p.TestKey, fmt.Sprintf("/activities/%d", apitest.RentalLofts)).Expect(t, 404, "not_found")

		// Markup rounds each person line: 25.05 × 1.125 = 28.18125 → 28.18.
		m := env.NewPartner("resell", booking.PartnerParams{PricingMode: ptr("markup"), MarkupPercent: ptr("12.5")})
		wantRaw(t, env.Get(m.TestKey, fmt.Sprintf("/activities/%d", apitest.ActivityTram)), `"adult":28.18,"child":14.06`)

		avail := func(body map[string]any) *apitest.Response {
			return env.Post(p.TestKey, "/activities/availability", body).Expect(t, 200, "")
		}
		// One adult by default.
		wantRaw(t, avail(map[string]any{"activity_id": apitest.ActivityTram, "date": apitest.Day(1)}),
			`"adults":1,"children":0,"infants":0,"available":true,"seats_available":10`, `"total_price":25.05`, `"pricing_mode":"net"`)
		wantRaw(t, avail(map[string]any{"activity_id": apitest.ActivityTram, "date": apitest.Day(1), "adults": 2, "children": 1}), `"total_price":62.60`)
		wantRaw(t, avail(map[string]any{"activity_id": apitest.ActivityTram, "date": apitest.Day(30)}), `"available":false,"seats_available":0`)
		wantRaw(t, avail(map[string]any{"activity_id": apitest.ActivityCooking, "date": apitest.Day(1), "adults": 4}), `"available":false,"seats_available":3`)
		wantRaw(t, avail(map[string]any{"activity_id": apitest.ActivityBoat, "date": apitest.Day(1)}), `"instant_confirmation":false`)
		wantRaw(t, env.Post(m.TestKey, "/activities/availability", map[string]any{"activity_id": apitest.ActivityTram, "date": apitest.Day(1), "adults": 2, "children": 1}),
			`"total_price":70.42`, `"pricing_mode":"markup"`)
		env.Post(p.TestKey, "/activities/availability", map[string]any{"activity_id": 9999, "date": apitest.Day(1)}).Expect(t, 404, "not_found")
	})
}

func TestRentalSearchRecordAndAvailability(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		search := func(body map[string]any) *apitest.Response {
			return env.Post(p.TestKey, "/rentals/search", body).Expect(t, 200, "")
		}
		r := search(map[string]any{"city": "lisbon", "check_in": apitest.Day(1), "check_out": apitest.Day(3), "guests": 2})
		wantIDs(t, r, "rentals", "rental_id", apitest.RentalLofts, apitest.RentalPending, apitest.RentalGBP)
		wantRaw(t, r, `"nights":2,"guests":2,"pricing_mode":"net"`, `"available_spaces":2,"from_price":180.10,"currency":"EUR"`,
			`"instant_booking":false`, `"from_price":140.00,"currency":"GBP"`, `"total":3`)
		wantIDs(t, search(map[string]any{"destination": "Lisbon", "check_in": apitest.Day(1), "check_out": apitest.Day(3), "guests": 5}), "rentals", "rental_id", apitest.RentalPending)
		wantRaw(t, search(map[string]any{"destination": "Porto", "check_in": apitest.Day(1), "check_out": apitest.Day(2)}), `"guests":1`, `"rental_id":704`)
		r = search(map[string]any{"destination": "Lisbon", "check_in": apitest.Day(1), "check_out": apitest.Day(3), "per_page": 1, "page": 3})
		wantIDs(t, r, "rentals", "rental_id", apitest.RentalGBP)
		// Inventory ends on day 99.
		wantIDs(t, search(map[string]any{"destination": "Lisbon", "check_in": apitest.Day(98), "check_out": apitest.Day(101)}), "rentals", "rental_id")

		rec := env.Get(p.TestKey, fmt.Sprintf("/rentals/%d", apitest.RentalLofts)).Expect(t, 200, "")
		wantRaw(t, rec, `"type":"rental"`, `"check_in_time":"15:00"`, `"photos":[]`,
			`{"id":70101,"name":"Studio","space_type":"entire_place","max_guests":2,"from_price":90.05,"currency":"EUR","photos":["https://img.example.com/s.jpg"]}`)
		env.Get(p.TestKey, "/rentals/x1").Expect(t, 400, "bad_request")
		env.Get(p.TestKey, "/rentals/9999").Expect(t, 404, "not_found")

		avail := env.Post(p.TestKey, "/rentals/availability", map[string]any{"rental_id": apitest.RentalLofts, "check_in": apitest.Day(1), "check_out": apitest.Day(4), "guests": 3}).Expect(t, 200, "")
		wantIDs(t, avail, "available_spaces", "space_id", apitest.SpaceLoft)
		wantRaw(t, avail, `"nights":3,"guests":3,"instant_booking":true`, `"max_guests":4,"nights":3,"total_price":360.00,"currency":"EUR"`)
		// A live booking of the studio's second night removes it from a stay over that night.
		env.Book(p.LiveKey, "studio", withGuest(rentalQuote(apitest.RentalLofts, apitest.SpaceStudio, 2, 3, 1))).Expect(t, 201, "")
		avail = env.Post(p.TestKey, "/rentals/availability", map[string]any{"rental_id": apitest.RentalLofts, "check_in": apitest.Day(1), "check_out": apitest.Day(4)}).Expect(t, 200, "")
		wantIDs(t, avail, "available_spaces", "space_id", apitest.SpaceLoft)
		avail = env.Post(p.TestKey, "/rentals/availability", map[string]any{"rental_id": apitest.RentalLofts, "check_in": apitest.Day(3), "check_out": apitest.Day(4)}).Expect(t, 200, "")
		wantIDs(t, avail, "available_spaces", "space_id", apitest.SpaceStudio, apitest.SpaceLoft)
		env.Post(p.TestKey, "/rentals/availability", map[string]any{"rental_id": 9999, "check_in": apitest.Day(1), "check_out": apitest.Day(2)}).Expect(t, 404, "not_found")
	})
}

func TestPackageSearchAndRecord(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		search := func(body map[string]any) *apitest.Response {
			return env.Post(p.TestKey, "/packages/search", body).Expect(t, 200, "")
		}
		// The whole bookable window by default: the open package from today, the fixed
		// one at its cheaper later departure; the departure that left is not offered.
		r := search(map[string]any{"city": "LISBON"})
		wantIDs(t, r, "packages", "package_id", apitest.PackageOpen, apitest.PackageFixed)
		wantRaw(t, r, fmt.Sprintf(`"date_from":"%s"`, apitest.Day(0)), `"adults":2,"children":0,"infants":0,"pricing_mode":"net"`,
			fmt.Sprintf(`"departure_id":null,"travel_date":"%s","from_price":600.00`, apitest.Day(0)),
			fmt.Sprintf(`"departure_id":%d,"travel_date":"%s","from_price":960.00`, apitest.DepartureLater, apitest.Day(40)))
		r = search(map[string]any{"destination": "Lisbon", "date_from": apitest.Day(5), "date_to": apitest.Day(20), "children": 1})
		wantRaw(t, r, fmt.Sprintf(`"departure_id":%d,"travel_date":"%s","from_price":1350.00`, apitest.DepartureSoon, apitest.Day(10)),
			fmt.Sprintf(`"travel_date":"%s","from_price":800.00`, apitest.Day(5)))
		// Five adults: the 4-seat departure is skipped, the 6-seat open days are not.
		r = search(map[string]any{"destination": "Lisbon", "date_to": apitest.Day(20), "adults": 5})
		wantIDs(t, r, "packages", "package_id", apitest.PackageOpen)
		wantIDs(t, search(map[string]any{"destination": "Porto"}), "packages", "package_id", apitest.PackageUSD)
		r = search(map[string]any{"destination": "Lisbon", "per_page": 1, "page": 2})
		wantIDs(t, r, "packages", "package_id", apitest.PackageFixed)

		fixed := env.Get(p.TestKey, fmt.Sprintf("/packages/%d", apitest.PackageFixed)).Expect(t, 200, "")
		wantIDs(t, fixed, "departures", "id", apitest.DepartureSoon, apitest.DepartureLater)
		wantRaw(t, fixed, `"type":"package"`, `"kind":"fixed"`, `"duration_nights":3`, `"travel_dates":[],"pricing":null`,
			`"itinerary":[{"day":1,"title":"Arrival","description":"Transfer"}]`,
			`{"id":80111,"name":"Fado dinner","price_per_person":45.05,"currency":"EUR"}`,
			fmt.Sprintf(`{"id":80101,"date":"%s","end_date":"%s","seats_left":4,"pricing":{"adult":500.00,"child":350.00,"infant":50.00,"currency":"EUR"}}`, apitest.Day(10), apitest.Day(13)))
		open := env.Get(p.TestKey, fmt.Sprintf("/packages/%d", apitest.PackageOpen)).Expect(t, 200, "")
		wantRaw(t, open, `"kind":"open"`, `"departures":[]`, fmt.Sprintf(`"travel_dates":[{"start":"%s","end":"%s"}]`, apitest.Day(0), apitest.Day(99)),
			`"pricing":{"adult":300.00,"child":200.00,"infant":0.00,"currency":"EUR"}`)
		env.Get(p.TestKey, "/packages/-1").Expect(t, 400, "bad_request")
		env.Get(p.TestKey, "/packages/9999").Expect(t, 404, "not_found")
	})
}

func TestPackageAvailability(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		avail := func(body map[string]any) *apitest.Response {
			return env.Post(p.TestKey, "/packages/availability", body)
		}
		fixed := map[string]any{"package_id": apitest.PackageFixed, "departure_id": apitest.DepartureSoon, "children": 1, "addon_ids": []int{apitest.AddonFado}}
		wantRaw(t, avail(fixed).Expect(t, 200, ""),
			fmt.Sprintf(`"kind":"fixed","departure_id":80101,"travel_date":"%s","end_date":"%s","duration_nights":3`, apitest.Day(10), apitest.Day(13)),
			`"adults":2,"children":1,"infants":0,"available":true,"seats_left":4,"instant_confirmation":true`, `"package_price":1350.00`,
			`"addons":[{"id":80111,"name":"Fado dinner","price_per_person":45.05,"persons":3,"total_price":135.15,"currency":"EUR"}]`,
			`"total_price":1485.15,"currency":"EUR","pricing_mode":"net"`)
		wantRaw(t, avail(map[string]any{"package_id": apitest.PackageOpen, "travel_date": apitest.Day(5), "adults": 7}).Expect(t, 200, ""),
			`"departure_id":null`, `"available":false,"seats_left":6,"instant_confirmation":false`, `"package_price":2100.00`, `"addons":[]`)
		wantRaw(t, avail(map[string]any{"package_id": apitest.PackageOpen, "travel_date": apitest.Day(120)}).Expect(t, 200, ""), `"available":false,"seats_left":0`)
		// Markup rounds each person line: 500.00 × 1.125 = 562.50, 350.00 × 1.125 = 393.75,
		// and the dinner 45.05 × 1.125 = 50.68125 → 50.68 a person.
		m := env.NewPartner("resell", booking.PartnerParams{PricingMode: ptr("markup"), MarkupPercent: ptr("12.5")})
		wantRaw(t, env.Post(m.TestKey, "/packages/availability", fixed).Expect(t, 200, ""), `"package_price":1518.75`,
			`"price_per_person":50.68,"persons":3,"total_price":152.04`, `"total_price":1670.79,"currency":"EUR","pricing_mode":"markup"`)

		for _, c := range []struct {
			body map[string]any
			want string
		}{
			{map[string]any{"package_id": apitest.PackageFixed, "departure_id": apitest.DepartureUSD}, "is not a departure of package 801"},
			{map[string]any{"package_id": apitest.PackageFixed, "departure_id": apitest.DepartureGone}, "left on"},
			{map[string]any{"package_id": apitest.PackageFixed, "travel_date": apitest.Day(10)}, "fixed package; send departure_id"},
			{map[string]any{"package_id": apitest.PackageOpen, "departure_id": apitest.DepartureSoon}, "open package; send travel_date"},
			{map[string]any{"package_id": apitest.PackageOpen, "travel_date": apitest.Day(5), "addon_ids": []int{apitest.AddonFado}}, "80111 is not an add-on of package 802"},
			{map[string]any{"package_id": apitest.PackageOpen, "travel_date": apitest.Day(5), "departure_id": apitest.DepartureSoon}, "send one of them"},
		} {
			wantErrors(t, avail(c.body).Expect(t, 400, "bad_request"), c.want)
		}
		avail(map[string]any{"package_id": 9999, "travel_date": apitest.Day(5)}).Expect(t, 404, "not_found")
	})
}

func TestProductInputErrors(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		for _, c := range []struct {
			path  string
			body  any
			wants []string
		}{
			{"/activities/search", map[string]any{"date": "2027-13-01", "adults": 0, "children": -1, "infants": 11, "per_page": 500},
				[]string{"destination is required", `date: "2027-13-01" is not a date`, "adults: 0 is outside 1–30", "children: -1 is outside 0–20", "infants: 11 is outside 0–10", "per_page: must be 1–100"}},
			{"/activities/search", map[string]any{"destination": "Lisbon", "date": apitest.Day(-1), "colour": "blue", "adults": "two"},
				[]string{"colour: unknown field", "adults: must be an integer"}},
			{"/activities/availability", map[string]any{}, []string{"activity_id is required", "date is required"}},
			{"/activities/availability", map[string]any{"activity_id": 601, "date": apitest.Day(501)}, []string{"more than 500 days ahead"}},
			{"/rentals/search", map[string]any{"destination": "Lisbon", "check_in": apitest.Day(-1), "check_out": apitest.Day(40), "guests": 0},
				[]string{"check_in: " + apitest.Day(-1) + " is in the past", "check_out: a stay of 41 nights; at most 30", "guests: 0 is outside 1–60"}},
			{"/rentals/availability", map[string]any{"check_in": apitest.Day(3), "check_out": apitest.Day(3)},
				[]string{"rental_id is required", "check_out must be after check_in"}},
			{"/packages/search", map[string]any{"destination": "", "date_from": apitest.Day(9), "date_to": apitest.Day(8), "adults": 31},
				[]string{"destination is required", "date_to must not be before date_from", "adults: 31 is outside 1–30"}},
			{"/packages/availability", map[string]any{"addon_ids": []int{0, 5, 5}},
				[]string{"package_id is required", "departure_id (fixed package) or travel_date (open package) is required", "addon_ids[0]: must be a positive integer", "addon_ids[2]: add-on 5 is listed twice"}},
			{"/bookings/prebook", map[string]any{"product_type": "activity"}, []string{"activity_id is required", "date is required", "adults is required"}},
			{"/bookings/prebook", map[string]any{"product_type": "rental", "adults": 3, "guests": 2},
				[]string{"rental_id is required", "space_id is required", "check_in is required", "guests: 2 is fewer than adults + children (3)"}},
			{"/bookings/prebook", map[string]any{"product_type": "rental", "adults": 1}, []string{"guests is required"}},
			{"/bookings/prebook", map[string]any{"product_type": "rental", "adults": 1, "guests": -1}, []string{"guests: -1 is outside 1–60"}},
			{"/bookings/prebook", map[string]any{"product_type": "package", "travel_date": "soon"},
				[]string{"package_id is required", `travel_date: "soon" is not a date`, "adults is required"}},
			{"/bookings/prebook", withTravellers(activityQuote(apitest.ActivityTram, 1, 1, 0, 0), 1, 0, 0), []string{"travellers: not a field of an activity quote"}},
		} {
			r := env.Post(p.TestKey, c.path, c.body).Expect(t, 400, "bad_request")
			wantErrors(t, r, c.wants...)
		}
		// A quote's omitted adults is missing, said once: not also out of 1–30, nor too few
		// for its rooms.
		for _, q := range []map[string]any{
			{"product_type": "hotel", "hotel_id": apitest.HotelLisbon, "room_id": apitest.RoomDouble, "check_in": apitest.Day(3), "check_out": apitest.Day(4), "rooms": 2},
			{"product_type": "hotel", "hotel_id": apitest.HotelLisbon, "room_id": apitest.RoomDouble, "check_in": apitest.Day(3), "check_out": apitest.Day(4), "rooms": 9},
			{"product_type": "rental", "rental_id": apitest.RentalLofts, "space_id": apitest.SpaceLoft, "check_in": apitest.Day(3), "check_out": apitest.Day(5), "guests": 2},
		} {
			r := env.Post(p.TestKey, "/bookings/prebook", q).Expect(t, 400, "bad_request")
			if !slices.Equal(r.Errors, []string{"adults is required"}) {
				t.Errorf("%s without adults: errors %q, want only \"adults is required\"", q["product_type"], r.Errors)
			}
		}
		// Rooms out of range is its own problem, not also the adults'.
		noAdults := map[string]any{"product_type": "hotel", "hotel_id": apitest.HotelLisbon, "room_id": apitest.RoomDouble,
			"check_in": apitest.Day(3), "check_out": apitest.Day(4), "rooms": -1}
		r := env.Post(p.TestKey, "/bookings/prebook", noAdults).Expect(t, 400, "bad_request")
		if want := []string{"adults is required", "rooms: -1 is outside 1–9"}; !slices.Equal(r.Errors, want) {
			t.Errorf("hotel without adults, rooms -1: errors %q, want %q", r.Errors, want)
		}
	})
}

func TestProductNotEnabled(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, _ := newProductsEnv(t, o)
		hotelsOnly := env.NewKey("acme", booking.KeyParams{Mode: "test", Products: []string{"hotel"}})
		for _, c := range []struct {
			base  string
			id    int
			quote map[string]any
		}{
			{"/activities", apitest.ActivityTram, activityQuote(apitest.ActivityTram, 1, 1, 0, 0)},
			{"/rentals", apitest.RentalLofts, rentalQuote(apitest.RentalLofts, apitest.SpaceStudio, 1, 2, 1)},
			{"/packages", apitest.PackageOpen, withTravellers(openQuote(5, 1, 0, 0), 1, 0, 0)},
		} {
			// The product is checked before the body: even an empty body is 403.
			env.Post(hotelsOnly, c.base+"/search", map[string]any{}).Expect(t, 403, "product_not_enabled")
			env.Get(hotelsOnly, fmt.Sprintf("%s/%d", c.base, c.id)).Expect(t, 403, "product_not_enabled")
			env.Post(hotelsOnly, c.base+"/availability", map[string]any{}).Expect(t, 403, "product_not_enabled")
			env.Post(hotelsOnly, "/bookings/prebook", c.quote).Expect(t, 403, "product_not_enabled")
			env.Book(hotelsOnly, "k-"+c.base, withGuest(c.quote)).Expect(t, 403, "product_not_enabled")
		}
	})
}
