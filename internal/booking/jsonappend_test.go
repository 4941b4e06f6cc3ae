package booking

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/money"
)

// TestSearchResultsAppendAsEncodingJSON pins AppendJSON to the bytes encoding/json writes
// with SetEscapeHTML(false), as the partner API encodes its answers.
func TestSearchResultsAppendAsEncodingJSON(t *testing.T) {
	odd := []string{"", "Lisbon", `Quote " and \ back`, "tab\tnew\nline\r\b\f\x01\x1f", "<b>&amp;</b>", "São Paulo — Zürich 東京",
		"bad \xff utf8", "line\u2028sep\u2029", "emoji 🏨"}
	dep := int64(77)
	cat := "Food & <Wine>"
	var results []any
	for i, s := range odd {
		amt := money.Amount{Minor: int64(i*12345 - 5), Currency: []string{"EUR", "JPY", "BHD", "USD"}[i%4]}
		results = append(results,
			&HotelSearchResult{Destination: s, CheckIn: "2026-01-01", CheckOut: "2026-01-04", Nights: 3,
				PricingMode: tradewind.PricingMode(s), Hotels: []HotelHit{{HotelID: int64(i), Name: s, City: s, Country: s,
					StarRating: i, ImageURL: s, BoardType: s, Refundable: i%2 == 0, InstantConfirmation: i%3 == 0, FromPrice: amt,
					Currency: s}, {HotelID: -1}}},
			&ActivitySearchResult{Destination: s, Date: s, Adults: i, Children: -i, Infants: 3, Category: &s,
				Activities: []ActivityHit{{ActivityID: 1, Name: s, Category: s, City: s, DurationHours: []float64{0, 1.5, 2, 1e-7, 3e21, -0.25, 1234567.125, 1e20, 1e-6}[i%9],
					ImageURL: s, InstantConfirmation: true, SeatsAvailable: i, FromPrice: amt, Currency: s}}},
			&RentalSearchResult{Destination: s, CheckIn: s, CheckOut: s, Nights: i, Guests: 2, PricingMode: "net",
				Rentals: []RentalHit{{RentalID: 9, Name: s, PropertyType: s, City: s, ImageURL: s, InstantBooking: i%2 == 1,
					AvailableSpaces: i, FromPrice: amt, Currency: s}}},
			&PackageSearchResult{Destination: s, DateFrom: s, DateTo: s, Adults: 1, Children: 2, Infants: 3, PricingMode: "markup",
				Packages: []PackageHit{{PackageID: 5, Name: s, City: s, Country: s, Kind: s, DurationNights: i, ImageURL: s,
					InstantConfirmation: true, DepartureID: &dep, TravelDate: s, FromPrice: amt, Currency: s}, {PackageID: 6}}},
			PageMeta{Page: i, PerPage: 25, Total: 1000 * i, TotalPages: 40})
	}
	results = append(results, &HotelSearchResult{}, &ActivitySearchResult{Category: &cat}, &RentalSearchResult{},
		&PackageSearchResult{}, &HotelSearchResult{Hotels: []HotelHit{}}, &PackageSearchResult{Packages: []PackageHit{}})
	for _, r := range results {
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

// TestAppendStringEveryByte: appendString writes what encoding/json writes for a string
// holding any one byte value at any place, inside the eight-byte words it checks at
// once and in the tail after them.
func TestAppendStringEveryByte(t *testing.T) {
	for n := range 20 {
		for at := range n {
			for c := range 256 {
				s := []byte("abcdefghijKLMNOPQRS/"[:n])
				s[at] = byte(c)
				var want bytes.Buffer
				enc := json.NewEncoder(&want)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(string(s)); err != nil {
					t.Fatal(err)
				}
				if got, w := string(appendString(nil, string(s))), string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))); got != w {
					t.Fatalf("%q: got %s, want %s", s, got, w)
				}
			}
		}
	}
}
