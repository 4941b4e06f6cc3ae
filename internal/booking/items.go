package booking

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/pricing"
	"github.com/tradewind/tradewind/internal/store"
)

// Helpers shared by the searches, records, availability and quotes of every product.

// decodeItem decodes a stored catalog item into its catalog type.
func decodeItem[T any](it *store.Item) (*T, error) {
	var v T
	if err := json.Unmarshal(it.Data, &v); err != nil {
		return nil, fmt.Errorf("%s %d: %w", it.Kind, it.ID, err)
	}
	return &v, nil
}

// getItem loads and decodes one catalog item; store.ErrNotFound when it is missing.
func getItem[T any](ctx context.Context, db store.Querier, kind tradewind.ProductType, id int64) (*T, error) {
	it, err := db.ItemGet(ctx, kind, id)
	if err != nil {
		return nil, err
	}
	return decodeItem[T](it)
}

// cityItems loads and decodes the items of a kind in a city (case-insensitive), by id,
// and returns their ids alongside.
func cityItems[T any](ctx context.Context, db store.Querier, kind tradewind.ProductType, city string) ([]*T, []int64, error) {
	items, err := db.ItemListByCity(ctx, kind, cityKey(city))
	if err != nil {
		return nil, nil, err
	}
	out := make([]*T, 0, len(items))
	ids := make([]int64, 0, len(items))
	for _, it := range items {
		v, err := decodeItem[T](it)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, v)
		ids = append(ids, it.ID)
	}
	return out, ids, nil
}

// rowsByUnit loads the inventory rows q selects, grouped by unit, each unit's days in order.
func rowsByUnit(ctx context.Context, db store.Querier, q store.InventoryQuery) (map[int64][]store.InventoryRow, error) {
	rows, err := db.InventoryList(ctx, q)
	if err != nil {
		return nil, err
	}
	byUnit := map[int64][]store.InventoryRow{}
	for _, r := range rows {
		byUnit[r.UnitID] = append(byUnit[r.UnitID], r)
	}
	return byUnit, nil
}

// free is what an inventory row can still sell.
func free(r store.InventoryRow) int { return max(r.Capacity-r.Sold, 0) }

// freeOn is what a unit can still sell on its one selected day: 0 when the day is not
// on sale (no row).
func freeOn(rows []store.InventoryRow) int {
	if len(rows) == 0 {
		return 0
	}
	return free(rows[0])
}

// unitFreeOn reads what one unit can still sell on one day.
func unitFreeOn(ctx context.Context, db store.Querier, kind tradewind.UnitKind, unitID int64, day string) (int, error) {
	rows, err := db.InventoryList(ctx, store.InventoryQuery{Kind: kind, UnitIDs: []int64{unitID}, From: day, To: day})
	if err != nil {
		return 0, err
	}
	return freeOn(rows), nil
}

// stayTotal prices the nights of a stay from their inventory rows (one per night, in
// order), each night needing quantity free units and priced by line; false when a
// night is missing or lacks the units.
func stayTotal(rows []store.InventoryRow, nights, quantity int, line func(net int64) int64) (int64, bool) {
	if len(rows) != nights {
		return 0, false
	}
	var total int64
	for _, r := range rows {
		if free(r) < quantity {
			return 0, false
		}
		total += line(r.Price)
	}
	return total, true
}

// cheapestPage orders search hits cheapest first, those in the caller's credit currency
// first (see sortByPrice), and returns page pg of them with its meta.
func cheapestPage[T any](hits []T, c *Caller, price func(T) money.Amount, pg Page) ([]T, PageMeta) {
	sortByPrice(hits, c.Partner.Currency, price)
	from, to := pg.window(len(hits))
	return hits[from:to], pg.meta(len(hits))
}

// party is the people of a per-person quote. Adults and children take a seat;
// infants do not.
type party struct {
	adults, children, infants int
}

// validParty checks a party against the request limits.
func validParty(p *problems, adults, children, infants int) party {
	p.party(adults, children, infants)
	return party{adults, children, infants}
}

// seats is the number of seats the party takes.
func (pt party) seats() int { return pt.adults + pt.children }

// price prices the party at per-person net prices, one rounded line per person.
func (pt party) price(c pricing.Contract, p catalog.PersonPrices) int64 {
	return c.PerPerson(pt.adults, pt.children, pt.infants, p.Adult, p.Child, p.Infant)
}

// PersonPricing is a per-person price list in the partner's pricing mode.
type PersonPricing struct {
	Adult    money.Amount `json:"adult"`
	Child    money.Amount `json:"child"`
	Infant   money.Amount `json:"infant"`
	Currency string       `json:"currency"`
}

// personPricing prices one person of each type for the partner.
func personPricing(c pricing.Contract, p catalog.PersonPrices, currency string) PersonPricing {
	amount := func(net int64) money.Amount { return money.Amount{Minor: c.Line(net), Currency: currency} }
	return PersonPricing{Adult: amount(p.Adult), Child: amount(p.Child), Infant: amount(p.Infant), Currency: currency}
}

// addDays returns the date n days after date (both YYYY-MM-DD).
func addDays(date string, n int) string {
	t, _ := parseDate(date)
	return t.AddDate(0, 0, n).Format(tradewind.DateLayout)
}

// nightsOf counts the nights of a valid stay.
func nightsOf(checkIn, checkOut string) int {
	in, _ := parseDate(checkIn)
	out, _ := parseDate(checkOut)
	return int(out.Sub(in).Hours() / 24)
}
