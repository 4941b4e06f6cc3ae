package booking

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
)

// The import pipeline's pure parts: staging a document's items without expanding their
// inventory, the inventory fingerprint that lets a re-import skip unchanged items, the
// expansion of ranges into day rows, and the diff against the stored rows.

// dayRange is one inventory range of a unit: every day start..end (inclusive) offers
// capacity units at price (0 where the unit is not priced per day).
type dayRange struct {
	start, end string
	capacity   int
	price      int64
}

// unitRanges is one inventory unit of an item (room, activity, space, departure or open
// package) with its ranges in document order: where they overlap the later wins.
type unitRanges struct {
	id     int64
	ranges []dayRange
}

// stagedItem is one catalog item ready to store: its record (with the fingerprint of
// its inventory) and its inventory as ranges, expanded only when it must be compared.
type stagedItem struct {
	item     store.Item
	unitKind tradewind.UnitKind
	units    []unitRanges
}

// fingerprint hashes the unit kind and ranges: equal fingerprints mean equal inventory.
func fingerprint(unitKind tradewind.UnitKind, units []unitRanges) string {
	b := make([]byte, 0, 64)
	b = append(b, unitKind...)
	for _, u := range units {
		b = binary.AppendVarint(append(b, 'u'), u.id)
		for _, r := range u.ranges {
			b = append(append(append(b, 'r'), r.start...), r.end...)
			b = binary.AppendVarint(b, int64(r.capacity))
			b = binary.AppendVarint(b, r.price)
		}
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// stageItems turns the items of doc into staged items, hotels, activities, rentals then
// packages, each in document order.
func stageItems(doc *catalog.Document) ([]stagedItem, error) {
	out := make([]stagedItem, 0, len(doc.Hotels)+len(doc.Activities)+len(doc.Rentals)+len(doc.Packages))
	add := func(kind tradewind.ProductType, id int64, city string, rec any, unitKind tradewind.UnitKind, units []unitRanges) error {
		data, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("%s %d: %w", kind, id, err)
		}
		out = append(out, stagedItem{
			item:     store.Item{Kind: kind, ID: id, CityKey: cityKey(city), Data: data, InventoryHash: fingerprint(unitKind, units)},
			unitKind: unitKind, units: units,
		})
		return nil
	}
	for _, h := range doc.Hotels {
		rec := h
		rec.Rooms = make([]catalog.Room, len(h.Rooms))
		units := make([]unitRanges, len(h.Rooms))
		for i, r := range h.Rooms {
			u := unitRanges{id: r.ID, ranges: make([]dayRange, len(r.Inventory))}
			for j, n := range r.Inventory {
				u.ranges[j] = dayRange{n.Start, n.End, n.Allotment, n.Price}
			}
			units[i] = u
			r.Inventory = nil
			rec.Rooms[i] = r
		}
		if err := add(tradewind.ProductHotel, h.ID, h.City, rec, tradewind.UnitRoom, units); err != nil {
			return nil, err
		}
	}
	for _, a := range doc.Activities {
		u := unitRanges{id: a.ID, ranges: make([]dayRange, len(a.Availability))}
		for j, n := range a.Availability {
			u.ranges[j] = dayRange{start: n.Start, end: n.End, capacity: n.Capacity}
		}
		rec := a
		rec.Availability = nil
		if err := add(tradewind.ProductActivity, a.ID, a.City, rec, tradewind.UnitActivity, []unitRanges{u}); err != nil {
			return nil, err
		}
	}
	for _, r := range doc.Rentals {
		rec := r
		rec.Spaces = make([]catalog.Space, len(r.Spaces))
		units := make([]unitRanges, len(r.Spaces))
		for i, sp := range r.Spaces {
			u := unitRanges{id: sp.ID, ranges: make([]dayRange, len(sp.Availability))}
			for j, n := range sp.Availability {
				u.ranges[j] = dayRange{n.Start, n.End, 1, n.Price}
			}
			units[i] = u
			sp.Availability = nil
			rec.Spaces[i] = sp
		}
		if err := add(tradewind.ProductRental, r.ID, r.City, rec, tradewind.UnitSpace, units); err != nil {
			return nil, err
		}
	}
	for _, p := range doc.Packages {
		var units []unitRanges
		kind := tradewind.UnitDeparture
		if p.Kind == catalog.PackageOpen {
			kind = tradewind.UnitPackageDay
			u := unitRanges{id: p.ID}
			for _, n := range p.TravelDates {
				u.ranges = append(u.ranges, dayRange{start: n.Start, end: n.End, capacity: n.Capacity})
			}
			units = append(units, u)
		}
		for _, d := range p.Departures {
			units = append(units, unitRanges{id: d.ID, ranges: []dayRange{{start: d.Date, end: d.Date, capacity: d.Capacity}}})
		}
		if err := add(tradewind.ProductPackage, p.ID, p.City, p, kind, units); err != nil {
			return nil, err
		}
	}
	// Each product's items by id (ids are unique within a product: Validate), whatever
	// the document's order: inventory is keyed by item first, and a first import's rows
	// then go into SQLite's key in order, appended, where a document in another order
	// inserted them all over the B-tree (a tenth of the catalog shuffled: 6.3
	// s of CPU instead of 4.1 s, docs/performance-history.md "invkey"). A unit's rows keep the
	// document's order of units (the inventory fingerprint follows it).
	for from := 0; from < len(out); {
		to := from + 1
		for to < len(out) && out[to].item.Kind == out[from].item.Kind {
			to++
		}
		slices.SortFunc(out[from:to], func(a, b stagedItem) int { return cmp.Compare(a.item.ID, b.item.ID) })
		from = to
	}
	return out, nil
}

// dayNames formats day numbers (days since 1970-01-01) as dates, each once per import.
type dayNames map[int64]string

func (n dayNames) name(day int64) string {
	s, ok := n[day]
	if !ok {
		s = time.Unix(day*86400, 0).UTC().Format(tradewind.DateLayout)
		n[day] = s
	}
	return s
}

// expand appends one row per day of the item's units to out, each unit's days in order;
// where ranges overlap the later wins. A range that is invalid or longer than
// catalog.MaxRangeDays is skipped, as catalog's own expansion does.
func (n dayNames) expand(out []store.InventoryRow, st *stagedItem) []store.InventoryRow {
	type span struct{ from, to int64 }
	var spans []span
	var winner []int32
	for _, u := range st.units {
		spans = spans[:0]
		lo, hi := int64(0), int64(-1)
		for _, r := range u.ranges {
			f, ok1 := catalog.DayNumber(r.start)
			t, ok2 := catalog.DayNumber(r.end)
			if !ok1 || !ok2 || t < f || t-f+1 > catalog.MaxRangeDays {
				spans = append(spans, span{1, 0}) // empty
				continue
			}
			spans = append(spans, span{f, t})
			if hi < lo || f < lo {
				lo = f
			}
			if t > hi {
				hi = t
			}
		}
		if hi < lo {
			continue
		}
		winner = append(winner[:0], make([]int32, hi-lo+1)...)
		for i, sp := range spans {
			for d := sp.from; d <= sp.to; d++ {
				winner[d-lo] = int32(i + 1)
			}
		}
		for off, w := range winner {
			if w == 0 {
				continue
			}
			r := &u.ranges[w-1]
			out = append(out, store.InventoryRow{Kind: st.unitKind, UnitID: u.id, ItemID: st.item.ID,
				Day: n.name(lo + int64(off)), Capacity: r.capacity, Price: r.price})
		}
	}
	return out
}

// diffInventory compares an item's rows from the document with its stored rows: it
// appends to added the rows not stored yet, to changed the stored rows whose capacity or
// price differ and the stored rows the document dropped, closed (capacity 0); from..to
// spans the changed days, or every day of the item when its record changed ("" when
// nothing changed).
func diffInventory(added, changed, stored, doc []store.InventoryRow, recordChanged bool) (_, _ []store.InventoryRow, from, to string) {
	widen := func(day string) {
		if from == "" || day < from {
			from = day
		}
		if day > to {
			to = day
		}
	}
	if len(stored) == 0 { // a new item: everything is added
		for _, r := range doc {
			widen(r.Day)
		}
		return append(added, doc...), changed, from, to
	}
	type key struct {
		unit int64
		day  string
	}
	existing := make(map[key]store.InventoryRow, len(stored))
	for _, r := range stored {
		existing[key{r.UnitID, r.Day}] = r
	}
	for _, r := range doc {
		k := key{r.UnitID, r.Day}
		o, ok := existing[k]
		delete(existing, k)
		if recordChanged {
			widen(r.Day)
		}
		switch {
		case !ok:
			added = append(added, r)
		case o.Capacity != r.Capacity || o.Price != r.Price:
			changed = append(changed, r)
		default:
			continue
		}
		widen(r.Day)
	}
	for _, o := range stored { // dropped from the document: close the day
		if _, dropped := existing[key{o.UnitID, o.Day}]; dropped && o.Capacity != 0 {
			o.Capacity = 0
			changed = append(changed, o)
			widen(o.Day)
		}
	}
	return added, changed, from, to
}
