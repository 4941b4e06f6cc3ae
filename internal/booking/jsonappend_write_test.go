package booking

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/money"
)

// TestPrebookAppendsAsEncodingJSON pins a prebook's answer (PrebookResult.AppendJSON)
// to encoding/json's bytes with SetEscapeHTML(false), and the quote its token keeps
// (marshalLockedQuote) to json.Marshal's, for odd strings, times in other zones and with
// nanoseconds, and quotes of every product.
func TestPrebookAppendsAsEncodingJSON(t *testing.T) {
	odd := []string{"", "EUR", `Quote " and \ back`, "tab\tnew\nline\r\b\f\x01\x1f\x7f", "<b>&amp;</b>", "São Paulo — Zürich 東京",
		"bad \xff utf8", "line\u2028sep\u2029", "emoji 🏨", "2026-01-02", "a<b", "a>b", "a&b"}
	east := time.FixedZone("east", 5*3600+30*60)
	times := []time.Time{time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2026, 12, 31, 23, 59, 59, 123456789, east),
		time.Date(0, 1, 1, 0, 0, 0, 1000, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 100, time.FixedZone("west", -8*3600)), {}}
	for i, s := range odd {
		for j, at := range times {
			r := &PrebookResult{PrebookToken: s, ExpiresAt: at, ProductType: s, TotalPrice: money.Amount{Minor: int64(i*12345 - 7*j), Currency: []string{"EUR", "JPY", "BHD"}[(i+j)%3]},
				Currency: s, InstantConfirmation: (i+j)%2 == 0, CancellationPolicy: s}
			if !r.AppendsJSON() {
				t.Fatalf("%v: AppendsJSON false", at)
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
			if got, w := string(r.AppendJSON([]byte("x"))), "x"+string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))); got != w {
				t.Errorf("prebook result:\n got %s\nwant %s", got, w)
			}
			if got, w := string(AppendJSONString(nil, s)), string(mustMarshalNoHTML(t, s)); got != w {
				t.Errorf("string %q: got %s want %s", s, got, w)
			}
		}
	}
	for _, y := range []int{-1, 10000} {
		r := &PrebookResult{ExpiresAt: time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)}
		if r.AppendsJSON() {
			t.Errorf("year %d: AppendsJSON true, encoding/json refuses it", y)
		}
		if _, err := json.Marshal(r); err == nil {
			t.Errorf("year %d: encoding/json took it", y)
		}
	}

	quotes := []QuoteRequest{
		{}, {ProductType: "hotel", HotelID: 12, RoomID: 34, CheckIn: "2026-01-02", CheckOut: "2026-01-05", Rooms: 1, Adults: 2},
		{ProductType: "rental", RentalID: -3, SpaceID: 4, CheckIn: "2026-01-02", CheckOut: "2026-01-05", Guests: 3, Adults: 1},
		{ProductType: "activity", ActivityID: 7, Date: "2026-02-02", Adults: 2, Children: 1, Infants: 1, ChildAges: []int{4}},
		{ProductType: "package", PackageID: 9, DepartureID: 10, TravelDate: "2026-03-01", AddonIDs: []int64{1, 2, 3}, Adults: 2,
			ChildAges: []int{}, NationalityCode: "PT"},
		{ProductType: "package", PackageID: 9, Adults: 1, Travellers: []Traveller{{Type: "adult", FirstName: "Ana", LastName: "Silva"}}},
		{ProductType: "hotel", HotelID: 1, AddonIDs: []int64{}, ChildAges: []int{0, 17}, NationalityCode: "<&>"},
	}
	for _, s := range odd {
		quotes = append(quotes, QuoteRequest{ProductType: s, CheckIn: s, CheckOut: s, Date: s, TravelDate: s, NationalityCode: s, HotelID: 1})
	}
	for _, q := range quotes {
		for _, policy := range odd {
			lq := &lockedQuote{Quote: q, Policy: policy}
			want, err := json.Marshal(lq)
			if err != nil {
				t.Fatal(err)
			}
			got, err := marshalLockedQuote(lq)
			if err != nil || string(got) != string(want) {
				t.Errorf("locked quote %+v:\n got %s (%v)\nwant %s", lq, got, err, want)
			}
		}
	}
}

func mustMarshalNoHTML(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// BenchmarkMarshalLockedQuote is a hotel prebook's locked quote, appended and by json.Marshal.
func BenchmarkMarshalLockedQuote(b *testing.B) {
	lq := &lockedQuote{Quote: QuoteRequest{ProductType: "hotel", HotelID: 123456, RoomID: 1234567, CheckIn: "2026-03-01",
		CheckOut: "2026-03-02", Rooms: 1, Adults: 1}, Policy: "non_refundable"}
	b.Run("appended", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = marshalLockedQuote(lq)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(lq)
		}
	})
}

// TestLockedQuoteAppendsEveryField: marshalLockedQuote names QuoteRequest's fields by
// hand; a field added to QuoteRequest and not to it would be dropped from every locked
// quote silently. Every field but Travellers (which takes json.Marshal's path) is set
// here by reflection, so a new one is set too and missed by the appended bytes.
func TestLockedQuoteAppendsEveryField(t *testing.T) {
	var q QuoteRequest
	v := reflect.ValueOf(&q).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case v.Type().Field(i).Name == "Travellers":
		case f.Kind() == reflect.String:
			f.SetString("v" + strconv.Itoa(i))
		case f.CanInt():
			f.SetInt(int64(i + 1))
		case f.Kind() == reflect.Slice && (f.Type().Elem().Kind() == reflect.Int || f.Type().Elem().Kind() == reflect.Int64):
			s := reflect.MakeSlice(f.Type(), 1, 1)
			s.Index(0).SetInt(int64(i + 1))
			f.Set(s)
		default:
			t.Fatalf("QuoteRequest.%s (%s): set it here, and append it in marshalLockedQuote", v.Type().Field(i).Name, f.Type())
		}
	}
	lq := &lockedQuote{Quote: q, Policy: "free_cancellation"}
	want, err := json.Marshal(lq)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := marshalLockedQuote(lq); err != nil || string(got) != string(want) {
		t.Errorf("every field set:\n got %s (%v)\nwant %s", got, err, want)
	}
}
