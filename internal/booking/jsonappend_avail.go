package booking

// The availability answers encode themselves as the search results do (jsonappend.go):
// the bytes encoding/json writes for them with SetEscapeHTML(false), without reflection.
// TestAvailabilityAppendsAsEncodingJSON pins the equality.

// AppendJSON appends the answer's JSON encoding.
func (r *HotelAvailability) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendInt(field(b, "hotel_id"), r.HotelID)
	b = appendString(field(b, "check_in"), r.CheckIn)
	b = appendString(field(b, "check_out"), r.CheckOut)
	b = appendInt(field(b, "nights"), int64(r.Nights))
	b = appendList(field(b, "available_rooms"), r.AvailableRooms, func(b []byte, o *RoomOffer) []byte {
		b = append(b, '{')
		b = appendInt(field(b, "room_id"), o.RoomID)
		b = appendString(field(b, "name"), o.Name)
		b = appendString(field(b, "board_type"), o.BoardType)
		b = appendBool(field(b, "refundable"), o.Refundable)
		b = appendInt(field(b, "nights"), int64(o.Nights))
		b = appendInt(field(b, "rooms"), int64(o.Rooms))
		b = appendAmount(field(b, "total_price"), o.TotalPrice)
		b = appendString(field(b, "currency"), o.Currency)
		return append(b, '}')
	})
	b = appendString(field(b, "pricing_mode"), string(r.PricingMode))
	return append(b, '}')
}

// AppendJSON appends the answer's JSON encoding.
func (r *RentalAvailability) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendInt(field(b, "rental_id"), r.RentalID)
	b = appendString(field(b, "check_in"), r.CheckIn)
	b = appendString(field(b, "check_out"), r.CheckOut)
	b = appendInt(field(b, "nights"), int64(r.Nights))
	b = appendInt(field(b, "guests"), int64(r.Guests))
	b = appendBool(field(b, "instant_booking"), r.InstantBooking)
	b = appendList(field(b, "available_spaces"), r.AvailableSpaces, func(b []byte, o *SpaceOffer) []byte {
		b = append(b, '{')
		b = appendInt(field(b, "space_id"), o.SpaceID)
		b = appendString(field(b, "name"), o.Name)
		b = appendString(field(b, "space_type"), o.SpaceType)
		b = appendInt(field(b, "max_guests"), int64(o.MaxGuests))
		b = appendInt(field(b, "nights"), int64(o.Nights))
		b = appendAmount(field(b, "total_price"), o.TotalPrice)
		b = appendString(field(b, "currency"), o.Currency)
		return append(b, '}')
	})
	b = appendString(field(b, "pricing_mode"), string(r.PricingMode))
	return append(b, '}')
}

// appendPersonPricing appends p's JSON encoding.
func appendPersonPricing(b []byte, p *PersonPricing) []byte {
	b = append(b, '{')
	b = appendAmount(field(b, "adult"), p.Adult)
	b = appendAmount(field(b, "child"), p.Child)
	b = appendAmount(field(b, "infant"), p.Infant)
	b = appendString(field(b, "currency"), p.Currency)
	return append(b, '}')
}

// AppendJSON appends the answer's JSON encoding.
func (r *ActivityAvailability) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendInt(field(b, "activity_id"), r.ActivityID)
	b = appendString(field(b, "date"), r.Date)
	b = appendInt(field(b, "adults"), int64(r.Adults))
	b = appendInt(field(b, "children"), int64(r.Children))
	b = appendInt(field(b, "infants"), int64(r.Infants))
	b = appendBool(field(b, "available"), r.Available)
	b = appendInt(field(b, "seats_available"), int64(r.SeatsAvailable))
	b = appendBool(field(b, "instant_confirmation"), r.InstantConfirmation)
	b = appendPersonPricing(field(b, "pricing"), &r.Pricing)
	b = appendAmount(field(b, "total_price"), r.TotalPrice)
	b = appendString(field(b, "currency"), r.Currency)
	b = appendString(field(b, "pricing_mode"), string(r.PricingMode))
	return append(b, '}')
}

// AppendJSON appends the answer's JSON encoding.
func (r *PackageAvailability) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendInt(field(b, "package_id"), r.PackageID)
	b = appendString(field(b, "kind"), r.Kind)
	b = field(b, "departure_id")
	if r.DepartureID == nil {
		b = append(b, "null"...)
	} else {
		b = appendInt(b, *r.DepartureID)
	}
	b = appendString(field(b, "travel_date"), r.TravelDate)
	b = appendString(field(b, "end_date"), r.EndDate)
	b = appendInt(field(b, "duration_nights"), int64(r.DurationNights))
	b = appendInt(field(b, "adults"), int64(r.Adults))
	b = appendInt(field(b, "children"), int64(r.Children))
	b = appendInt(field(b, "infants"), int64(r.Infants))
	b = appendBool(field(b, "available"), r.Available)
	b = appendInt(field(b, "seats_left"), int64(r.SeatsLeft))
	b = appendBool(field(b, "instant_confirmation"), r.InstantConfirmation)
	b = appendPersonPricing(field(b, "pricing"), &r.Pricing)
	b = appendAmount(field(b, "package_price"), r.PackagePrice)
	b = appendList(field(b, "addons"), r.Addons, func(b []byte, a *AddonLine) []byte {
		b = append(b, '{')
		b = appendInt(field(b, "id"), a.ID)
		b = appendString(field(b, "name"), a.Name)
		b = appendAmount(field(b, "price_per_person"), a.PricePerPerson)
		b = appendInt(field(b, "persons"), int64(a.Persons))
		b = appendAmount(field(b, "total_price"), a.TotalPrice)
		b = appendString(field(b, "currency"), a.Currency)
		return append(b, '}')
	})
	b = appendAmount(field(b, "total_price"), r.TotalPrice)
	b = appendString(field(b, "currency"), r.Currency)
	b = appendString(field(b, "pricing_mode"), string(r.PricingMode))
	return append(b, '}')
}
