package booking

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/money"
)

// TestAvailabilityAppendsAsEncodingJSON pins the availability answers' AppendJSON to the
// bytes encoding/json writes with SetEscapeHTML(false), as the partner API encodes them.
func TestAvailabilityAppendsAsEncodingJSON(t *testing.T) {
	odd := []string{"", "Lisbon", `Quote " and \ back`, "tab\tnew\nline\r\b\f\x01\x1f", "<b>&amp;</b>", "São Paulo — Zürich 東京",
		"bad \xff utf8", "line\u2028sep\u2029", "emoji 🏨"}
	dep := int64(77)
	var answers []any
	for i, s := range odd {
		amt := func(k int) money.Amount {
			return money.Amount{Minor: int64(i*12345 - 5 + k*999), Currency: []string{"EUR", "JPY", "BHD", "USD"}[(i+k)%4]}
		}
		pp := PersonPricing{Adult: amt(1), Child: amt(2), Infant: amt(3), Currency: s}
		answers = append(answers,
			&HotelAvailability{HotelID: int64(i), CheckIn: s, CheckOut: "2026-01-04", Nights: i, PricingMode: tradewind.PricingMode(s),
				AvailableRooms: []RoomOffer{{RoomID: 3, Name: s, BoardType: s, Refundable: i%2 == 0, Nights: 3, Rooms: i,
					TotalPrice: amt(0), Currency: s}, {RoomID: -1}}},
			&RentalAvailability{RentalID: 9, CheckIn: s, CheckOut: s, Nights: i, Guests: -i, InstantBooking: i%2 == 1,
				PricingMode: "net", AvailableSpaces: []SpaceOffer{{SpaceID: 1, Name: s, SpaceType: s, MaxGuests: i, Nights: 2,
					TotalPrice: amt(4), Currency: s}}},
			&ActivityAvailability{ActivityID: 1, Date: s, Adults: i, Children: 2, Infants: 3, Available: i%3 == 0,
				SeatsAvailable: i, InstantConfirmation: i%2 == 0, Pricing: pp, TotalPrice: amt(5), Currency: s, PricingMode: "markup"},
			&PackageAvailability{PackageID: 5, Kind: s, DepartureID: &dep, TravelDate: s, EndDate: s, DurationNights: i, Adults: 1,
				Children: 2, Infants: 3, Available: true, SeatsLeft: i, InstantConfirmation: i%2 == 1, Pricing: pp,
				PackagePrice: amt(6), Addons: []AddonLine{{ID: 1, Name: s, PricePerPerson: amt(7), Persons: i, TotalPrice: amt(8),
					Currency: s}, {}}, TotalPrice: amt(9), Currency: s, PricingMode: tradewind.PricingMode(s)})
	}
	answers = append(answers, &HotelAvailability{}, &HotelAvailability{AvailableRooms: []RoomOffer{}}, &RentalAvailability{},
		&RentalAvailability{AvailableSpaces: []SpaceOffer{}}, &ActivityAvailability{}, &PackageAvailability{},
		&PackageAvailability{Addons: []AddonLine{}})
	for _, r := range answers {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		got := r.(interface{ AppendJSON([]byte) []byte }).AppendJSON([]byte("prefix:"))
		if w := "prefix:" + string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))); string(got) != w {
			t.Errorf("%T:\n got %s\nwant %s", r, got, w)
		}
	}
}
