package booking

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/store"
)

// Reads is what searches, availability and catalog records read: the catalog items and
// what their units can still sell per day. StoreReads reads the database on every call;
// the read model (internal/readmodel) answers from memory, kept fresh by the change feed.
// Both answer alike, so the same code computes every answer. Prebook and book never
// read through it: they price and claim in the store, so a stale read cannot sell what
// is gone.
type Reads interface {
	// CityItems returns the items of a kind in a city (lower-case key), by id, decoded.
	CityItems(ctx context.Context, kind tradewind.ProductType, city string) ([]Decoded, error)
	// Item returns one item decoded (DecodeItem); store.ErrNotFound when it is missing.
	Item(ctx context.Context, kind tradewind.ProductType, id int64) (any, error)
	// Stock returns the days q selects (q.Kind and q.ItemIDs or q.UnitIDs, q.From..q.To),
	// by unit, each unit's days in order; a day without inventory is absent.
	Stock(ctx context.Context, q store.InventoryQuery) (map[int64][]DayStock, error)
}

// Decoded is a catalog item decoded into its catalog type, with its id.
type Decoded struct {
	ID    int64
	Value any // *catalog.Hotel, *catalog.Activity, *catalog.Rental or *catalog.Package
}

// DayStock is what one unit can still sell on one day (capacity less sold, never below
// 0) and its net price.
type DayStock struct {
	Day   string
	Free  int
	Price int64
}

// DecodeItem decodes a stored catalog item into its catalog type (see Decoded).
func DecodeItem(it *store.Item) (any, error) {
	var v any
	switch it.Kind {
	case tradewind.ProductHotel:
		v = new(catalog.Hotel)
	case tradewind.ProductActivity:
		v = new(catalog.Activity)
	case tradewind.ProductRental:
		v = new(catalog.Rental)
	case tradewind.ProductPackage:
		v = new(catalog.Package)
	default:
		return nil, fmt.Errorf("item %d of unknown kind %q: %w", it.ID, it.Kind, store.ErrCorrupt)
	}
	if err := json.Unmarshal(it.Data, v); err != nil {
		return nil, fmt.Errorf("%s %d: %w", it.Kind, it.ID, err)
	}
	return v, nil
}

// StoreReads reads Q on every call: the path of a service without a read model, and of
// prebook and book whatever the service has.
type StoreReads struct{ Q store.Querier }

// CityItems implements Reads.
func (r StoreReads) CityItems(ctx context.Context, kind tradewind.ProductType, city string) ([]Decoded, error) {
	items, err := r.Q.ItemListByCity(ctx, kind, city)
	if err != nil {
		return nil, err
	}
	out := make([]Decoded, 0, len(items))
	for _, it := range items {
		v, err := DecodeItem(it)
		if err != nil {
			return nil, err
		}
		out = append(out, Decoded{ID: it.ID, Value: v})
	}
	return out, nil
}

// Item implements Reads.
func (r StoreReads) Item(ctx context.Context, kind tradewind.ProductType, id int64) (any, error) {
	it, err := r.Q.ItemGet(ctx, kind, id)
	if err != nil {
		return nil, err
	}
	return DecodeItem(it)
}

// Stock implements Reads.
func (r StoreReads) Stock(ctx context.Context, q store.InventoryQuery) (map[int64][]DayStock, error) {
	rows, err := r.Q.InventoryList(ctx, q)
	if err != nil {
		return nil, err
	}
	byUnit := map[int64][]DayStock{}
	for _, row := range rows { // ordered by unit and day
		byUnit[row.UnitID] = append(byUnit[row.UnitID], dayStock(row))
	}
	return byUnit, nil
}

// reads is what the service's searches, availability and records read: its read model,
// or the store.
func (s *Service) reads() Reads {
	if s.Reads != nil {
		return s.Reads
	}
	return StoreReads{Q: s.Store}
}
