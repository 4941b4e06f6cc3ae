package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestUnknownQueryParameters: a query parameter an endpoint does not read is refused
// with 400, naming it and what the endpoint takes, as an unknown body field is; a GET's
// other problems join the list, and a write with one does nothing.
func TestUnknownQueryParameters(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		const takes = "it takes page, per_page, status, product_type, mode, created_from, created_to, service_from, service_to, partner_reference, q"

		// A misspelt filter is not every booking.
		r := env.Get(p.TestKey, "/bookings?stauts=cancelled").Expect(t, http.StatusBadRequest, "bad_request")
		if want := []string{"stauts: not a query parameter of GET /bookings; " + takes}; !slices.Equal(r.Errors, want) {
			t.Errorf("misspelt filter: errors %q, want %q", r.Errors, want)
		}
		// With the list's own problems, in one answer.
		r = env.Get(p.TestKey, "/bookings?status=bogus&per_page=0&zz=1&aa=2").Expect(t, http.StatusBadRequest, "bad_request")
		for _, want := range []string{"aa: not a query parameter of GET /bookings; " + takes, "zz: not a query parameter of GET /bookings; " + takes,
			"per_page: must be 1–100", `status: "bogus" is not one of confirmed, pending, on_request, cancelled, completed`} {
			if !contains(r.Errors, want) {
				t.Errorf("errors %q lack %q", r.Errors, want)
			}
		}
		r = env.Get(p.TestKey, "/meta/ping?verbose=1").Expect(t, http.StatusBadRequest, "bad_request")
		if want := []string{"verbose: not a query parameter of GET /meta/ping; it takes none"}; !slices.Equal(r.Errors, want) {
			t.Errorf("ping: errors %q, want %q", r.Errors, want)
		}
		// A write is refused before it runs: nothing is booked.
		env.Do(apitest.Request{Method: http.MethodPost, Path: "/bookings?dry_run=true", Key: p.TestKey, Body: withGuest(hotelQuote(1, 2, 1, 1)),
			Header: map[string]string{"Idempotency-Key": "k1"}}).Expect(t, http.StatusBadRequest, "bad_request")
		var list []map[string]any
		env.Get(p.TestKey, "/bookings").Expect(t, http.StatusOK, "").Decode(t, &list)
		if len(list) != 0 {
			t.Errorf("a booking with an unknown query parameter was made: %v", list)
		}
		// What an endpoint reads is accepted; a missing booking is 404 whatever its query.
		env.Get(p.TestKey, "/bookings?status=confirmed&page=1&per_page=5").Expect(t, http.StatusOK, "")
		env.Get(p.TestKey, "/events?per_page=5").Expect(t, http.StatusOK, "")
		env.Get(p.TestKey, "/webhooks?page=1").Expect(t, http.StatusOK, "")
		env.Get(p.TestKey, "/bookings/HTL-AAAAAAAA?x=1").Expect(t, http.StatusNotFound, "not_found")
	})
}

// TestOneAPIKeyHeader: a request with two auth-api-key headers is refused with 401,
// even when each is a valid key, rather than authenticated as one of them.
func TestOneAPIKeyHeader(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		status, body := sendHeaders(t, env, http.MethodGet, "/meta/ping", "", httpapi.HeaderAPIKey, p.TestKey, httpapi.HeaderAPIKey, p.LiveKey)
		if status != http.StatusUnauthorized || !strings.Contains(body, `"code":"unauthorized"`) ||
			!strings.Contains(body, "Send one auth-api-key header, not 2.") {
			t.Errorf("two keys: %d %s", status, body)
		}
		env.Get(p.TestKey, "/meta/ping").Expect(t, http.StatusOK, "")
	})
}

// TestOneHeader: two different Idempotency-Keys or Content-Types are refused with 400
// naming the header, rather than the first used: a proxy may read the other.
func TestOneHeader(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		quote, _ := json.Marshal(withGuest(hotelQuote(1, 2, 1, 1)))
		status, body := sendHeaders(t, env, http.MethodPost, "/bookings", string(quote), httpapi.HeaderAPIKey, p.LiveKey,
			"Content-Type", "application/json", "Idempotency-Key", "first", "Idempotency-Key", "second")
		if status != http.StatusBadRequest || !strings.Contains(body, `"Idempotency-Key: send one header, not 2"`) {
			t.Errorf("two Idempotency-Keys: %d %s", status, body)
		}
		if list := env.Get(p.LiveKey, "/bookings").Expect(t, http.StatusOK, ""); len(list.Maps(t)) != 0 {
			t.Errorf("two Idempotency-Keys made a booking: %s", list.Raw)
		}
		search := `{"destination":"Lisbon","check_in":"` + apitest.Day(1) + `","check_out":"` + apitest.Day(2) + `"}`
		status, body = sendHeaders(t, env, http.MethodPost, "/hotels/search", search, httpapi.HeaderAPIKey, p.TestKey,
			"Content-Type", "application/json", "Content-Type", "text/plain")
		if status != http.StatusBadRequest || !strings.Contains(body, `"Content-Type: send one header, not 2"`) {
			t.Errorf("two Content-Types: %d %s", status, body)
		}
		// The same value twice is no guess.
		if status, body = sendHeaders(t, env, http.MethodPost, "/hotels/search", search, httpapi.HeaderAPIKey, p.TestKey,
			"Content-Type", "application/json", "Content-Type", "application/json"); status != http.StatusOK {
			t.Errorf("one Content-Type twice: %d %s", status, body)
		}
	})
}

// sendHeaders sends a request with the header fields given as name, value pairs, a name
// given twice sent twice (apitest.Request sets each once), and returns the answer.
func sendHeaders(t *testing.T, env *apitest.Env, method, path, body string, fields ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, env.Server.URL+httpapi.Prefix+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		req.Header.Add(fields[i], fields[i+1])
	}
	res, err := env.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}
