// Package pricing turns net prices into what a partner sees, by its contract: pure
// functions over integer minor units.
package pricing

import (
	"math"
	"math/bits"

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

// MarketLine prices one hotel night of one room whose guest nationality matches a market
// of marketBP basis points (0 when none): net × (1 + market %) × (1 + markup %) composed
// exactly and rounded half-up once (decisions.md: one rounding per priced line), so a
// JPY night never loses a unit to a rounding between the two percentages.
func (c Contract) MarketLine(net, marketBP int64) int64 {
	markup := int64(0)
	if c.Mode == tradewind.PricingMarkup {
		markup = c.MarkupBP
	}
	return applyTwoPercentsBP(net, marketBP, markup)
}

// Unchanged reports whether MarketLine(net, marketBP), and Line(net) when marketBP is 0,
// is net itself for every net a catalog holds (|net| < 2^50): a net partner and no
// market. Searches then sum a stay's nights without pricing each.
func (c Contract) Unchanged(marketBP int64) bool {
	return marketBP == 0 && c.Mode != tradewind.PricingMarkup
}

// applyTwoPercentsBP returns minor × (10000+a)/10000 × (10000+b)/10000 rounded half-up
// (away from zero) once. The product is taken in 128 bits: catalog amounts (≤ 10^11) times
// two factors (≤ 1.1·10^5 each, catalog.MaxMarketBP and markups) overflow int64.
func applyTwoPercentsBP(minor, a, b int64) int64 {
	const scale = 10000 * 10000
	if a == 0 && b == 0 && minor > -1<<50 && minor < 1<<50 {
		return minor // × 1 × 1, exactly (a net partner, no market): what the division below gives
	}
	neg := minor < 0
	if neg {
		minor = -minor
	}
	fa, fb := 10000+a, 10000+b
	if fa < 0 || fb < 0 { // below -100 %: nothing to sell; the catalog refuses it anyway
		return 0
	}
	p1hi, p1 := bits.Mul64(uint64(minor), uint64(fa))
	hi, lo := bits.Mul64(p1, uint64(fb))
	lo, carry := bits.Add64(lo, scale/2, 0)
	hi += carry
	if p1hi != 0 || hi >= scale { // a price beyond any catalog's cap: saturate, never panic
		q := uint64(math.MaxInt64)
		if neg {
			return -int64(q)
		}
		return int64(q)
	}
	q, _ := bits.Div64(hi, lo, scale)
	if neg {
		return -int64(q)
	}
	return int64(q)
}

// PerPerson prices a party at per-person net prices, one rounded line per person type.
func (c Contract) PerPerson(adults, children, infants int, adult, child, infant int64) int64 {
	return int64(adults)*c.Line(adult) + int64(children)*c.Line(child) + int64(infants)*c.Line(infant)
}
