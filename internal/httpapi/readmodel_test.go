package httpapi_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// singleRoom is the Lisbon hotel's single room (allotment 2, 80.00 a night) for one adult
// on the night from day n, as a quote.
func singleRoom(n int) map[string]any {
	return map[string]any{"product_type": "hotel", "hotel_id": apitest.HotelLisbon, "room_id": apitest.RoomSmall,
		"check_in": apitest.Day(n), "check_out": apitest.Day(n + 1), "rooms": 1, "adults": 1}
}

// singleRoomOffer is what /hotels/availability answers for the single room on the night
// from day n: its total price, or "" when the room is not offered.
func singleRoomOffer(t *testing.T, env *apitest.Env, key string, n int) string {
	t.Helper()
	res := env.Post(key, "/hotels/availability", map[string]any{"hotel_id": apitest.HotelLisbon,
		"check_in": apitest.Day(n), "check_out": apitest.Day(n + 1), "adults": 1}).Expect(t, 200, "")
	var data struct {
		Rooms []struct {
			RoomID     int64       `json:"room_id"`
			TotalPrice json.Number `json:"total_price"`
		} `json:"available_rooms"`
	}
	res.Decode(t, &data)
	for _, r := range data.Rooms {
		if r.RoomID == apitest.RoomSmall {
			return r.TotalPrice.String()
		}
	}
	return ""
}

// TestPartnerAPIOnAReadModel: the partner API as serve runs it, over a read model
// (apitest.Env.UseReadModel). The model here never polls, so it learns only this
// server's own writes: availability answers from it, this server's bookings and
// cancellations show there at once, and a change made in the store behind it (a night
// repriced, the last rooms sold by another process) is what prebook and book meet, never
// the model's stale price or stock.
func TestPartnerAPIOnAReadModel(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		env.UseReadModel(false)
		ctx := context.Background()

		t.Run("own bookings and cancellations", func(t *testing.T) {
			if got := singleRoomOffer(t, env, p.LiveKey, 5); got != "80.00" {
				t.Fatalf("before: the single room offered at %q, want 80.00", got)
			}
			first := env.Book(p.LiveKey, "own-1", withGuest(singleRoom(5))).Expect(t, 201, "").Map(t)
			env.Book(p.LiveKey, "own-2", withGuest(singleRoom(5))).Expect(t, 201, "")
			if got := singleRoomOffer(t, env, p.LiveKey, 5); got != "" {
				t.Errorf("both single rooms booked, yet offered at %q", got)
			}
			env.Book(p.LiveKey, "own-3", withGuest(singleRoom(5))).Expect(t, 422, "invalid_quote")
			env.Do(apitest.Request{Method: "POST", Path: "/bookings/" + first["reference"].(string) + "/cancel", Key: p.LiveKey}).Expect(t, 200, "")
			if got := singleRoomOffer(t, env, p.LiveKey, 5); got != "80.00" {
				t.Errorf("after a cancellation: the single room offered at %q, want 80.00", got)
			}
			if got := soldOf(t, env, apitest.RoomSmall, apitest.Day(5)); got != 1 {
				t.Errorf("sold = %d, want 1", got)
			}
		})

		t.Run("night repriced behind the model", func(t *testing.T) {
			if err := env.Store.InventoryPut(ctx, []store.InventoryRow{{Kind: tradewind.UnitRoom, UnitID: apitest.RoomSmall,
				ItemID: apitest.HotelLisbon, Day: apitest.Day(7), Capacity: 2, Price: 9100}}); err != nil {
				t.Fatal(err)
			}
			// The model still guesses the old price: what answers availability here.
			if got := singleRoomOffer(t, env, p.LiveKey, 7); got != "80.00" {
				t.Fatalf("the model should not know of the new price yet; offered at %q", got)
			}
			credit := creditOf(t, env, p.ID)
			pb := env.Post(p.LiveKey, "/bookings/prebook", singleRoom(7)).Expect(t, 200, "").Map(t)
			if pb["total_price"] != 91.0 {
				t.Errorf("prebooked at %v, want the store's 91.00", pb["total_price"])
			}
			direct := env.Book(p.LiveKey, "repriced-1", withGuest(singleRoom(7))).Expect(t, 201, "").Map(t)
			if direct["total_price"] != 91.0 {
				t.Errorf("booked at %v, want the store's 91.00", direct["total_price"])
			}
			token := env.Book(p.LiveKey, "repriced-2", map[string]any{"prebook_token": pb["prebook_token"], "guest": guest()}).Expect(t, 201, "").Map(t)
			if token["total_price"] != 91.0 {
				t.Errorf("booked on the prebook at %v, want 91.00", token["total_price"])
			}
			if got := creditOf(t, env, p.ID) - credit; got != 2*9100 {
				t.Errorf("credit drawn %d, want %d", got, 2*9100)
			}
		})

		t.Run("sold out behind the model", func(t *testing.T) {
			// Another process sells both single rooms of day 9.
			if _, ok, err := env.Store.InventoryClaim(ctx, store.Claim{Kind: tradewind.UnitRoom, ItemID: apitest.HotelLisbon,
				UnitID: apitest.RoomSmall, From: apitest.Day(9), To: apitest.Day(9), Quantity: 2}); err != nil || !ok {
				t.Fatalf("claim: %v %v", ok, err)
			}
			if got := singleRoomOffer(t, env, p.LiveKey, 9); got != "80.00" {
				t.Fatalf("the model should not know the room sold out yet; offered at %q", got)
			}
			credit := creditOf(t, env, p.ID)
			env.Post(p.LiveKey, "/bookings/prebook", singleRoom(9)).Expect(t, 422, "invalid_quote")
			env.Book(p.LiveKey, "gone-1", withGuest(singleRoom(9))).Expect(t, 422, "invalid_quote")
			if got := soldOf(t, env, apitest.RoomSmall, apitest.Day(9)); got != 2 {
				t.Errorf("sold = %d, want 2: nothing oversold", got)
			}
			if got := creditOf(t, env, p.ID); got != credit {
				t.Errorf("credit moved from %d to %d on a refused booking", credit, got)
			}
		})
	})
}

// TestPartnerAPIOnAPollingReadModel: with its poll running, as serve's, the model
// learns a change made in the store behind this server (another server, the operator's
// CLI) and answers it.
func TestPartnerAPIOnAPollingReadModel(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		env.UseReadModel(true)
		if got := singleRoomOffer(t, env, p.LiveKey, 7); got != "80.00" {
			t.Fatalf("before: the single room offered at %q, want 80.00", got)
		}
		if err := env.Store.InventoryPut(context.Background(), []store.InventoryRow{{Kind: tradewind.UnitRoom, UnitID: apitest.RoomSmall,
			ItemID: apitest.HotelLisbon, Day: apitest.Day(7), Capacity: 2, Price: 9100}}); err != nil {
			t.Fatal(err)
		}
		// The bound is 1 s (readmodel.PollInterval and cmd/tradewind's serve tests); this
		// waits longer so that a loaded CI host does not fail it.
		deadline := time.Now().Add(10 * time.Second)
		for singleRoomOffer(t, env, p.LiveKey, 7) != "91.00" {
			if time.Now().After(deadline) {
				t.Fatal("the model never learned the new price")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}
