package httpapi

import (
	"strings"
	"testing"

	"github.com/tradewind/tradewind"
)

// TestEndpointsDeclareTheirNeeds: every product endpoint declares its product (so the key
// is checked for it before the body is read) and only POST /bookings requires an
// Idempotency-Key.
func TestEndpointsDeclareTheirNeeds(t *testing.T) {
	t.Parallel()
	base := map[string]tradewind.ProductType{"/hotels/": tradewind.ProductHotel, "/activities/": tradewind.ProductActivity,
		"/rentals/": tradewind.ProductRental, "/packages/": tradewind.ProductPackage}
	var s Server
	for _, e := range s.endpoints() {
		var want tradewind.ProductType
		for prefix, p := range base {
			if strings.HasPrefix(e.path, prefix) {
				want = p
			}
		}
		if e.product != want {
			t.Errorf("%s %s: product %q, want %q", e.method, e.path, e.product, want)
		}
		if wantIdem := e.method == "POST" && e.path == "/bookings"; e.idempotent != wantIdem {
			t.Errorf("%s %s: idempotent %v, want %v", e.method, e.path, e.idempotent, wantIdem)
		}
		if e.h == nil {
			t.Errorf("%s %s: no handler", e.method, e.path)
		}
	}
}
