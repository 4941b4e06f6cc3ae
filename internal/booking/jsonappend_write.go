package booking

import (
	"bytes"
	"encoding/json"
	"time"
)

// A prebook's answer and the quote its token remembers are appended by hand too, as
// the search and availability answers are: the bytes encoding/json gives them
// (TestPrebookAppendsAsEncodingJSON), without reflection.

// AppendJSONString appends s as a JSON string, as encoding/json writes it with
// SetEscapeHTML(false) (the partner API's answers).
func AppendJSONString(b []byte, s string) []byte { return appendString(b, s) }

// AppendsJSON reports whether AppendJSON writes encoding/json's bytes for r: for an
// expiry in the years 0–9999. encoding/json refuses a time outside them; such a result
// must be encoded by encoding/json, to fail as it did.
func (r *PrebookResult) AppendsJSON() bool {
	y := r.ExpiresAt.Year()
	return y >= 0 && y <= 9999
}

// AppendJSON appends the result's JSON encoding (see AppendsJSON).
func (r *PrebookResult) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendString(field(b, "prebook_token"), r.PrebookToken)
	b = appendTime(field(b, "expires_at"), r.ExpiresAt)
	b = appendString(field(b, "product_type"), r.ProductType)
	b = appendAmount(field(b, "total_price"), r.TotalPrice)
	b = appendString(field(b, "currency"), r.Currency)
	b = appendBool(field(b, "instant_confirmation"), r.InstantConfirmation)
	b = appendString(field(b, "cancellation_policy"), r.CancellationPolicy)
	return append(b, '}')
}

// appendTime appends t as time.Time's MarshalJSON does (RFC 3339 with the nanoseconds
// that are not zero), for the years 0–9999.
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// marshalLockedQuote is json.Marshal(lq): appended by hand when every string of the
// quote is plain ASCII without the characters json.Marshal escapes for HTML (<, >, &)
// and it names no travellers (a hotel, rental or activity quote, as the partners send
// them); by json.Marshal otherwise.
func marshalLockedQuote(lq *lockedQuote) ([]byte, error) {
	q := &lq.Quote
	if len(q.Travellers) > 0 || !htmlSafe(q.ProductType) || !htmlSafe(q.TravelDate) || !htmlSafe(q.CheckIn) ||
		!htmlSafe(q.CheckOut) || !htmlSafe(q.Date) || !htmlSafe(q.NationalityCode) || !htmlSafe(lq.Policy) {
		return json.Marshal(lq)
	}
	var arr [256]byte // a hotel quote's is ~190 bytes: built here, returned at its size
	b := append(arr[:0], `{"quote":{`...)
	b = appendString(field(b, "product_type"), q.ProductType)
	for _, f := range [...]struct {
		name string
		v    int64
	}{{"hotel_id", q.HotelID}, {"room_id", q.RoomID}, {"activity_id", q.ActivityID}, {"rental_id", q.RentalID},
		{"space_id", q.SpaceID}, {"package_id", q.PackageID}, {"departure_id", q.DepartureID}} {
		if f.v != 0 {
			b = appendInt(field(b, f.name), f.v)
		}
	}
	if q.TravelDate != "" {
		b = appendString(field(b, "travel_date"), q.TravelDate)
	}
	if len(q.AddonIDs) > 0 {
		b = appendList(field(b, "addon_ids"), q.AddonIDs, func(b []byte, v *int64) []byte { return appendInt(b, *v) })
	}
	if q.CheckIn != "" {
		b = appendString(field(b, "check_in"), q.CheckIn)
	}
	if q.CheckOut != "" {
		b = appendString(field(b, "check_out"), q.CheckOut)
	}
	if q.Date != "" {
		b = appendString(field(b, "date"), q.Date)
	}
	b = appendInt(field(b, "adults"), int64(q.Adults))
	for _, f := range [...]struct {
		name string
		v    int
	}{{"children", q.Children}, {"infants", q.Infants}, {"rooms", q.Rooms}, {"guests", q.Guests}} {
		if f.v != 0 {
			b = appendInt(field(b, f.name), int64(f.v))
		}
	}
	if len(q.ChildAges) > 0 {
		b = appendList(field(b, "child_ages"), q.ChildAges, func(b []byte, v *int) []byte { return appendInt(b, int64(*v)) })
	}
	if q.NationalityCode != "" {
		b = appendString(field(b, "nationality_code"), q.NationalityCode)
	}
	b = append(b, '}')
	b = appendString(field(b, "cancellation_policy"), lq.Policy)
	return bytes.Clone(append(b, '}')), nil
}

// htmlSafe reports whether s is printable ASCII without '"', '\\', '<', '>' and '&':
// json.Marshal writes it between quotes as it is.
func htmlSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
