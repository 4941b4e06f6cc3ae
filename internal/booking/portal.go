package booking

import (
	"github.com/tradewind/tradewind"
)

// PortalCaller is the partner acting through the portal's signed-in session: the
// session stands in for a key, with every scope and product, in mode. The portal's
// cancels and webhook changes then follow exactly the API's rules.
func PortalCaller(p *tradewind.Partner, mode tradewind.Mode) *Caller {
	return &Caller{Partner: p, Key: &tradewind.APIKey{PartnerID: p.ID, Mode: mode, Scopes: tradewind.AllScopes,
		Products: tradewind.AllProducts}}
}
