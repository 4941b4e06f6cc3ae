package openapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/openapi"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestRoutesDocumented checks that the document lists exactly the routes the server
// serves under its prefix, and that its server URL is that prefix.
func TestRoutesDocumented(t *testing.T) {
	t.Parallel()
	doc, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := openapi.BasePath(); got != httpapi.Prefix {
		t.Errorf("document server %q, server prefix %q", got, httpapi.Prefix)
	}
	var documented []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	served := append(httpapi.Routes(), openapi.Routes()...)
	slices.Sort(documented)
	slices.Sort(served)
	for _, r := range served {
		if !slices.Contains(documented, r) {
			t.Errorf("%s is served but not documented", r)
		}
	}
	for _, r := range documented {
		if !slices.Contains(served, r) {
			t.Errorf("%s is documented but not served", r)
		}
	}
}

// TestQueryParametersDocumented checks that every endpoint documents exactly the query
// parameters it reads: the server refuses any other, so a parameter documented and not
// read would be refused, and one read and not documented would be unknown to partners.
func TestQueryParametersDocumented(t *testing.T) {
	t.Parallel()
	doc, err := openapi.Load()
	if err != nil {
		t.Fatal(err)
	}
	served := httpapi.RouteQueries()
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			route := method + " " + path
			reads, ok := served[route]
			if !ok {
				continue // not a partner endpoint (TestRoutesDocumented checks the list)
			}
			var documented []string
			for _, p := range append(item.Parameters, op.Parameters...) {
				if p.Value != nil && p.Value.In == "query" {
					documented = append(documented, p.Value.Name)
				}
			}
			slices.Sort(documented)
			reads = slices.Sorted(slices.Values(reads))
			if !slices.Equal(documented, reads) {
				t.Errorf("%s documents the query parameters %v, and reads %v", route, documented, reads)
			}
		}
	}
}

// TestEveryEndpoint calls every endpoint, with success and with the errors each can give
// without special configuration; apitest validates every response against the document.
func TestEveryEndpoint(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		env.Import(apitest.Demo(apitest.Start, 70))
		p := env.NewPartner("acme", booking.PartnerParams{})
		hotelsOnly := env.NewKey("acme", booking.KeyParams{Mode: "test", Products: []string{"hotel"}})
		readOnly := env.NewKey("acme", booking.KeyParams{Mode: "test", Scopes: []string{"catalog:read"}})
		day := apitest.Day

		type call struct {
			method, path string
			key          string
			body         any
			header       map[string]string
			status       int
			code         string
		}
		live := p.LiveKey
		calls := []call{
			{"GET", "/meta/ping", live, nil, nil, 200, ""},
			{"GET", "/meta/ping", "", nil, nil, 401, "unauthorized"},
			{"GET", "/meta/credit", live, nil, nil, 200, ""},
			{"GET", "/nowhere", live, nil, nil, 404, "not_found"},
			{"DELETE", "/meta/ping", live, nil, nil, 405, "method_not_allowed"},
			{"POST", "/openapi.json", "", "{}", nil, 405, "method_not_allowed"},
			{"DELETE", "/docs", "", nil, nil, 405, "method_not_allowed"},

			{"POST", "/hotels/search", live, map[string]any{"destination": "Lisbon", "check_in": day(1), "check_out": day(3)}, nil, 200, ""},
			{"POST", "/hotels/search", live, map[string]any{"city": "lisbon", "check_in": day(1), "check_out": day(3), "children": 1, "child_ages": []int{7}, "page": 2, "per_page": 1}, nil, 200, ""},
			{"POST", "/hotels/search", live, map[string]any{"destination": "Lisbon", "check_in": day(3), "check_out": day(1)}, nil, 400, "bad_request"},
			{"POST", "/hotels/search", live, `{"destination":`, nil, 400, "bad_request"},
			{"POST", "/hotels/search", live, map[string]any{"destination": "Lisbon", "check_in": day(1), "check_out": day(3), "stars": 5}, nil, 400, "bad_request"},
			{"POST", "/hotels/search", readOnly, map[string]any{"destination": "Lisbon", "check_in": day(1), "check_out": day(3)}, nil, 403, "insufficient_scope"},
			{"GET", "/hotels/1001", live, nil, nil, 200, ""},
			{"GET", "/hotels/999", live, nil, nil, 404, "not_found"},
			{"GET", "/hotels/abc", live, nil, nil, 400, "bad_request"},
			{"POST", "/hotels/availability", live, map[string]any{"hotel_id": 1001, "check_in": day(1), "check_out": day(3), "nationality_code": "GB"}, nil, 200, ""},
			{"POST", "/hotels/availability", live, map[string]any{"hotel_id": 999, "check_in": day(1), "check_out": day(3)}, nil, 404, "not_found"},

			{"POST", "/activities/search", live, map[string]any{"destination": "Lisbon", "date": day(2)}, nil, 200, ""},
			{"POST", "/activities/search", live, map[string]any{"destination": "Lisbon", "date": day(2), "category": "tour", "children": 1, "infants": 1}, nil, 200, ""},
			{"POST", "/activities/search", live, map[string]any{"destination": "Lisbon"}, nil, 400, "bad_request"},
			{"POST", "/activities/search", hotelsOnly, map[string]any{"destination": "Lisbon", "date": day(2)}, nil, 403, "product_not_enabled"},
			{"GET", "/activities/2001", live, nil, nil, 200, ""},
			{"GET", "/activities/1001", live, nil, nil, 404, "not_found"},
			{"POST", "/activities/availability", live, map[string]any{"activity_id": 2001, "date": day(2), "adults": 2}, nil, 200, ""},
			{"POST", "/activities/availability", live, map[string]any{"activity_id": 2001, "date": day(10)}, nil, 200, ""},
			{"POST", "/activities/availability", live, map[string]any{"activity_id": 9, "date": day(2)}, nil, 404, "not_found"},

			{"POST", "/rentals/search", live, map[string]any{"destination": "Barcelona", "check_in": day(1), "check_out": day(4), "guests": 2}, nil, 200, ""},
			{"POST", "/rentals/search", live, map[string]any{"destination": "Barcelona", "check_in": day(1)}, nil, 400, "bad_request"},
			{"GET", "/rentals/3001", live, nil, nil, 200, ""},
			{"GET", "/rentals/3999", live, nil, nil, 404, "not_found"},
			{"POST", "/rentals/availability", live, map[string]any{"rental_id": 3003, "check_in": day(1), "check_out": day(4), "guests": 2}, nil, 200, ""},
			{"POST", "/rentals/availability", live, map[string]any{"rental_id": 3999, "check_in": day(1), "check_out": day(4)}, nil, 404, "not_found"},

			{"POST", "/packages/search", live, map[string]any{"destination": "Lisbon"}, nil, 200, ""},
			{"POST", "/packages/search", live, map[string]any{"destination": "Porto", "date_from": day(5), "date_to": day(90), "adults": 2, "children": 1}, nil, 200, ""},
			{"POST", "/packages/search", live, map[string]any{"destination": "Lisbon", "date_from": day(9), "date_to": day(5)}, nil, 400, "bad_request"},
			{"GET", "/packages/4001", live, nil, nil, 200, ""},
			{"GET", "/packages/4002", live, nil, nil, 200, ""},
			{"GET", "/packages/4999", live, nil, nil, 404, "not_found"},
			{"POST", "/packages/availability", live, map[string]any{"package_id": 4001, "departure_id": 400101, "adults": 2, "addon_ids": []int{40011}}, nil, 200, ""},
			{"POST", "/packages/availability", live, map[string]any{"package_id": 4002, "travel_date": day(20), "adults": 1}, nil, 200, ""},
			{"POST", "/packages/availability", live, map[string]any{"package_id": 4001, "departure_id": 1}, nil, 400, "bad_request"},
			{"POST", "/packages/availability", live, map[string]any{"package_id": 4999, "departure_id": 1}, nil, 404, "not_found"},

			{"POST", "/bookings/prebook", live, map[string]any{"product_type": "activity", "activity_id": 2001, "date": day(2), "adults": 2}, nil, 200, ""},
			{"POST", "/bookings/prebook", live, map[string]any{"product_type": "hotel", "hotel_id": 999, "room_id": 1, "check_in": day(1), "check_out": day(2), "rooms": 1, "adults": 1}, nil, 422, "invalid_quote"},
			{"POST", "/bookings/prebook", live, map[string]any{"product_type": "package", "package_id": 4001, "departure_id": 400101, "adults": 2,
				"travellers": []map[string]any{{"type": "adult", "first_name": "Ana", "last_name": "Silva"}}}, nil, 422, "travellers_count_mismatch"},
			{"POST", "/bookings/prebook", hotelsOnly, map[string]any{"product_type": "rental", "rental_id": 3003, "space_id": 300301, "check_in": day(1), "check_out": day(2), "guests": 1, "adults": 1}, nil, 403, "product_not_enabled"},
			{"POST", "/bookings", live, map[string]any{"product_type": "hotel"}, nil, 400, "idempotency_key_required"},
			{"GET", "/bookings?page=0", live, nil, nil, 400, "bad_request"},
			{"GET", "/bookings/HTL-NOTFOUND", live, nil, nil, 404, "not_found"},
			{"POST", "/bookings/HTL-NOTFOUND/cancel", live, nil, nil, 404, "not_found"},
		}
		for _, c := range calls {
			r := env.Do(apitest.Request{Method: c.method, Path: c.path, Key: c.key, Body: c.body, Header: c.header})
			if r.Status != c.status || r.Code != c.code {
				t.Errorf("%s %s: %d %q, want %d %q: %s", c.method, c.path, r.Status, r.Code, c.status, c.code, r.Raw)
			}
		}

		// The booking flow of every product type, and its errors.
		guest := map[string]any{"name": "Ana Silva", "email": "ana@example.com", "phone": "+351 900 000 000", "special_requests": "Late arrival"}
		travellers := []map[string]any{
			{"type": "adult", "first_name": "Ana", "last_name": "Silva", "nationality": "PT"},
			{"type": "child", "first_name": "Rui", "last_name": "Silva", "birth_date": "2019-05-14"},
		}
		quotes := map[string]map[string]any{
			"hotel":    {"product_type": "hotel", "hotel_id": 1001, "room_id": 100101, "check_in": day(1), "check_out": day(3), "rooms": 1, "adults": 2},
			"activity": {"product_type": "activity", "activity_id": 2002, "date": day(2), "adults": 2, "children": 1, "infants": 1},
			"rental":   {"product_type": "rental", "rental_id": 3001, "space_id": 300101, "check_in": day(1), "check_out": day(4), "guests": 3, "adults": 2, "children": 1},
			"package":  {"product_type": "package", "package_id": 4001, "departure_id": 400101, "adults": 1, "children": 1, "addon_ids": []int{40011}},
			"open":     {"product_type": "package", "package_id": 4002, "travel_date": day(20), "adults": 1, "children": 1},
		}
		var refs []string
		for _, name := range []string{"hotel", "activity", "rental", "package", "open"} {
			q := quotes[name]
			direct := map[string]any{"guest": map[string]any{"name": "Rui"}} // a test booking takes no inventory
			for k, v := range q {
				direct[k] = v
			}
			if q["product_type"] == "package" {
				direct["travellers"] = travellers
			}
			env.Book(p.TestKey, "t-"+name, direct).Expect(t, 201, "")
			token := env.Post(live, "/bookings/prebook", q).Expect(t, 200, "").Map(t)["prebook_token"]
			body := map[string]any{"prebook_token": token, "guest": guest, "partner_reference": "PO-" + name}
			if q["product_type"] == "package" {
				body["travellers"] = travellers
				env.Book(live, "k-"+name, map[string]any{"prebook_token": token, "guest": guest}).Expect(t, 422, "travellers_count_mismatch")
			}
			ref := env.Book(live, "k-"+name, body).Expect(t, 201, "").Map(t)["reference"].(string)
			env.Book(live, "k-"+name, body).Expect(t, 200, "")
			refs = append(refs, ref)
		}
		env.Book(live, "dup", map[string]any{"guest": guest, "partner_reference": "PO-hotel", "product_type": "hotel", "hotel_id": 1001,
			"room_id": 100101, "check_in": day(5), "check_out": day(6), "rooms": 1, "adults": 1}).Expect(t, 409, "duplicate_partner_reference")
		token := env.Post(live, "/bookings/prebook", quotes["hotel"]).Expect(t, 200, "").Map(t)["prebook_token"]
		env.Clock.Advance(16 * 60 * 1e9)
		env.Book(live, "late", map[string]any{"prebook_token": token, "guest": guest}).Expect(t, 422, "prebook_expired")

		env.Get(live, "/bookings").Expect(t, 200, "")
		env.Get(live, "/bookings?page=2&per_page=3").Expect(t, 200, "")
		for _, ref := range refs {
			env.Get(live, "/bookings/"+ref).Expect(t, 200, "")
		}
		env.Do(apitest.Request{Method: "POST", Path: "/bookings/" + refs[0] + "/cancel", Key: live, Body: map[string]any{"reason": "plans changed"}}).Expect(t, 200, "")
		env.Do(apitest.Request{Method: "POST", Path: "/bookings/" + refs[0] + "/cancel", Key: live}).Expect(t, 422, "not_cancellable")
		env.Do(apitest.Request{Method: "POST", Path: "/bookings/" + refs[1] + "/cancel", Key: live, Body: map[string]any{"reason": strings.Repeat("x", 501)}}).Expect(t, 400, "bad_request")

		// A small credit line, then a blocked one.
		small := env.NewPartner("small", booking.PartnerParams{CreditLimit: ptr("10")})
		env.Book(small.LiveKey, "x", map[string]any{"guest": guest, "product_type": "hotel", "hotel_id": 1001, "room_id": 100101,
			"check_in": day(7), "check_out": day(8), "rooms": 1, "adults": 1}).Expect(t, 402, "insufficient_credit")

		// The documentation routes need no key.
		for _, path := range []string{"/openapi.json", "/openapi.yaml", "/docs"} {
			req, _ := http.NewRequest(http.MethodGet, env.URL+path, nil)
			resp, err := env.Server.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("GET %s: %d", path, resp.StatusCode)
			}
		}
	})
}

func ptr[T any](v T) *T { return &v }
