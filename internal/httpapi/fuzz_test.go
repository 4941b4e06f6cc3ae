package httpapi_test

import (
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// FuzzNoServerErrors sends arbitrary bodies to every write endpoint: whatever a client
// sends, the answer is never a 5xx. `go test` runs the seeds; `go test -fuzz` explores.
func FuzzNoServerErrors(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `null`, `"x"`, `{"destination":"Lisbon","check_in":"2027-01-05","check_out":"2027-01-07"}`,
		`{"product_type":"hotel","hotel_id":501,"room_id":50101,"check_in":"2027-01-05","check_out":"2027-01-07","rooms":1,"adults":1,"guest":{"name":"A"}}`,
		`{"hotel_id":1e400}`, `{"adults":-9223372036854775808}`, `{"child_ages":[1,2,3],"children":3}`,
		`{"guest":"Ana"}`, `{"guest":{"name":null}}`, `{"prebook_token":"pbk_x","guest":{"name":"A"}}`,
		`{"check_in":"9999-12-31","check_out":"0000-01-01"}`, "{\"destination\":\"\u0000\"}", `{"rooms":99999999999}`,
		`{"product_type":"package","travellers":[{}]}`, `{"reason":5}`,
	} {
		f.Add(seed)
	}
	env := apitest.New(f, storetest.Openers()[0])
	env.Import(apitest.Catalog())
	p := env.NewPartner("fuzz", booking.PartnerParams{})
	paths := []string{"/hotels/search", "/hotels/availability", "/bookings/prebook", "/bookings", "/bookings/HTL-AAAAAAAA/cancel"}
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range paths {
			r := env.For(t).Do(apitest.Request{Method: "POST", Path: path, Key: p.LiveKey, Body: body, Header: map[string]string{"Idempotency-Key": "fuzz"}})
			if r.Status >= 500 {
				t.Fatalf("POST %s %q → %d %s", path, body, r.Status, r.Raw)
			}
		}
	})
}
