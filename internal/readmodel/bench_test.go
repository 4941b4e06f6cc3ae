package readmodel_test

import (
	"context"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// benchPair loads 1 000 hotels, 250 activities, 250 rentals and 50 packages in 10
// cities (about 100 hotels a city) with 60 days of inventory, and builds the model.
// Answers come from memory: the database (SQLite) only matters to the build.
func benchPair(b *testing.B) *pair {
	b.Helper()
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: 1000, Activities: 250, Rentals: 250, Packages: 50, Cities: 10,
		Days: 60, Seed: 1, Start: apitest.Start})
	return newPair(b, storetest.Openers()[0], doc)
}

// bench runs ask against the model's service, b.N times.
func bench(b *testing.B, ask func(ctx context.Context, s *booking.Service, c *booking.Caller) error) {
	p := benchPair(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := ask(ctx, p.fast, p.caller); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkModelSearchHotels(b *testing.B) {
	adults := 2
	bench(b, func(ctx context.Context, s *booking.Service, c *booking.Caller) error {
		_, _, err := s.SearchHotels(ctx, c, &booking.HotelSearchRequest{Destination: "Lisbon", CheckIn: apitest.Day(10),
			CheckOut: apitest.Day(13), Adults: &adults})
		return err
	})
}

func BenchmarkModelSearchActivities(b *testing.B) {
	bench(b, func(ctx context.Context, s *booking.Service, c *booking.Caller) error {
		_, _, err := s.SearchActivities(ctx, c, &booking.ActivitySearchRequest{Destination: "Lisbon", Date: apitest.Day(10)})
		return err
	})
}

func BenchmarkModelSearchRentals(b *testing.B) {
	bench(b, func(ctx context.Context, s *booking.Service, c *booking.Caller) error {
		_, _, err := s.SearchRentals(ctx, c, &booking.RentalSearchRequest{Destination: "Lisbon", CheckIn: apitest.Day(10),
			CheckOut: apitest.Day(13)})
		return err
	})
}

func BenchmarkModelSearchPackages(b *testing.B) {
	bench(b, func(ctx context.Context, s *booking.Service, c *booking.Caller) error {
		_, _, err := s.SearchPackages(ctx, c, &booking.PackageSearchRequest{Destination: "Lisbon", DateFrom: apitest.Day(10),
			DateTo: apitest.Day(40)})
		return err
	})
}

func BenchmarkModelHotelAvailability(b *testing.B) {
	bench(b, func(ctx context.Context, s *booking.Service, c *booking.Caller) error {
		_, err := s.HotelAvailability(ctx, c, &booking.HotelAvailabilityRequest{HotelID: 1_000_001, CheckIn: apitest.Day(10),
			CheckOut: apitest.Day(13)})
		return err
	})
}

// BenchmarkModelHotelCalendar: a month of 3-night stays of one hotel, against
// BenchmarkModelHotelAvailability's one stay.
func BenchmarkModelHotelCalendar(b *testing.B) {
	nights := 3
	bench(b, func(ctx context.Context, s *booking.Service, c *booking.Caller) error {
		_, err := s.HotelCalendar(ctx, c, &booking.HotelCalendarRequest{HotelID: 1_000_001, From: apitest.Day(10),
			To: apitest.Day(39), Nights: &nights})
		return err
	})
}

// BenchmarkModelSearchIssueCity searches one city of issue 12's size: 1 000 hotels, 250
// rentals, 250 activities and 50 packages (the issue's 20 000 hotels in 20 cities), 60
// days of inventory, 3 nights, default per_page: the load benchmark's hotel-search and
// rental-search without the network.
func BenchmarkModelSearchIssueCity(b *testing.B) {
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: 1000, Activities: 250, Rentals: 250, Packages: 50, Cities: 1,
		Days: 60, Seed: 1, Start: apitest.Start})
	p := newPair(b, storetest.Openers()[0], doc)
	ctx := context.Background()
	adults := 2
	hotels := &booking.HotelSearchRequest{Destination: "Lisbon", CheckIn: apitest.Day(10), CheckOut: apitest.Day(13), Adults: &adults}
	rentals := &booking.RentalSearchRequest{Destination: "Lisbon", CheckIn: apitest.Day(10), CheckOut: apitest.Day(13)}
	b.Run("hotels", func(b *testing.B) {
		searchLoop(b, func() error { _, _, err := p.fast.SearchHotels(ctx, p.caller, hotels); return err })
	})
	b.Run("rentals", func(b *testing.B) {
		searchLoop(b, func() error { _, _, err := p.fast.SearchRentals(ctx, p.caller, rentals); return err })
	})
}

// searchLoop runs ask b.N times; callgrind's --toggle-collect='*searchLoop' counts the
// searches alone (the request is built before it).
func searchLoop(b *testing.B, ask func() error) {
	b.ReportAllocs()
	for b.Loop() {
		if err := ask(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkModelDestinations: GET /destinations' tallies over benchPair's catalog.
// "unchanged" is a request after one that counted (the cost of the cities); "every
// city" counts every city again, as the first request of a day does, under the model's
// read lock (writers wait for it).
func BenchmarkModelDestinations(b *testing.B) {
	p := benchPair(b)
	ctx := context.Background()
	b.Run("unchanged", func(b *testing.B) {
		searchLoop(b, func() error {
			_, _, err := p.fast.Destinations(ctx, p.caller, booking.DestinationFilter{}, booking.Page{Page: 1, PerPage: 25})
			return err
		})
	})
	b.Run("every city", func(b *testing.B) {
		ends := []string{apitest.Day(500), apitest.Day(499)} // a window moved: every tally counted again
		i := 0
		searchLoop(b, func() error {
			i++
			_, err := p.model.CityTallies(ctx, apitest.Day(0), ends[i%2], func(tradewind.ProductType, string, *booking.CityTally) {})
			return err
		})
	})
}
