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
		for _, reads := range []string{"store", "model"} {
			t.Run(reads, func(t *testing.T) { testHints(t, o, reads == "model") })
		}
	})
}

func testHints(t *testing.T, o storetest.Opener, withModel bool) {
	env, p := newCatalogsEnv(t, o)
	if withModel {
		env.UseReadModel(false)
	}
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
	// Lisbon has hotels, none for 20 adults in one room: the list is empty, and the
	// read model says how many rooms would (the suite takes 3 adults); the store, which
	// would read every hotel of the city for it, says nothing.
	want := `No hotel in "lisbon" takes 20 adults in 1 room; 7 rooms would at some (rooms: 7).`
	if !withModel {
		want = ""
	}
	if got := message(search("hotels", "lisbon", map[string]any{"adults": 20})); got != want {
		t.Errorf("20 adults in Lisbon: message %q, want %q", got, want)
	}
	// Sold out, not too big: no words.
	if got := message(search("hotels", "Porto", map[string]any{"check_in": apitest.Day(200), "check_out": apitest.Day(201)})); got != "" {
		t.Errorf("a search past the inventory: message %q, want null", got)
	}

	avail := func(adults, children, rooms int) *apitest.Response {
		body := map[string]any{"hotel_id": apitest.HotelLisbon, "check_in": apitest.Day(1),
			"check_out": apitest.Day(2), "adults": adults, "rooms": rooms}
		if children > 0 {
			ages := make([]int, children)
			for i := range ages {
				ages[i] = 8
			}
			body["children"], body["child_ages"] = children, ages
		}
		return env.Post(p.TestKey, "/hotels/availability", body).Expect(t, 200, "")
	}
	r := avail(5, 0, 1)
	if got := message(r); got != "No room of Casa Teste takes 5 adults in 1 room; 3 rooms of Double would (rooms: 3)." {
		t.Errorf("a party no room takes: message %q", got)
	}
	if rooms := r.Map(t)["available_rooms"].([]any); len(rooms) != 0 {
		t.Errorf("available_rooms %v, want none", rooms)
	}
	if got := message(avail(5, 0, 3)); got != "" { // the advice followed
		t.Errorf("5 adults in 3 rooms: message %q, want null", got)
	}
	// No number of rooms: one adult can fill one room, with at most one child.
	if got := message(avail(1, 3, 1)); !strings.HasPrefix(got, "No number of rooms of Casa Teste takes 1 adult and 3 children:") {
		t.Errorf("1 adult and 3 children: message %q", got)
	}
	// 30 adults need 15 doubles; at most 9 rooms are booked at once.
	if got := message(avail(30, 0, 9)); !strings.HasPrefix(got, "No number of rooms of Casa Teste takes 30 adults:") {
		t.Errorf("30 adults: message %q", got)
	}
}
