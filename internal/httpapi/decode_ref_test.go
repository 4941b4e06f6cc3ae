package httpapi

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/booking"
)

// The decoder as it was before scanMembers, fieldsOf and decodePlain: the reference
// TestDecodeAsBefore and FuzzDecodeAsBefore compare decodeObject with. It decodes a
// value through decodeValue, the slow path both share.

func refDecodeObject(raw []byte, v reflect.Value, prefix string, problems *[]string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		var syn *json.SyntaxError
		switch {
		case prefix == "" && asSyntax(err, &syn):
			*problems = append(*problems, fmt.Sprintf("body: malformed JSON at byte %d: %s", syn.Offset, syn.Error()))
		case prefix == "":
			*problems = append(*problems, "body: must be a JSON object")
		default:
			*problems = append(*problems, strings.TrimSuffix(prefix, ".")+": must be an object")
		}
		return
	}
	known := map[string]reflect.Value{}
	refCollectFields(v, known)
	for _, name := range sortedKeys(fields) {
		fv, ok := known[name]
		if !ok {
			*problems = append(*problems, prefix+name+": unknown field")
			continue
		}
		val := fields[name]
		if string(val) == "null" {
			continue
		}
		target := fv
		if target.Kind() == reflect.Pointer && target.Type().Elem().Kind() == reflect.Struct {
			if target.IsNil() {
				target.Set(reflect.New(target.Type().Elem()))
			}
			refDecodeObject(val, target.Elem(), prefix+name+".", problems)
			continue
		}
		if target.Kind() == reflect.Slice && target.Type().Elem().Kind() == reflect.Struct {
			refDecodeArray(val, target, prefix+name, problems)
			continue
		}
		if t := target.Type(); t.Kind() == reflect.Slice && (t.Elem() == intType || t.Elem() == int64Type) {
			decodeIntList(val, target, prefix+name, problems) // element by element, as decodeValue reads one
			continue
		}
		decodeValue(val, target, prefix+name, problems) // json.Unmarshal, and integers written 2.0
	}
}

// decodeArray decodes a JSON array of objects into slice v element by element, so that
// problems name their index ("travellers[1].age: unknown field").
func refDecodeArray(raw []byte, v reflect.Value, path string, problems *[]string) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		*problems = append(*problems, path+": must be an array of objects")
		return
	}
	out := reflect.MakeSlice(v.Type(), len(elems), len(elems))
	for i, e := range elems {
		refDecodeObject(e, out.Index(i), fmt.Sprintf("%s[%d].", path, i), problems)
	}
	v.Set(out)
}

// collectFields maps json names to the settable fields of struct v, embedded included.
func refCollectFields(v reflect.Value, out map[string]reflect.Value) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			refCollectFields(v.Field(i), out)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out[name] = v.Field(i)
	}
}

// decodeCases are bodies for each request type the partner API decodes.
var decodeCases = []string{
	`{"hotel_id":12,"check_in":"2026-01-01","check_out":"2026-01-04"}`,
	` { "check_out" : "2026-01-04" , "hotel_id" : 12 , "check_in":"2026-01-01" } `,
	`{"hotel_id":12,"hotel_id":13}`, `{"hotel_id":"12"}`, `{"hotel_id":1.0}`, `{"hotel_id":1e3}`, `{"hotel_id":-0}`,
	`{"hotel_id":99999999999999999999}`, `{"hotel_id":-9223372036854775808}`, `{"hotel_id":null,"adults":null}`,
	`{"adults":2,"rooms":1,"children":0,"child_ages":[3,4],"nationality_code":"PT"}`, `{"adults":"2"}`, `{"adults":2.5}`,
	`{"Hotel_ID":3}`, `{"HOTEL_ID":3,"unknown":{"a":[1,{"b":"}"}]}}`, `{"check_in":"caf\u00e9"}`, `{"check_in":"a\"b"}`,
	`{"check_in":"\xff"}`, `{"check_in":"\u0000"}`, `{"ch\u0065ck_in":"x"}`, `{"é":1}`, `null`, `[]`, `"x"`, `12`, `{}`,
	`{"hotel_id":1,}`, `{"hotel_id"}`, `{`, ``, `   `, `{"check_in":true}`, `{"child_ages":[1,"x"]}`, `{"child_ages":{}}`,
	`{"child_ages":[null,2.0,3E0,1e400,-1]}`, `{"addon_ids":[1,null]}`, `{"child_ages":[]}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17}`,
	`{"quote_id":"q","guest":{"first_name":"A","last_name":"B","email":"a@b.c","extra":1},"travellers":[{"first_name":"x","age":3},{"nope":1},7]}`,
	`{"guest":5}`, `{"guest":null,"travellers":null}`, `{"travellers":{}}`, `{"guest":{"first_name":"A","first_name":"B"}}`,
	`{"destination":"Lisbon","page":2,"per_page":50}`, `{"url":"https://x.example/h","events":["booking.created"]}`,
	`{"hotel_id":2.0,"adults":1E1,"rooms":-0.0}`, `{"hotel_id":1e-400}`, `{"hotel_id":1e400}`, `{"hotel_id":9007199254740993.0}`, `{"hotel_id":2.50}`,
}

// decodeTargets returns a new value of each request type the API decodes.
func decodeTargets() []any {
	return []any{&booking.HotelAvailabilityRequest{}, &booking.HotelSearchRequest{}, &booking.ActivityAvailabilityRequest{},
		&booking.RentalAvailabilityRequest{}, &booking.PackageAvailabilityRequest{}, &booking.PackageSearchRequest{},
		&booking.BookRequest{}, &booking.QuoteRequest{}}
}

func checkDecodeAsBefore(t *testing.T, body string) {
	for i := range decodeTargets() {
		got, want := decodeTargets()[i], decodeTargets()[i]
		var gotP, wantP []string
		b := []byte(body)
		decodeObject(b, reflect.ValueOf(got).Elem(), "", &gotP, json.Valid(b))
		refDecodeObject(b, reflect.ValueOf(want).Elem(), "", &wantP)
		if !reflect.DeepEqual(got, want) || !slices.Equal(gotP, wantP) {
			t.Errorf("%T from %q:\n got %+v %q\nwant %+v %q", got, body, got, gotP, want, wantP)
		}
	}
}

// TestDecodeAsBefore checks that decodeObject decodes and words its problems as the
// decoder did before its fast paths.
func TestDecodeAsBefore(t *testing.T) {
	for _, body := range decodeCases {
		checkDecodeAsBefore(t, body)
	}
}

func FuzzDecodeAsBefore(f *testing.F) {
	for _, body := range decodeCases {
		f.Add(body)
	}
	f.Fuzz(checkDecodeAsBefore)
}

// TestIntegersWrittenAsNumbers: an integer field takes an integer however JSON writes it
// (2.0, 2E0: integers to JSON Schema, whose "integer" the OpenAPI document uses), names
// one past range as such, and refuses a fraction or a number that only reads as 0.
func TestIntegersWrittenAsNumbers(t *testing.T) {
	for body, want := range map[string]struct {
		hotel    int64
		adults   int
		problems []string
	}{
		`{"hotel_id":1001.0,"adults":2E0}`:            {1001, 2, nil},
		`{"hotel_id":-0.0,"adults":1.000}`:            {0, 1, nil},
		`{"hotel_id":99999999999999999999}`:           {0, 0, []string{"hotel_id: 99999999999999999999 is out of range"}},
		`{"hotel_id":1e400}`:                          {0, 0, []string{"hotel_id: 1e400 is out of range"}},
		`{"hotel_id":9007199254740993.0}`:             {9007199254740993, 0, nil},
		`{"hotel_id":2.9999999999999999}`:             {0, 0, []string{"hotel_id: must be an integer"}},
		`{"hotel_id":4503599627370496.5}`:             {0, 0, []string{"hotel_id: must be an integer"}},
		`{"hotel_id":1230e-1}`:                        {123, 0, nil},
		`{"hotel_id":2.5,"adults":1e-400}`:            {0, 0, []string{"adults: must be an integer", "hotel_id: must be an integer"}},
		`{"hotel_id":9223372036854775807,"adults":3}`: {9223372036854775807, 3, nil},
	} {
		var req booking.HotelAvailabilityRequest
		var problems []string
		decodeObject([]byte(body), reflect.ValueOf(&req).Elem(), "", &problems, json.Valid([]byte(body)))
		adults := 0
		if req.Adults != nil {
			adults = *req.Adults
		}
		if req.HotelID != want.hotel || adults != want.adults || !slices.Equal(problems, want.problems) {
			t.Errorf("%s: hotel %d, adults %d, %q; want %d, %d, %q", body, req.HotelID, adults, problems, want.hotel, want.adults, want.problems)
		}
	}
}

// FuzzIntegral compares integral with exact arithmetic (math/big) on JSON numbers whose
// exponent is small enough for big.Rat to expand.
func FuzzIntegral(f *testing.F) {
	for _, n := range []string{"2", "2.0", "2.9999999999999999", "4503599627370496.5", "1E+2", "-0.0", "0.0001e4", "1e-400",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "12.30e-1", "1230e-2"} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, n string) {
		var num json.Number
		if json.Unmarshal([]byte(n), &num) != nil || n != strings.TrimSpace(n) || n == "" || n[0] == '"' {
			return
		}
		if i := strings.IndexAny(n, "eE"); i >= 0 {
			if e, err := strconv.Atoi(strings.TrimPrefix(n[i+1:], "+")); err != nil || e > 60 || e < -60 {
				return
			}
		}
		r, ok := new(big.Rat).SetString(n)
		if !ok {
			t.Fatalf("big.Rat cannot read %q", n)
		}
		got, state := integral([]byte(n))
		switch {
		case !r.IsInt():
			if state != notIntegral {
				t.Errorf("%s: %d, %d; want not integral", n, got, state)
			}
		case !r.Num().IsInt64():
			if state != outOfRange {
				t.Errorf("%s: %d, %d; want out of range", n, got, state)
			}
		case state != isIntegral || got != r.Num().Int64():
			t.Errorf("%s: %d, %d; want %s", n, got, state, r.Num())
		}
	})
}
