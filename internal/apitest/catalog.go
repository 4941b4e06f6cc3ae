package apitest

import (
	"github.com/tradewind/tradewind/internal/catalog"
)

// Hotel ids of the test catalog.
const (
	HotelLisbon    = 501 // instant, rooms 50101 (refundable, allotment 5) and 50102 (non-refundable, allotment 2)
	RoomDouble     = 50101
	RoomSmall      = 50102
	HotelOnRequest = 502 // on request, room 50201
	RoomOnRequest  = 50201
	HotelJPY       = 503 // priced in JPY, room 50301
	RoomJPY        = 50301
	HotelPorto     = 504 // Porto, room 50401
	RoomPorto      = 50401
)

// Catalog returns a small catalog for tests, dated from Start: inventory on days
// 0–99. Prices are chosen so that markup rounding shows.
func Catalog() *catalog.Document {
	inv := func(allot int, price int64) []catalog.RoomNights {
		return []catalog.RoomNights{{Start: Day(0), End: Day(99), Allotment: allot, Price: price}}
	}
	hotel := func(id int64, name, city string, instant bool, currency string, rooms ...catalog.Room) catalog.Hotel {
		return catalog.Hotel{ID: id, Name: name, Description: "A test hotel", PropertyType: "hotel", StarRating: 4,
			City: city, Country: "PT", Address: "Rua 1", BoardType: "room_only", Facilities: []string{"wifi"},
			Amenities: map[string]any{"wifi": "free"}, MealPlans: []string{"room_only"}, GuestRating: 8.5, ReviewsCount: 10,
			AverageRating: 4.2, InstantConfirmation: instant, Currency: currency, ImageURL: "https://img.example.com/h.jpg",
			Photos: []string{"https://img.example.com/h1.jpg"}, Rooms: rooms}
	}
	room := func(id int64, name string, refundable bool, maxAdults, maxChildren int, currency string, nights []catalog.RoomNights) catalog.Room {
		return catalog.Room{ID: id, Name: name, BoardType: "breakfast", MaxAdults: maxAdults, MaxChildren: maxChildren,
			Refundable: refundable, PricePerNight: nights[0].Price, Currency: currency, Inventory: nights}
	}
	lisbon := hotel(HotelLisbon, "Casa Teste", "Lisbon", true, "EUR",
		room(RoomDouble, "Double", true, 2, 1, "EUR", append(inv(5, 10005), catalog.RoomNights{Start: Day(20), End: Day(21), Allotment: 5, Price: 20000})),
		room(RoomSmall, "Single", false, 1, 0, "EUR", inv(2, 8000)))
	lisbon.Markets = map[string]catalog.Percent{"GB": 500, "IN": -800}
	return &catalog.Document{Hotels: []catalog.Hotel{
		lisbon,
		hotel(HotelOnRequest, "Quinta Pedido", "Lisbon", false, "EUR", room(RoomOnRequest, "Suite", true, 3, 2, "EUR", inv(3, 30000))),
		hotel(HotelJPY, "Tokyo Inn", "Lisbon", true, "JPY", room(RoomJPY, "Tatami", true, 2, 0, "JPY", inv(3, 12000))),
		hotel(HotelPorto, "Ribeira Rooms", "Porto", true, "EUR", room(RoomPorto, "Twin", true, 2, 2, "EUR", inv(4, 9000))),
	}}
}
