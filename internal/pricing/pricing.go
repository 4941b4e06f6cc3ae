// Package pricing turns net prices into what a partner sees, by its contract: pure
// functions over integer minor units.
package pricing

import (
	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/money"
)

// Contract is the pricing part of a partner contract.
type Contract struct {
	Mode     tradewind.PricingMode
	MarkupBP int64 // markup percent in basis points
}

// For returns the pricing contract of partner p.
func For(p *tradewind.Partner) Contract { return Contract{Mode: p.PricingMode, MarkupBP: p.MarkupBP} }

// Line prices one priced line (one night of one room, one person): the net price in
// net mode, net × (1 + markup %) rounded half-up to the minor unit in markup mode.
func (c Contract) Line(net int64) int64 {
	if c.Mode == tradewind.PricingMarkup {
		return money.ApplyPercentBP(net, c.MarkupBP)
	}
	return net
}

// Market applies a hotel market's percent adjustment (basis points) to a net price,
// before the partner's markup.
func Market(net, bp int64) int64 {
	if bp == 0 {
		return net
	}
	return money.ApplyPercentBP(net, bp)
}

// PerPerson prices a party at per-person net prices, one rounded line per person type.
func (c Contract) PerPerson(adults, children, infants int, adult, child, infant int64) int64 {
	return int64(adults)*c.Line(adult) + int64(children)*c.Line(child) + int64(infants)*c.Line(infant)
}
