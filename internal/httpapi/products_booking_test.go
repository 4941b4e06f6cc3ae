package httpapi_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// partyQuote is a quote of a product for a party, with more fields as name, value pairs.
func partyQuote(product string, adults, children, infants int, fields ...any) map[string]any {
	q := map[string]any{"product_type": product, "adults": adults, "children": children, "infants": infants}
	for i := 0; i+1 < len(fields); i += 2 {
		q[fields[i].(string)] = fields[i+1]
	}
	return q
}

func activityQuote(id int64, day, adults, children, infants int) map[string]any {
	return partyQuote("activity", adults, children, infants, "activity_id", id, "date", apitest.Day(day))
}

// rentalQuote is a stay of adult guests in one space from day in to day out.
func rentalQuote(rentalID, spaceID int64, in, out, guests int) map[string]any {
	return partyQuote("rental", guests, 0, 0, "rental_id", rentalID, "space_id", spaceID,
		"check_in", apitest.Day(in), "check_out", apitest.Day(out), "guests", guests)
}

func fixedQuote(departureID int64, adults, children, infants int) map[string]any {
	return partyQuote("package", adults, children, infants, "package_id", apitest.PackageFixed, "departure_id", departureID)
}

func openQuote(day, adults, children, infants int) map[string]any {
	return partyQuote("package", adults, children, infants, "package_id", apitest.PackageOpen, "travel_date", apitest.Day(day))
}

// travellers names a party: adults, then children born 2017, then infants born 2026.
func travellers(adults, children, infants int) []map[string]any {
	out := []map[string]any{}
	add := func(n int, typ, born string) {
		for range n {
			e := map[string]any{"type": typ, "first_name": fmt.Sprint("Person", len(out)), "last_name": "Silva"}
			if born != "" {
				e["birth_date"] = born
			}
			out = append(out, e)
		}
	}
	add(adults, "adult", "")
	add(children, "child", "2017-05-09")
	add(infants, "infant", "2026-06-01")
	return out
}

// withTravellers returns a copy of q naming the given party as its travellers.
func withTravellers(q map[string]any, adults, children, infants int) map[string]any {
	out := maps.Clone(q)
	out["travellers"] = travellers(adults, children, infants)
	return out
}

// bookOK books q with a guest and returns the created booking.
func bookOK(t *testing.T, env *apitest.Env, key, idem string, q map[string]any) map[string]any {
	t.Helper()
	return env.Book(key, idem, withGuest(q)).Expect(t, 201, "").Map(t)
}

// cancelBooking cancels a booking.
func cancelBooking(env *apitest.Env, key, ref string) *apitest.Response {
	return env.Do(apitest.Request{Method: "POST", Path: "/bookings/" + ref + "/cancel", Key: key})
}

// statusOf reads a booking's status.
func statusOf(t *testing.T, env *apitest.Env, key, ref string) any {
	t.Helper()
	return env.Get(key, "/bookings/"+ref).Expect(t, 200, "").Map(t)["status"]
}

// wantDetails checks a booking's reference prefix, status and its details' exact keys.
func wantDetails(t *testing.T, b map[string]any, prefix, status string, keys ...string) map[string]any {
	t.Helper()
	ref, _ := b["reference"].(string)
	if !strings.HasPrefix(ref, prefix) || len(ref) != len(prefix)+8 || b["status"] != status {
		t.Errorf("booking %v: want reference %s… and status %s", b, prefix, status)
	}
	d, _ := b["details"].(map[string]any)
	if got := slices.Sorted(maps.Keys(d)); !slices.Equal(got, slices.Sorted(slices.Values(keys))) {
		t.Errorf("details keys = %v, want %v", got, keys)
	}
	return d
}

// confirm is the operator's confirmation of a pending or on_request booking.
func confirm(t *testing.T, env *apitest.Env, ref string) {
	t.Helper()
	if _, err := env.Service.Confirm(context.Background(), ref); err != nil {
		t.Fatalf("confirm %s: %v", ref, err)
	}
}

func TestActivityBooking(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		// 2 adults, 1 child and 1 infant take the class's 3 seats: 100.00 + 25.00 + 5.00.
		pb := env.Post(p.LiveKey, "/bookings/prebook", activityQuote(apitest.ActivityCooking, 2, 2, 1, 1)).Expect(t, 200, "").Map(t)
		if pb["total_price"] != 130.0 || pb["cancellation_policy"] != "moderate" || pb["product_type"] != "activity" || pb["instant_confirmation"] != true {
			t.Fatalf("prebook = %v", pb)
		}
		b := bookOK(t, env, p.LiveKey, "a1", map[string]any{"prebook_token": pb["prebook_token"]})
		d := wantDetails(t, b, "ACT-", "confirmed", "activity_id", "date", "adults", "children", "infants", "guest_name")
		if d["activity_id"] != float64(apitest.ActivityCooking) || d["date"] != apitest.Day(2) || d["adults"] != 2.0 || d["children"] != 1.0 || d["infants"] != 1.0 {
			t.Errorf("details = %v", d)
		}
		if sold, used := soldAt(t, env, tradewind.UnitActivity, apitest.ActivityCooking, apitest.Day(2)), creditOf(t, env, p.ID); sold != 3 || used != 13000 {
			t.Errorf("sold %d, credit %d; want 3 and 13000", sold, used)
		}
		// Sold out, for live and test keys alike; cancelling gives the seats back.
		one := activityQuote(apitest.ActivityCooking, 2, 1, 0, 0)
		env.Book(p.LiveKey, "a2", withGuest(one)).Expect(t, 422, "invalid_quote").Because(t, "sold_out")
		env.Book(p.TestKey, "a3", withGuest(one)).Expect(t, 422, "invalid_quote").Because(t, "sold_out")
		cancelBooking(env, p.LiveKey, b["reference"].(string)).Expect(t, 200, "")
		if sold, used := soldAt(t, env, tradewind.UnitActivity, apitest.ActivityCooking, apitest.Day(2)), creditOf(t, env, p.ID); sold != 0 || used != 0 {
			t.Errorf("after cancel: sold %d, credit %d", sold, used)
		}
		bookOK(t, env, p.LiveKey, "a2", one)

		// A test booking takes no seats and draws no credit.
		tb := bookOK(t, env, p.TestKey, "t1", activityQuote(apitest.ActivityCooking, 3, 3, 0, 0))
		if tb["test"] != true || soldAt(t, env, tradewind.UnitActivity, apitest.ActivityCooking, apitest.Day(3)) != 0 || creditOf(t, env, p.ID) != 5000 {
			t.Errorf("test booking %v took inventory or credit", tb)
		}
		for _, c := range []struct {
			q      map[string]any
			reason string
		}{
			{activityQuote(9999, 2, 1, 0, 0), "unknown_item"},
			{activityQuote(apitest.ActivityCooking, 4, 4, 0, 0), "sold_out"}, // party larger than the day's seats
			{activityQuote(apitest.ActivityTram, 30, 1, 0, 0), "sold_out"},   // closed day
			{activityQuote(apitest.ActivityJPY, 2, 1, 0, 0), "currency_mismatch"},
			{activityQuote(apitest.ActivityPorto, 100, 1, 0, 0), "sold_out"}, // no inventory
		} {
			env.Post(p.LiveKey, "/bookings/prebook", c.q).Expect(t, 422, "invalid_quote").Because(t, c.reason)
		}

		// Not instant: on_request until the supplier confirms; completed after its date.
		boat := bookOK(t, env, p.LiveKey, "boat", activityQuote(apitest.ActivityBoat, 1, 2, 0, 0))
		ref := boat["reference"].(string)
		if boat["status"] != "on_request" {
			t.Fatalf("status = %v", boat["status"])
		}
		confirm(t, env, ref)
		if got := statusOf(t, env, p.LiveKey, ref); got != "confirmed" {
			t.Errorf("after confirm: %v", got)
		}
		env.Clock.Advance(48 * time.Hour)
		if got := statusOf(t, env, p.LiveKey, ref); got != "completed" {
			t.Errorf("after the date: %v", got)
		}
		cancelBooking(env, p.LiveKey, ref).Expect(t, 422, "not_cancellable")
	})
}

func TestRentalBooking(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		pb := env.Post(p.LiveKey, "/bookings/prebook", rentalQuote(apitest.RentalLofts, apitest.SpaceStudio, 1, 3, 2)).Expect(t, 200, "").Map(t)
		if pb["total_price"] != 180.1 || pb["cancellation_policy"] != "see_policy" || pb["instant_confirmation"] != true {
			t.Fatalf("prebook = %v", pb)
		}
		b := bookOK(t, env, p.LiveKey, "r1", rentalQuote(apitest.RentalLofts, apitest.SpaceStudio, 1, 3, 2))
		d := wantDetails(t, b, "RNT-", "confirmed", "rental_property_id", "space_id", "check_in", "check_out", "nights", "guests", "guest_name")
		if d["rental_property_id"] != float64(apitest.RentalLofts) || d["space_id"] != float64(apitest.SpaceStudio) || d["nights"] != 2.0 || d["guests"] != 2.0 || d["check_out"] != apitest.Day(3) {
			t.Errorf("details = %v", d)
		}
		nights := func() []int {
			out := []int{}
			for day := 0; day <= 3; day++ {
				out = append(out, soldAt(t, env, tradewind.UnitSpace, apitest.SpaceStudio, apitest.Day(day)))
			}
			return out
		}
		if got := nights(); !slices.Equal(got, []int{0, 1, 1, 0}) {
			t.Errorf("studio nights 0–3 sold %v", got)
		}
		// An overlapping stay is refused; one starting on the check-out day is not.
		overlap := rentalQuote(apitest.RentalLofts, apitest.SpaceStudio, 0, 2, 1)
		env.Book(p.LiveKey, "r2", withGuest(overlap)).Expect(t, 422, "invalid_quote").Because(t, "sold_out")
		bookOK(t, env, p.LiveKey, "r3", rentalQuote(apitest.RentalLofts, apitest.SpaceStudio, 3, 5, 1))
		cancelBooking(env, p.TestKey, b["reference"].(string)).Expect(t, 200, "")
		if got := nights(); !slices.Equal(got, []int{0, 0, 0, 1}) {
			t.Errorf("after cancel, studio nights 0–3 sold %v", got)
		}
		early := bookOK(t, env, p.LiveKey, "r2", overlap)

		// A test booking is checked but takes no nights.
		bookOK(t, env, p.TestKey, "t1", rentalQuote(apitest.RentalLofts, apitest.SpaceStudio, 10, 12, 1))
		if soldAt(t, env, tradewind.UnitSpace, apitest.SpaceStudio, apitest.Day(10)) != 0 {
			t.Error("a test booking took a night")
		}
		for _, c := range []struct {
			q      map[string]any
			reason string
		}{
			{rentalQuote(9999, apitest.SpaceStudio, 20, 21, 1), "unknown_item"},
			{rentalQuote(apitest.RentalLofts, apitest.SpaceGBP, 20, 21, 1), "unknown_option"},     // another rental's space
			{rentalQuote(apitest.RentalLofts, apitest.SpaceStudio, 20, 21, 3), "party_too_large"}, // over max_guests
			{rentalQuote(apitest.RentalGBP, apitest.SpaceGBP, 20, 21, 1), "currency_mismatch"},
			{rentalQuote(apitest.RentalLofts, apitest.SpaceStudio, 99, 101, 1), "sold_out"}, // past the inventory
		} {
			env.Post(p.LiveKey, "/bookings/prebook", c.q).Expect(t, 422, "invalid_quote").Because(t, c.reason)
		}

		// Not instant: pending until the host accepts.
		house := bookOK(t, env, p.LiveKey, "h1", rentalQuote(apitest.RentalPending, apitest.SpaceHouse, 1, 2, 4))
		if house["status"] != "pending" {
			t.Fatalf("status = %v", house["status"])
		}
		confirm(t, env, house["reference"].(string))
		if got := statusOf(t, env, p.LiveKey, house["reference"].(string)); got != "confirmed" {
			t.Errorf("after confirm: %v", got)
		}
		// Completed after check-out (day 2), not before.
		env.Clock.Advance(3 * 24 * time.Hour)
		if got := statusOf(t, env, p.LiveKey, early["reference"].(string)); got != "completed" {
			t.Errorf("after check-out: %v", got)
		}
		cancelBooking(env, p.LiveKey, early["reference"].(string)).Expect(t, 422, "not_cancellable").Because(t, "completed")
	})
}

func TestPackageBooking(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		// Fixed: 500.00 + 350.00 and the fado dinner at 45.05 for two.
		q := fixedQuote(apitest.DepartureSoon, 1, 1, 0)
		q["addon_ids"] = []int{apitest.AddonFado}
		pb := env.Post(p.LiveKey, "/bookings/prebook", q).Expect(t, 200, "").Map(t)
		if pb["total_price"] != 940.1 || pb["cancellation_policy"] != "see_policy" || pb["instant_confirmation"] != true {
			t.Fatalf("prebook = %v", pb)
		}
		// Travellers may come with the token.
		b := bookOK(t, env, p.LiveKey, "p1", map[string]any{"prebook_token": pb["prebook_token"], "travellers": travellers(1, 1, 0)})
		d := wantDetails(t, b, "PKG-", "confirmed", "package_id", "departure_id", "addon_ids", "adults", "children", "infants", "travellers", "guest_name")
		if tr, _ := d["travellers"].([]any); len(tr) != 2 || d["departure_id"] != float64(apitest.DepartureSoon) || fmt.Sprint(d["addon_ids"]) != "[80111]" {
			t.Errorf("details = %v", d)
		}
		if sold, used := soldAt(t, env, tradewind.UnitDeparture, apitest.DepartureSoon, apitest.Day(10)), creditOf(t, env, p.ID); sold != 2 || used != 94010 {
			t.Errorf("sold %d, credit %d; want 2 and 94010", sold, used)
		}

		// Open: seats are taken on the travel date only, and given back from it alone.
		ob := bookOK(t, env, p.LiveKey, "o1", withTravellers(openQuote(5, 2, 0, 1), 2, 0, 1))
		d = wantDetails(t, ob, "PKG-", "on_request", "package_id", "travel_date", "addon_ids", "adults", "children", "infants", "travellers", "guest_name")
		if d["travel_date"] != apitest.Day(5) || fmt.Sprint(d["addon_ids"]) != "[]" {
			t.Errorf("details = %v", d)
		}
		next := bookOK(t, env, p.LiveKey, "o2", withTravellers(openQuote(6, 1, 0, 0), 1, 0, 0))
		openSold := func(day int) int {
			return soldAt(t, env, tradewind.UnitPackageDay, apitest.PackageOpen, apitest.Day(day))
		}
		if openSold(5) != 2 || openSold(6) != 1 || openSold(7) != 0 {
			t.Errorf("open days 5–7 sold %d %d %d, want 2 1 0", openSold(5), openSold(6), openSold(7))
		}
		cancelBooking(env, p.LiveKey, ob["reference"].(string)).Expect(t, 200, "")
		if openSold(5) != 0 || openSold(6) != 1 {
			t.Errorf("after cancel, open days 5–6 sold %d %d, want 0 1", openSold(5), openSold(6))
		}
		confirm(t, env, next["reference"].(string))

		// The fixed package ends on day 13: completed from day 14.
		ref := b["reference"].(string)
		env.Clock.Advance(13 * 24 * time.Hour)
		if got := statusOf(t, env, p.LiveKey, ref); got != "confirmed" {
			t.Errorf("on its last day: %v", got)
		}
		env.Clock.Advance(24 * time.Hour)
		if got := statusOf(t, env, p.LiveKey, ref); got != "completed" {
			t.Errorf("after its end: %v", got)
		}
		cancelBooking(env, p.LiveKey, ref).Expect(t, 422, "not_cancellable")
	})
}

func TestPackageQuoteErrors(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		withAddon := openQuote(5, 1, 0, 0)
		withAddon["addon_ids"] = []int{apitest.AddonFado}
		for _, c := range []struct {
			q      map[string]any
			reason string
		}{
			{partyQuote("package", 1, 0, 0, "package_id", 9999, "travel_date", apitest.Day(5)), "unknown_item"},
			{fixedQuote(apitest.DepartureUSD, 1, 0, 0), "unknown_option"}, // another package's departure
			{fixedQuote(apitest.DepartureGone, 1, 0, 0), "in_the_past"},   // left three days ago
			{partyQuote("package", 1, 0, 0, "package_id", apitest.PackageFixed, "travel_date", apitest.Day(10)), "unknown_option"},
			{partyQuote("package", 1, 0, 0, "package_id", apitest.PackageOpen, "departure_id", apitest.DepartureSoon), "unknown_option"},
			{fixedQuote(apitest.DepartureSoon, 5, 0, 0), "sold_out"}, // 4 seats
			{openQuote(120, 1, 0, 0), "sold_out"},                    // outside the travel dates: no seats that day
			{withAddon, "unknown_option"},                            // another package's add-on
			{partyQuote("package", 1, 0, 0, "package_id", apitest.PackageUSD, "departure_id", apitest.DepartureUSD), "currency_mismatch"},
		} {
			env.Post(p.LiveKey, "/bookings/prebook", c.q).Expect(t, 422, "invalid_quote").Because(t, c.reason)
			env.Book(p.LiveKey, "bad", withGuest(withTravellers(c.q, 1, 0, 0))).Expect(t, 422, "invalid_quote").Because(t, c.reason)
		}

		// travellers must be exactly the party, on book; on prebook when given.
		q := fixedQuote(apitest.DepartureSoon, 1, 1, 0)
		r := env.Book(p.LiveKey, "m1", withGuest(q)).Expect(t, 422, "travellers_count_mismatch")
		wantErrors(t, r, "travellers: 0 entries for a party of 2")
		r = env.Book(p.LiveKey, "m2", withGuest(withTravellers(q, 2, 0, 0))).Expect(t, 422, "travellers_count_mismatch")
		wantErrors(t, r, "travellers: 2 of type adult for adults = 1", "travellers: 0 of type child for children = 1")
		if !strings.Contains(*r.Message, "1 adult(s), 1 child(ren) and 0 infant(s) expected, 2, 0 and 0 given") {
			t.Errorf("message = %q", *r.Message)
		}
		env.Book(p.LiveKey, "m3", withGuest(withTravellers(q, 1, 1, 1))).Expect(t, 422, "travellers_count_mismatch")
		env.Post(p.LiveKey, "/bookings/prebook", withTravellers(q, 1, 0, 0)).Expect(t, 422, "travellers_count_mismatch")
		token := env.Post(p.LiveKey, "/bookings/prebook", q).Expect(t, 200, "").Map(t)["prebook_token"]
		env.Book(p.LiveKey, "m4", map[string]any{"prebook_token": token, "guest": guest()}).Expect(t, 422, "travellers_count_mismatch")
		if soldAt(t, env, tradewind.UnitDeparture, apitest.DepartureSoon, apitest.Day(10)) != 0 || creditOf(t, env, p.ID) != 0 {
			t.Error("a refused booking took seats or credit")
		}

		// Each traveller's problems, by index; then the shape of the entries.
		bad := withGuest(partyQuote("package", 1, 1, 2, "package_id", apitest.PackageOpen, "travel_date", apitest.Day(5)))
		bad["travellers"] = []map[string]any{
			{"type": "adult", "first_name": " ", "last_name": "Silva", "nationality": "pt"},
			{"type": "child", "first_name": "Rui", "last_name": "Silva"},
			{"type": "infant", "first_name": "Eva", "last_name": "Silva", "birth_date": "2020-01-01"},
			{"type": "pet", "first_name": "Rex", "last_name": strings.Repeat("x", 101), "birth_date": "2030-01-01"},
		}
		r = env.Book(p.LiveKey, "v1", bad).Expect(t, 400, "bad_request")
		wantErrors(t, r, "travellers[0].first_name is required", `travellers[0].nationality: "pt" is not a 2-letter ISO country code in upper case (such as "PT")`,
			"travellers[1].birth_date is required for a child", "travellers[2].birth_date: an infant is under 2 on the travel date",
			`travellers[3].type: "pet" must be adult, child or infant`, "travellers[3].last_name: at most 100 characters",
			"travellers[3].birth_date: 2030-01-01 is in the future")
		bad["travellers"] = []any{map[string]any{"type": "adult", "age": 40}, "Ana"}
		wantErrors(t, env.Book(p.LiveKey, "v2", bad).Expect(t, 400, "bad_request"), "travellers[0].age: unknown field", "travellers[1]: must be an object")
		bad["travellers"] = "Ana, Rui"
		wantErrors(t, env.Book(p.LiveKey, "v3", bad).Expect(t, 400, "bad_request"), "travellers: must be an array of objects")
	})
}

// oversell books from n requests at once, checks that exactly want were created and
// the rest refused with 422 invalid_quote, and returns the created bookings.
func oversell(t *testing.T, n, want int, book func(i int) *apitest.Response) []map[string]any {
	t.Helper()
	rs := hammer(n, book)
	if got := statuses(rs); got["201 "] != want || got["422 invalid_quote"] != n-want {
		t.Fatalf("outcomes = %v, want %d created and %d invalid_quote", got, want, n-want)
	}
	var created []map[string]any
	for _, r := range rs {
		if r.Status == 201 {
			created = append(created, r.Map(t))
		}
	}
	return created
}

// TestActivityNoOversell books the 3 seats of a class from 20 requests at once.
func TestActivityNoOversell(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		oversell(t, 20, 3, func(i int) *apitest.Response {
			return env.Book(p.LiveKey, fmt.Sprint("act-", i), withGuest(activityQuote(apitest.ActivityCooking, 7, 1, 0, 0)))
		})
		if sold := soldAt(t, env, tradewind.UnitActivity, apitest.ActivityCooking, apitest.Day(7)); sold != 3 {
			t.Errorf("sold %d of 3", sold)
		}
	})
}

// TestRentalNoDoubleBooking sends 20 overlapping stays of one space at once: all share
// the night of day 50, so exactly one can be booked.
func TestRentalNoDoubleBooking(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		created := oversell(t, 20, 1, func(i int) *apitest.Response {
			q := rentalQuote(apitest.RentalLofts, apitest.SpaceStudio, 48+i%3, 51+i%2, 1)
			return env.Book(p.LiveKey, fmt.Sprint("rnt-", i), withGuest(q))
		})
		d := created[0]["details"].(map[string]any)
		for day := 48; day <= 51; day++ {
			want := 0
			if apitest.Day(day) >= d["check_in"].(string) && apitest.Day(day) < d["check_out"].(string) {
				want = 1 // a night of the one stay booked
			}
			if sold := soldAt(t, env, tradewind.UnitSpace, apitest.SpaceStudio, apitest.Day(day)); sold != want {
				t.Errorf("night %d sold %d, want %d (booked %v)", day, sold, want, d)
			}
		}
	})
}

// TestDepartureNoOversell books the 4 seats of a departure from 20 requests at once.
func TestDepartureNoOversell(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newProductsEnv(t, o)
		created := oversell(t, 20, 4, func(i int) *apitest.Response {
			q := withTravellers(fixedQuote(apitest.DepartureSoon, 1, 0, 0), 1, 0, 0)
			return env.Book(p.LiveKey, fmt.Sprint("dep-", i), withGuest(q))
		})
		if sold := soldAt(t, env, tradewind.UnitDeparture, apitest.DepartureSoon, apitest.Day(10)); sold != 4 {
			t.Errorf("sold %d of 4", sold)
		}
		if used := creditOf(t, env, p.ID); used != 4*50000 {
			t.Errorf("credit used %d, want %d", used, 4*50000)
		}
		// Cancelling one gives its seat back to the next booking.
		cancelBooking(env, p.LiveKey, created[0]["reference"].(string)).Expect(t, 200, "")
		if sold := soldAt(t, env, tradewind.UnitDeparture, apitest.DepartureSoon, apitest.Day(10)); sold != 3 {
			t.Errorf("after cancel: sold %d of 4", sold)
		}
		bookOK(t, env, p.LiveKey, "dep-again", withTravellers(fixedQuote(apitest.DepartureSoon, 1, 0, 0), 1, 0, 0))
	})
}
