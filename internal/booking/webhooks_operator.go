package booking

import (
	"context"
	"time"
)

// OperatorSubscription is a webhook subscription as the operator sees it: whose it is,
// never its secret.
type OperatorSubscription struct {
	ID         int64     `json:"id"`
	Partner    string    `json:"partner"`
	URL        string    `json:"url"`
	EventTypes []string  `json:"event_types"`
	Active     bool      `json:"active"`
	CreatedAt  time.Time `json:"created_at"`
}

// ListAllSubscriptions returns the active webhook subscriptions of the partner named
// partnerName, or of every partner when it is empty, by partner name and then oldest
// first. 404 not_found for an unknown partner.
func (s *Service) ListAllSubscriptions(ctx context.Context, partnerName string) ([]*OperatorSubscription, error) {
	partners, err := s.Store.PartnerList(ctx) // by name
	if err != nil {
		return nil, err
	}
	out := []*OperatorSubscription{}
	found := false
	for _, p := range partners {
		if partnerName != "" && p.Name != partnerName {
			continue
		}
		found = true
		subs, err := s.Store.SubscriptionList(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		for _, sub := range subs {
			out = append(out, &OperatorSubscription{ID: sub.ID, Partner: p.Name, URL: sub.URL, EventTypes: sub.EventTypes,
				Active: sub.Active, CreatedAt: sub.CreatedAt.Truncate(time.Second)})
		}
	}
	if partnerName != "" && !found {
		return nil, notFound("Partner " + partnerName)
	}
	return out, nil
}
