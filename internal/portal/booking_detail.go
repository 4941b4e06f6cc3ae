package portal

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
)

// A booking's page shows the booking as labelled values and tables, never its stored
// JSON: what was booked (items by name), the lead guest, the travellers, the price and
// a timeline saying who or what did each step.

// BookingFact is one labelled value of what a booking holds.
type BookingFact struct {
	Label string
	Value string
}

// TimelineEntry is one step of a booking's life.
type TimelineEntry struct {
	At        time.Time
	What      string // "Booked", "Confirmed", "Cancelled", "Rejected", "Completed"
	By        string // who or what did it
	EventID   string // the webhook event the step sent, if any
	EventType string
}

// detailLabels orders and names the details the booking rules store (hotel.go,
// activity.go, rental.go, package.go); any other key follows, named after itself.
var detailLabels = []BookingFact{
	{"hotel_id", "Hotel"}, {"room_id", "Room"}, {"activity_id", "Activity"}, {"rental_property_id", "Rental"},
	{"space_id", "Space"}, {"package_id", "Package"}, {"departure_id", "Departure"}, {"addon_ids", "Add-ons"},
	{"check_in", "Check-in"}, {"check_out", "Check-out"}, {"date", "Date"}, {"travel_date", "Travel date"},
	{"nights", "Nights"}, {"rooms", "Rooms"}, {"adults", "Adults"}, {"children", "Children"}, {"infants", "Infants"},
	{"guests", "Guests"},
}

// shownElsewhere are details with a section of their own.
var shownElsewhere = map[string]bool{"guest_name": true, "travellers": true}

// itemKeys are the details that name the booking's catalog item.
var itemKeys = map[string]bool{"hotel_id": true, "activity_id": true, "rental_property_id": true, "package_id": true}

// catalogEntry is what a booking's page reads of its catalog item: names.
type catalogEntry struct {
	Name   string      `json:"name"`
	Rooms  []namedUnit `json:"rooms"`
	Spaces []namedUnit `json:"spaces"`
	Addons []namedUnit `json:"addons"`
	// A fixed package's departures have a date, not a name.
	Departures []struct {
		ID   int64  `json:"id"`
		Date string `json:"date"`
	} `json:"departures"`
}

type namedUnit struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// describe fills the readable parts of d from its stored booking and events.
func (s *Service) describe(ctx context.Context, d *BookingDetail) {
	b := d.Booking
	d.Status = b.EffectiveStatus(s.now())
	_ = json.Unmarshal(b.Guest, &d.Guest)
	var details map[string]json.RawMessage
	_ = json.Unmarshal(b.Details, &details)
	var quote booking.QuoteRequest
	_ = json.Unmarshal(b.Quote, &quote)
	if raw, ok := details["travellers"]; ok {
		_ = json.Unmarshal(raw, &d.Travellers)
	} else {
		d.Travellers = quote.Travellers
	}

	var item catalogEntry
	if it, err := s.store.ItemGet(ctx, b.ProductType, b.ItemID); err == nil {
		_ = json.Unmarshal(it.Data, &item) // a catalog item that no longer reads shows ids
	}
	names := map[string][]namedUnit{"room_id": item.Rooms, "space_id": item.Spaces, "addon_ids": item.Addons}
	for _, d := range item.Departures {
		names["departure_id"] = append(names["departure_id"], namedUnit{ID: d.ID, Name: "leaving " + d.Date})
	}
	named := func(key string, raw json.RawMessage) string {
		var ids []int64
		if json.Unmarshal(raw, &ids) != nil {
			var id int64
			if json.Unmarshal(raw, &id) != nil {
				return plain(raw)
			}
			ids = []int64{id}
		}
		var out []string
		for _, id := range ids {
			name := ""
			if itemKeys[key] && id == b.ItemID {
				name = item.Name
			}
			for _, u := range names[key] {
				if u.ID == id {
					name = u.Name
				}
			}
			if name == "" {
				out = append(out, "#"+strconv.FormatInt(id, 10))
			} else {
				out = append(out, fmt.Sprintf("%s (#%d)", name, id))
			}
		}
		if len(out) == 0 {
			return "none"
		}
		return strings.Join(out, ", ")
	}
	seen := map[string]bool{}
	for _, l := range detailLabels {
		raw, ok := details[l.Label]
		if !ok {
			continue
		}
		seen[l.Label] = true
		v := plain(raw)
		if strings.HasSuffix(l.Label, "_id") || strings.HasSuffix(l.Label, "_ids") {
			v = named(l.Label, raw)
		}
		d.Facts = append(d.Facts, BookingFact{Label: l.Value, Value: v})
	}
	var rest []string
	for k := range details {
		if !seen[k] && !shownElsewhere[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		label := strings.ReplaceAll(k, "_", " ")
		d.Facts = append(d.Facts, BookingFact{Label: strings.ToUpper(label[:1]) + label[1:], Value: plain(details[k])})
	}
	d.Timeline = s.timeline(ctx, d)
}

// plain renders a JSON value as text: strings bare, lists joined, objects as key: value.
func plain(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	switch x := v.(type) {
	case nil:
		return "–"
	case string:
		return x
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			r, _ := json.Marshal(e)
			parts[i] = plain(r)
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			r, _ := json.Marshal(x[k])
			parts[i] = strings.ReplaceAll(k, "_", " ") + ": " + plain(r)
		}
		return strings.Join(parts, "; ")
	}
	return strings.Trim(string(raw), " ") // a number as stored
}

// timeline is the booking's life: made through the API (with which key), then each
// event it sent, with who or what caused it, then completion once its service ended.
func (s *Service) timeline(ctx context.Context, d *BookingDetail) []TimelineEntry {
	b := d.Booking
	by := "the API"
	if k, err := s.store.KeyGetByID(ctx, b.KeyID); err == nil && k.PartnerID == b.PartnerID {
		by = fmt.Sprintf("the API, %s key %s…", k.Mode, k.Prefix)
	}
	out := []TimelineEntry{{At: b.CreatedAt, What: "Booked", By: by}}
	cancelled := false
	for _, e := range d.Events {
		var data struct {
			Reason string `json:"reason"`
			Note   string `json:"note"`
		}
		_ = json.Unmarshal(e.Data, &data)
		t := TimelineEntry{At: e.CreatedAt, What: e.Type, EventID: e.ID, EventType: e.Type}
		switch tradewind.EventType(e.Type) {
		case tradewind.EventBookingConfirmed:
			t.What, t.By = "Confirmed", "the supplier"
			if e.CreatedAt.Sub(b.CreatedAt) < time.Second {
				t.By = "the supplier, at once (instant confirmation)"
			}
		case tradewind.EventBookingCancelled:
			cancelled = true
			t.What, t.By = endedBy(data.Reason, data.Note)
		}
		out = append(out, t)
	}
	if b.Status == tradewind.StatusCancelled && !cancelled { // its event aged out of retention
		t := TimelineEntry{At: b.CancelledAt}
		t.What, t.By = endedBy(b.CancelReason, "")
		out = append(out, t)
	}
	if d.Status == tradewind.StatusCompleted {
		if end, err := time.Parse(tradewind.DateLayout, b.EndDate); err == nil {
			out = append(out, TimelineEntry{At: end, What: "Completed", By: "the service ended"})
		}
	}
	return out
}

// endedBy names a cancellation by its reason: what happened and who did it.
func endedBy(reason, note string) (what, by string) {
	switch reason {
	case "supplier_rejected":
		by = "the supplier"
		if note != "" {
			by += ": " + note
		}
		return "Rejected", by
	case "cancelled_by_partner", "":
		return "Cancelled", "your team (API or portal; the audit log names portal users)"
	}
	return "Cancelled", "your team, reason: " + reason
}
