package catalog

import (
	"time"

	"github.com/tradewind/tradewind"
)

// DemoDays is how far ahead the demo catalog has inventory: today through today+DemoDays.
const DemoDays = 400

// Demo returns the hand-written demo catalog (hotels, activities, rentals and packages in
// Lisbon, Porto and Barcelona, all in EUR) with inventory from today's date (UTC calendar
// date of today) through DemoDays days later. Its ids are small and stable, so a
// newcomer's requests keep working from one day to the next.
func Demo(today time.Time) *Document {
	y, m, dd := today.UTC().Date()
	t0 := time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)
	day := func(offset int) string { return t0.AddDate(0, 0, offset).Format(tradewind.DateLayout) }
	first, last := day(0), day(DemoDays)
	img := func(path string) string { return "https://img.example.com/" + path }

	// room builds a room whose whole window sells at price with the given allotment.
	room := func(id int64, name, board string, adults, children int, refundable bool, price int64, allotment int) Room {
		return Room{
			ID: id, Name: name, BoardType: board, MaxAdults: adults, MaxChildren: children,
			Refundable: refundable, PricePerNight: price, Currency: "EUR",
			Inventory: []RoomNights{{Start: first, End: last, Allotment: allotment, Price: price}},
		}
	}
	space := func(id int64, name, kind string, guests int, price int64, photo string) Space {
		return Space{
			ID: id, Name: name, SpaceType: kind, MaxGuests: guests, FromPrice: price, Currency: "EUR",
			Photos:       []string{img(photo)},
			Availability: []SpaceNights{{Start: first, End: last, Price: price}},
		}
	}

	// A few days of festival pricing in Lisbon (later entry wins over the base range).
	casaDouble := room(100101, "Double Room", "breakfast", 2, 1, true, 12000, 5)
	casaDouble.Inventory = append(casaDouble.Inventory,
		RoomNights{Start: day(45), End: day(47), Allotment: 2, Price: 18000})

	return &Document{
		Hotels: []Hotel{
			{
				ID: 1001, Name: "Casa do Rio", Description: "Riverside boutique hotel a short walk from Cais do Sodré, with a rooftop pool over the Tagus.",
				PropertyType: "boutique_hotel", StarRating: 4, City: "Lisbon", Country: "PT",
				Address: "Rua do Alecrim 12, 1200-018 Lisbon", BoardType: "breakfast", // as both its rooms
				Facilities:  []string{"wifi", "pool", "bar", "air_conditioning"},
				Amenities:   map[string]any{"wifi": "free", "parking": "paid"},
				MealPlans:   []string{"breakfast"},
				GuestRating: 8.7, ReviewsCount: 1240, AverageRating: 4.4, InstantConfirmation: true,
				Currency: "EUR", ImageURL: img("h/1001/cover.jpg"),
				Photos:  []string{img("h/1001/1.jpg"), img("h/1001/2.jpg"), img("h/1001/3.jpg")},
				Markets: map[string]Percent{"GB": 500, "IN": -800},
				Rooms: []Room{
					casaDouble,
					room(100102, "River View Junior Suite", "breakfast", 2, 2, false, 18500, 2),
				},
			},
			{
				ID: 1002, Name: "Alfama Garden Inn", Description: "Family-run guesthouse on the hill of Alfama, with a shaded garden and city views.",
				PropertyType: "guesthouse", StarRating: 2, City: "Lisbon", Country: "PT",
				Address: "Beco do Surra 5, 1100-145 Lisbon", BoardType: "breakfast",
				Facilities: []string{"wifi", "garden"}, Amenities: map[string]any{"wifi": "free"},
				MealPlans:   []string{"breakfast"},
				GuestRating: 9.1, ReviewsCount: 386, AverageRating: 4.7, InstantConfirmation: true,
				Currency: "EUR", ImageURL: img("h/1002/cover.jpg"), Photos: []string{img("h/1002/1.jpg")},
				Rooms: []Room{
					room(100201, "Small Double", "breakfast", 2, 0, false, 6900, 4),
					room(100202, "Garden Twin", "breakfast", 2, 1, false, 7900, 3),
				},
			},
			{
				ID: 1003, Name: "Hotel Ribeira Porto", Description: "Classic hotel on the Ribeira quay, facing the port wine cellars across the Douro.",
				PropertyType: "hotel", StarRating: 3, City: "Porto", Country: "PT",
				Address: "Cais da Ribeira 40, 4050-510 Porto", BoardType: "breakfast",
				Facilities: []string{"wifi", "restaurant", "bar"}, Amenities: map[string]any{"wifi": "free", "parking": "none"},
				MealPlans:   []string{"room_only", "breakfast", "half_board"},
				GuestRating: 8.2, ReviewsCount: 912, AverageRating: 4.1, InstantConfirmation: false,
				Currency: "EUR", ImageURL: img("h/1003/cover.jpg"), Photos: []string{img("h/1003/1.jpg"), img("h/1003/2.jpg")},
				Rooms: []Room{
					room(100301, "Standard Twin", "breakfast", 2, 0, true, 8900, 6),
					room(100302, "River View Double", "half_board", 2, 1, true, 13500, 3),
				},
			},
			{
				ID: 1004, Name: "Hotel Gòtic Barcelona", Description: "Stylish four-star hotel in the Gothic Quarter, two minutes from the cathedral.",
				PropertyType: "hotel", StarRating: 4, City: "Barcelona", Country: "ES",
				Address: "Carrer de la Palla 8, 08002 Barcelona", BoardType: "room_only",
				Facilities: []string{"wifi", "gym", "bar", "air_conditioning"}, Amenities: map[string]any{"wifi": "free", "parking": "paid"},
				MealPlans:   []string{"room_only", "breakfast"},
				GuestRating: 8.9, ReviewsCount: 2150, AverageRating: 4.5, InstantConfirmation: true,
				Currency: "EUR", ImageURL: img("h/1004/cover.jpg"), Photos: []string{img("h/1004/1.jpg")},
				Rooms: []Room{
					room(100401, "Superior Double", "room_only", 2, 1, true, 15900, 8),
					room(100402, "Family Room", "breakfast", 2, 2, false, 21000, 3),
				},
			},
		},
		Activities: []Activity{
			{
				ID: 2001, Name: "Sintra day trip", Category: "tour", City: "Lisbon",
				Description:   "Full-day guided trip to the palaces of Sintra and the cliffs of Cabo da Roca.",
				DurationHours: 8.5, Languages: []string{"en", "pt", "es"}, InstantConfirmation: true,
				Currency: "EUR", ImageURL: img("a/2001/cover.jpg"), Photos: []string{img("a/2001/1.jpg")},
				Pricing: PersonPrices{Adult: 6000, Child: 3000, Infant: 0},
				Availability: []ActivityDays{
					{Start: first, End: last, Capacity: 20},
					{Start: day(10), End: day(10), Capacity: 0}, // closed for a private event
				},
			},
			{
				ID: 2002, Name: "Port wine cellar tour and tasting", Category: "food", City: "Porto",
				Description:   "Visit a historic cellar in Vila Nova de Gaia and taste three aged ports.",
				DurationHours: 2, Languages: []string{"en", "pt"}, InstantConfirmation: false,
				Currency: "EUR", ImageURL: img("a/2002/cover.jpg"),
				Pricing:      PersonPrices{Adult: 3500, Child: 1500, Infant: 0},
				Availability: []ActivityDays{{Start: first, End: last, Capacity: 12}},
			},
			{
				ID: 2003, Name: "Sagrada Família guided visit", Category: "tour", City: "Barcelona",
				Description:   "Skip-the-line entry and a guided visit of Gaudí's basilica.",
				DurationHours: 1.5, Languages: []string{"en", "es", "fr"}, InstantConfirmation: true,
				Currency: "EUR", ImageURL: img("a/2003/cover.jpg"), Photos: []string{img("a/2003/1.jpg"), img("a/2003/2.jpg")},
				Pricing:      PersonPrices{Adult: 4700, Child: 3200, Infant: 0},
				Availability: []ActivityDays{{Start: first, End: last, Capacity: 30}},
			},
		},
		Rentals: []Rental{
			{
				ID: 3001, Name: "Alfama Lofts", PropertyType: "apartment", City: "Lisbon",
				CheckInTime: "15:00", CheckOutTime: "11:00", InstantBooking: false,
				Currency: "EUR", ImageURL: img("r/3001/cover.jpg"), Photos: []string{img("r/3001/1.jpg")},
				Spaces: []Space{
					space(300101, "Loft 1", "entire_place", 4, 9000, "s/300101/1.jpg"),
					space(300102, "Loft 2 with terrace", "entire_place", 2, 11000, "s/300102/1.jpg"),
				},
			},
			{
				ID: 3002, Name: "Ribeira Riverside Apartments", PropertyType: "apartment", City: "Porto",
				CheckInTime: "14:00", CheckOutTime: "10:00", InstantBooking: true,
				Currency: "EUR", ImageURL: img("r/3002/cover.jpg"),
				Spaces: []Space{
					space(300201, "Two-bedroom apartment", "entire_place", 5, 12500, "s/300201/1.jpg"),
				},
			},
			{
				ID: 3003, Name: "Eixample Modernist Flats", PropertyType: "apartment", City: "Barcelona",
				CheckInTime: "16:00", CheckOutTime: "11:00", InstantBooking: true,
				Currency: "EUR", ImageURL: img("r/3003/cover.jpg"), Photos: []string{img("r/3003/1.jpg")},
				Spaces: []Space{
					space(300301, "Studio", "entire_place", 2, 8500, "s/300301/1.jpg"),
					space(300302, "Room in shared flat", "private_room", 1, 4500, "s/300302/1.jpg"),
					space(300303, "Penthouse", "entire_place", 6, 26000, "s/300303/1.jpg"),
				},
			},
		},
		Packages: []Package{
			{
				ID: 4001, Name: "Lisbon and Sintra, 4 days", City: "Lisbon", Country: "PT",
				Description:    "Three nights at Casa do Rio, a guided Sintra day trip and airport transfers.",
				DurationNights: 3, InstantConfirmation: true,
				Currency: "EUR", ImageURL: img("p/4001/cover.jpg"), Photos: []string{img("p/4001/1.jpg")},
				Itinerary: []ItineraryDay{
					{Day: 1, Title: "Arrival", Description: "Transfer to the hotel, welcome drink on the rooftop."},
					{Day: 2, Title: "Sintra", Description: "Guided day trip to Sintra and Cabo da Roca."},
					{Day: 3, Title: "Lisbon at leisure", Description: "Free day; optional fado dinner."},
					{Day: 4, Title: "Departure", Description: "Transfer to the airport."},
				},
				Addons: []Addon{
					{ID: 40011, Name: "Fado dinner", PricePerPerson: 4500},
					{ID: 40012, Name: "Tuk-tuk city tour", PricePerPerson: 3000},
				},
				Kind: PackageFixed,
				Departures: []Departure{
					{ID: 400101, Date: day(30), Capacity: 16, Pricing: PersonPrices{Adult: 90000, Child: 65000, Infant: 0}},
					{ID: 400102, Date: day(60), Capacity: 16, Pricing: PersonPrices{Adult: 95000, Child: 68000, Infant: 0}},
				},
			},
			{
				ID: 4002, Name: "Porto wine weekend", City: "Porto", Country: "PT",
				Description:    "Two nights by the Douro, a cellar tour and a river cruise, on the dates you choose.",
				DurationNights: 2, InstantConfirmation: false,
				Currency: "EUR", ImageURL: img("p/4002/cover.jpg"),
				Itinerary: []ItineraryDay{
					{Day: 1, Title: "Arrival", Description: "Check in at Hotel Ribeira Porto."},
					{Day: 2, Title: "Wine day", Description: "Cellar tour in Gaia and a six-bridges cruise."},
					{Day: 3, Title: "Departure"},
				},
				Addons:      []Addon{{ID: 40021, Name: "Douro valley lunch", PricePerPerson: 5500}},
				Kind:        PackageOpen,
				TravelDates: []ActivityDays{{Start: first, End: last, Capacity: 8}},
				Pricing:     &PersonPrices{Adult: 40000, Child: 25000, Infant: 0},
			},
			{
				ID: 4003, Name: "Gaudí and tapas, 5 days", City: "Barcelona", Country: "ES",
				Description:    "Four nights in the Gothic Quarter with Sagrada Família, Park Güell and a tapas crawl.",
				DurationNights: 4, InstantConfirmation: true,
				Currency: "EUR", ImageURL: img("p/4003/cover.jpg"), Photos: []string{img("p/4003/1.jpg"), img("p/4003/2.jpg")},
				Itinerary: []ItineraryDay{
					{Day: 1, Title: "Arrival", Description: "Transfer to Hotel Gòtic Barcelona."},
					{Day: 2, Title: "Gaudí", Description: "Sagrada Família and Park Güell with a guide."},
					{Day: 3, Title: "Tapas crawl", Description: "Evening food walk through El Born."},
					{Day: 4, Title: "Barcelona at leisure"},
					{Day: 5, Title: "Departure"},
				},
				Addons: []Addon{{ID: 40031, Name: "Montserrat half-day trip", PricePerPerson: 6500}},
				Kind:   PackageFixed,
				Departures: []Departure{
					{ID: 400301, Date: day(35), Capacity: 12, Pricing: PersonPrices{Adult: 120000, Child: 85000, Infant: 0}},
					{ID: 400302, Date: day(65), Capacity: 12, Pricing: PersonPrices{Adult: 125000, Child: 88000, Infant: 0}},
				},
			},
		},
	}
}
