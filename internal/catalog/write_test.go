package catalog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWriteParseRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  *Document
	}{
		{"example", exampleDocument()},
		{"demo", Demo(time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC))},
		{"generated", Generate(GenerateOptions{Hotels: 20, Activities: 20, Rentals: 20, Packages: 20, Seed: 7})},
		{"empty", &Document{}},
		{"other currencies", otherCurrencies()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := Write(&buf, tt.doc); err != nil {
				t.Fatalf("Write: %v", err)
			}
			got, err := Parse(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("Parse(Write(d)): %v\n%s", err, buf.String())
			}
			if diff := cmp.Diff(tt.doc, got); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
			// MarshalJSON gives the same document, compacted.
			data, err := json.Marshal(tt.doc)
			if err != nil {
				t.Fatalf("json.Marshal: %v", err)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, buf.Bytes()); err != nil {
				t.Fatal(err)
			}
			if string(data) != compact.String() {
				t.Errorf("MarshalJSON differs from Write:\n%s\n%s", data, compact.String())
			}
		})
	}
}

// otherCurrencies has items in currencies with 0 and 3 decimals.
func otherCurrencies() *Document {
	d := exampleDocument()
	h := &d.Hotels[0]
	h.Currency, h.Rooms[0].Currency = "JPY", "JPY"
	h.Rooms[0].PricePerNight, h.Rooms[0].Inventory[0].Price = 15000, 15000
	h.Markets = map[string]Percent{"US": 1250, "CN": -5}
	a := &d.Activities[0]
	a.Currency = "BHD"
	a.Pricing = PersonPrices{Adult: 12345, Child: 5, Infant: 0}
	return d
}

func TestWriteFormat(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Write(&buf, otherCurrencies()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`"price_per_night": 15000,`,                 // JPY: no decimals
		`"from_price": 90.00,`,                      // EUR: two decimals
		`"adult": 12.345,`,                          // BHD: three decimals
		`"child": 0.005,`,                           //
		`"currency": "BHD"`,                         // activity pricing carries its currency
		`"US": 12.5`,                                // percents as decimals
		`"CN": -0.05`,                               //
		`"photos": []`,                              // empty optional lists are written
		`"amenities": {`,                            //
		`"travel_dates": [`,                         // open package
		`"name": "Lisbon and Sintra, 4 days",`,      // no HTML escaping needed, none done
		`"image_url": "https://img.example.com/p/4`, //
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s", want)
		}
	}
	var ex bytes.Buffer
	if err := Write(&ex, exampleDocument()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ex.String(), `"GB": 5.0,`) || !strings.Contains(ex.String(), `"IN": -8.0`) {
		t.Errorf("markets not written as 5.0 / -8.0:\n%s", ex.String())
	}
	// A fixed package has no travel_dates or pricing; an open one no departures.
	var fixed, open bytes.Buffer
	d := exampleDocument()
	if err := Write(&fixed, &Document{Packages: d.Packages[:1]}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&open, &Document{Packages: d.Packages[1:]}); err != nil {
		t.Fatal(err)
	}
	if s := fixed.String(); strings.Contains(s, "travel_dates") || strings.Contains(s, `"pricing": {
      "adult"`) {
		t.Errorf("fixed package written with open-package fields:\n%s", s)
	}
	if strings.Contains(open.String(), "departures") {
		t.Errorf("open package written with departures:\n%s", open.String())
	}
}
