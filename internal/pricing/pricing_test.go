package pricing

import (
	"testing"

	"github.com/tradewind/tradewind"
)

func TestLine(t *testing.T) {
	t.Parallel()
	net := Contract{Mode: tradewind.PricingNet, MarkupBP: 1000}
	markup := Contract{Mode: tradewind.PricingMarkup, MarkupBP: 1250}
	for _, tt := range []struct {
		c        Contract
		in, want int64
	}{
		{net, 12000, 12000},
		{markup, 12000, 13500},
		{markup, 999, 1124}, // 1123.875 rounds half-up
		{markup, 0, 0},
	} {
		if got := tt.c.Line(tt.in); got != tt.want {
			t.Errorf("%+v.Line(%d) = %d, want %d", tt.c, tt.in, got, tt.want)
		}
	}
}

func TestMarketThenMarkupRoundsPerLine(t *testing.T) {
	t.Parallel()
	c := Contract{Mode: tradewind.PricingMarkup, MarkupBP: 1000}
	// 120.00 with GB +5 % = 126.00, +10 % markup = 138.60 per night; three nights.
	var total int64
	for i := 0; i < 3; i++ {
		total += c.MarketLine(12000, 500)
	}
	if total != 41580 {
		t.Fatalf("total = %d, want 41580", total)
	}
	if got := c.PerPerson(2, 1, 1, 6000, 3000, 0); got != 2*6600+3300 {
		t.Fatalf("PerPerson = %d", got)
	}
}

// TestMarketLineRoundsOnce: market and markup compose exactly and round once per line
// (decisions.md); the first cases are ones where rounding after each step gives more.
func TestMarketLineRoundsOnce(t *testing.T) {
	t.Parallel()
	markup := func(bp int64) Contract { return Contract{Mode: tradewind.PricingMarkup, MarkupBP: bp} }
	for _, tt := range []struct {
		name              string
		c                 Contract
		net, market, want int64
	}{
		// 10 × 1.15 = 11.5 → (two roundings) 12 × 1.15 = 13.8 → 14; once: 13.225 → 13.
		{"two steps would drift up", markup(1500), 10, 1500, 13},
		// 1 × 1.5 = 1.5 → 2 × 1.5 = 3; once: 2.25 → 2.
		{"small amounts", markup(5000), 1, 5000, 2},
		{"no market, markup only", markup(1250), 999, 0, 1124},
		{"net mode, market only", Contract{Mode: tradewind.PricingNet, MarkupBP: 1250}, 999, 500, 1049},
		{"negative market", markup(1000), 10000, -2000, 8800},
		{"zero", markup(1000), 0, 500, 0},
		{"half rounds up", markup(0), 1, 5000, 2}, // 1.5 → 2
	} {
		if got := tt.c.MarketLine(tt.net, tt.market); got != tt.want {
			t.Errorf("%s: MarketLine(%d, %d) = %d, want %d", tt.name, tt.net, tt.market, got, tt.want)
		}
	}
	// Within int64 for the catalog's caps, and no panic far beyond them.
	if got := markup(100_000).MarketLine(100_000_000_000, 100_000); got != 100_000_000_000*11*11 {
		t.Errorf("caps: got %d", got)
	}
	_ = markup(100_000).MarketLine(1<<62, 100_000)
}

// TestUnchangedPricesNothing: when Unchanged says so, Line and MarketLine return the net
// price itself, so a search may sum nights without them.
func TestUnchangedPricesNothing(t *testing.T) {
	nets := []int64{0, 1, -1, 99, 12345, 1<<31 - 1, -1 << 31, 100_000_000_000, -100_000_000_000, 1<<50 - 1, -(1<<50 - 1)}
	for _, c := range []Contract{{Mode: tradewind.PricingNet}, {Mode: tradewind.PricingNet, MarkupBP: 1500},
		{Mode: tradewind.PricingMarkup}, {Mode: tradewind.PricingMarkup, MarkupBP: 1500}} {
		for _, market := range []int64{0, 500, -800} {
			if !c.Unchanged(market) {
				if market == 0 && c.Mode == tradewind.PricingNet {
					t.Errorf("%+v: a net partner without market changes prices?", c)
				}
				continue
			}
			for _, net := range nets {
				if got := c.MarketLine(net, market); got != net {
					t.Errorf("%+v: MarketLine(%d, %d) = %d", c, net, market, got)
				}
				if got := c.Line(net); got != net {
					t.Errorf("%+v: Line(%d) = %d", c, net, got)
				}
			}
		}
	}
}
