package booking

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
)

// ImportReport says what a catalog import changed.
type ImportReport struct {
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	Events    int `json:"events"`
}

// stagedItem is one catalog item ready to store: its record and its inventory.
type stagedItem struct {
	item     store.Item
	unitKind tradewind.UnitKind
	rows     []store.InventoryRow
}

// ImportCatalog validates doc and upserts every item in one transaction: importing the
// same document twice changes nothing; a room, space or departure id that already has
// inventory of another item refuses the whole import with a *catalog.ValidationError; a changed item emits availability.changed for
// its changed dates to every partner subscribed to that event. Inventory already sold
// is kept; a night dropped from the document is closed (capacity 0), never deleted.
func (s *Service) ImportCatalog(ctx context.Context, doc *catalog.Document) (rep ImportReport, err error) {
	defer wrap(&err, "import catalog")
	if problems := doc.Validate(); len(problems) > 0 {
		return rep, &catalog.ValidationError{Problems: problems}
	}
	staged, err := stage(doc)
	if err != nil {
		return rep, err
	}
	err = s.Store.InTx(ctx, func(tx store.Querier) error {
		rep = ImportReport{}
		// Before any write: a unit id that already belongs to another item would move
		// that item's inventory (rows are keyed by kind, unit and day) to this one.
		if problems, err := unitOwnerProblems(ctx, tx, doc); err != nil {
			return err
		} else if len(problems) > 0 {
			return &catalog.ValidationError{Problems: problems}
		}
		subscribers, err := tx.SubscriberPartnerIDs(ctx, tradewind.EventAvailabilityChanged)
		if err != nil {
			return err
		}
		for _, st := range staged {
			_, getErr := tx.ItemGet(ctx, st.item.Kind, st.item.ID)
			existed := getErr == nil
			dataChanged, err := tx.ItemPut(ctx, &st.item)
			if err != nil {
				return err
			}
			from, to, err := s.putInventory(ctx, tx, st, dataChanged)
			if err != nil {
				return err
			}
			switch {
			case from == "" && !dataChanged:
				rep.Unchanged++
				continue
			case existed:
				rep.Updated++
			default:
				rep.Created++
			}
			if from == "" {
				continue // a record change with no inventory to speak of
			}
			if err := s.emitAvailabilityChanged(ctx, tx, subscribers, st.item.Kind, st.item.ID, from, to); err != nil {
				return err
			}
			rep.Events += len(subscribers)
		}
		return nil
	})
	if err == nil && rep.Created+rep.Updated > 0 {
		// New inventory changes the data's shape: refresh the statistics so that the
		// planners keep choosing the item index for searches.
		if aerr := s.Store.Analyze(ctx); aerr != nil {
			s.Logger.WarnContext(ctx, "analyze after import failed", "err", aerr)
		}
	}
	return rep, err
}

// docUnit is one inventory unit of a document: its JSON path, id and owning item.
type docUnit struct {
	path string
	id   int64
	item int64
}

// unitOwnerProblems returns a problem, in the document's JSON-path style, for every room,
// space and departure of doc whose id already has inventory that belongs to another item
// of the same kind ("hotels[0].rooms[0].id: room 100101 already belongs to hotel 1001").
// Activities and open-package days are their item's own id, so they cannot collide.
func unitOwnerProblems(ctx context.Context, q store.Querier, doc *catalog.Document) ([]string, error) {
	var rooms, spaces, departures []docUnit
	for i, h := range doc.Hotels {
		for j, r := range h.Rooms {
			rooms = append(rooms, docUnit{fmt.Sprintf("hotels[%d].rooms[%d].id", i, j), r.ID, h.ID})
		}
	}
	for i, r := range doc.Rentals {
		for j, sp := range r.Spaces {
			spaces = append(spaces, docUnit{fmt.Sprintf("rentals[%d].spaces[%d].id", i, j), sp.ID, r.ID})
		}
	}
	for i, p := range doc.Packages {
		for j, d := range p.Departures {
			departures = append(departures, docUnit{fmt.Sprintf("packages[%d].departures[%d].id", i, j), d.ID, p.ID})
		}
	}
	var problems []string
	for _, g := range []struct {
		kind       tradewind.UnitKind
		unit, item string
		units      []docUnit
	}{
		{tradewind.UnitRoom, "room", "hotel", rooms},
		{tradewind.UnitSpace, "space", "rental", spaces},
		{tradewind.UnitDeparture, "departure", "package", departures},
	} {
		if len(g.units) == 0 {
			continue
		}
		ids := make([]int64, len(g.units))
		for i, u := range g.units {
			ids[i] = u.id
		}
		owners, err := q.InventoryUnitOwners(ctx, g.kind, ids)
		if err != nil {
			return nil, err
		}
		for _, u := range g.units {
			var others []string
			for _, item := range owners[u.id] {
				if item != u.item {
					others = append(others, strconv.FormatInt(item, 10))
				}
			}
			switch len(others) {
			case 0:
			case 1:
				problems = append(problems, fmt.Sprintf("%s: %s %d already belongs to %s %s", u.path, g.unit, u.id, g.item, others[0]))
			default:
				problems = append(problems, fmt.Sprintf("%s: %s %d already belongs to %ss %s", u.path, g.unit, u.id, g.item, strings.Join(others, ", ")))
			}
		}
	}
	return problems, nil
}

// putInventory writes the item's inventory and returns the range of days whose
// capacity or price changed (all its days when the record itself changed).
func (s *Service) putInventory(ctx context.Context, tx store.Querier, st stagedItem, recordChanged bool) (from, to string, err error) {
	old, err := tx.InventoryList(ctx, store.InventoryQuery{Kind: st.unitKind, ItemIDs: []int64{st.item.ID}, From: "0000-01-01", To: "9999-12-31"})
	if err != nil {
		return "", "", err
	}
	type key struct {
		unit int64
		day  string
	}
	existing := make(map[key]store.InventoryRow, len(old))
	for _, r := range old {
		existing[key{r.UnitID, r.Day}] = r
	}
	var changed []store.InventoryRow
	widen := func(day string) {
		if from == "" || day < from {
			from = day
		}
		if day > to {
			to = day
		}
	}
	for _, r := range st.rows {
		k := key{r.UnitID, r.Day}
		o, ok := existing[k]
		delete(existing, k)
		if recordChanged {
			widen(r.Day)
		}
		if ok && o.Capacity == r.Capacity && o.Price == r.Price {
			continue
		}
		changed = append(changed, r)
		widen(r.Day)
	}
	for _, o := range existing { // dropped from the document: close the day
		if o.Capacity != 0 {
			o.Capacity = 0
			changed = append(changed, o)
			widen(o.Day)
		}
	}
	return from, to, tx.InventoryPut(ctx, changed)
}

// stage turns a document into items and inventory rows.
func stage(doc *catalog.Document) ([]stagedItem, error) {
	var out []stagedItem
	add := func(kind tradewind.ProductType, id int64, city string, rec any, unitKind tradewind.UnitKind, rows []store.InventoryRow) error {
		data, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("%s %d: %w", kind, id, err)
		}
		out = append(out, stagedItem{item: store.Item{Kind: kind, ID: id, CityKey: cityKey(city), Data: data}, unitKind: unitKind, rows: rows})
		return nil
	}
	for _, h := range doc.Hotels {
		var rows []store.InventoryRow
		rec := h
		rec.Rooms = make([]catalog.Room, len(h.Rooms))
		for i, r := range h.Rooms {
			for day, n := range r.Nights() {
				rows = append(rows, store.InventoryRow{Kind: tradewind.UnitRoom, UnitID: r.ID, ItemID: h.ID, Day: day, Capacity: n.Allotment, Price: n.Price})
			}
			r.Inventory = nil
			rec.Rooms[i] = r
		}
		if err := add(tradewind.ProductHotel, h.ID, h.City, rec, tradewind.UnitRoom, rows); err != nil {
			return nil, err
		}
	}
	for _, a := range doc.Activities {
		var rows []store.InventoryRow
		for day, n := range a.Days() {
			rows = append(rows, store.InventoryRow{Kind: tradewind.UnitActivity, UnitID: a.ID, ItemID: a.ID, Day: day, Capacity: n})
		}
		rec := a
		rec.Availability = nil
		if err := add(tradewind.ProductActivity, a.ID, a.City, rec, tradewind.UnitActivity, rows); err != nil {
			return nil, err
		}
	}
	for _, r := range doc.Rentals {
		var rows []store.InventoryRow
		rec := r
		rec.Spaces = make([]catalog.Space, len(r.Spaces))
		for i, sp := range r.Spaces {
			for day, price := range sp.Nights() {
				rows = append(rows, store.InventoryRow{Kind: tradewind.UnitSpace, UnitID: sp.ID, ItemID: r.ID, Day: day, Capacity: 1, Price: price})
			}
			sp.Availability = nil
			rec.Spaces[i] = sp
		}
		if err := add(tradewind.ProductRental, r.ID, r.City, rec, tradewind.UnitSpace, rows); err != nil {
			return nil, err
		}
	}
	for _, p := range doc.Packages {
		var rows []store.InventoryRow
		kind := tradewind.UnitDeparture
		if p.Kind == catalog.PackageOpen {
			kind = tradewind.UnitPackageDay
			for day, n := range p.OpenDays() {
				rows = append(rows, store.InventoryRow{Kind: kind, UnitID: p.ID, ItemID: p.ID, Day: day, Capacity: n})
			}
		}
		for _, d := range p.Departures {
			rows = append(rows, store.InventoryRow{Kind: kind, UnitID: d.ID, ItemID: p.ID, Day: d.Date, Capacity: d.Capacity})
		}
		if err := add(tradewind.ProductPackage, p.ID, p.City, p, kind, rows); err != nil {
			return nil, err
		}
	}
	return out, nil
}
