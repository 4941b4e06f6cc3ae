package client

import (
	"context"
	"net/http"
	"net/url"
)

// Destination is a city that a search can find items in (GET /destinations).
type Destination struct {
	City string `json:"city"` // as the city's items spell it; searches take it in any case
	// Products holds, for every product type shown (those the key enables, or the one
	// OnlyProduct asked for), how many of the city's items a search could return: 0 when
	// the city has none of that type. A type not shown is absent.
	Products map[string]int `json:"products"`
}

// DestinationList is one page of destinations, by city name.
type DestinationList struct {
	Destinations []Destination
	Page         Page
}

// DestinationOption narrows ListDestinations.
type DestinationOption func(url.Values)

// OnlyProduct shows one product type (ProductHotel, …): the cities with an item of that
// type, and its count only. A type the key does not enable is an *Error with
// CodeProductNotEnabled.
func OnlyProduct(p string) DestinationOption { return func(q url.Values) { q.Set("product", p) } }

// CityPrefix keeps the cities whose name starts with prefix, in any case ("zü" finds
// Zürich), at most 200 characters.
func CityPrefix(prefix string) DestinationOption { return func(q url.Values) { q.Set("q", prefix) } }

// ListDestinations reads one page of the cities a search with this key can find items
// in, by name, each with the count of such items per product type (GET /destinations),
// narrowed by opts; page and perPage of 0 take the server's defaults (1 and 25, at most
// 100). A city missing from the list is one every search answers empty.
func (c *Client) ListDestinations(ctx context.Context, page, perPage int, opts ...DestinationOption) (*DestinationList, error) {
	out := DestinationList{Destinations: []Destination{}}
	return orNil(&out, c.read(ctx, http.MethodGet, pagedPath("/destinations", opts, page, perPage), nil, &out.Destinations, &out.Page))
}
