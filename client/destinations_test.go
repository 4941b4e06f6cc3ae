package client_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tradewind/tradewind/client"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestListDestinations reads the demo catalog's cities through the SDK: every product
// type of a key that enables all four, one type, a prefix, a page, and the refusal of a
// type the key does not enable.
func TestListDestinations(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := demoEnv(t, o)
		ctx := context.Background()
		c := sdk(t, env, p.LiveKey)
		all := func(hotels int) map[string]int {
			return map[string]int{client.ProductHotel: hotels, client.ProductActivity: 1, client.ProductRental: 1, client.ProductPackage: 1}
		}
		list := must(c.ListDestinations(ctx, 0, 0))(t)
		want := []client.Destination{{City: "Barcelona", Products: all(1)}, {City: "Lisbon", Products: all(2)}, {City: "Porto", Products: all(1)}}
		if diff := cmp.Diff(want, list.Destinations); diff != "" {
			t.Errorf("destinations mismatch (-want +got):\n%s", diff)
		}
		if list.Page != (client.Page{Page: 1, PerPage: 25, Total: 3, TotalPages: 1}) {
			t.Errorf("page = %+v", list.Page)
		}

		list = must(c.ListDestinations(ctx, 2, 1, client.OnlyProduct(client.ProductHotel)))(t)
		if diff := cmp.Diff([]client.Destination{{City: "Lisbon", Products: map[string]int{"hotel": 2}}}, list.Destinations); diff != "" {
			t.Errorf("hotels, page 2 of 1 mismatch (-want +got):\n%s", diff)
		}
		if list.Page.Total != 3 || list.Page.TotalPages != 3 {
			t.Errorf("hotels: page = %+v", list.Page)
		}
		list = must(c.ListDestinations(ctx, 0, 0, client.CityPrefix("PO")))(t)
		if len(list.Destinations) != 1 || list.Destinations[0].City != "Porto" {
			t.Errorf("prefix PO = %+v", list.Destinations)
		}

		hotelsOnly := sdk(t, env, env.NewKey("acme", booking.KeyParams{Mode: "test", Products: []string{"hotel"}}))
		list = must(hotelsOnly.ListDestinations(ctx, 0, 0))(t)
		if len(list.Destinations) != 3 || len(list.Destinations[0].Products) != 1 || list.Destinations[0].Products["hotel"] != 1 {
			t.Errorf("a hotels-only key: %+v", list.Destinations)
		}
		if _, err := hotelsOnly.ListDestinations(ctx, 0, 0, client.OnlyProduct(client.ProductRental)); !client.IsCode(err, client.CodeProductNotEnabled) {
			t.Errorf("rentals with a hotels-only key: %v", err)
		}
		if _, err := c.ListDestinations(ctx, 0, 101); !client.IsCode(err, client.CodeBadRequest) {
			t.Errorf("per_page 101: %v", err)
		}
	})
}
