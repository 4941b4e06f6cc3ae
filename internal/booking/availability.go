package booking

import (
	"context"
	"slices"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// emitAvailabilityChanged writes availability.changed for days from..to (inclusive) of
// an item to each of the subscribers, in the caller's transaction.
//
// One more copy goes to the event feed (store.FeedPartnerID), which every partner whose
// key enables the product reads, subscribed or not.
func (s *Service) emitAvailabilityChanged(ctx context.Context, tx store.Querier, subscribers []int64, kind tradewind.ProductType, itemID int64, from, to string) error {
	data := availabilityEventData(kind, itemID, from, to)
	for _, pid := range append([]int64{store.FeedPartnerID}, subscribers...) {
		if err := s.emit(ctx, tx, pid, tradewind.EventAvailabilityChanged, data); err != nil {
			return err
		}
	}
	return nil
}

// availabilityEventData is the data of availability.changed for days from..to of an item.
func availabilityEventData(kind tradewind.ProductType, itemID int64, from, to string) map[string]any {
	return map[string]any{"product_type": kind, "item_id": itemID, "start": from, "end": to}
}

// soldOut returns the days of claim c, in order, on which its unit has nothing left to
// sell: sold out, or closed (capacity 0, also below what is sold after an import).
func soldOut(ctx context.Context, tx store.Querier, c store.Claim) ([]string, error) {
	rows, err := tx.InventoryList(ctx, store.InventoryQuery{Kind: c.Kind, ItemIDs: []int64{c.ItemID}, UnitIDs: []int64{c.UnitID}, From: c.From, To: c.To})
	if err != nil {
		return nil, err
	}
	return soldOutIn(rows), nil
}

// soldOutIn returns the days of rows (ordered by day) with nothing left to sell.
func soldOutIn(rows []store.InventoryRow) []string {
	var days []string
	for _, r := range rows {
		if free(r) == 0 {
			days = append(days, r.Day)
		}
	}
	return days
}

// releaseClaim gives back what claim c took and returns the first and last day that
// became sellable again ("" when none did): a day that was sold out and now has
// something free. A day an import closed while it was sold out stays unsellable, so
// its release reopens nothing.
func releaseClaim(ctx context.Context, tx store.Querier, c store.Claim) (from, to string, err error) {
	before, err := soldOut(ctx, tx, c)
	if err != nil {
		return "", "", err
	}
	if err := tx.InventoryRelease(ctx, c); err != nil {
		return "", "", err
	}
	after, err := soldOut(ctx, tx, c)
	if err != nil {
		return "", "", err
	}
	var reopened []string
	for _, d := range before {
		if !slices.Contains(after, d) {
			reopened = append(reopened, d)
		}
	}
	return spanOf(reopened)
}

// spanOf returns the first and last of ordered days, or "" when there are none.
func spanOf(days []string) (string, string, error) {
	if len(days) == 0 {
		return "", "", nil
	}
	return days[0], days[len(days)-1], nil
}

// availabilityFlipped tells every partner subscribed to availability.changed that days
// from..to of an item sold out or became available again; nothing when from is "".
func (s *Service) availabilityFlipped(ctx context.Context, tx store.Querier, kind tradewind.ProductType, itemID int64, from, to string) error {
	if from == "" {
		return nil
	}
	subscribers, err := tx.SubscriberPartnerIDs(ctx, tradewind.EventAvailabilityChanged)
	if err != nil {
		return err
	}
	return s.emitAvailabilityChanged(ctx, tx, subscribers, kind, itemID, from, to)
}
