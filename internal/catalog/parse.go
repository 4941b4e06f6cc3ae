package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tradewind/tradewind/internal/money"
)

// rootPath names the document itself in problems that concern it as a whole.
const rootPath = "document"

// Parse reads a catalog document in the format of catalog-format.md and validates it.
//
// Amounts are converted from their JSON number text to minor units of the item's currency
// without passing through floating point, and market percents to basis points. When the
// document is malformed JSON, has unknown fields, fields of the wrong JSON type, missing
// required fields, or breaks a rule of Validate, Parse returns a *ValidationError listing
// every problem found, each prefixed with its JSON path. An error reading r is returned
// as is.
//
// Optional lists and objects that are absent, null or empty come back nil, so that
// Parse(Write(d)) equals d for any document that uses nil for empty collections.
func Parse(r io.Reader) (*Document, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("catalog: reading document: %w", err)
	}
	return parseBytes(data)
}

// UnmarshalJSON parses data as a catalog document (see Parse); the error is a *ValidationError.
func (d *Document) UnmarshalJSON(data []byte) error {
	doc, err := parseBytes(data)
	if err != nil {
		return err
	}
	*d = *doc
	return nil
}

func parseBytes(data []byte) (*Document, error) {
	if !json.Valid(data) {
		var v json.RawMessage
		err := json.Unmarshal(data, &v) // for the error's offset
		return nil, &ValidationError{Problems: []string{syntaxProblem(data, err)}}
	}
	p := &parser{c: newChecker()}
	d := p.document(data)
	if len(p.c.problems) > 0 {
		return nil, &ValidationError{Problems: p.c.strings()}
	}
	return d, nil
}

// syntaxProblem describes malformed JSON with the position where the decoder gave up:
// the offending character, or the end of the input when it ended too early. The byte
// offset counts from 0; line and column from 1.
func syntaxProblem(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return rootPath + ": malformed JSON: " + err.Error()
	}
	// Offset counts the bytes read, including the offending one.
	off := min(max(se.Offset, 0), int64(len(data)))
	if off > 0 && strings.HasPrefix(se.Error(), "invalid character") {
		off--
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%s: malformed JSON at line %d, column %d (byte offset %d): %v", rootPath, line, col, off, se)
}

// parser turns raw JSON into Document values, recording structural problems in c and
// running the semantic checks of Validate on each item as soon as it is decoded.
type parser struct {
	c *checker
}

// kind returns the first byte of a JSON value, which tells its type.
func kind(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	switch b := raw[0]; b {
	case '{', '[', '"', 't', 'f', 'n':
		return b
	default:
		return '0' // a number
	}
}

// object is one JSON object being decoded; fields still in the map have not been read.
type object struct {
	p      *parser
	path   string
	fields map[string]json.RawMessage
}

// object decodes raw as a JSON object at path, recording a problem if it is not one.
func (p *parser) object(path string, raw json.RawMessage) (*object, bool) {
	if kind(raw) != '{' {
		p.c.addBad(path, "must be an object")
		return nil, false
	}
	fields, dups := splitObject(raw)
	o := &object{p: p, path: path, fields: fields}
	for _, name := range dups {
		p.c.addBad(o.at(name), "duplicate field")
	}
	return o, true
}

// at returns the path of field name.
func (o *object) at(name string) string {
	if o.path == rootPath {
		return name
	}
	return o.path + "." + name
}

// take removes and returns field name; absent and null count as missing, which is a
// problem when required.
func (o *object) take(name string, required bool) (json.RawMessage, bool) {
	raw, ok := o.fields[name]
	delete(o.fields, name)
	if !ok || kind(raw) == 'n' {
		if required {
			o.p.c.addBad(o.at(name), "required")
		}
		return nil, false
	}
	return raw, true
}

// finish reports every field that was not read as unknown.
func (o *object) finish() {
	for _, name := range sortedKeys(o.fields) {
		o.p.c.addBad(o.at(name), "unknown field")
	}
}

// peekString returns field name if it is a string, without consuming it.
func (o *object) peekString(name string) string {
	s, _ := stringValue(o.fields[name])
	return s
}

func (o *object) str(name string, required bool) string {
	raw, ok := o.take(name, required)
	if !ok {
		return ""
	}
	s, ok := stringValue(raw)
	if !ok {
		o.p.c.addBad(o.at(name), "must be a string")
	}
	return s
}

func (o *object) boolean(name string) bool {
	raw, ok := o.take(name, true)
	if !ok {
		return false
	}
	switch kind(raw) {
	case 't':
		return true
	case 'f':
		return false
	}
	o.p.c.addBad(o.at(name), "must be a boolean")
	return false
}

func (o *object) int64(name string) int64 {
	raw, ok := o.take(name, true)
	if !ok {
		return 0
	}
	return o.p.integer(o.at(name), raw)
}

func (o *object) int(name string) int {
	return int(o.int64(name)) // int is 64 bits on every platform this runs on
}

// integer decodes raw as a JSON integer.
func (p *parser) integer(path string, raw json.RawMessage) int64 {
	if kind(raw) != '0' {
		p.c.addBad(path, "must be an integer")
		return 0
	}
	v, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		p.c.addBad(path, "integer out of range")
		return 0
	}
	if err != nil {
		p.c.addBad(path, "must be an integer")
		return 0
	}
	return v
}

// number decodes a plain (non-money) number such as a rating or a duration.
func (o *object) number(name string) float64 {
	raw, ok := o.take(name, true)
	if !ok {
		return 0
	}
	if kind(raw) != '0' {
		o.p.c.addBad(o.at(name), "must be a number")
		return 0
	}
	v, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
	if err != nil {
		o.p.c.addBad(o.at(name), "number out of range")
		return 0
	}
	return v
}

// amount decodes a required money amount in currency into minor units, exactly.
func (o *object) amount(name, currency string) int64 {
	raw, ok := o.take(name, true)
	if !ok {
		return 0
	}
	path := o.at(name)
	if kind(raw) != '0' {
		o.p.c.addBad(path, "must be a number")
		return 0
	}
	v, err := money.ParseDecimal(string(bytes.TrimSpace(raw)), currency)
	switch {
	case errors.Is(err, money.ErrTooPrecise) && money.ValidCurrency(currency):
		o.p.c.addBad(path, "more decimals than %s allows", currency)
	case errors.Is(err, money.ErrTooPrecise):
		o.p.c.addBad(path, "more than %d decimals", money.Exponent(currency))
	case err != nil:
		o.p.c.addBad(path, "%v", err)
	}
	return v
}

// array decodes field name as a JSON array; it is nil when absent, null or empty.
func (o *object) array(name string, required bool) []json.RawMessage {
	raw, ok := o.take(name, required)
	if !ok {
		return nil
	}
	if kind(raw) != '[' {
		o.p.c.addBad(o.at(name), "must be an array")
		return nil
	}
	return splitArray(raw)
}

// strings decodes an optional array of strings.
func (o *object) strings(name string) []string {
	elems := o.array(name, false)
	if elems == nil {
		return nil
	}
	out := make([]string, len(elems))
	for i, raw := range elems {
		var ok bool
		if out[i], ok = stringValue(raw); !ok {
			o.p.c.addBad(fmt.Sprintf("%s[%d]", o.at(name), i), "must be a string")
		}
	}
	return out
}

// freeObject decodes an optional JSON object of any content, numbers kept as json.Number.
func (o *object) freeObject(name string) map[string]any {
	raw, ok := o.take(name, false)
	if !ok {
		return nil
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if kind(raw) != '{' || dec.Decode(&m) != nil {
		o.p.c.addBad(o.at(name), "must be an object")
		return nil
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// child decodes field name as a nested object.
func (o *object) child(name string, required bool) (*object, bool) {
	raw, ok := o.take(name, required)
	if !ok {
		return nil, false
	}
	return o.p.object(o.at(name), raw)
}

// each calls fn with the path and raw value of every element of array field name.
func (o *object) each(name string, required bool, fn func(path string, raw json.RawMessage)) {
	for i, raw := range o.array(name, required) {
		fn(fmt.Sprintf("%s[%d]", o.at(name), i), raw)
	}
}

// itemCurrency returns the currency an item's amounts are read in: its own when valid,
// else its parent's.
func itemCurrency(own, parent string) string {
	if money.ValidCurrency(own) {
		return own
	}
	return parent
}

func (p *parser) document(raw json.RawMessage) *Document {
	d := &Document{}
	o, ok := p.object(rootPath, raw)
	if !ok {
		return d
	}
	o.each("hotels", false, func(path string, raw json.RawMessage) {
		d.Hotels = append(d.Hotels, p.hotel(path, raw))
		p.c.hotel(path, &d.Hotels[len(d.Hotels)-1])
	})
	o.each("activities", false, func(path string, raw json.RawMessage) {
		d.Activities = append(d.Activities, p.activity(path, raw))
		p.c.activity(path, &d.Activities[len(d.Activities)-1])
	})
	o.each("rentals", false, func(path string, raw json.RawMessage) {
		d.Rentals = append(d.Rentals, p.rental(path, raw))
		p.c.rental(path, &d.Rentals[len(d.Rentals)-1])
	})
	o.each("packages", false, func(path string, raw json.RawMessage) {
		d.Packages = append(d.Packages, p.pkg(path, raw))
		p.c.pkg(path, &d.Packages[len(d.Packages)-1])
	})
	o.finish()
	return d
}

func (p *parser) hotel(path string, raw json.RawMessage) Hotel {
	var h Hotel
	o, ok := p.object(path, raw)
	if !ok {
		return h
	}
	cur := o.peekString("currency")
	h.ID = o.int64("id")
	h.Name = o.str("name", true)
	h.Description = o.str("description", false)
	h.PropertyType = o.str("property_type", true)
	h.StarRating = o.int("star_rating")
	h.City = o.str("city", true)
	h.Country = o.str("country", true)
	h.Address = o.str("address", false)
	h.BoardType = o.str("board_type", true)
	h.Facilities = o.strings("facilities")
	h.Amenities = o.freeObject("amenities")
	h.MealPlans = o.strings("meal_plans")
	h.GuestRating = o.number("guest_rating")
	h.ReviewsCount = o.int("reviews_count")
	h.AverageRating = o.number("average_rating")
	h.InstantConfirmation = o.boolean("instant_confirmation")
	h.Currency = o.str("currency", true)
	h.ImageURL = o.str("image_url", true)
	h.Photos = o.strings("photos")
	h.Markets = p.markets(o)
	o.each("rooms", true, func(path string, raw json.RawMessage) {
		h.Rooms = append(h.Rooms, p.room(path, raw, cur))
	})
	o.finish()
	return h
}

// markets decodes the optional hotel markets: country code → percent.
func (p *parser) markets(o *object) map[string]Percent {
	m, ok := o.child("markets", false)
	if !ok {
		return nil
	}
	out := map[string]Percent{}
	for _, code := range sortedKeys(m.fields) {
		raw, _ := m.take(code, false)
		path := m.at(code)
		if kind(raw) != '0' {
			p.c.addBad(path, "must be a number (percent)")
			continue
		}
		bp, err := money.ParsePercentBP(string(bytes.TrimSpace(raw)))
		if err != nil {
			p.c.addBad(path, "percent with at most two decimals expected")
			continue
		}
		out[code] = Percent(bp)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (p *parser) room(path string, raw json.RawMessage, hotelCurrency string) Room {
	var r Room
	o, ok := p.object(path, raw)
	if !ok {
		return r
	}
	cur := itemCurrency(o.peekString("currency"), hotelCurrency)
	r.ID = o.int64("id")
	r.Name = o.str("name", true)
	r.BoardType = o.str("board_type", true)
	r.MaxAdults = o.int("max_adults")
	r.MaxChildren = o.int("max_children")
	r.Refundable = o.boolean("refundable")
	r.PricePerNight = o.amount("price_per_night", cur)
	r.Currency = o.str("currency", true)
	o.each("inventory", true, func(path string, raw json.RawMessage) {
		var n RoomNights
		if e, ok := p.object(path, raw); ok {
			n.Start = e.str("start", true)
			n.End = e.str("end", true)
			n.Allotment = e.int("allotment")
			n.Price = e.amount("price", cur)
			e.finish()
		}
		r.Inventory = append(r.Inventory, n)
	})
	o.finish()
	return r
}

func (p *parser) activity(path string, raw json.RawMessage) Activity {
	var a Activity
	o, ok := p.object(path, raw)
	if !ok {
		return a
	}
	cur := o.peekString("currency")
	a.ID = o.int64("id")
	a.Name = o.str("name", true)
	a.Category = o.str("category", true)
	a.City = o.str("city", true)
	a.Description = o.str("description", false)
	a.DurationHours = o.number("duration_hours")
	a.Languages = o.strings("languages")
	a.InstantConfirmation = o.boolean("instant_confirmation")
	a.Currency = o.str("currency", true)
	a.ImageURL = o.str("image_url", true)
	a.Photos = o.strings("photos")
	if pr, ok := o.child("pricing", true); ok {
		a.Pricing = p.prices(pr, cur)
		pc := pr.str("currency", true)
		switch {
		case !money.ValidCurrency(pc):
			p.c.add(pr.at("currency"), "%q is not an ISO 4217 code", pc)
		case money.ValidCurrency(cur) && pc != cur:
			p.c.add(pr.at("currency"), "%q differs from the activity currency %q", pc, cur)
		}
		pr.finish()
	}
	o.each("availability", true, func(path string, raw json.RawMessage) {
		a.Availability = append(a.Availability, p.capacityRange(path, raw))
	})
	o.finish()
	return a
}

// prices reads adult, child and infant amounts from o (the caller finishes o).
func (p *parser) prices(o *object, currency string) PersonPrices {
	return PersonPrices{
		Adult:  o.amount("adult", currency),
		Child:  o.amount("child", currency),
		Infant: o.amount("infant", currency),
	}
}

// capacityRange reads {start, end, capacity}.
func (p *parser) capacityRange(path string, raw json.RawMessage) ActivityDays {
	var d ActivityDays
	if o, ok := p.object(path, raw); ok {
		d.Start = o.str("start", true)
		d.End = o.str("end", true)
		d.Capacity = o.int("capacity")
		o.finish()
	}
	return d
}

func (p *parser) rental(path string, raw json.RawMessage) Rental {
	var r Rental
	o, ok := p.object(path, raw)
	if !ok {
		return r
	}
	cur := o.peekString("currency")
	r.ID = o.int64("id")
	r.Name = o.str("name", true)
	r.PropertyType = o.str("property_type", true)
	r.City = o.str("city", true)
	r.CheckInTime = o.str("check_in_time", true)
	r.CheckOutTime = o.str("check_out_time", true)
	r.InstantBooking = o.boolean("instant_booking")
	r.Currency = o.str("currency", true)
	r.ImageURL = o.str("image_url", true)
	r.Photos = o.strings("photos")
	o.each("spaces", true, func(path string, raw json.RawMessage) {
		r.Spaces = append(r.Spaces, p.space(path, raw, cur))
	})
	o.finish()
	return r
}

func (p *parser) space(path string, raw json.RawMessage, rentalCurrency string) Space {
	var s Space
	o, ok := p.object(path, raw)
	if !ok {
		return s
	}
	cur := itemCurrency(o.peekString("currency"), rentalCurrency)
	s.ID = o.int64("id")
	s.Name = o.str("name", true)
	s.SpaceType = o.str("space_type", true)
	s.MaxGuests = o.int("max_guests")
	s.FromPrice = o.amount("from_price", cur)
	s.Currency = o.str("currency", true)
	s.Photos = o.strings("photos")
	o.each("availability", true, func(path string, raw json.RawMessage) {
		var n SpaceNights
		if e, ok := p.object(path, raw); ok {
			n.Start = e.str("start", true)
			n.End = e.str("end", true)
			n.Price = e.amount("price", cur)
			e.finish()
		}
		s.Availability = append(s.Availability, n)
	})
	o.finish()
	return s
}

func (p *parser) pkg(path string, raw json.RawMessage) Package {
	var k Package
	o, ok := p.object(path, raw)
	if !ok {
		return k
	}
	cur := o.peekString("currency")
	k.ID = o.int64("id")
	k.Name = o.str("name", true)
	k.City = o.str("city", true)
	k.Country = o.str("country", true)
	k.Description = o.str("description", false)
	k.DurationNights = o.int("duration_nights")
	k.InstantConfirmation = o.boolean("instant_confirmation")
	k.Currency = o.str("currency", true)
	k.ImageURL = o.str("image_url", true)
	k.Photos = o.strings("photos")
	o.each("itinerary", false, func(path string, raw json.RawMessage) {
		var d ItineraryDay
		if e, ok := p.object(path, raw); ok {
			d.Day = e.int("day")
			d.Title = e.str("title", true)
			d.Description = e.str("description", false)
			e.finish()
		}
		k.Itinerary = append(k.Itinerary, d)
	})
	o.each("addons", false, func(path string, raw json.RawMessage) {
		var a Addon
		if e, ok := p.object(path, raw); ok {
			a.ID = e.int64("id")
			a.Name = e.str("name", true)
			a.PricePerPerson = e.amount("price_per_person", cur)
			e.finish()
		}
		k.Addons = append(k.Addons, a)
	})
	k.Kind = o.str("kind", true)
	o.each("departures", false, func(path string, raw json.RawMessage) {
		var d Departure
		if e, ok := p.object(path, raw); ok {
			d.ID = e.int64("id")
			d.Date = e.str("date", true)
			d.Capacity = e.int("capacity")
			if pr, ok := e.child("pricing", true); ok {
				d.Pricing = p.prices(pr, cur)
				pr.finish()
			}
			e.finish()
		}
		k.Departures = append(k.Departures, d)
	})
	o.each("travel_dates", false, func(path string, raw json.RawMessage) {
		k.TravelDates = append(k.TravelDates, p.capacityRange(path, raw))
	})
	if pr, ok := o.child("pricing", false); ok {
		prices := p.prices(pr, cur)
		k.Pricing = &prices
		pr.finish()
	}
	o.finish()
	return k
}
