package apitest

import (
	"github.com/tradewind/tradewind/internal/catalog"
)

// Activity ids of the products test catalog.
const (
	ActivityTram    = 601 // Lisbon "tour", instant, 25.05/12.50/0.00, 10 seats on days 0–99 but 0 on day 30
	ActivityCooking = 602 // Lisbon "Food", instant, 50.00/25.00/5.00, 3 seats a day: for races
	ActivityBoat    = 603 // Lisbon "cruise", on request, 40.00/20.00/0.00, 8 seats
	ActivityJPY     = 604 // Lisbon "culture", priced in JPY
	ActivityPorto   = 605 // Porto "food", instant
)

// Rental and space ids of the products test catalog. Every space is a single unit.
const (
	RentalLofts   = 701 // Lisbon, instant
	SpaceStudio   = 70101
	SpaceLoft     = 70102
	RentalPending = 702 // Lisbon, instant_booking false: bookings are pending
	SpaceHouse    = 70201
	RentalGBP     = 703 // Lisbon, priced in GBP
	SpaceGBP      = 70301
	RentalPorto   = 704 // Porto
	SpacePorto    = 70401
)

// Package, departure and add-on ids of the products test catalog.
const (
	PackageFixed    = 801 // Lisbon, fixed, instant, 3 nights
	DepartureSoon   = 80101
	DepartureLater  = 80102
	DepartureGone   = 80103
	AddonFado       = 80111
	AddonTukTuk     = 80112
	PackageOpen     = 802 // Lisbon, open, on request, 2 nights
	AddonTransfer   = 80211
	PackageUSD      = 803 // Porto, fixed, priced in USD
	DepartureUSD    = 80301
	DepartureSoonAt = 10 // DepartureSoon leaves on Day(10) with 4 seats
)

// ProductsCatalog returns activities, rentals and packages for tests, dated from Start:
// inventory on days 0–99. Import it alongside Catalog (the ids do not overlap).
func ProductsCatalog() *catalog.Document {
	return &catalog.Document{Activities: testActivities(), Rentals: testRentals(), Packages: testPackages()}
}

func testActivities() []catalog.Activity {
	act := func(id int64, name, category, city string, instant bool, currency string, prices catalog.PersonPrices, seats int) catalog.Activity {
		return catalog.Activity{ID: id, Name: name, Category: category, City: city, Description: "A test activity",
			DurationHours: 2.5, Languages: []string{"en", "pt"}, InstantConfirmation: instant, Currency: currency,
			ImageURL: "https://img.example.com/a.jpg", Photos: []string{"https://img.example.com/a1.jpg"}, Pricing: prices,
			Availability: []catalog.ActivityDays{{Start: Day(0), End: Day(99), Capacity: seats}}}
	}
	tram := act(ActivityTram, "Tram 28 tour", "tour", "Lisbon", true, "EUR", catalog.PersonPrices{Adult: 2505, Child: 1250}, 10)
	tram.Availability = append(tram.Availability, catalog.ActivityDays{Start: Day(30), End: Day(30), Capacity: 0})
	return []catalog.Activity{
		tram,
		act(ActivityCooking, "Cooking class", "Food", "Lisbon", true, "EUR", catalog.PersonPrices{Adult: 5000, Child: 2500, Infant: 500}, 3),
		act(ActivityBoat, "Sunset sailing", "cruise", "Lisbon", false, "EUR", catalog.PersonPrices{Adult: 4000, Child: 2000}, 8),
		act(ActivityJPY, "Tea ceremony", "culture", "Lisbon", true, "JPY", catalog.PersonPrices{Adult: 3000, Child: 1500}, 5),
		act(ActivityPorto, "Port tasting", "food", "Porto", true, "EUR", catalog.PersonPrices{Adult: 3500, Child: 1500}, 12),
	}
}

func testRentals() []catalog.Rental {
	space := func(id int64, name string, guests int, currency string, price int64) catalog.Space {
		return catalog.Space{ID: id, Name: name, SpaceType: "entire_place", MaxGuests: guests, FromPrice: price, Currency: currency,
			Photos: []string{"https://img.example.com/s.jpg"}, Availability: []catalog.SpaceNights{{Start: Day(0), End: Day(99), Price: price}}}
	}
	rental := func(id int64, name, city string, instant bool, currency string, spaces ...catalog.Space) catalog.Rental {
		return catalog.Rental{ID: id, Name: name, PropertyType: "apartment", City: city, CheckInTime: "15:00", CheckOutTime: "11:00",
			InstantBooking: instant, Currency: currency, ImageURL: "https://img.example.com/r.jpg", Photos: []string{}, Spaces: spaces}
	}
	return []catalog.Rental{
		rental(RentalLofts, "Alfama Lofts", "Lisbon", true, "EUR", space(SpaceStudio, "Studio", 2, "EUR", 9005), space(SpaceLoft, "Loft", 4, "EUR", 12000)),
		rental(RentalPending, "Graça House", "Lisbon", false, "EUR", space(SpaceHouse, "House", 6, "EUR", 15000)),
		rental(RentalGBP, "Chiado Flat", "Lisbon", true, "GBP", space(SpaceGBP, "Flat", 2, "GBP", 7000)),
		rental(RentalPorto, "Ribeira Flat", "Porto", true, "EUR", space(SpacePorto, "Flat", 3, "EUR", 8000)),
	}
}

func testPackages() []catalog.Package {
	pkg := func(id int64, name, city, kind string, instant bool, currency string, nights int, addons ...catalog.Addon) catalog.Package {
		return catalog.Package{ID: id, Name: name, City: city, Country: "PT", Description: "A test package", DurationNights: nights,
			InstantConfirmation: instant, Currency: currency, ImageURL: "https://img.example.com/p.jpg", Photos: []string{},
			Itinerary: []catalog.ItineraryDay{{Day: 1, Title: "Arrival", Description: "Transfer"}}, Addons: addons, Kind: kind}
	}
	fixed := pkg(PackageFixed, "Lisbon highlights", "Lisbon", "fixed", true, "EUR", 3,
		catalog.Addon{ID: AddonFado, Name: "Fado dinner", PricePerPerson: 4505}, catalog.Addon{ID: AddonTukTuk, Name: "Tuk-tuk tour", PricePerPerson: 3000})
	fixed.Departures = []catalog.Departure{
		{ID: DepartureSoon, Date: Day(DepartureSoonAt), Capacity: 4, Pricing: catalog.PersonPrices{Adult: 50000, Child: 35000, Infant: 5000}},
		{ID: DepartureLater, Date: Day(40), Capacity: 10, Pricing: catalog.PersonPrices{Adult: 48000, Child: 33000, Infant: 5000}},
		{ID: DepartureGone, Date: Day(-3), Capacity: 10, Pricing: catalog.PersonPrices{Adult: 40000, Child: 30000}},
	}
	open := pkg(PackageOpen, "Lisbon at leisure", "Lisbon", "open", false, "EUR", 2, catalog.Addon{ID: AddonTransfer, Name: "Airport transfer", PricePerPerson: 2500})
	open.TravelDates = []catalog.ActivityDays{{Start: Day(0), End: Day(99), Capacity: 6}}
	open.Pricing = &catalog.PersonPrices{Adult: 30000, Child: 20000}
	usd := pkg(PackageUSD, "Porto and the Douro", "Porto", "fixed", true, "USD", 4)
	usd.Departures = []catalog.Departure{{ID: DepartureUSD, Date: Day(20), Capacity: 8, Pricing: catalog.PersonPrices{Adult: 90000, Child: 60000}}}
	return []catalog.Package{fixed, open, usd}
}
