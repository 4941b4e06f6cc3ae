package readmodel

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// Run polls the change feed every PollInterval, or at once when Kick is called, until ctx
// ends. A failed poll is logged and retried at the next tick; Lag grows meanwhile.
func (m *Model) Run(ctx context.Context) {
	t := time.NewTicker(PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-m.kick:
		}
		if err := m.Sync(ctx); err != nil && ctx.Err() == nil {
			m.logger.Warn("read model: poll failed", "err", err)
		}
	}
}

// Kick asks Run to poll now (a write of this server that may have changed the catalog).
func (m *Model) Kick() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// Sync applies every change committed before it was called: after it returns, the model
// answers as the store did then (unless changed since).
func (m *Model) Sync(ctx context.Context) error {
	m.pollMu.Lock()
	defer m.pollMu.Unlock()
	if !m.ready.Load() {
		return errors.New("read model: not built")
	}
	start := m.clock.Now()
	if err := m.sequence(ctx); err != nil {
		return err
	}
	for {
		list, err := m.st.ChangesAfter(ctx, m.cursor, changeBatch)
		if err != nil {
			return err
		}
		if len(list) > 0 && list[0].Seq != m.cursor+1 {
			// Changes were pruned before this server read them (it was stopped for
			// longer than their retention): nothing says what changed, so reload all.
			m.logger.Warn("read model: the change feed moved past this server; rebuilding", "cursor", m.cursor, "first", list[0].Seq)
			return m.build(ctx)
		}
		if err := m.apply(ctx, list); err != nil {
			return err
		}
		if len(list) > 0 {
			m.cursor = list[len(list)-1].Seq
			m.applied.Add(int64(len(list)))
		}
		if len(list) < changeBatch {
			break
		}
	}
	m.lastSync.Store(start.UnixNano())
	return nil
}

// sequence gives positions to the committed changes that have none (a read first, so
// that a quiet poll takes no write lock).
func (m *Model) sequence(ctx context.Context) error {
	for {
		pending, err := m.st.ChangesUnsequenced(ctx)
		if err != nil || !pending {
			return err
		}
		var n int
		if err := m.st.InTx(ctx, func(q store.Querier) (err error) {
			n, err = q.ChangeSequence(ctx, m.clock.Now(), changeBatch)
			return err
		}); err != nil {
			return fmt.Errorf("sequence changes: %w", err)
		}
		if n < changeBatch {
			return nil
		}
	}
}

// span is the days to reload of what a change names; whole reloads the item and all
// its inventory.
type span struct {
	whole    bool
	from, to string
}

func (s *span) add(c store.Change) {
	switch {
	case c.From == "":
		s.whole = true
	case s.from == "":
		s.from, s.to = c.From, c.To
	default:
		s.from, s.to = min(s.from, c.From), max(s.to, c.To)
	}
}

// changed is what a change names: an item, and one of its units (a change of its
// inventory since migration 00030) or all of them (unitKind "": the item's record, or
// a change row written before).
type changed struct {
	item     int64
	unitKind tradewind.UnitKind
	unitID   int64
}

// apply reloads what changes name, each once: an item whole, or the days named of one
// unit or of all the item's units.
func (m *Model) apply(ctx context.Context, changes []store.Change) error {
	spans := map[tradewind.ProductType]map[changed]*span{}
	for _, c := range changes {
		named := spans[c.Kind]
		if named == nil {
			named = map[changed]*span{}
			spans[c.Kind] = named
		}
		k := changed{item: c.ItemID}
		if c.From != "" {
			k.unitKind, k.unitID = c.UnitKind, c.UnitID
		}
		s := named[k]
		if s == nil {
			s = &span{}
			named[k] = s
		}
		s.add(c)
	}
	for kind, named := range spans {
		if m.products[kind] == nil {
			continue // a kind this version does not know
		}
		whole := map[int64]bool{}
		for k, s := range named {
			if s.whole {
				whole[k.item] = true
			}
		}
		// The days of each unit kind in one read (reloadDays); "": every unit's.
		days := map[tradewind.UnitKind][]store.ItemDays{}
		for k, s := range named {
			if !whole[k.item] { // else reloaded whole below
				days[k.unitKind] = append(days[k.unitKind], store.ItemDays{ItemID: k.item, UnitID: k.unitID, From: s.from, To: s.to})
			}
		}
		for unitKind, d := range days {
			stale, err := m.reloadDays(ctx, kind, unitKind, d)
			if err != nil {
				return err
			}
			for _, id := range stale {
				whole[id] = true
			}
		}
		if err := m.reloadItems(ctx, kind, slices.Sorted(maps.Keys(whole))); err != nil {
			return err
		}
	}
	return nil
}

// reloadItems reloads items whole, in batches; an item no longer stored is forgotten.
func (m *Model) reloadItems(ctx context.Context, kind tradewind.ProductType, ids []int64) error {
	for len(ids) > 0 {
		batch := ids[:min(len(ids), loadBatch)]
		ids = ids[len(batch):]
		items, err := m.st.ItemListByIDs(ctx, kind, batch)
		if err != nil {
			return err
		}
		found := map[int64]bool{}
		for _, it := range items {
			found[it.ID] = true
		}
		var gone []int64
		for _, id := range batch {
			if !found[id] {
				gone = append(gone, id)
			}
		}
		loaded, err := m.fetch(ctx, kind, items)
		if err != nil {
			return err
		}
		m.mu.Lock()
		for _, x := range loaded {
			m.put(x)
		}
		for _, id := range gone {
			m.remove(kind, id)
		}
		m.mu.Unlock()
	}
	return nil
}

// reloadDays reloads the days of each span's item's units, reading them in one
// statement per unit kind (InventoryOfItemDays) rather than one per item: a group of
// bookings, or a poll of the feed, names many items. It returns the items the model
// has no place for (unknown, or stored inventory on a new unit or day, or a price
// wider than the item's layout): the caller reloads those whole. An item may appear
// in several spans. With unitKind, every span names one unit of that kind (a claim's)
// and only its days are read and written.
func (m *Model) reloadDays(ctx context.Context, kind tradewind.ProductType, unitKind tradewind.UnitKind, spans []store.ItemDays) (stale []int64, err error) {
	if len(spans) == 0 {
		return nil, nil
	}
	kinds := unitKinds[kind]
	if unitKind != "" {
		kinds = []tradewind.UnitKind{unitKind}
	}
	for attempt := 1; ; attempt++ {
		spansOf := make(map[int64][]store.ItemDays, len(spans))
		for _, sp := range spans {
			spansOf[sp.ItemID] = append(spansOf[sp.ItemID], sp)
		}
		// What each item was before the read: a reload of another goroutine (this
		// server's Touched, the feed's poll) that writes it between this read and this
		// write may have read newer rows, which this one must not overwrite.
		before := m.itemVersions(kind, spansOf)
		var rows []store.InventoryRow
		for _, uk := range kinds {
			r, err := m.st.InventoryOfItemDays(ctx, uk, spans)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r...)
		}
		byItem := make(map[int64][]store.InventoryRow, len(spans))
		for _, r := range rows {
			byItem[r.ItemID] = append(byItem[r.ItemID], r)
		}
		var again []store.ItemDays
		m.mu.Lock()
		for id, its := range spansOf {
			if attempt < reloadAttempts && m.itemVersion(kind, id) != before[id] {
				again = append(again, its...) // read again, after the other write
				continue
			}
			if !m.reloadItemDays(kind, id, unitKind, its, byItem[id]) {
				stale = append(stale, id)
			}
		}
		m.mu.Unlock()
		if len(again) == 0 {
			return stale, nil
		}
		spans = again
	}
}

// reloadAttempts bounds how many times reloadDays reads an item's days again because
// another reload wrote the item meanwhile; the last attempt writes what it read.
const reloadAttempts = 8

// itemVersion is what an item is now, for reloadDays: the item (a whole reload puts a
// new one) and its count of day writes. Under Model.mu.
type itemVersion struct {
	x    *item
	days uint64
}

func (m *Model) itemVersion(kind tradewind.ProductType, id int64) itemVersion {
	x := m.products[kind].byID[id]
	if x == nil {
		return itemVersion{}
	}
	return itemVersion{x, x.days}
}

// itemVersions is itemVersion of each item of spansOf, under the read lock.
func (m *Model) itemVersions(kind tradewind.ProductType, spansOf map[int64][]store.ItemDays) map[int64]itemVersion {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[int64]itemVersion, len(spansOf))
	for id := range spansOf {
		out[id] = m.itemVersion(kind, id)
	}
	return out
}

// reloadItemDays writes an item's rows read for its spans into its units (a span's
// unit of unitKind only when it names one), or reports false, writing nothing, when a
// row has no place in the model. m.mu is held.
func (m *Model) reloadItemDays(kind tradewind.ProductType, id int64, unitKind tradewind.UnitKind, spans []store.ItemDays, rows []store.InventoryRow) bool {
	x := m.products[kind].byID[id]
	if x == nil {
		return false
	}
	byKey := make(map[unitKey]*unit, len(x.units))
	for _, u := range x.units {
		byKey[u.key] = u
	}
	for _, r := range rows {
		u := byKey[unitKey{tradewind.UnitKind(r.Kind), r.UnitID}]
		if u == nil {
			return false
		}
		if d := dayNumber(r.Day) - u.first; d < 0 || int(d) >= len(u.free) {
			return false
		}
		if u.wide == nil && (r.Price < math.MinInt32 || r.Price > math.MaxInt32) {
			return false // the item is reloaded with wide prices
		}
	}
	// Every row fits: clear the spans' days (a row gone is no inventory), then write
	// them, every span cleared before any row is written (spans may overlap).
	for _, sp := range spans {
		lo, hi := dayNumber(sp.From), dayNumber(sp.To)
		for _, u := range x.units {
			if sp.UnitID != 0 && u.key != (unitKey{unitKind, sp.UnitID}) {
				continue
			}
			for d := max(lo, u.first); d <= min(hi, u.first+int32(len(u.free))-1); d++ {
				u.free[d-u.first] = -1
			}
		}
	}
	for _, r := range rows {
		u := byKey[unitKey{tradewind.UnitKind(r.Kind), r.UnitID}]
		d := dayNumber(r.Day) - u.first
		u.free[d] = int32(max(r.Capacity-r.Sold, 0))
		u.setPrice(d, r.Price) // fits: checked above
	}
	x.days++
	m.dest.touch(kind, x.city) // a day may have sold out, or opened again
	// The city's hotel table, if built, holds a day-major copy of its rooms' days: the
	// spans' days are copied again from the units (a table built later copies them).
	if kind == tradewind.ProductHotel {
		if c := m.hotels.loaded(x.city); c != nil {
			for _, sp := range spans {
				c.RefreshDays(id, dayNumber(sp.From), dayNumber(sp.To))
			}
		}
	}
	return true
}

// Touched applies the days a claim or release of this server changed, once its
// transaction committed: the server's own writes show in its next read. The change
// feed brings the same change again, which reloads the same truth.
func (m *Model) Touched(ctx context.Context, claims []store.Claim) {
	if !m.ready.Load() || len(claims) == 0 {
		return
	}
	// The claims' days by product and unit kind, each claim its own span of its one
	// unit (two claims of an item far apart in time are not read as one range; the
	// item's other units did not change): one range of inventory's key each, where the
	// item's every unit was a range per unit (the feed's poll reloads those).
	type kinds struct {
		product tradewind.ProductType
		unit    tradewind.UnitKind
	}
	byKind := map[kinds][]store.ItemDays{}
	m.mu.RLock()
	unknown := false
	for _, c := range claims {
		u := m.units[unitKey{c.Kind, c.UnitID}]
		if u == nil {
			unknown = true
			continue
		}
		k := kinds{productOf(c.Kind), c.Kind}
		byKind[k] = append(byKind[k], store.ItemDays{ItemID: u.itemID, UnitID: c.UnitID, From: c.From, To: c.To})
	}
	m.mu.RUnlock()
	if unknown {
		m.Kick()
	}
	for k, spans := range byKind {
		stale, err := m.reloadDays(ctx, k.product, k.unit, spans)
		if err != nil {
			m.logger.Warn("read model: reload after a write failed; the next poll applies it", "err", err)
		}
		if err != nil || len(stale) > 0 {
			m.Kick()
		}
	}
}

// claimedItem is an item a transaction claimed inventory of.
type claimedItem struct {
	kind tradewind.ProductType
	id   int64
}

// versionOf is what a claimed item is in the model now (itemVersion); false when the
// model is not built or does not hold the item's product.
func (m *Model) versionOf(k claimedItem) (itemVersion, bool) {
	if !m.ready.Load() {
		return itemVersion{}, false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.products[k.kind] == nil {
		return itemVersion{}, false
	}
	return m.itemVersion(k.kind, k.id), true
}

// applyClaimed writes the rows a committed transaction's claims left into the model,
// as the store returned them (no read: Touched read every claimed day again, from a
// read connection whose page cache every write empties on SQLite). An item that a
// reload wrote since the transaction first claimed it (w.before) may hold rows newer
// than these: its claims' days are read again instead (Touched), with the
// transaction's releases and the claims a release followed.
func (m *Model) applyClaimed(ctx context.Context, w *writes) {
	if m.beforeApply != nil {
		m.beforeApply()
	}
	reread := w.released
	if !m.ready.Load() {
		return
	}
	var order []claimedItem
	byItem := map[claimedItem][]claimed{}
	for _, c := range w.claimed {
		if c.reread {
			reread = append(reread, c.claim)
			continue
		}
		k := claimedItem{productOf(c.claim.Kind), c.claim.ItemID}
		if byItem[k] == nil {
			order = append(order, k)
		}
		byItem[k] = append(byItem[k], c)
	}
	stale := false
	m.mu.Lock()
	for _, k := range order {
		v, seen := w.before[k]
		if !seen || m.products[k.kind] == nil || m.itemVersion(k.kind, k.id) != v {
			for _, c := range byItem[k] {
				reread = append(reread, c.claim)
			}
			continue
		}
		for _, c := range byItem[k] { // in the transaction's order: a later claim's rows are newer
			sp := []store.ItemDays{{ItemID: k.id, UnitID: c.claim.UnitID, From: c.claim.From, To: c.claim.To}}
			if !m.reloadItemDays(k.kind, k.id, c.claim.Kind, sp, c.rows) {
				stale = true // no place for a row: the poll reloads the item whole
			}
		}
	}
	m.mu.Unlock()
	if stale {
		m.Kick()
	}
	m.Touched(ctx, reread)
}

// String describes the model for logs.
func (m *Model) String() string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := 0
	for _, idx := range m.products {
		n += len(idx.byID)
	}
	return fmt.Sprintf("read model: %d items, %d units, change %d", n, len(m.units), m.cursor)
}
