package booking

import "context"

// OperatorSubscription is a webhook subscription as the operator sees it: the partner's
// view and whose it is, never its secret.
type OperatorSubscription struct {
	Partner string `json:"partner"`
	SubscriptionView
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
			out = append(out, &OperatorSubscription{Partner: p.Name, SubscriptionView: *viewSubscription(sub)})
		}
	}
	if partnerName != "" && !found {
		return nil, notFound("Partner " + partnerName)
	}
	return out, nil
}
