package booking

import (
	"context"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// emitAvailabilityChanged writes availability.changed for days from..to (inclusive) of
// an item to each of the subscribers, in the caller's transaction.
//
// One more copy goes to the event feed (store.FeedPartnerID), which every partner whose
// key enables the product reads, subscribed or not.
func (s *Service) emitAvailabilityChanged(ctx context.Context, tx store.Querier, subscribers []int64, kind tradewind.ProductType, itemID int64, from, to string) error {
	data := map[string]any{"product_type": kind, "item_id": itemID, "start": from, "end": to}
	for _, pid := range append([]int64{store.FeedPartnerID}, subscribers...) {
		if err := s.emit(ctx, tx, pid, tradewind.EventAvailabilityChanged, data); err != nil {
			return err
		}
	}
	return nil
}

// soldOutDays returns the first and last day of claim c on which its unit has nothing
// left to sell, or "" when there is none.
func soldOutDays(ctx context.Context, tx store.Querier, c store.Claim) (from, to string, err error) {
	rows, err := tx.InventoryList(ctx, store.InventoryQuery{Kind: c.Kind, UnitIDs: []int64{c.UnitID}, From: c.From, To: c.To})
	if err != nil {
		return "", "", err
	}
	for _, r := range rows { // ordered by day
		if r.Sold >= r.Capacity {
			if from == "" {
				from = r.Day
			}
			to = r.Day
		}
	}
	return from, to, nil
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
