package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// creditOf returns the partner's used credit in minor units.
func creditOf(t *testing.T, env *apitest.Env, partnerID int64) int64 {
	t.Helper()
	p, err := env.Store.PartnerGetByID(context.Background(), partnerID)
	if err != nil {
		t.Fatal(err)
	}
	return p.CreditUsed
}

// soldOf returns the rooms sold of a room type on one day.
func soldOf(t *testing.T, env *apitest.Env, roomID int64, day string) int {
	t.Helper()
	return soldAt(t, env, tradewind.UnitRoom, roomID, day)
}

// soldAt returns what one inventory unit of a kind has sold on one day.
func soldAt(t *testing.T, env *apitest.Env, kind tradewind.UnitKind, unitID int64, day string) int {
	t.Helper()
	rows, err := env.Store.InventoryList(context.Background(), store.InventoryQuery{Kind: kind, UnitIDs: []int64{unitID}, From: day, To: day})
	if err != nil || len(rows) != 1 {
		t.Fatalf("inventory %s %d %s: %v %v", kind, unitID, day, rows, err)
	}
	return rows[0].Sold
}

func TestPrebookAndBook(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		pb := env.Post(p.LiveKey, "/bookings/prebook", hotelQuote(1, 3, 2, 3)).Expect(t, 200, "").Map(t)
		token := pb["prebook_token"].(string)
		if !strings.HasPrefix(token, "pbk_") || pb["total_price"] != 400.2 || pb["cancellation_policy"] != "refundable" || pb["instant_confirmation"] != true {
			t.Fatalf("prebook = %v", pb)
		}
		if exp, _ := time.Parse(time.RFC3339, pb["expires_at"].(string)); !exp.Equal(apitest.Start.Add(15 * time.Minute)) {
			t.Errorf("expires_at = %v", pb["expires_at"])
		}

		// The locked price holds even if the catalog price changes meanwhile.
		cat := apitest.Catalog()
		cat.Hotels[0].Rooms[0].Inventory[0].Price = 99999
		env.Import(cat)
		res := env.Book(p.LiveKey, "idem-1", map[string]any{"prebook_token": token, "guest": guest(), "partner_reference": "PO-1"}).Expect(t, 201, "")
		b := res.Map(t)
		ref := b["reference"].(string)
		if !strings.HasPrefix(ref, "HTL-") || len(ref) != 12 || b["status"] != "confirmed" || b["total_price"] != 400.2 ||
			b["test"] != false || b["partner_reference"] != "PO-1" || b["pricing_mode"] != "net" {
			t.Fatalf("booking = %s", res.Raw)
		}
		d := b["details"].(map[string]any)
		if d["hotel_id"] != float64(apitest.HotelLisbon) || d["rooms"] != float64(2) || d["guests"] != float64(3) || d["guest_name"] != "Ana Silva" || d["check_out"] != apitest.Day(3) {
			t.Errorf("details = %v", d)
		}
		if got := creditOf(t, env, p.ID); got != 40020 {
			t.Errorf("credit used = %d, want 40020", got)
		}
		if got := soldOf(t, env, apitest.RoomDouble, apitest.Day(1)); got != 2 {
			t.Errorf("sold = %d", got)
		}

		// Replay: same key, same body → the original booking with 200, nothing charged;
		// another body with the key → 422 idempotency_key_reused.
		replay := env.Book(p.LiveKey, "idem-1", map[string]any{"prebook_token": token, "guest": guest(), "partner_reference": "PO-1"}).Expect(t, 200, "").Map(t)
		if replay["reference"] != ref {
			t.Errorf("replay = %v", replay)
		}
		env.Book(p.LiveKey, "idem-1", map[string]any{"guest": map[string]any{"name": "Other"}}).Expect(t, 422, "idempotency_key_reused")
		if got := creditOf(t, env, p.ID); got != 40020 {
			t.Errorf("credit after replay = %d", got)
		}
		// The token is single-use.
		env.Book(p.LiveKey, "idem-2", map[string]any{"prebook_token": token, "guest": guest()}).Expect(t, 422, "invalid_quote").Because(t, "prebook_used")
		// partner_reference is unique per partner.
		// The answer names the booking that holds it, and its mode and status, from
		// either mode's key.
		taken := fmt.Sprintf(`partner_reference "PO-1" is already used by booking %s (live, confirmed): a reference names one booking of the partner, test or live, whatever its status.`, ref)
		for _, key := range []string{p.LiveKey, p.TestKey} {
			if r := env.Book(key, "idem-3", withGuest(hotelQuote(1, 2, 1, 1), "partner_reference", "PO-1")).Expect(t, 409, "duplicate_partner_reference"); *r.Message != taken {
				t.Errorf("message %q, want %q", *r.Message, taken)
			}
		}
		// A taken reference is answered before what the inventory says: four more rooms
		// do not fit (two of five sold), which a free reference is told.
		if r := env.Book(p.LiveKey, "idem-3b", withGuest(hotelQuote(1, 2, 4, 4), "partner_reference", "PO-1")).Expect(t, 409, "duplicate_partner_reference"); *r.Message != taken {
			t.Errorf("message %q, want %q", *r.Message, taken)
		}
		env.Book(p.LiveKey, "idem-3c", withGuest(hotelQuote(1, 2, 4, 4), "partner_reference", "PO-9")).Expect(t, 422, "invalid_quote").Because(t, "sold_out")
		// Another partner may reuse it, and cannot see the first partner's booking.
		other := env.NewPartner("globex", booking.PartnerParams{})
		env.Book(other.LiveKey, "idem-1", withGuest(hotelQuote(1, 2, 1, 1), "partner_reference", "PO-1")).Expect(t, 201, "")
		env.Get(other.LiveKey, "/bookings/"+ref).Expect(t, 404, "not_found")
		env.Do(apitest.Request{Method: "POST", Path: "/bookings/" + ref + "/cancel", Key: other.LiveKey}).Expect(t, 404, "not_found")

		got := env.Get(p.TestKey, "/bookings/"+ref).Expect(t, 200, "").Map(t)
		if got["reference"] != ref {
			t.Errorf("get = %v", got)
		}
	})
}

func TestPrebookExpiryAndBinding(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		token := env.Post(p.LiveKey, "/bookings/prebook", hotelQuote(1, 2, 1, 1)).Expect(t, 200, "").Map(t)["prebook_token"]
		// Bound to the key's mode and to the partner.
		env.Book(p.TestKey, "a", map[string]any{"prebook_token": token, "guest": guest()}).Expect(t, 422, "invalid_quote").Because(t, "prebook_unknown")
		other := env.NewPartner("globex", booking.PartnerParams{})
		env.Book(other.LiveKey, "a", map[string]any{"prebook_token": token, "guest": guest()}).Expect(t, 422, "invalid_quote").Because(t, "prebook_unknown")
		env.Book(p.LiveKey, "b", map[string]any{"prebook_token": "pbk_nope", "guest": guest()}).Expect(t, 422, "invalid_quote").Because(t, "prebook_unknown")
		env.Clock.Advance(15*time.Minute + time.Second)
		env.Book(p.LiveKey, "c", map[string]any{"prebook_token": token, "guest": guest()}).Expect(t, 422, "prebook_expired")
		// A failed request does not burn the key: it can be retried.
		env.Book(p.LiveKey, "c", withGuest(hotelQuote(1, 2, 1, 1))).Expect(t, 201, "")
	})
}

func TestBookingErrors(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		env.Book(p.LiveKey, "", withGuest(hotelQuote(1, 2, 1, 1))).Expect(t, 400, "idempotency_key_required")
		r := env.Book(p.LiveKey, "k", map[string]any{"product_type": "hotel"}).Expect(t, 400, "bad_request")
		for _, want := range []string{"guest is required"} {
			if !contains(r.Errors, want) {
				t.Errorf("errors %q lack %q", r.Errors, want)
			}
		}
		r = env.Book(p.LiveKey, "k", withGuest(map[string]any{"product_type": "hotel"})).Expect(t, 400, "bad_request")
		for _, want := range []string{"hotel_id is required", "room_id is required", "rooms is required", "check_in is required", "adults is required"} {
			if !contains(r.Errors, want) {
				t.Errorf("errors %q lack %q", r.Errors, want)
			}
		}
		env.Book(p.LiveKey, "k", withGuest(map[string]any{"product_type": "cruise"})).Expect(t, 400, "bad_request")
		env.Book(p.LiveKey, "k", withGuest(hotelQuote(1, 2, -1, 1))).Expect(t, 400, "bad_request")
		// Unknown item, foreign room, party too large, currency mismatch: 422 invalid_quote.
		q := hotelQuote(1, 2, 1, 1)
		q["hotel_id"] = 404
		env.Book(p.LiveKey, "k", withGuest(q)).Expect(t, 422, "invalid_quote").Because(t, "unknown_item")
		q = hotelQuote(1, 2, 1, 1)
		q["room_id"] = apitest.RoomPorto
		env.Book(p.LiveKey, "k", withGuest(q)).Expect(t, 422, "invalid_quote").Because(t, "unknown_option")
		env.Book(p.LiveKey, "k", withGuest(hotelQuote(1, 2, 1, 3))).Expect(t, 422, "invalid_quote").Because(t, "party_too_large")
		jpy := map[string]any{"product_type": "hotel", "hotel_id": apitest.HotelJPY, "room_id": apitest.RoomJPY, "check_in": apitest.Day(1), "check_out": apitest.Day(2), "rooms": 1, "adults": 1}
		r = env.Book(p.LiveKey, "k", withGuest(jpy)).Expect(t, 422, "invalid_quote").Because(t, "currency_mismatch")
		if !strings.Contains(*r.Message, "JPY") || !strings.Contains(*r.Message, "EUR") {
			t.Errorf("message should name both currencies: %q", *r.Message)
		}
		env.Post(p.TestKey, "/bookings/prebook", jpy).Expect(t, 422, "invalid_quote").Because(t, "currency_mismatch")
		// Sold out: allotment 2 of the single room.
		single := map[string]any{"product_type": "hotel", "hotel_id": apitest.HotelLisbon, "room_id": apitest.RoomSmall, "check_in": apitest.Day(5), "check_out": apitest.Day(6), "rooms": 2, "adults": 2}
		env.Book(p.LiveKey, "s1", withGuest(single)).Expect(t, 201, "")
		env.Book(p.LiveKey, "s2", withGuest(single)).Expect(t, 422, "invalid_quote").Because(t, "sold_out")
		env.Post(p.LiveKey, "/bookings/prebook", single).Expect(t, 422, "invalid_quote").Because(t, "sold_out")
		// A test booking sees the same sold-out answer.
		env.Book(p.TestKey, "s3", withGuest(single)).Expect(t, 422, "invalid_quote").Because(t, "sold_out")
	})
}

func TestCreditLine(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		env.Import(apitest.Catalog())
		p := env.NewPartner("small", booking.PartnerParams{CreditLimit: ptr("250.00")})
		// 2 nights × 100.05 = 200.10 fits; a second one does not.
		env.Book(p.LiveKey, "a", withGuest(hotelQuote(1, 3, 1, 1))).Expect(t, 201, "")
		r := env.Book(p.LiveKey, "b", withGuest(hotelQuote(1, 3, 1, 1))).Expect(t, 402, "insufficient_credit")
		if !strings.Contains(*r.Message, "49.90") {
			t.Errorf("message should say what is available: %q", *r.Message)
		}
		if got := soldOf(t, env, apitest.RoomDouble, apitest.Day(1)); got != 1 {
			t.Errorf("a refused booking must not hold inventory: sold = %d", got)
		}
		// A test key never draws credit.
		env.Book(p.TestKey, "c", withGuest(hotelQuote(1, 3, 1, 1))).Expect(t, 201, "")
		credit := env.Get(p.TestKey, "/meta/credit").Expect(t, 200, "")
		if !strings.Contains(string(credit.Raw), `"utilized":200.10`) || !strings.Contains(string(credit.Raw), `"available":49.90`) || !strings.Contains(string(credit.Raw), `"credit_limit":250.00`) {
			t.Errorf("credit = %s", credit.Raw)
		}
		// On hold: 402 credit_blocked.
		if _, err := env.Service.UpdatePartner(context.Background(), "small", booking.PartnerParams{Blocked: ptr(true)}); err != nil {
			t.Fatal(err)
		}
		env.Book(p.LiveKey, "d", withGuest(hotelQuote(4, 5, 1, 1))).Expect(t, 402, "credit_blocked")
		if !strings.Contains(string(env.Get(p.LiveKey, "/meta/credit").Raw), `"blocked":true`) {
			t.Error("credit should report blocked")
		}
	})
}

func TestCancelAndStates(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		ref := env.Book(p.LiveKey, "a", withGuest(hotelQuote(1, 3, 1, 1))).Expect(t, 201, "").Map(t)["reference"].(string)
		// A reference in lower case names the same booking, and is answered as spelt.
		if got := env.Get(p.LiveKey, "/bookings/"+strings.ToLower(ref)).Expect(t, 200, "").Map(t)["reference"]; got != ref {
			t.Errorf("GET in lower case: reference %v, want %s", got, ref)
		}
		if got := env.Get(p.LiveKey, "/events?reference="+strings.ToLower(ref)).Expect(t, 200, ""); len(got.Maps(t)) != 1 {
			t.Errorf("events of the reference in lower case: %s", got.Raw)
		}
		// A live booking releases its credit and rooms whichever key cancels it.
		res := env.Do(apitest.Request{Method: "POST", Path: "/bookings/" + strings.ToLower(ref) + "/cancel", Key: p.TestKey, Body: map[string]any{"reason": "guest changed plans"}}).Expect(t, 200, "").Map(t)
		if res["reference"] != ref || res["status"] != "cancelled" {
			t.Errorf("cancel = %v", res)
		}
		if creditOf(t, env, p.ID) != 0 || soldOf(t, env, apitest.RoomDouble, apitest.Day(1)) != 0 {
			t.Error("cancel did not release credit and inventory")
		}
		// The booking says why and when it ended.
		cancelled := env.Get(p.LiveKey, "/bookings/"+ref).Expect(t, 200, "").Map(t)
		if c, _ := cancelled["cancellation"].(map[string]any); c["reason"] != "guest changed plans" || c["cancelled_at"] != env.Clock.Now().UTC().Truncate(time.Second).Format(time.RFC3339) {
			t.Errorf("cancellation = %v", cancelled["cancellation"])
		}
		// A row cancelled before cancelled_at was kept still says it ended, at its last change.
		if _, err := env.Store.SQL().Exec(`UPDATE bookings SET cancelled_at = NULL WHERE reference = $1`, ref); err != nil {
			t.Fatal(err)
		}
		if c, _ := env.Get(p.LiveKey, "/bookings/"+ref).Expect(t, 200, "").Map(t)["cancellation"].(map[string]any); c["reason"] != "guest changed plans" || c["cancelled_at"] == nil {
			t.Errorf("cancellation without cancelled_at = %v", c)
		}
		env.Do(apitest.Request{Method: "POST", Path: "/bookings/" + ref + "/cancel", Key: p.LiveKey}).Expect(t, 422, "not_cancellable").Because(t, "already_cancelled")
		env.Do(apitest.Request{Method: "POST", Path: "/bookings/HTL-NOPE0000/cancel", Key: p.LiveKey}).Expect(t, 404, "not_found")
		env.Do(apitest.Request{Method: "POST", Path: "/bookings/" + ref + "/cancel", Key: p.LiveKey, Body: map[string]any{"reason": strings.Repeat("x", 501)}}).Expect(t, 400, "bad_request")

		// A test booking takes no inventory and releases nothing.
		testRef := env.Book(p.TestKey, "t", withGuest(hotelQuote(1, 3, 1, 1))).Expect(t, 201, "").Map(t)
		if testRef["test"] != true || soldOf(t, env, apitest.RoomDouble, apitest.Day(1)) != 0 {
			t.Errorf("test booking = %v", testRef)
		}

		// on_request → operator confirm → confirmed; reject → cancelled, credit released.
		onReq := map[string]any{"product_type": "hotel", "hotel_id": apitest.HotelOnRequest, "room_id": apitest.RoomOnRequest, "check_in": apitest.Day(1), "check_out": apitest.Day(2), "rooms": 1, "adults": 2}
		b1 := env.Book(p.LiveKey, "r1", withGuest(onReq)).Expect(t, 201, "").Map(t)
		b2 := env.Book(p.LiveKey, "r2", withGuest(onReq)).Expect(t, 201, "").Map(t)
		if b1["status"] != "on_request" {
			t.Fatalf("status = %v", b1["status"])
		}
		ctx := context.Background()
		if _, err := env.Service.Confirm(ctx, b1["reference"].(string)); err != nil {
			t.Fatal(err)
		}
		if _, err := env.Service.Confirm(ctx, b1["reference"].(string)); err == nil {
			t.Error("confirming twice should fail")
		}
		if got := env.Get(p.LiveKey, "/bookings/"+b1["reference"].(string)).Map(t); got["status"] != "confirmed" || got["cancellation"] != nil {
			t.Errorf("after confirm: %v", got)
		}
		if _, err := env.Service.Reject(ctx, b2["reference"].(string), "no rooms"); err != nil {
			t.Fatal(err)
		}
		if got := env.Get(p.LiveKey, "/bookings/"+b2["reference"].(string)).Map(t); got["status"] != "cancelled" ||
			got["cancellation"].(map[string]any)["reason"] != "supplier_rejected" {
			t.Errorf("after reject: %v", got)
		}
		// The reason is exactly supplier_rejected; the operator's text is the event's note.
		rejected, err := env.Store.BookingGetByReference(ctx, 0, b2["reference"].(string))
		if err != nil || rejected.CancelReason != "supplier_rejected" {
			t.Errorf("reject reason = %q, %v", rejected.CancelReason, err)
		}
		var data string
		if err := env.Store.SQL().QueryRow(`SELECT data FROM events WHERE type = 'booking.cancelled' AND data LIKE '%' || $1 || '%'`, rejected.Reference).Scan(&data); err != nil ||
			!strings.Contains(data, `"reason":"supplier_rejected"`) || !strings.Contains(data, `"note":"no rooms"`) {
			t.Errorf("booking.cancelled data = %s, %v", data, err)
		}
		if _, err := env.Service.Reject(ctx, b1["reference"].(string), ""); err == nil {
			t.Error("rejecting a confirmed booking should fail")
		}
		if got := creditOf(t, env, p.ID); got != 30000 {
			t.Errorf("credit after reject = %d, want 30000", got)
		}

		// After check-out the confirmed booking is completed and cannot be cancelled.
		env.Clock.Advance(3 * 24 * time.Hour)
		ref1 := b1["reference"].(string)
		if got := env.Get(p.LiveKey, "/bookings/"+ref1).Map(t)["status"]; got != "completed" {
			t.Errorf("after stay: %v", got)
		}
		env.Do(apitest.Request{Method: "POST", Path: "/bookings/" + ref1 + "/cancel", Key: p.LiveKey}).Expect(t, 422, "not_cancellable").Because(t, "completed")
	})
}

func TestListBookings(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		for i := 0; i < 5; i++ {
			env.Book(p.TestKey, fmt.Sprint("k", i), withGuest(hotelQuote(1, 2, 1, 1))).Expect(t, 201, "")
		}
		other := env.NewPartner("globex", booking.PartnerParams{})
		env.Book(other.TestKey, "x", withGuest(hotelQuote(1, 2, 1, 1))).Expect(t, 201, "")
		r := env.Get(p.TestKey, "/bookings?page=2&per_page=2").Expect(t, 200, "")
		var list []map[string]any
		r.Decode(t, &list)
		if len(list) != 2 || !strings.Contains(string(r.Meta), `"total":5`) || !strings.Contains(string(r.Meta), `"total_pages":3`) {
			t.Errorf("page = %s", r.Raw)
		}
		env.Get(p.TestKey, "/bookings?per_page=101").Expect(t, 400, "bad_request")
		env.Get(p.TestKey, "/bookings?page=x").Expect(t, 400, "bad_request")
		env.Get(p.TestKey, "/bookings?page=0").Expect(t, 400, "bad_request")
		env.Get(p.TestKey, "/bookings?page=9223372036854775807&per_page=100").Expect(t, 400, "bad_request")
		env.Post(p.TestKey, "/hotels/search", map[string]any{"destination": "Lisbon", "check_in": apitest.Day(1), "check_out": apitest.Day(2), "page": int64(9223372036854775807)}).Expect(t, 400, "bad_request")
	})
}
