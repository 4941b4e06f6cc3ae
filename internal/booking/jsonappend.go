package booking

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/tradewind/tradewind/internal/money"
)

// The search results encode themselves by appending to a buffer (AppendJSON), the
// bytes encoding/json writes for them with SetEscapeHTML(false), as the partner API
// encodes its answers: a search answer's page is written without reflection.
// TestSearchResultsAppendAsEncodingJSON pins the equality.

// appendString appends s as a JSON string. Plain ASCII (the catalog's names, cities,
// codes and URLs) is copied as is; anything else is left to encoding/json.
func appendString(b []byte, s string) []byte {
	t := s
	for ; len(t) >= 8; t = t[8:] { // eight bytes at a time (the byte loads combine into one)
		w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		if plainJSON(w) != 0 {
			return appendStringSlow(b, s)
		}
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return appendStringSlow(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainJSON is not 0 when one of the eight bytes of w is not copied as is into a JSON
// string: ≥ 0x80, < 0x20, '"' or '\\' (the classic tests for a byte less than n and a
// zero byte, exact as to whether there is one).
func plainJSON(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	return (w | (w-ones*0x20)&^w | (quote-ones)&^quote | (backslash-ones)&^backslash) & highs
}

func appendStringSlow(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// appendAmount appends a as money.Amount's MarshalJSON does.
func appendAmount(b []byte, a money.Amount) []byte {
	return money.AppendFormat(b, a.Minor, a.Currency)
}

// appendFloat appends f as encoding/json does (finite values).
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// field appends the name of a field, after a comma unless it is the first.
func field(b []byte, name string) []byte {
	if len(b) > 0 && b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

// AppendJSON appends the meta's JSON encoding.
// appendList appends xs as a JSON array, each element by each, or null for a nil
// slice, as encoding/json writes them.
func appendList[T any](b []byte, xs []T, each func(b []byte, x *T) []byte) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, &xs[i])
	}
	return append(b, ']')
}

func (p PageMeta) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendInt(field(b, "page"), int64(p.Page))
	b = appendInt(field(b, "per_page"), int64(p.PerPage))
	b = appendInt(field(b, "total"), int64(p.Total))
	b = appendInt(field(b, "total_pages"), int64(p.TotalPages))
	return append(b, '}')
}

// AppendJSON appends the result's JSON encoding.
func (r *HotelSearchResult) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendString(field(b, "destination"), r.Destination)
	b = appendString(field(b, "check_in"), r.CheckIn)
	b = appendString(field(b, "check_out"), r.CheckOut)
	b = appendInt(field(b, "nights"), int64(r.Nights))
	b = appendString(field(b, "pricing_mode"), string(r.PricingMode))
	b = appendList(field(b, "hotels"), r.Hotels, func(b []byte, h *HotelHit) []byte {
		if h.head != nil {
			b = append(b, h.head...)
		} else {
			b = appendHitHead(b, h.HotelID, h.Name, h.City, h.Country, h.StarRating, h.ImageURL)
		}
		b = appendString(field(b, "board_type"), h.BoardType)
		b = appendBool(field(b, "refundable"), h.Refundable)
		b = appendBool(field(b, "instant_confirmation"), h.InstantConfirmation)
		b = appendAmount(field(b, "from_price"), h.FromPrice)
		b = appendString(field(b, "currency"), h.Currency)
		return append(b, '}')
	})
	return append(b, '}')
}

// appendHitHead appends a hotel hit's JSON from its '{' to its image_url: the part that
// is the hotel's alone, which a city's table keeps ready for every hotel
// (CityHotels.hitHead).
func appendHitHead(b []byte, id int64, name, city, country string, stars int, imageURL string) []byte {
	b = append(b, '{')
	b = appendInt(field(b, "hotel_id"), id)
	b = appendString(field(b, "name"), name)
	b = appendString(field(b, "city"), city)
	b = appendString(field(b, "country"), country)
	b = appendInt(field(b, "star_rating"), int64(stars))
	return appendString(field(b, "image_url"), imageURL)
}

// AppendJSON appends the result's JSON encoding.
func (r *ActivitySearchResult) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendString(field(b, "destination"), r.Destination)
	b = appendString(field(b, "date"), r.Date)
	b = appendInt(field(b, "adults"), int64(r.Adults))
	b = appendInt(field(b, "children"), int64(r.Children))
	b = appendInt(field(b, "infants"), int64(r.Infants))
	b = field(b, "category")
	if r.Category == nil {
		b = append(b, "null"...)
	} else {
		b = appendString(b, *r.Category)
	}
	b = appendString(field(b, "pricing_mode"), string(r.PricingMode))
	b = appendList(field(b, "activities"), r.Activities, func(b []byte, a *ActivityHit) []byte {
		b = append(b, '{')
		b = appendInt(field(b, "activity_id"), a.ActivityID)
		b = appendString(field(b, "name"), a.Name)
		b = appendString(field(b, "category"), a.Category)
		b = appendString(field(b, "city"), a.City)
		b = appendFloat(field(b, "duration_hours"), a.DurationHours)
		b = appendString(field(b, "image_url"), a.ImageURL)
		b = appendBool(field(b, "instant_confirmation"), a.InstantConfirmation)
		b = appendInt(field(b, "seats_available"), int64(a.SeatsAvailable))
		b = appendAmount(field(b, "from_price"), a.FromPrice)
		b = appendString(field(b, "currency"), a.Currency)
		return append(b, '}')
	})
	return append(b, '}')
}

// AppendJSON appends the result's JSON encoding.
func (r *RentalSearchResult) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendString(field(b, "destination"), r.Destination)
	b = appendString(field(b, "check_in"), r.CheckIn)
	b = appendString(field(b, "check_out"), r.CheckOut)
	b = appendInt(field(b, "nights"), int64(r.Nights))
	b = appendInt(field(b, "guests"), int64(r.Guests))
	b = appendString(field(b, "pricing_mode"), string(r.PricingMode))
	b = appendList(field(b, "rentals"), r.Rentals, func(b []byte, h *RentalHit) []byte {
		b = append(b, '{')
		b = appendInt(field(b, "rental_id"), h.RentalID)
		b = appendString(field(b, "name"), h.Name)
		b = appendString(field(b, "property_type"), h.PropertyType)
		b = appendString(field(b, "city"), h.City)
		b = appendString(field(b, "image_url"), h.ImageURL)
		b = appendBool(field(b, "instant_booking"), h.InstantBooking)
		b = appendInt(field(b, "available_spaces"), int64(h.AvailableSpaces))
		b = appendAmount(field(b, "from_price"), h.FromPrice)
		b = appendString(field(b, "currency"), h.Currency)
		return append(b, '}')
	})
	return append(b, '}')
}

// AppendJSON appends the result's JSON encoding.
func (r *PackageSearchResult) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendString(field(b, "destination"), r.Destination)
	b = appendString(field(b, "date_from"), r.DateFrom)
	b = appendString(field(b, "date_to"), r.DateTo)
	b = appendInt(field(b, "adults"), int64(r.Adults))
	b = appendInt(field(b, "children"), int64(r.Children))
	b = appendInt(field(b, "infants"), int64(r.Infants))
	b = appendString(field(b, "pricing_mode"), string(r.PricingMode))
	b = appendList(field(b, "packages"), r.Packages, func(b []byte, p *PackageHit) []byte {
		b = append(b, '{')
		b = appendInt(field(b, "package_id"), p.PackageID)
		b = appendString(field(b, "name"), p.Name)
		b = appendString(field(b, "city"), p.City)
		b = appendString(field(b, "country"), p.Country)
		b = appendString(field(b, "kind"), p.Kind)
		b = appendInt(field(b, "duration_nights"), int64(p.DurationNights))
		b = appendString(field(b, "image_url"), p.ImageURL)
		b = appendBool(field(b, "instant_confirmation"), p.InstantConfirmation)
		b = field(b, "departure_id")
		if p.DepartureID == nil {
			b = append(b, "null"...)
		} else {
			b = appendInt(b, *p.DepartureID)
		}
		b = appendString(field(b, "travel_date"), p.TravelDate)
		b = appendAmount(field(b, "from_price"), p.FromPrice)
		b = appendString(field(b, "currency"), p.Currency)
		return append(b, '}')
	})
	return append(b, '}')
}
