package httpapi_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// refsOf lists the references of a GET /bookings answer, in order.
func refsOf(t *testing.T, env *apitest.Env, key, query string) []string {
	t.Helper()
	var list []map[string]any
	env.Get(key, "/bookings?"+query).Expect(t, 200, "").Decode(t, &list)
	var out []string
	for _, b := range list {
		out = append(out, b["reference"].(string))
	}
	return out
}

func TestBookingFilters(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		env.Import(apitest.ProductsCatalog())
		// Day 0, 09:30: a live hotel stay of nights 1–2 (service 1..3), with a reference.
		hotel := bookOK(t, env, p.LiveKey, "f1", withGuestRef(hotelQuote(1, 3, 1, 2), "PO-1"))["reference"].(string)
		// Day 0, 10:30: a test activity on day 5.
		env.Clock.Advance(time.Hour)
		activity := bookOK(t, env, p.TestKey, "f2", activityQuote(apitest.ActivityTram, 5, 1, 0, 0))["reference"].(string)
		// Day 1, 09:30: a test on-request hotel stay (service 8..10), then cancelled.
		env.Clock.Advance(23 * time.Hour)
		onRequest := bookOK(t, env, p.TestKey, "f3", map[string]any{"product_type": "hotel", "hotel_id": apitest.HotelOnRequest,
			"room_id": apitest.RoomOnRequest, "check_in": apitest.Day(8), "check_out": apitest.Day(10), "rooms": 1, "adults": 1})["reference"].(string)
		// Day 1: a pending rental (service 20..22).
		rental := bookOK(t, env, p.LiveKey, "f4", rentalQuote(apitest.RentalPending, apitest.SpaceHouse, 20, 22, 1))["reference"].(string)
		cancelBooking(env, p.TestKey, onRequest).Expect(t, 200, "")
		other := env.NewPartner("globex", bookingParams())
		bookOK(t, env, other.LiveKey, "x", withGuestRef(hotelQuote(1, 3, 1, 2), "PO-1"))

		cases := []struct {
			query string
			want  []string // newest first
		}{
			{"", []string{rental, onRequest, activity, hotel}},
			{"status=confirmed", []string{activity, hotel}},
			{"status=cancelled", []string{onRequest}},
			{"status=pending", []string{rental}},
			{"status=pending,cancelled", []string{rental, onRequest}},
			{"status=" + url.QueryEscape("cancelled, confirmed,cancelled"), []string{onRequest, activity, hotel}},
			{"product_type=hotel", []string{onRequest, hotel}},
			{"product_type=rental", []string{rental}},
			{"product_type=package", nil},
			{"mode=test", []string{onRequest, activity}},
			{"mode=live", []string{rental, hotel}},
			{"created_from=" + apitest.Day(1), []string{rental, onRequest}},
			{"created_to=" + apitest.Day(0), []string{activity, hotel}},
			{"created_from=" + apitest.Day(0) + "&created_to=" + apitest.Day(0), []string{activity, hotel}},
			{"created_from=2027-01-04T10:00:00Z&created_to=2027-01-05T09:30:00Z", []string{activity}},
			// The last day there is, a common "no end": every booking (its next day,
			// the year 10000, compared as text, sorted before every stored time).
			{"created_to=9999-12-31", []string{rental, onRequest, activity, hotel}},
			{"created_from=" + apitest.Day(1) + "&created_to=9999-12-31", []string{rental, onRequest}},
			{"created_to=9999-12-31T23:59:59Z", []string{rental, onRequest, activity, hotel}},
			{"created_from=2027-01-04T11:00:00%2B01:00&created_to=2027-01-05T10:30:00%2B01:00", []string{activity}},
			{"service_from=" + apitest.Day(3) + "&service_to=" + apitest.Day(5), []string{activity, hotel}},
			{"service_from=" + apitest.Day(4), []string{rental, onRequest, activity}},
			{"service_to=" + apitest.Day(2), []string{hotel}},
			{"service_from=" + apitest.Day(11) + "&service_to=" + apitest.Day(19), nil},
			{"partner_reference=PO-1", []string{hotel}},
			{"partner_reference=PO-2", nil},
			{"q=po-", []string{hotel}},
			{"q=" + strings.ToLower(rental[4:]), []string{rental}},
			{"q=nobody", nil},
			{"mode=live&product_type=hotel&status=confirmed&partner_reference=PO-1", []string{hotel}},
			{"mode=test&status=confirmed&per_page=1&page=1", []string{activity}},
		}
		for _, c := range cases {
			if got := refsOf(t, env, p.LiveKey, c.query); strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("?%s = %v, want %v", c.query, got, c.want)
			}
		}
		// The meta counts the filtered bookings.
		r := env.Get(p.TestKey, "/bookings?mode=test&per_page=1").Expect(t, 200, "")
		if !strings.Contains(string(r.Meta), `"total":2`) || !strings.Contains(string(r.Meta), `"total_pages":2`) {
			t.Errorf("meta = %s", r.Meta)
		}
		// Once the stay has ended, the hotel booking is completed, not confirmed.
		env.Clock.Advance(3 * 24 * time.Hour)
		if got := refsOf(t, env, p.LiveKey, "status=completed"); strings.Join(got, ",") != hotel {
			t.Errorf("completed = %v", got)
		}
		if got := refsOf(t, env, p.LiveKey, "status=completed,pending"); strings.Join(got, ",") != rental+","+hotel {
			t.Errorf("completed or pending = %v", got)
		}
		if got := refsOf(t, env, p.LiveKey, "status=confirmed"); strings.Join(got, ",") != activity {
			t.Errorf("confirmed after the stay = %v", got)
		}

		// Every bad filter is listed at once.
		bad := env.Get(p.LiveKey, "/bookings?status=done&product_type=boat&mode=prod&created_from=yesterday&created_to=2027-13-01"+
			"&service_from=2027-01-04T00:00:00Z&service_to=x&page=0&partner_reference="+strings.Repeat("r", 65)+"&q="+strings.Repeat("q", 101)).Expect(t, 400, "bad_request")
		wantErrors(t, bad, "page", "status", "product_type", "mode", "created_from", "created_to", "service_from", "service_to", "partner_reference", "q")
		bad = env.Get(p.LiveKey, "/bookings?created_from=2027-01-05&created_to=2027-01-04&service_from=2027-01-09&service_to=2027-01-08&mode=test&mode=live").Expect(t, 400, "bad_request")
		wantErrors(t, bad, "created_to: must be after created_from", "service_to: must not be before service_from", "mode: given 2 times")
		// Every bad status of a list is named.
		bad = env.Get(p.LiveKey, "/bookings?status=pending,done,,confirmed").Expect(t, 400, "bad_request")
		wantErrors(t, bad, `status: "done" is not one of`, `status: "" is not one of`)
		bad = env.Get(p.LiveKey, "/bookings?status="+strings.Repeat("pending,", 5000)).Expect(t, 400, "bad_request")
		if len(bad.Errors) != 1 || bad.Errors[0] != "status: at most 5 statuses" {
			t.Errorf("a long status list: %q", bad.Errors)
		}
		// A time past the year 9999 in UTC has no place among stored times.
		bad = env.Get(p.LiveKey, "/bookings?created_from=9999-12-31T23:00:00-05:00").Expect(t, 400, "bad_request")
		wantErrors(t, bad, `created_from: "9999-12-31T23:00:00-05:00" is not a date (YYYY-MM-DD) or an RFC 3339 date-time`)
		// An offset's "+" sent unencoded arrives as a space: the answer says how to send it.
		bad = env.Get(p.LiveKey, "/bookings?created_from=2027-01-04T11:00:00+01:00").Expect(t, 400, "bad_request")
		wantErrors(t, bad, `created_from: "2027-01-04T11:00:00 01:00" is not a date-time: a query string decodes "+" to a space; send the offset's + as %2B`)
		// Paging given twice is refused as a filter is, not read from its first value.
		bad = env.Get(p.LiveKey, "/bookings?page=1&page=2&per_page=5&per_page=50&status=confirmed&status=cancelled").Expect(t, 400, "bad_request")
		wantErrors(t, bad, "page: given 2 times", "per_page: given 2 times", "status: given 2 times")
		env.Get(p.LiveKey, "/webhooks?per_page=5&per_page=50").Expect(t, 400, "bad_request")
	})
}

// withGuestRef is q with a guest and a partner reference.
func withGuestRef(q map[string]any, ref string) map[string]any {
	return withGuest(q, "partner_reference", ref)
}

func bookingParams() booking.PartnerParams { return booking.PartnerParams{} }
