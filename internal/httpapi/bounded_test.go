package httpapi_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestErrorListsAreBounded: a body listing thousands of bad values (child ages, event
// types, travellers, long strings quoted back) answers at most 50 problems, each short,
// then one entry saying how many more (decisions.md); the answer stays small.
func TestErrorListsAreBounded(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		env.Import(apitest.Catalog())
		env.Import(apitest.ProductsCatalog())
		p := env.NewPartner("acme", booking.PartnerParams{})
		long := strings.Repeat("x", 150) // quoted back in each problem
		many := func(n int, v any) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = v
			}
			return out
		}
		for _, tc := range []struct {
			name, path string
			body       map[string]any
		}{
			{"child ages", "/hotels/search", map[string]any{"destination": "Lisbon", "check_in": apitest.Day(1), "check_out": apitest.Day(2),
				"children": 2, "child_ages": many(40000, 99)}},
			{"event types", "/webhooks", map[string]any{"url": "https://hooks.example.com/", "event_types": many(5000, long)}},
			{"travellers", "/bookings/prebook", map[string]any{"product_type": "package", "package_id": apitest.PackageFixed,
				"departure_id": apitest.DepartureSoon, "adults": 1,
				"travellers": many(60, map[string]any{"type": long, "first_name": "", "nationality": long})}},
			{"unknown fields", "/hotels/search", func() map[string]any {
				m := map[string]any{}
				for i := range 5000 {
					m[strings.Repeat("f", 60)+strconv.Itoa(i)] = 1
				}
				return m
			}()},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := env.For(t).Post(p.TestKey, tc.path, tc.body)
				if r.Status < 400 || r.Status >= 500 {
					t.Fatalf("status %d: %.300s", r.Status, r.Raw)
				}
				if len(r.Errors) > 51 {
					t.Errorf("%d entries in errors, want at most 51", len(r.Errors))
				}
				for _, e := range r.Errors {
					if len(e) > 300 {
						t.Errorf("entry of %d bytes: %.80s…", len(e), e)
					}
				}
				if len(r.Errors) != 51 || !strings.Contains(r.Errors[50], "more problems") {
					t.Errorf("want 50 problems and a last entry saying how many more, got %q", r.Errors)
				}
				if len(r.Raw) > 32<<10 {
					t.Errorf("answer of %d bytes", len(r.Raw))
				}
			})
		}
	})
}
