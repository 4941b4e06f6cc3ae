package httpapi_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestErrorListsAreBounded: a body listing thousands of bad values (child ages, event
// types, travellers, long strings quoted back) answers at most 50 problems, each short,
// then one entry saying how many more (decisions.md); the answer stays small.
func TestErrorListsAreBounded(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newCatalogsEnv(t, o)
		long := strings.Repeat("x", 150) // quoted back in each problem
		many := func(n int, v any) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = v
			}
			return out
		}
		type bodyCase struct {
			name, path string
			body       map[string]any
			exactly    int // problems expected when the list is not cut at 50
		}
		for _, tc := range []bodyCase{
			{"child ages", "/hotels/search", map[string]any{"destination": "Lisbon", "check_in": apitest.Day(1), "check_out": apitest.Day(2),
				"children": 2, "child_ages": many(40000, 99)}, 0},
			{"event types", "/webhooks", map[string]any{"url": "https://hooks.example.com/", "event_types": many(5000, long)}, 0},
			{"travellers", "/bookings/prebook", map[string]any{"product_type": "package", "package_id": apitest.PackageFixed,
				"departure_id": apitest.DepartureSoon, "adults": 1,
				"travellers": many(60, map[string]any{"type": long, "first_name": "", "nationality": long})}, 0},
			{"add-on ids", "/packages/availability", map[string]any{"package_id": apitest.PackageFixed,
				"departure_id": apitest.DepartureSoon, "addon_ids": many(50000, -1)}, 0},
			{"duplicate add-on ids", "/bookings/prebook", map[string]any{"product_type": "package", "package_id": apitest.PackageFixed,
				"departure_id": apitest.DepartureSoon, "adults": 1, "addon_ids": many(50000, apitest.AddonFado)}, 0},
			{"traveller fields", "/bookings/prebook", map[string]any{"product_type": "package", "package_id": apitest.PackageFixed,
				"departure_id": apitest.DepartureSoon, "adults": 1, "travellers": many(20000, map[string]any{"age": 1})}, 0},
			{"foreign quote fields", "/bookings/prebook", map[string]any{"product_type": "activity", "activity_id": apitest.ActivityTram,
				"date": apitest.Day(1), "adults": 1, "check_in": long, "check_out": long, "rooms": -1, "guests": -1, "hotel_id": 1,
				"room_id": 1, "rental_id": 1, "space_id": 1, "package_id": 1, "departure_id": 1, "travel_date": long,
				"addon_ids": many(50000, -1), "child_ages": many(50000, -1), "nationality_code": long,
				"travellers": many(1, map[string]any{"type": "adult"})}, 15}, // one per foreign field, however long
			{"unknown fields", "/hotels/search", func() map[string]any {
				m := map[string]any{}
				for i := range 5000 {
					m[strings.Repeat("f", 60)+strconv.Itoa(i)] = 1
				}
				return m
			}(), 0},
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
				if tc.exactly > 0 {
					if len(r.Errors) != tc.exactly {
						t.Errorf("%d problems, want %d: %q", len(r.Errors), tc.exactly, r.Errors)
					}
				} else if len(r.Errors) != 51 || !strings.Contains(r.Errors[50], "more problems") {
					t.Errorf("want 50 problems and a last entry saying how many more, got %q", r.Errors)
				}
				if len(r.Raw) > 32<<10 {
					t.Errorf("answer of %d bytes", len(r.Raw))
				}
			})
		}
	})
}
