package catalog

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// exampleDocument is testdata/example.json (the spec's example) as Go values.
func exampleDocument() *Document {
	return &Document{
		Hotels: []Hotel{{
			ID: 1001, Name: "Casa do Rio", Description: "Riverside boutique hotel",
			PropertyType: "boutique_hotel", StarRating: 4, City: "Lisbon", Country: "PT",
			Address: "Rua do Alecrim 12, Lisbon", BoardType: "room_only",
			Facilities:  []string{"wifi", "pool"},
			Amenities:   map[string]any{"wifi": "free", "parking": "paid"},
			MealPlans:   []string{"room_only", "breakfast"},
			GuestRating: 8.7, ReviewsCount: 1240, AverageRating: 4.4, InstantConfirmation: true,
			Currency: "EUR", ImageURL: "https://img.example.com/h/1001/cover.jpg",
			Photos:  []string{"https://img.example.com/h/1001/1.jpg"},
			Markets: map[string]Percent{"GB": 500, "IN": -800},
			Rooms: []Room{{
				ID: 100101, Name: "Double Room", BoardType: "breakfast", MaxAdults: 2, MaxChildren: 1,
				Refundable: true, PricePerNight: 12000, Currency: "EUR",
				Inventory: []RoomNights{
					{Start: "2026-12-01", End: "2027-03-31", Allotment: 5, Price: 12000},
					{Start: "2026-12-24", End: "2026-12-26", Allotment: 2, Price: 18000},
				},
			}},
		}},
		Activities: []Activity{{
			ID: 2001, Name: "Sintra day trip", Category: "tour", City: "Lisbon",
			Description: "Full-day guided trip", DurationHours: 8.5, Languages: []string{"en", "pt"},
			InstantConfirmation: true, Currency: "EUR", ImageURL: "https://img.example.com/a/2001/cover.jpg",
			Pricing: PersonPrices{Adult: 6000, Child: 3000, Infant: 0},
			Availability: []ActivityDays{
				{Start: "2026-12-01", End: "2027-03-31", Capacity: 20},
				{Start: "2026-12-25", End: "2026-12-25", Capacity: 0},
			},
		}},
		Rentals: []Rental{{
			ID: 3001, Name: "Alfama Lofts", PropertyType: "apartment", City: "Lisbon",
			CheckInTime: "15:00", CheckOutTime: "11:00", InstantBooking: false, Currency: "EUR",
			ImageURL: "https://img.example.com/r/3001/cover.jpg",
			Spaces: []Space{{
				ID: 300101, Name: "Loft 1", SpaceType: "entire_place", MaxGuests: 4, FromPrice: 9000,
				Currency: "EUR", Availability: []SpaceNights{{Start: "2026-12-01", End: "2027-03-31", Price: 9000}},
			}},
		}},
		Packages: []Package{
			{
				ID: 4001, Name: "Lisbon and Sintra, 4 days", City: "Lisbon", Country: "PT",
				Description: "Hotel, guided tours and transfers", DurationNights: 3, InstantConfirmation: true,
				Currency: "EUR", ImageURL: "https://img.example.com/p/4001/cover.jpg",
				Itinerary: []ItineraryDay{{Day: 1, Title: "Arrival", Description: "Transfer to the hotel"}},
				Addons:    []Addon{{ID: 40011, Name: "Fado dinner", PricePerPerson: 4500}},
				Kind:      "fixed",
				Departures: []Departure{{ID: 400101, Date: "2027-01-10", Capacity: 16,
					Pricing: PersonPrices{Adult: 90000, Child: 65000, Infant: 0}}},
			},
			{
				ID: 4002, Name: "Porto wine weekend", City: "Porto", Country: "PT",
				Description: "Open-date package", DurationNights: 2, InstantConfirmation: false,
				Currency: "EUR", ImageURL: "https://img.example.com/p/4002/cover.jpg",
				Kind:        "open",
				TravelDates: []ActivityDays{{Start: "2027-01-01", End: "2027-06-30", Capacity: 8}},
				Pricing:     &PersonPrices{Adult: 40000, Child: 25000, Infant: 0},
			},
		},
	}
}

func parseFile(t *testing.T, name string) (*Document, error) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Parse(f)
}

func TestParseExample(t *testing.T) {
	t.Parallel()
	got, err := parseFile(t, "testdata/example.json")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if diff := cmp.Diff(exampleDocument(), got); diff != "" {
		t.Errorf("Parse(example) mismatch (-want +got):\n%s", diff)
	}
}

func TestParseAmountsExactly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, currency, amount string
		want                   int64
		problem                string
	}{
		{"two decimals", "EUR", "120.00", 12000, ""},
		{"no decimals", "EUR", "120", 12000, ""},
		{"one decimal", "EUR", "0.1", 10, ""},
		{"float trap", "EUR", "0.29", 29, ""}, // 0.29*100 is 28.999… in float64
		{"large", "EUR", "123456789.01", 12345678901, ""},
		{"largest", "EUR", "1000000000.00", MaxAmount, ""},
		{"over the largest", "EUR", "1000000000.01", 0, "at most 1000000000.00 EUR"},
		{"overflowing with markup", "EUR", "99999999999999.99", 0, "at most 1000000000.00 EUR"},
		{"largest yen", "JPY", "100000000000", MaxAmount, ""},
		{"over the largest yen", "JPY", "100000000001", 0, "at most 100000000000 JPY"},
		{"over the largest dinar", "BHD", "100000000.001", 0, "at most 100000000.000 BHD"},
		{"exponent", "EUR", "1.5e2", 15000, ""},
		{"trailing zeros beyond exponent", "EUR", "10.000", 1000, ""},
		{"yen", "JPY", "15000", 15000, ""},
		{"dinar", "BHD", "1.234", 1234, ""},
		{"too precise EUR", "EUR", "120.001", 0, "more decimals than EUR allows"},
		{"too precise JPY", "JPY", "100.5", 0, "more decimals than JPY allows"},
		{"string", "EUR", `"120.00"`, 0, "must be a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := `{"activities":[{"id":1,"name":"A","category":"tour","city":"Lisbon","duration_hours":1,
				"instant_confirmation":true,"currency":"` + tt.currency + `","image_url":"https://img.example.com/a.jpg",
				"pricing":{"adult":` + tt.amount + `,"child":0,"infant":0,"currency":"` + tt.currency + `"},"availability":[]}]}`
			d, err := Parse(strings.NewReader(doc))
			if tt.problem != "" {
				assertProblems(t, err, "activities[0].pricing.adult: "+tt.problem)
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := d.Activities[0].Pricing.Adult; got != tt.want {
				t.Errorf("adult = %d, want %d", got, tt.want)
			}
		})
	}
}

// assertProblems checks that err is a *ValidationError holding exactly want (in any order).
func assertProblems(t *testing.T, err error, want ...string) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v (%T), want *ValidationError", err, err)
	}
	got := slices.Clone(ve.Problems)
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems mismatch (-want +got):\n%s", diff)
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := parseFile(t, "testdata/many_errors.json")
	assertProblems(t, err,
		// hotels[0]: wrong types, bad values, and its rooms
		`hotels[0].name: must not be empty`,
		`hotels[0].description: must be a string`,
		`hotels[0].star_rating: must be between 0 and 5`,
		`hotels[0].country: "pt" is not a two-letter upper-case country code`,
		`hotels[0].facilities[1]: must be a string`,
		`hotels[0].amenities: must be an object`,
		`hotels[0].guest_rating: must be a number`,
		`hotels[0].reviews_count: must not be negative`,
		`hotels[0].instant_confirmation: must be a boolean`,
		`hotels[0].currency: "EURO" is not an ISO 4217 code`,
		`hotels[0].image_url: "/cover.jpg" is not an absolute http(s) URL`,
		`hotels[0].photos[0]: "ftp://img.example.com/1.jpg" is not an absolute http(s) URL`,
		`hotels[0].markets.gb: "gb" is not a two-letter upper-case country code`,
		`hotels[0].markets.IN: percent must be greater than -100`,
		`hotels[0].markets.FR: percent with at most two decimals expected`,
		`hotels[0].markets.DE: must be a number (percent)`,
		`hotels[0].rooms[0].max_adults: must be at least 1`,
		`hotels[0].rooms[0].max_children: must not be negative`,
		`hotels[0].rooms[0].price_per_night: more decimals than EUR allows`,
		`hotels[0].rooms[0].inventory[1].end: before start`,
		`hotels[0].rooms[0].inventory[1].allotment: must not be negative`,
		`hotels[0].rooms[0].inventory[1].price: must not be negative`,
		`hotels[0].rooms[0].inventory[2].start: "2026-02-30" is not a valid date (YYYY-MM-DD)`,
		`hotels[0].rooms[0].inventory[2].end: "2026-13-01" is not a valid date (YYYY-MM-DD)`,
		`hotels[0].rooms[0].inventory[2].allotment: must be an integer`,
		`hotels[0].rooms[0].inventory[3].end: range of 1461 days is longer than 1100 days`,
		`hotels[0].rooms[0].inventory[3].extra: unknown field`,
		`hotels[0].rooms[1].id: duplicate room id 100101 (first used at hotels[0].rooms[0].id)`,
		`hotels[0].rooms[1].view: unknown field`,
		`hotels[0].rooms[2]: must be an object`,
		// hotels[1]: duplicates across hotels, currency mismatch
		`hotels[1].id: duplicate hotel id 1001 (first used at hotels[0].id)`,
		`hotels[1].city: must not be empty`,
		`hotels[1].rooms[0].id: duplicate room id 100101 (first used at hotels[0].rooms[0].id)`,
		`hotels[1].rooms[0].currency: "USD" differs from the hotel currency "EUR"`,
		// hotels[2]
		`hotels[2].id: must be a positive integer`,
		`hotels[2].country: "PTG" is not a two-letter upper-case country code`,
		`hotels[2].currency: "eur" is not an ISO 4217 code`,
		`hotels[2].rooms: must hold at least one room`,
		// hotels[3]: nearly empty
		`hotels[3].id: must be an integer`,
		`hotels[3].name: required`,
		`hotels[3].property_type: required`,
		`hotels[3].star_rating: required`,
		`hotels[3].city: required`,
		`hotels[3].country: required`,
		`hotels[3].board_type: required`,
		`hotels[3].guest_rating: required`,
		`hotels[3].reviews_count: required`,
		`hotels[3].average_rating: required`,
		`hotels[3].instant_confirmation: required`,
		`hotels[3].currency: required`,
		`hotels[3].image_url: required`,
		`hotels[3].rooms: required`,
		// activities
		`activities[0].duration_hours: must be greater than 0`,
		`activities[0].languages: must be an array`,
		`activities[0].pricing.adult: more decimals than JPY allows`,
		`activities[0].pricing.child: must not be negative`,
		`activities[0].pricing.currency: "EUR" differs from the activity currency "JPY"`,
		`activities[0].availability[0].end: before start`,
		`activities[0].availability[0].capacity: must not be negative`,
		`activities[0].foo: unknown field`,
		`activities[1].id: duplicate activity id 2001 (first used at activities[0].id)`,
		`activities[1].pricing.currency: required`,
		`activities[1].availability: required`,
		// rentals
		`rentals[0].check_in_time: "24:00" is not a time of day HH:MM (00:00–23:59)`,
		`rentals[0].check_out_time: "9:00" is not a time of day HH:MM (00:00–23:59)`,
		`rentals[0].spaces[0].max_guests: must be at least 1`,
		`rentals[0].spaces[0].currency: "GBP" differs from the rental currency "EUR"`,
		`rentals[0].spaces[0].photos[0]: "not a url" is not an absolute http(s) URL`,
		`rentals[0].spaces[0].availability[0].price: must be a number`,
		`rentals[1].spaces[0].id: duplicate space id 300101 (first used at rentals[0].spaces[0].id)`,
		// packages
		`packages[0].duration_nights: must not be negative`,
		`packages[0].itinerary[0].day: must be at least 1`,
		`packages[0].itinerary[0].title: must not be empty`,
		`packages[0].addons[1].id: duplicate addon id 1 (first used at packages[0].addons[0].id)`,
		`packages[0].addons[1].name: must not be empty`,
		`packages[0].addons[1].price_per_person: more decimals than EUR allows`,
		`packages[0].departures: a fixed package needs at least one departure`,
		`packages[0].travel_dates: not allowed on a fixed package`,
		`packages[0].pricing: not allowed on a fixed package (each departure has its own)`,
		`packages[1].departures: not allowed on an open package`,
		`packages[1].travel_dates: an open package needs at least one range`,
		`packages[1].pricing: required on an open package`,
		`packages[1].departures[0].date: "2027-02-30" is not a valid date (YYYY-MM-DD)`,
		`packages[2].kind: "weekly" must be "fixed" or "open"`,
		`packages[2].departures[0].id: duplicate departure id 400101 (first used at packages[1].departures[0].id)`,
		// top level
		`extras: unknown field`,
	)
}

func TestParseStructuralProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		want      []string // all of these must be reported
		exact     bool     // and nothing else
	}{
		{"empty document is valid", `{}`, nil, true},
		{"null and empty lists are absent", `{"hotels":null,"activities":[]}`, nil, true},
		{"not an object", `[]`, []string{"document: must be an object"}, true},
		{"list not an array", `{"hotels":{}}`, []string{"hotels: must be an array"}, true},
		{"duplicate field", `{"packages":[],"packages":[]}`, []string{"packages: duplicate field"}, true},
		{"id too large", `{"rentals":[{"id":99999999999999999999}]}`, []string{"rentals[0].id: integer out of range"}, false},
		{"id not integral", `{"rentals":[{"id":1.5}]}`, []string{"rentals[0].id: must be an integer"}, false},
		{"missing field", `{"rentals":[{"id":1}]}`, []string{"rentals[0].name: required", "rentals[0].spaces: required"}, false},
		{"null required field", `{"rentals":[{"id":null}]}`, []string{"rentals[0].id: required"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(strings.NewReader(tt.doc))
			switch {
			case tt.want == nil:
				if err != nil {
					t.Errorf("Parse: %v", err)
				}
			case tt.exact:
				assertProblems(t, err, tt.want...)
			default:
				var ve *ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("err = %v, want *ValidationError", err)
				}
				for _, w := range tt.want {
					if !slices.Contains(ve.Problems, w) {
						t.Errorf("problem %q missing from %q", w, ve.Problems)
					}
				}
			}
		})
	}
}

func TestParseMalformedJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, want string
	}{
		{"empty input", ``, "document: malformed JSON at line 1, column 1 (byte offset 0): unexpected end of JSON input"},
		{"truncated", "{\n  \"hotels\": [", "document: malformed JSON at line 2, column 14 (byte offset 15): unexpected end of JSON input"},
		{"bad character", "{\n  \"hotels\": [}", "document: malformed JSON at line 2, column 14 (byte offset 15): invalid character '}' looking for beginning of value"},
		{"trailing data", `{} x`, "document: malformed JSON at line 1, column 4 (byte offset 3): invalid character 'x' after top-level value"},
		{"bad number", "{\"hotels\": [{\"id\": 01}]}", "document: malformed JSON at line 1, column 21 (byte offset 20): invalid character '1' after object key:value pair"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(strings.NewReader(tt.doc))
			assertProblems(t, err, tt.want)
		})
	}
}

func TestValidationErrorMessage(t *testing.T) {
	t.Parallel()
	one := &ValidationError{Problems: []string{"hotels[0].id: required"}}
	if got, want := one.Error(), "invalid catalog: hotels[0].id: required"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	two := &ValidationError{Problems: []string{"a: x", "b: y"}}
	if got, want := two.Error(), "invalid catalog (2 problems): a: x; b: y"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestValidateInCodeDocument(t *testing.T) {
	t.Parallel()
	d := exampleDocument()
	d.Hotels = append(d.Hotels, d.Hotels[0])            // duplicate hotel and room ids
	d.Hotels[1].Rooms = slices.Clone(d.Hotels[1].Rooms) // share nothing with hotels[0]
	d.Hotels[1].Rooms[0].Currency = "GBP"
	d.Packages[1].Pricing = nil
	d.Rentals[0].Spaces[0].Availability = append(d.Rentals[0].Spaces[0].Availability,
		SpaceNights{Start: "2027-01-01", End: "2030-01-10", Price: 1})
	got := d.Validate()
	want := []string{
		`hotels[1].id: duplicate hotel id 1001 (first used at hotels[0].id)`,
		`hotels[1].rooms[0].id: duplicate room id 100101 (first used at hotels[0].rooms[0].id)`,
		`hotels[1].rooms[0].currency: "GBP" differs from the hotel currency "EUR"`,
		`rentals[0].spaces[0].availability[1].end: range of 1106 days is longer than 1100 days`,
		`packages[1].pricing: required on an open package`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Validate mismatch (-want +got):\n%s", diff)
	}
	if p := exampleDocument().Validate(); len(p) != 0 {
		t.Errorf("example: unexpected problems %q", p)
	}
}

func TestUnmarshalJSON(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/example.json")
	if err != nil {
		t.Fatal(err)
	}
	var d Document
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("json.Unmarshal: %v", err)
	}
	if diff := cmp.Diff(exampleDocument(), &d); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	err = json.Unmarshal([]byte(`{"hotels":[{}],"x":1}`), &d)
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) < 2 {
		t.Errorf("err = %v, want a *ValidationError with several problems", err)
	}
}
