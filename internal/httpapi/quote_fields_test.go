package httpapi_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestForeignQuoteFieldsRefused: each product takes exactly its quote fields
// (docs/products.md). A field of another product, with a value, is 400 bad_request
// naming it, on prebook and on a direct booking, and nothing is booked or stored.
func TestForeignQuoteFieldsRefused(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newCatalogsEnv(t, o)
		garbage := map[string]any{"hotel_id": 1, "room_id": 1, "activity_id": 1, "rental_id": 1, "space_id": -3,
			"package_id": 1, "departure_id": -1, "travel_date": "yesterday", "addon_ids": []int{-1, -1}, "check_in": "2026-02-31",
			"check_out": "nope", "date": "soon", "rooms": -2, "guests": -5, "child_ages": []int{99}, "nationality_code": "zz",
			"travellers": travellers(1, 0, 0)}
		for _, c := range []struct {
			name  string
			quote map[string]any
			own   []string // the product's own fields besides product_type and the party
		}{
			{"hotel", hotelQuote(1, 2, 1, 1), []string{"hotel_id", "room_id", "check_in", "check_out", "rooms", "child_ages", "nationality_code"}},
			{"activity", activityQuote(apitest.ActivityTram, 1, 1, 0, 0), []string{"activity_id", "date"}},
			{"rental", rentalQuote(apitest.RentalLofts, apitest.SpaceStudio, 1, 2, 1), []string{"rental_id", "space_id", "check_in", "check_out", "guests"}},
			{"package", fixedQuote(apitest.DepartureSoon, 1, 0, 0), []string{"package_id", "departure_id", "travel_date", "addon_ids", "travellers"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				env := env.For(t)
				q := maps.Clone(c.quote)
				var foreign []string
				for name, v := range garbage {
					if !slices.Contains(c.own, name) {
						q[name] = v
						foreign = append(foreign, name)
					}
				}
				slices.Sort(foreign)
				article := "a"
				if c.name == "activity" {
					article = "an"
				}
				check := func(r *apitest.Response) {
					t.Helper()
					r.Expect(t, 400, "bad_request")
					if len(r.Errors) != len(foreign) {
						t.Fatalf("errors %q, want one per foreign field %q", r.Errors, foreign)
					}
					for _, f := range foreign {
						want := f + ": not a field of " + article + " " + c.name + " quote"
						if !slices.Contains(r.Errors, want) {
							t.Errorf("errors %q lack %q", r.Errors, want)
						}
					}
				}
				check(env.Post(p.LiveKey, "/bookings/prebook", q))
				check(env.Book(p.LiveKey, "foreign-"+c.name, withGuest(q)))
				// One foreign field alone is refused too; the quote without it books.
				for _, f := range foreign {
					one := maps.Clone(c.quote)
					one[f] = garbage[f]
					r := env.Post(p.LiveKey, "/bookings/prebook", one).Expect(t, 400, "bad_request")
					if len(r.Errors) != 1 || !strings.HasPrefix(r.Errors[0], f+": not a field of") {
						t.Errorf("%s alone: %q", f, r.Errors)
					}
				}
				q = c.quote
				if c.name == "package" {
					q = withTravellers(q, 1, 0, 0)
				}
				env.Post(p.LiveKey, "/bookings/prebook", q).Expect(t, 200, "")
			})
		}
		var list []map[string]any
		env.Get(p.LiveKey, "/bookings").Decode(t, &list)
		if len(list) != 0 || creditOf(t, env, p.ID) != 0 {
			t.Errorf("refused quotes left %d bookings, credit %d", len(list), creditOf(t, env, p.ID))
		}
	})
}

// TestPrebookTokenWithQuoteFields: a booking from a prebook token takes the quote from
// the token; any quote field next to it (but travellers) is refused, naming it.
func TestPrebookTokenWithQuoteFields(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		token := env.Post(p.LiveKey, "/bookings/prebook", hotelQuote(1, 2, 1, 1)).Expect(t, 200, "").Map(t)["prebook_token"]
		r := env.Book(p.LiveKey, "tok", withGuest(map[string]any{"prebook_token": token, "adults": 3, "date": "x"})).Expect(t, 400, "bad_request")
		if !slices.Equal(r.Errors, []string{"date: send either a prebook_token or the quote fields, not both",
			"adults: send either a prebook_token or the quote fields, not both"}) {
			t.Errorf("errors = %q", r.Errors)
		}
		r = env.Book(p.LiveKey, "tok", withGuest(map[string]any{"prebook_token": token, "travellers": travellers(1, 0, 0)})).Expect(t, 400, "bad_request")
		if !slices.Equal(r.Errors, []string{"travellers: not a field of a hotel quote"}) {
			t.Errorf("errors = %q", r.Errors)
		}
		env.Book(p.LiveKey, "tok", withGuest(map[string]any{"prebook_token": token})).Expect(t, 201, "")
	})
}

// TestForeignFieldsWithTheRest: a field of another product is listed beside the
// problems of the quote's own fields, not instead of them (every problem at once), and
// another product's list sent empty ("addon_ids": [], as serializers that write every
// field send it) counts as not sent, as a zero does.
func TestForeignFieldsWithTheRest(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newCatalogsEnv(t, o)
		q := hotelQuote(1, 2, 1, 0)
		q["date"] = apitest.Day(1)
		r := env.Post(p.LiveKey, "/bookings/prebook", q).Expect(t, 400, "bad_request")
		if !slices.Contains(r.Errors, "date: not a field of a hotel quote") || !slices.Contains(r.Errors, "adults is required") {
			t.Errorf("errors %q: want the foreign field and the own field's problem", r.Errors)
		}
		a := activityQuote(apitest.ActivityTram, 1, 2, 0, 0)
		delete(a, "date")
		a["rooms"] = 1
		r = env.Post(p.LiveKey, "/bookings/prebook", a).Expect(t, 400, "bad_request")
		if !slices.Contains(r.Errors, "rooms: not a field of an activity quote") || !slices.Contains(r.Errors, "date is required") {
			t.Errorf("errors %q: want the foreign field and the missing date", r.Errors)
		}
		h := hotelQuote(1, 2, 1, 1)
		h["addon_ids"], h["travellers"], h["date"] = []int{}, []any{}, ""
		env.Post(p.LiveKey, "/bookings/prebook", h).Expect(t, 200, "")
		a = activityQuote(apitest.ActivityTram, 1, 1, 0, 0)
		a["child_ages"] = []int{}
		env.Post(p.LiveKey, "/bookings/prebook", a).Expect(t, 200, "")
	})
}
