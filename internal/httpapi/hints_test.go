package httpapi_test

import (
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestHints: an empty search of a city with nothing of its product, and a hotel
// availability whose party no room takes, say so in the message; an empty answer for
// another cause (sold out, no date), and every non-empty one, keeps the message null.
func TestHints(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newCatalogsEnv(t, o)
		message := func(r *apitest.Response) string {
			t.Helper()
			if r.Message == nil {
				return ""
			}
			return *r.Message
		}
		search := func(product, city string, extra map[string]any) *apitest.Response {
			body := map[string]any{"destination": city}
			switch product {
			case "hotels", "rentals":
				body["check_in"], body["check_out"] = apitest.Day(1), apitest.Day(2)
			case "activities":
				body["date"] = apitest.Day(2)
			case "packages":
				body["date_from"], body["date_to"] = apitest.Day(1), apitest.Day(30)
			}
			for k, v := range extra {
				body[k] = v
			}
			return env.Post(p.TestKey, "/"+product+"/search", body).Expect(t, 200, "")
		}
		for _, product := range []string{"hotels", "activities", "rentals", "packages"} {
			got := message(search(product, "Lisbn", nil))
			if !strings.Contains(got, "There are no "+product+` in "Lisbn"`) || !strings.Contains(got, "GET /destinations") {
				t.Errorf("%s in a city without any: message %q", product, got)
			}
		}
		if got := message(search("hotels", "Lisbon", nil)); got != "" {
			t.Errorf("a search with hits: message %q, want null", got)
		}
		// Lisbon has hotels, none for 20 adults in one room: the list is empty, and no
		// city hint (the city is right).
		if got := message(search("hotels", "lisbon", map[string]any{"adults": 20})); got != "" {
			t.Errorf("an empty search in a city with hotels: message %q, want null", got)
		}

		avail := func(adults, rooms int) *apitest.Response {
			return env.Post(p.TestKey, "/hotels/availability", map[string]any{"hotel_id": apitest.HotelLisbon, "check_in": apitest.Day(1),
				"check_out": apitest.Day(2), "adults": adults, "rooms": rooms}).Expect(t, 200, "")
		}
		r := avail(5, 1)
		if got := message(r); got != "No room of Casa Teste takes 5 adults and 0 children in 1 room: the largest, Double, takes 2 adults and 1 child a room. Ask for more rooms." {
			t.Errorf("a party no room takes: message %q", got)
		}
		if rooms := r.Map(t)["available_rooms"].([]any); len(rooms) != 0 {
			t.Errorf("available_rooms %v, want none", rooms)
		}
		if got := message(avail(4, 2)); got != "" {
			t.Errorf("a party two doubles take: message %q, want null", got)
		}
	})
}
