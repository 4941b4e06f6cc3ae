package booking

import (
	"bytes"
	"context"
	"fmt"
	"slices"
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

// ImportOptions tune ImportCatalogWith.
type ImportOptions struct {
	// Progress, when set, is called after every batch of items, in the transaction.
	Progress func(ImportProgress)
}

// ImportProgress says how far an import is.
type ImportProgress struct {
	Items, Total int // items compared so far, of the document's
	Rows         int // inventory rows written so far
}

// importBatch is the number of items compared and written together: it bounds the
// inventory held in memory (about 500 × 3 units × 365 days, twice) and the statements.
const importBatch = 500

// ImportCatalog validates doc and upserts every item in one transaction: importing the
// same document twice changes nothing; a room, space or departure id that already has
// inventory of another item refuses the whole import with a *catalog.ValidationError; a changed item emits availability.changed for
// its changed dates to every partner subscribed to that event. Inventory already sold
// is kept; a night dropped from the document is closed (capacity 0), never deleted.
func (s *Service) ImportCatalog(ctx context.Context, doc *catalog.Document) (ImportReport, error) {
	return s.ImportCatalogWith(ctx, doc, ImportOptions{})
}

// ImportCatalogWith is ImportCatalog with options. It works in batches of items: it
// reads the batch's stored records, then the stored inventory only of the items whose
// record or inventory fingerprint changed, diffs it in memory and writes the changes in
// bulk, so a re-import costs what it changes, not the catalog's size.
func (s *Service) ImportCatalogWith(ctx context.Context, doc *catalog.Document, o ImportOptions) (rep ImportReport, err error) {
	defer wrap(&err, "import catalog")
	if problems := doc.Validate(); len(problems) > 0 {
		return rep, &catalog.ValidationError{Problems: problems}
	}
	staged, err := stageItems(doc)
	if err != nil {
		return rep, err
	}
	inserted := 0
	// A bulk load: on SQLite its temporary data spills to files, not RSS.
	err = s.Store.InTx(store.WithBulkLoad(ctx), func(tx store.Querier) error {
		rep, inserted = ImportReport{}, 0
		subscribers, err := tx.SubscriberPartnerIDs(ctx, tradewind.EventAvailabilityChanged)
		if err != nil {
			return err
		}
		im := importer{svc: s, tx: tx, subscribers: subscribers, rep: &rep, names: dayNames{},
			docOwner: docUnitOwners(staged), owners: map[tradewind.UnitKind]map[int64][]int64{}}
		// A first import (no inventory stored) loads, on PostgreSQL, without inventory's
		// primary key, which costs a B-tree insert per row, and builds it once, sorted,
		// at the end (SQLite's inventory is its key, keyed by item first: the rows go
		// in as they come, in key order within a kind). Nothing needs it meanwhile: no
		// item has stored rows to read, no unit can belong to another item (the units'
		// own table, inventory_units, keeps its keys and refuses one all the same).
		if im.first, err = tx.InventoryEmpty(ctx); err != nil {
			return err
		}
		if im.first {
			if err := tx.InventoryIndexesDrop(ctx); err != nil {
				return err
			}
		}
		for start := 0; start < len(staged); {
			// A batch holds items of one kind.
			end := start + 1
			for end < len(staged) && end-start < importBatch && staged[end].item.Kind == staged[start].item.Kind {
				end++
			}
			if err := im.batch(ctx, staged[start:end]); err != nil {
				return err
			}
			if o.Progress != nil {
				o.Progress(ImportProgress{Items: end, Total: len(staged), Rows: im.rows})
			}
			start = end
		}
		// Before any write of a batch, a unit id that already belonged to another item
		// was noted (the store would refuse its rows: a unit belongs to one item) and
		// the batch left unwritten; the transaction is rolled back, every such unit
		// named.
		if problems := unitOwnerProblems(doc, im.owners); len(problems) > 0 {
			return &catalog.ValidationError{Problems: problems}
		}
		if im.first {
			if err := tx.InventoryIndexesCreate(ctx); err != nil {
				return err
			}
		}
		inserted = im.inserted
		return nil
	})
	if err == nil && (rep.Created > 0 || inserted > 0) {
		// New items and inventory change the data's shape: refresh the statistics so
		// that the planners keep choosing the item index for searches. Changed
		// capacities and prices do not, and a large table takes long to analyze.
		if aerr := s.Store.Analyze(ctx); aerr != nil {
			s.Logger.WarnContext(ctx, "analyze after import failed", "err", aerr)
		}
	}
	return rep, err
}

// importer carries one import's transaction and running state.
type importer struct {
	svc         *Service
	tx          store.Querier
	subscribers []int64
	rep         *ImportReport
	names       dayNames
	rows        int  // inventory rows written
	first       bool // no inventory was stored: every item's stored rows are none
	inserted    int  // of which new
	// added, changed and docRows are one batch's rows, kept for the next batch to reuse.
	added, changed, docRows []store.InventoryRow
	// docOwner maps unit kind and unit id to the document's item, for the units
	// (rooms, spaces, departures) that could collide with another item's.
	docOwner map[tradewind.UnitKind]map[int64]int64
	// owners collects, by unit kind and unit id, the other items found to own inventory
	// of the document's units; any entry refuses the import.
	owners map[tradewind.UnitKind]map[int64][]int64
}

// ownedUnitKinds are the unit kinds whose ids are not their item's own id.
var ownedUnitKinds = []tradewind.UnitKind{tradewind.UnitRoom, tradewind.UnitSpace, tradewind.UnitDeparture}

func docUnitOwners(staged []stagedItem) map[tradewind.UnitKind]map[int64]int64 {
	out := map[tradewind.UnitKind]map[int64]int64{}
	for _, k := range ownedUnitKinds {
		out[k] = map[int64]int64{}
	}
	for i := range staged {
		st := &staged[i]
		m, ok := out[st.unitKind]
		if !ok {
			continue
		}
		for _, u := range st.units {
			m[u.id] = st.item.ID
		}
	}
	return out
}

func (im *importer) noteOwner(unitKind tradewind.UnitKind, unit, item int64) {
	m := im.owners[unitKind]
	if m == nil {
		m = map[int64][]int64{}
		im.owners[unitKind] = m
	}
	if !slices.Contains(m[unit], item) {
		m[unit] = append(m[unit], item)
	}
}

// batch compares and writes a batch of items of one kind.
func (im *importer) batch(ctx context.Context, batch []stagedItem) error {
	tx := im.tx
	ids := make([]int64, len(batch))
	for i := range batch {
		ids[i] = batch[i].item.ID
	}
	stored, err := tx.ItemListByIDs(ctx, batch[0].item.Kind, ids)
	if err != nil {
		return err
	}
	old := make(map[int64]*store.Item, len(stored))
	for _, it := range stored {
		old[it.ID] = it
	}
	// What must be compared: items new, changed, or whose inventory fingerprint differs.
	type outcome struct {
		existed, recordChanged, compare bool
		from, to                        string
	}
	out := make([]outcome, len(batch))
	compareIDs := map[tradewind.UnitKind][]int64{} // by unit kind
	for i := range batch {
		st := &batch[i]
		o := old[st.item.ID]
		out[i].existed = o != nil
		out[i].recordChanged = o == nil || o.CityKey != st.item.CityKey || !bytes.Equal(o.Data, st.item.Data)
		out[i].compare = out[i].recordChanged || o.InventoryHash != st.item.InventoryHash
		if out[i].compare {
			compareIDs[st.unitKind] = append(compareIDs[st.unitKind], st.item.ID)
		}
	}
	storedRows := map[int64][]store.InventoryRow{} // by item, each ordered by unit and day
	for unitKind, ids := range compareIDs {
		if im.first {
			break
		}
		rows, err := tx.InventoryList(ctx, store.InventoryQuery{Kind: unitKind, ItemIDs: ids, From: "0000-01-01", To: "9999-12-31"})
		if err != nil {
			return err
		}
		for _, r := range rows {
			storedRows[r.ItemID] = append(storedRows[r.ItemID], r)
		}
	}
	// The row slices are the importer's, reused from batch to batch: a batch of 500
	// hotels is about 550 000 rows, which grown afresh each time cost more than their
	// expansion.
	added, changed, docRows := im.added[:0], im.changed[:0], im.docRows[:0]
	defer func() { im.added, im.changed, im.docRows = added[:0], changed[:0], docRows[:0] }()
	var putItems []*store.Item
	newUnits := map[tradewind.UnitKind][]int64{} // units of the document without stored rows of their item
	for i := range batch {
		st := &batch[i]
		if !out[i].compare {
			continue
		}
		mine := storedRows[st.item.ID]
		if owner, ok := im.docOwner[st.unitKind]; ok {
			has := map[int64]bool{}
			for _, r := range mine {
				has[r.UnitID] = true
				if want, inDoc := owner[r.UnitID]; inDoc && want != r.ItemID {
					im.noteOwner(st.unitKind, r.UnitID, r.ItemID)
				}
			}
			for _, u := range st.units {
				if !has[u.id] {
					newUnits[st.unitKind] = append(newUnits[st.unitKind], u.id)
				}
			}
		}
		docRows = im.names.expand(docRows[:0], st)
		added, changed, out[i].from, out[i].to = diffInventory(added, changed, mine, docRows, out[i].recordChanged)
		putItems = append(putItems, &st.item)
	}
	// A unit new to its item may belong to another: ask the store, before writing. Not
	// on a first import: nothing was stored, and the document's unit ids are unique
	// (Validate), so no unit can belong to another item; the store is not asked for
	// what this very import wrote, which it could only find without its indexes.
	for unitKind, units := range newUnits {
		if im.first {
			break
		}
		owners, err := tx.InventoryUnitOwners(ctx, unitKind, units)
		if err != nil {
			return err
		}
		for unit, items := range owners {
			for _, item := range items {
				if item != im.docOwner[unitKind][unit] {
					im.noteOwner(unitKind, unit, item)
				}
			}
		}
	}
	if len(im.owners) > 0 {
		return nil // refused at the end; compare the rest to list every problem
	}
	if err := tx.ItemPutMany(ctx, putItems); err != nil {
		return err
	}
	// New rows cannot meet a stored one: this item's were all read, and no other item
	// owns its units. They are inserted (COPY straight into the table on PostgreSQL).
	if err := tx.InventoryInsert(ctx, added); err != nil {
		return err
	}
	if err := tx.InventoryPut(ctx, changed); err != nil {
		return err
	}
	im.rows += len(added) + len(changed)
	im.inserted += len(added)
	for i := range batch {
		st, o := &batch[i], out[i]
		switch {
		case o.from == "" && !o.recordChanged:
			im.rep.Unchanged++
			continue
		case o.existed:
			im.rep.Updated++
		default:
			im.rep.Created++
		}
		if o.from == "" {
			continue // a record change with no inventory to speak of
		}
		if err := im.svc.emitAvailabilityChanged(ctx, tx, im.subscribers, st.item.Kind, st.item.ID, o.from, o.to); err != nil {
			return err
		}
		im.rep.Events += len(im.subscribers)
	}
	return nil
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
func unitOwnerProblems(doc *catalog.Document, found map[tradewind.UnitKind]map[int64][]int64) []string {
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
		owners := found[g.kind]
		if len(owners) == 0 {
			continue
		}
		for _, u := range g.units {
			slices.Sort(owners[u.id])
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
	return problems
}
