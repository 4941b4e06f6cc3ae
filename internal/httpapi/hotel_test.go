package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

func ptr[T any](v T) *T { return &v }

// newHotelEnv starts the API over the test catalog with one net-pricing partner.
func newHotelEnv(t *testing.T, o storetest.Opener) (*apitest.Env, *apitest.Partner) {
	t.Helper()
	env := apitest.New(t, o)
	env.Import(apitest.Catalog())
	return env, env.NewPartner("acme", booking.PartnerParams{})
}

func hotelQuote(checkIn, checkOut int, rooms, adults int) map[string]any {
	return map[string]any{"product_type": "hotel", "hotel_id": apitest.HotelLisbon, "room_id": apitest.RoomDouble,
		"check_in": apitest.Day(checkIn), "check_out": apitest.Day(checkOut), "rooms": rooms, "adults": adults}
}

func guest() map[string]any { return map[string]any{"name": "Ana Silva", "email": "ana@example.com"} }

func withGuest(q map[string]any, extra ...any) map[string]any {
	out := map[string]any{"guest": guest()}
	for k, v := range q {
		out[k] = v
	}
	for i := 0; i+1 < len(extra); i += 2 {
		out[extra[i].(string)] = extra[i+1]
	}
	return out
}

func TestAuthentication(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		env.Get("", "/meta/ping").Expect(t, 401, "unauthorized")
		env.Get("tw_test_notarealkeynotarealkeynotarealkey12", "/meta/ping").Expect(t, 401, "unauthorized")
		env.Get("garbage", "/meta/ping").Expect(t, 401, "unauthorized")

		ping := env.Get(p.TestKey, "/meta/ping").Expect(t, 200, "").Map(t)
		if ping["mode"] != "test" || ping["sandbox"] != true || ping["partner"] != "acme" || ping["pricing_mode"] != "net" {
			t.Errorf("test ping = %v", ping)
		}
		live := env.Get(p.LiveKey, "/meta/ping").Expect(t, 200, "").Map(t)
		if live["mode"] != "live" || live["sandbox"] != false {
			t.Errorf("live ping = %v", live)
		}

		// Expired and revoked keys are 401 and the message does not say which.
		if live["key_expires_at"] != nil {
			t.Errorf("a key that does not expire: key_expires_at %v, want null", live["key_expires_at"])
		}
		expiring := env.NewKey("acme", booking.KeyParams{Mode: "live", ExpiresAt: apitest.Start.Add(time.Hour)})
		if got := env.Get(expiring, "/meta/ping").Expect(t, 200, "").Map(t)["key_expires_at"]; got != apitest.Start.Add(time.Hour).UTC().Format(time.RFC3339) {
			t.Errorf("key_expires_at %v, want %s", got, apitest.Start.Add(time.Hour).UTC().Format(time.RFC3339))
		}
		env.Clock.Advance(2 * time.Hour)
		expired := env.Get(expiring, "/meta/ping").Expect(t, 401, "unauthorized")
		k, err := env.Store.KeyListByPartner(t.Context(), p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := env.Store.KeyRevoke(t.Context(), k[0].ID, env.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		revoked := env.Get(p.TestKey, "/meta/ping").Expect(t, 401, "unauthorized")
		if *expired.Message != *revoked.Message {
			t.Errorf("messages differ: %q vs %q", *expired.Message, *revoked.Message)
		}
		if strings.Contains(env.LogText(), p.TestKey) || strings.Contains(env.LogText(), expiring) {
			t.Error("a key appears in the logs")
		}
	})
}

func TestScopesAndProducts(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, _ := newHotelEnv(t, o)
		readOnly := env.NewKey("acme", booking.KeyParams{Mode: "test", Scopes: []string{"booking:read"}})
		search := map[string]any{"destination": "Lisbon", "check_in": apitest.Day(1), "check_out": apitest.Day(3)}
		env.Post(readOnly, "/hotels/search", search).Expect(t, 403, "insufficient_scope")
		env.Get(readOnly, fmt.Sprintf("/hotels/%d", apitest.HotelLisbon)).Expect(t, 403, "insufficient_scope")
		env.Book(readOnly, "k1", withGuest(hotelQuote(1, 3, 1, 2))).Expect(t, 403, "insufficient_scope")
		env.Get(readOnly, "/bookings").Expect(t, 200, "")
		env.Get(readOnly, "/meta/ping").Expect(t, 200, "")

		noHotels := env.NewKey("acme", booking.KeyParams{Mode: "test", Products: []string{"activity"}})
		env.Post(noHotels, "/hotels/search", search).Expect(t, 403, "product_not_enabled")
		env.Get(noHotels, fmt.Sprintf("/hotels/%d", apitest.HotelLisbon)).Expect(t, 403, "product_not_enabled")
		env.Post(noHotels, "/hotels/availability", map[string]any{"hotel_id": apitest.HotelLisbon, "check_in": apitest.Day(1), "check_out": apitest.Day(3)}).Expect(t, 403, "product_not_enabled")
		env.Post(noHotels, "/bookings/prebook", hotelQuote(1, 3, 1, 2)).Expect(t, 403, "product_not_enabled")
		env.Book(noHotels, "k2", withGuest(hotelQuote(1, 3, 1, 2))).Expect(t, 403, "product_not_enabled")
		// Before the body's problems, whether they are a rule's or a field's that failed
		// to decode: a partner is not sent to fix a body it cannot book with this key.
		env.Book(noHotels, "k3", map[string]any{"product_type": "hotel", "guest": map[string]any{}}).Expect(t, 403, "product_not_enabled")
		env.Book(noHotels, "k4", map[string]any{"product_type": "hotel", "hotel_id": "x", "guest": guest()}).Expect(t, 403, "product_not_enabled")
		env.Post(noHotels, "/bookings/prebook", map[string]any{"product_type": "hotel", "hotel_id": "x"}).Expect(t, 403, "product_not_enabled")
		env.Post(noHotels, "/bookings/prebook", map[string]any{"product_type": "hotel", "check_in": "soon", "adults": 99}).Expect(t, 403, "product_not_enabled")
		ping := env.Get(noHotels, "/meta/ping").Expect(t, 200, "").Map(t)
		if fmt.Sprint(ping["products"]) != "[activity]" {
			t.Errorf("products = %v", ping["products"])
		}
	})
}

func TestHotelSearch(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		res := env.Post(p.TestKey, "/hotels/search", map[string]any{"city": "LISBON", "check_in": apitest.Day(1), "check_out": apitest.Day(4)}).Expect(t, 200, "")
		var data searchData
		res.Decode(t, &data)
		if data.Nights != 3 || data.PricingMode != "net" || len(data.Hotels) != 3 {
			t.Fatalf("search = %s", res.Raw)
		}
		// Cheapest first in the partner's currency, then other currencies; the default
		// party of 2 adults does not fit the single room.
		if data.Hotels[0].HotelID != apitest.HotelLisbon || data.Hotels[0].FromPrice != "300.15" || data.Hotels[2].HotelID != apitest.HotelJPY {
			t.Errorf("hits = %+v", data.Hotels)
		}
		if !strings.Contains(string(res.Raw), `"from_price":300.15`) || !strings.Contains(string(res.Raw), `"total":3`) {
			t.Errorf("money or meta not rendered as expected: %s", res.Raw)
		}

		// city is destination's alias: both naming one city is that city, two cities a
		// problem rather than one of them silently read.
		both := map[string]any{"destination": "Lisbon", "city": " LISBON", "check_in": apitest.Day(1), "check_out": apitest.Day(4)}
		if r := env.Post(p.TestKey, "/hotels/search", both).Expect(t, 200, ""); !strings.Contains(string(r.Raw), `"total":3`) {
			t.Errorf("destination and city of one city: %s", r.Raw)
		}
		both["city"] = "Porto"
		wantErrors(t, env.Post(p.TestKey, "/hotels/search", both).Expect(t, 400, "bad_request"),
			`city: an alias of destination, and names another city ("Porto", "Lisbon"); give one of them`)

		// Market adjustment then rounding per night: 100.05 × 1.05 = 105.0525 → 105.05.
		gb := env.Post(p.TestKey, "/hotels/search", map[string]any{"destination": "lisbon", "check_in": apitest.Day(1), "check_out": apitest.Day(2), "nationality_code": "GB"}).Expect(t, 200, "")
		if !strings.Contains(string(gb.Raw), `"from_price":105.05`) {
			t.Errorf("GB market price: %s", gb.Raw)
		}

		// Pagination.
		page := env.Post(p.TestKey, "/hotels/search", map[string]any{"destination": "Lisbon", "check_in": apitest.Day(1), "check_out": apitest.Day(4), "per_page": 1, "page": 2}).Expect(t, 200, "")
		if !strings.Contains(string(page.Meta), `"page":2`) || !strings.Contains(string(page.Meta), `"total_pages":3`) {
			t.Errorf("meta = %s", page.Meta)
		}

		// Occupancy: 3 adults fit no single room of the Lisbon hotels except the on-request suite.
		big := env.Post(p.TestKey, "/hotels/search", map[string]any{"destination": "Lisbon", "check_in": apitest.Day(1), "check_out": apitest.Day(2), "adults": 3})
		big.Decode(t, &data)
		if len(data.Hotels) != 1 || data.Hotels[0].HotelID != apitest.HotelOnRequest {
			t.Errorf("3 adults: %s", big.Raw)
		}
		// Inventory ends on day 99: a stay past it finds nothing.
		env.Post(p.TestKey, "/hotels/search", map[string]any{"destination": "Lisbon", "check_in": apitest.Day(98), "check_out": apitest.Day(101)}).Decode(t, &data)
		if len(data.Hotels) != 0 {
			t.Errorf("past inventory: %+v", data.Hotels)
		}
	})
}

func TestMarkupPricing(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		env.Import(apitest.Catalog())
		p := env.NewPartner("resell", booking.PartnerParams{PricingMode: ptr("markup"), MarkupPercent: ptr("12.5")})
		res := env.Post(p.TestKey, "/hotels/availability", map[string]any{"hotel_id": apitest.HotelLisbon, "check_in": apitest.Day(1), "check_out": apitest.Day(3), "adults": 1}).Expect(t, 200, "")
		// 100.05 × 1.125 = 112.55625 → 112.56 per night; 80.00 × 1.125 = 90.00.
		if !strings.Contains(string(res.Raw), `"total_price":180.00`) || !strings.Contains(string(res.Raw), `"total_price":225.12`) || !strings.Contains(string(res.Raw), `"pricing_mode":"markup"`) {
			t.Errorf("markup availability: %s", res.Raw)
		}
		h := env.Get(p.TestKey, fmt.Sprintf("/hotels/%d", apitest.HotelLisbon)).Expect(t, 200, "")
		if !strings.Contains(string(h.Raw), `"from_price":90.00`) || !strings.Contains(string(h.Raw), `"price_per_night":112.56`) {
			t.Errorf("markup detail: %s", h.Raw)
		}
	})
}

// TestMarketAndMarkupRoundOnce: a GB guest at the Lisbon hotel (+5 % market) for a 5 %
// markup partner pays 100.05 × 1.05 × 1.05 = 110.305125 → 110.31 a night, rounded once
// (decisions.md); rounding after the market step gave 105.05 × 1.05 = 110.3025 → 110.30.
func TestMarketAndMarkupRoundOnce(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		env.Import(apitest.Catalog())
		p := env.NewPartner("resell5", booking.PartnerParams{PricingMode: ptr("markup"), MarkupPercent: ptr("5")})
		res := env.Post(p.TestKey, "/hotels/search", map[string]any{"destination": "Lisbon", "check_in": apitest.Day(1), "check_out": apitest.Day(2), "nationality_code": "GB"}).Expect(t, 200, "")
		if !strings.Contains(string(res.Raw), `"from_price":110.31`) {
			t.Errorf("market then markup, one rounding: %s", res.Raw)
		}
	})
}

func TestBadInput(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		r := env.Post(p.TestKey, "/hotels/search", map[string]any{"destination": 12, "check_in": "2027-02-30", "check_out": apitest.Day(2), "adults": "two", "colour": "blue"}).Expect(t, 400, "bad_request")
		for _, want := range []string{"destination: must be a string", "adults: must be an integer", "colour: unknown field"} {
			if !contains(r.Errors, want) {
				t.Errorf("errors %q lack %q", r.Errors, want)
			}
		}
		r = env.Post(p.TestKey, "/hotels/search", map[string]any{"destination": "Lisbon", "check_in": apitest.Day(3), "check_out": apitest.Day(3), "children": 2, "child_ages": []int{4}}).Expect(t, 400, "bad_request")
		if !contains(r.Errors, "check_out must be after check_in") || !contains(r.Errors, "child_ages: 1 age given for 2 children") {
			t.Errorf("errors = %q", r.Errors)
		}
		r = env.Post(p.TestKey, "/hotels/availability", map[string]any{"hotel_id": apitest.HotelLisbon, "check_in": apitest.Day(-1), "check_out": apitest.Day(40), "children": 1}).Expect(t, 400, "bad_request")
		if len(r.Errors) < 3 {
			t.Errorf("want every problem listed, got %q", r.Errors)
		}
		r = env.Post(p.TestKey, "/hotels/availability", map[string]any{"hotel_id": -1, "check_in": apitest.Day(1), "check_out": apitest.Day(2)}).Expect(t, 400, "bad_request")
		if len(r.Errors) != 1 || r.Errors[0] != "hotel_id: must be a positive integer" {
			t.Errorf("a negative id sent: errors = %q", r.Errors)
		}
		env.Post(p.TestKey, "/hotels/search", "{not json").Expect(t, 400, "bad_request")
		env.Post(p.TestKey, "/hotels/search", "[1,2]").Expect(t, 400, "bad_request")
		if r := env.Post(p.TestKey, "/hotels/search", " null ").Expect(t, 400, "bad_request"); len(r.Errors) != 1 || r.Errors[0] != "body: must be a JSON object" {
			t.Errorf("a null body: errors %q", r.Errors)
		}
		env.Do(apitest.Request{Method: "POST", Path: "/bookings/HTL-AAAAAAAA/cancel", Key: p.LiveKey, Body: "null"}).Expect(t, 400, "bad_request")
		// A byte order mark and a compressed body are named as such, not as bad JSON.
		if r := env.Post(p.TestKey, "/hotels/search", "\uFEFF{}").Expect(t, 400, "bad_request"); len(r.Errors) != 1 || !strings.HasPrefix(r.Errors[0], "body: starts with a byte order mark") {
			t.Errorf("a BOM: errors %q", r.Errors)
		}
		r = env.Do(apitest.Request{Method: "POST", Path: "/hotels/search", Key: p.TestKey, Body: "\x1f\x8b\x08", Header: map[string]string{"Content-Encoding": "gzip"}}).Expect(t, 400, "bad_request")
		if len(r.Errors) != 1 || r.Errors[0] != `Content-Encoding: "gzip" is not accepted; send the body uncompressed` {
			t.Errorf("gzip: errors %q", r.Errors)
		}
		env.Post(p.TestKey, "/hotels/search", "").Expect(t, 400, "bad_request")
		env.Post(p.TestKey, "/hotels/search", strings.Repeat(" ", 2<<20)).Expect(t, 400, "bad_request")
		env.Get(p.TestKey, "/hotels/abc").Expect(t, 400, "bad_request")
		for path, want := range map[string]string{"/hotels/+501": "id: must be a positive integer", "/hotels/-501": "id: must be a positive integer",
			"/hotels/99999999999999999999": "id: at most 9223372036854775807"} {
			if r := env.Get(p.TestKey, path).Expect(t, 400, "bad_request"); len(r.Errors) != 1 || r.Errors[0] != want {
				t.Errorf("GET %s: errors %q, want %q", path, r.Errors, want)
			}
		}
		env.Get(p.TestKey, "/hotels/999999").Expect(t, 404, "not_found")
		env.Get(p.TestKey, "/nowhere").Expect(t, 404, "not_found")
		// A 405 names the methods the path has (RFC 9110).
		for path, want := range map[string]string{"/hotels/search": "POST", "/bookings": "GET, HEAD, POST", "/webhooks/5": "DELETE"} {
			if got := env.Do(apitest.Request{Method: http.MethodPatch, Path: path, Key: p.TestKey}).Expect(t, 405, "method_not_allowed").Header.Get("Allow"); got != want {
				t.Errorf("PATCH %s: Allow %q, want %q", path, got, want)
			}
		}
		// A literal path is not read as a wildcard route's id: GET /hotels/search is
		// not GET /hotels/{id} with the id "search".
		for _, path := range []string{"/hotels/search", "/hotels/availability", "/activities/search", "/rentals/availability", "/packages/search", "/bookings/prebook"} {
			if got := env.Get(p.TestKey, path).Expect(t, 405, "method_not_allowed").Header.Get("Allow"); got != "POST" {
				t.Errorf("GET %s: Allow %q, want POST", path, got)
			}
			if status, _ := sendHeaders(t, env, http.MethodHead, path, "", "auth-api-key", p.TestKey); status != 405 {
				t.Errorf("HEAD %s: %d, want 405", path, status)
			}
		}
		env.Get(p.TestKey, "/hotels/search1").Expect(t, 400, "bad_request") // an id, not the search
		env.Do(apitest.Request{Method: http.MethodPost, Path: "/hotels/search", Key: p.TestKey, Body: "{}", Header: map[string]string{"Content-Type": "text/plain"}}).Expect(t, 400, "bad_request")
		// NUL characters are refused wherever text goes (PostgreSQL cannot store them).
		r = env.Post(p.TestKey, "/hotels/search", map[string]any{"destination": "Lis\u0000bon", "check_in": apitest.Day(1), "check_out": apitest.Day(2)}).Expect(t, 400, "bad_request")
		if !contains(r.Errors, "destination: must not contain the NUL character") {
			t.Errorf("errors = %q", r.Errors)
		}
		env.Book(p.LiveKey, "nul", withGuest(hotelQuote(1, 2, 1, 1), "partner_reference", "a\u0000b")).Expect(t, 400, "bad_request")
		env.Book(p.LiveKey, "nul", map[string]any{"prebook_token": "pbk_x", "guest": map[string]any{"name": "A", "special_requests": "\u0000"}}).Expect(t, 400, "bad_request")
		env.Do(apitest.Request{Method: "POST", Path: "/bookings/HTL-AAAAAAAA/cancel", Key: p.LiveKey, Body: map[string]any{"reason": "x\u0000"}}).Expect(t, 400, "bad_request")
		env.Get(p.TestKey, "/bookings/%00").Expect(t, 404, "not_found")
		env.Do(apitest.Request{Method: "POST", Path: "/bookings/%00/cancel", Key: p.LiveKey}).Expect(t, 404, "not_found")
		// Mass assignment: a booking body cannot set status, test or prices.
		r = env.Book(p.LiveKey, "mass", withGuest(hotelQuote(1, 2, 1, 1), "status", "confirmed", "total_price", 1, "test", true)).Expect(t, 400, "bad_request")
		if len(r.Errors) != 3 {
			t.Errorf("errors = %q", r.Errors)
		}
	})
}

// TestEveryProblemAtOnce: a body whose fields fail to decode (a wrong type, an unknown
// field) is answered with the rules' problems of the other fields too, in one list, and
// none about a field the decoding already named; a booking so checked is not made.
func TestEveryProblemAtOnce(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		expect := func(t *testing.T, r *apitest.Response, want []string, notAbout ...string) {
			t.Helper()
			for _, w := range want {
				if !contains(r.Errors, w) {
					t.Errorf("errors %q lack %q", r.Errors, w)
				}
			}
			for _, field := range notAbout {
				n := 0
				for _, e := range r.Errors {
					if strings.HasPrefix(e, field+":") || strings.HasPrefix(e, field+" ") {
						n++
					}
				}
				if n != 1 {
					t.Errorf("errors %q: want one problem about %s, got %d", r.Errors, field, n)
				}
			}
		}
		t.Run("search", func(t *testing.T) {
			r := env.Post(p.TestKey, "/hotels/search", map[string]any{"check_in": "2027-02-30", "check_out": apitest.Day(2), "adults": "two", "colour": "red"}).Expect(t, 400, "bad_request")
			expect(t, r, []string{"adults: must be an integer", "colour: unknown field", "destination", `check_in: "2027-02-30" is not a date`}, "adults")
		})
		t.Run("availability", func(t *testing.T) {
			r := env.Post(p.TestKey, "/hotels/availability", map[string]any{"hotel_id": "x", "check_in": apitest.Day(3), "check_out": apitest.Day(3)}).Expect(t, 400, "bad_request")
			expect(t, r, []string{"hotel_id: must be an integer", "check_out must be after check_in"}, "hotel_id")
		})
		t.Run("prebook", func(t *testing.T) {
			q := hotelQuote(-1, 2, 1, 1)
			q["room_id"], q["colour"] = "x", "red"
			r := env.Post(p.TestKey, "/bookings/prebook", q).Expect(t, 400, "bad_request")
			expect(t, r, []string{"room_id: must be an integer", "colour: unknown field", "check_in: " + apitest.Day(-1) + " is in the past"}, "room_id")
		})
		t.Run("book", func(t *testing.T) {
			q := hotelQuote(-1, 2, 1, 1)
			q["colour"], q["guest"] = "red", map[string]any{"name": ""}
			r := env.Book(p.LiveKey, "every-1", q).Expect(t, 400, "bad_request")
			expect(t, r, []string{"colour: unknown field", "guest.name", "check_in: " + apitest.Day(-1) + " is in the past"})
			// A quote field beside a token, an unknown field and a guest of the wrong type.
			r = env.Book(p.LiveKey, "every-2", map[string]any{"prebook_token": "pbk_x", "hotel_id": apitest.HotelLisbon, "guest": "Ana", "colour": 1}).Expect(t, 400, "bad_request")
			expect(t, r, []string{"guest: must be an object", "colour: unknown field", "hotel_id: send either a prebook_token or the quote fields"}, "guest")
			// A good booking but for one unknown field: the check runs nothing, so no
			// booking is made.
			r = env.Book(p.LiveKey, "every-3", withGuest(hotelQuote(1, 2, 1, 1), "colour", "red")).Expect(t, 400, "bad_request")
			if len(r.Errors) != 1 {
				t.Errorf("errors = %q", r.Errors)
			}
			if list := env.Get(p.LiveKey, "/bookings").Expect(t, 200, ""); len(list.Maps(t)) != 0 {
				t.Errorf("a body that failed to decode made a booking: %s", list.Raw)
			}
		})
		t.Run("not UTF-8", func(t *testing.T) {
			r := env.Post(p.TestKey, "/hotels/search", "{\"destination\":\"\xff\xfe\",\"check_in\":\""+apitest.Day(1)+"\",\"check_out\":\""+apitest.Day(2)+"\"}").Expect(t, 400, "bad_request")
			if len(r.Errors) != 1 || !strings.HasPrefix(r.Errors[0], "body: must be UTF-8") {
				t.Errorf("errors = %q", r.Errors)
			}
			env.Post(p.TestKey, "/hotels/search", map[string]any{"destination": "Lisboa ção 東京", "check_in": apitest.Day(1), "check_out": apitest.Day(2)}).Expect(t, 200, "")
		})
		t.Run("ambiguous", func(t *testing.T) {
			// A field given twice is refused, not read as its last (another parser
			// would read its first), with the rules' problems beside it.
			days := `"check_in":"` + apitest.Day(1) + `","check_out":"` + apitest.Day(2) + `"`
			r := env.Post(p.TestKey, "/hotels/search", `{"destination":"Lisbon","destination":"Porto",`+days+`,"adults":0}`).Expect(t, 400, "bad_request")
			expect(t, r, []string{"destination: given more than once in its object; send each field once", "adults: 0 is outside 1–30"})
			// Half a surrogate pair is no character: refused, not read as U+FFFD.
			r = env.Post(p.TestKey, "/hotels/search", `{"destination":"\ud800Lisbon",`+days+`}`).Expect(t, 400, "bad_request")
			expect(t, r, []string{`destination: holds the escape \ud800, half of a UTF-16 surrogate pair without its other half; send the character itself or both halves`})
			env.Post(p.TestKey, "/hotels/search", `{"destination":"Lisbon \ud83c\udf0a",`+days+`}`).Expect(t, 200, "")
			// A booking whose guest is named twice is not made.
			q := withGuest(hotelQuote(1, 2, 1, 1))
			body, _ := json.Marshal(q)
			dup := strings.Replace(string(body), `"guest":{`, `"guest":{"name":"Someone Else",`, 1)
			r = env.Book(p.LiveKey, "ambiguous-guest", dup).Expect(t, 400, "bad_request")
			expect(t, r, []string{"guest.name: given more than once in its object; send each field once"})
			if list := env.Get(p.LiveKey, "/bookings").Expect(t, 200, ""); len(list.Maps(t)) != 0 {
				t.Errorf("an ambiguous body made a booking: %s", list.Raw)
			}
		})
		t.Run("whole body", func(t *testing.T) {
			r := env.Post(p.TestKey, "/hotels/search", "{not json").Expect(t, 400, "bad_request")
			if len(r.Errors) != 1 || !strings.HasPrefix(r.Errors[0], "body: malformed JSON") {
				t.Errorf("errors = %q", r.Errors)
			}
		})
	})
}

// searchData decodes a hotel search without floating point.
type searchData struct {
	Nights      int    `json:"nights"`
	PricingMode string `json:"pricing_mode"`
	Hotels      []struct {
		HotelID   int64       `json:"hotel_id"`
		FromPrice json.Number `json:"from_price"`
	} `json:"hotels"`
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// TestGuestText: a guest's name and phone are one line of plain text (no control or
// bidirectional formatting character, which would change how the portal or a voucher
// shows them), and an e-mail has the shape of one; every problem is listed at once.
func TestGuestText(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		q := hotelQuote(1, 2, 1, 1)
		q["guest"] = map[string]any{"name": "Ana \u202eavliS", "email": "not-an-email", "phone": "+351\n21"}
		r := env.Book(p.LiveKey, "text-1", q).Expect(t, 400, "bad_request")
		for _, want := range []string{"guest.name: holds the control character U+202E; send plain text",
			`guest.email: "not-an-email" is not an e-mail address such as ana@example.com`,
			"guest.phone: holds the control character U+000A; send plain text"} {
			if !contains(r.Errors, want) {
				t.Errorf("errors %q lack %q", r.Errors, want)
			}
		}
		for _, email := range []string{"a@b", "@example.com", "a b@example.com", "a@@example.com", "ana@example.", "a@.example.com",
			"a@example..com", "<a@example.com>", "a@example.com\u200b"} {
			q["guest"] = map[string]any{"name": "Ana", "email": email}
			env.Book(p.LiveKey, "text-2", q).Expect(t, 400, "bad_request")
		}
		for _, name := range []string{"Ana\u2028Silva", "Ana\u200bSilva", "\ufeffAna", "Ana\u00adSilva", "Ana\tSilva"} {
			q["guest"] = map[string]any{"name": name}
			env.Book(p.LiveKey, "text-2", q).Expect(t, 400, "bad_request")
		}
		delete(q, "guest")
		r = env.Book(p.LiveKey, "text-2", withGuest(q, "partner_reference", "PO-\u202e1")).Expect(t, 400, "bad_request")
		if !contains(r.Errors, "partner_reference: holds the control character U+202E; send plain text") {
			t.Errorf("a partner reference with a bidi control: errors %q", r.Errors)
		}
		// Any letters, the joiners that Persian names and emoji need, and spaces around
		// an e-mail pasted with them are welcome.
		q["guest"] = map[string]any{"name": "Zoë Ñandú 北京 نیلوفر\u200cها 👩\u200d👩\u200d👧", "email": " zoë+trip@mail.exämple.pt ", "phone": "+351 21 000 0000"}
		env.Book(p.LiveKey, "text-3", q).Expect(t, 201, "")
	})
}

// TestIntegerListsElementByElement: a list of integers is read as a single integer
// field is (2.0 is 2), and a null, a fraction or a string in it is a problem naming its
// index, rather than a 0 nobody sent.
func TestIntegerListsElementByElement(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		avail := func(ages []any) *apitest.Response {
			return env.Post(p.TestKey, "/hotels/availability", map[string]any{"hotel_id": apitest.HotelLisbon,
				"check_in": apitest.Day(1), "check_out": apitest.Day(2), "adults": 2, "children": len(ages), "child_ages": ages})
		}
		wantErrors(t, avail([]any{nil}).Expect(t, 400, "bad_request"), "child_ages[0]: must be an integer")
		r := avail([]any{5, 2.5, "7", 1e300}).Expect(t, 400, "bad_request")
		wantErrors(t, r, "child_ages[1]: must be an integer", "child_ages[2]: must be an integer", "child_ages[3]: 1e+300 is out of range")
		if len(r.Errors) != 3 {
			t.Errorf("errors = %q, want three", r.Errors)
		}
		avail([]any{json.Number("4.0"), json.Number("3E0")}).Expect(t, 200, "")
	})
}
