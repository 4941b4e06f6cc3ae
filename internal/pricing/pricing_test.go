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
		total += c.Line(Market(12000, 500))
	}
	if total != 41580 {
		t.Fatalf("total = %d, want 41580", total)
	}
	if got := c.PerPerson(2, 1, 1, 6000, 3000, 0); got != 2*6600+3300 {
		t.Fatalf("PerPerson = %d", got)
	}
}
