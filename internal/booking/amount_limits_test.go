package booking

import (
	"math"
	"math/big"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/pricing"
	"github.com/tradewind/tradewind/internal/store"
)

// maxMarkupBP is the largest partner markup applyPartner accepts (+1000 %), checked below.
const maxMarkupBP = 100_000

// TestLargestAmountsFitInt64: with catalog.MaxAmount as every net price, the largest hotel
// market (+1000 %) and the largest partner markup (+1000 %), the longest stay of the most
// rooms, and the largest party of a package with every add-on, the totals are exact:
// int64 arithmetic gives the same as arbitrary precision, far below math.MaxInt64.
func TestLargestAmountsFitInt64(t *testing.T) {
	t.Parallel()
	// The markup cap this relies on.
	for pct, ok := range map[string]bool{"1000": true, "1000.01": false} {
		var pt tradewind.Partner
		err := (&Service{}).applyPartner(&pt, PartnerParams{MarkupPercent: &pct})
		if (err == nil) != ok || (ok && pt.MarkupBP != maxMarkupBP) {
			t.Fatalf("markup %s%%: %v (bp %d)", pct, err, pt.MarkupBP)
		}
	}
	con := pricing.Contract{Mode: tradewind.PricingMarkup, MarkupBP: maxMarkupBP}
	perLine := big.NewInt(catalog.MaxAmount)
	perLine.Mul(perLine, big.NewInt(11*11)) // market +1000 %, then markup +1000 %: exact, no rounding
	exact := func(lines int64) *big.Int { return new(big.Int).Mul(perLine, big.NewInt(lines)) }
	check := func(what string, got int64, want *big.Int) {
		t.Helper()
		if !want.IsInt64() || got != want.Int64() || got <= 0 {
			t.Errorf("%s = %d, want %v", what, got, want)
		}
		if headroom := new(big.Int).Quo(big.NewInt(math.MaxInt64), want); headroom.Cmp(big.NewInt(100)) < 0 {
			t.Errorf("%s = %v leaves int64 only %v× headroom", what, want, headroom)
		}
	}

	// Hotel: every night at the cap, the largest market, maxNights nights of maxRooms rooms,
	// summed per night and multiplied by rooms as roomOffer does.
	rows := make([]DayStock, maxNights)
	for i := range rows {
		rows[i] = dayStock(store.InventoryRow{Kind: tradewind.UnitRoom, Capacity: maxRooms, Price: catalog.MaxAmount})
	}
	night, ok := stayTotal(rows, maxNights, maxRooms, func(net int64) int64 {
		return con.MarketLine(net, catalog.MaxMarketBP)
	})
	if !ok {
		t.Fatal("stayTotal refused the stay")
	}
	check("hotel stay", night*maxRooms, exact(maxNights*maxRooms))

	// Package: the largest party at the cap on every person type, and maxAddons add-ons at
	// the cap per seat (markup only; markets are for hotels).
	pt := party{adults: maxAdults, children: maxChildren, infants: maxInfants}
	addons := make([]catalog.Addon, maxAddons)
	for i := range addons {
		addons[i] = catalog.Addon{ID: int64(i + 1), PricePerPerson: catalog.MaxAmount}
	}
	opt := &pkgOption{prices: catalog.PersonPrices{Adult: catalog.MaxAmount, Child: catalog.MaxAmount, Infant: catalog.MaxAmount}}
	got := pricePackage(con, pt, opt, addons, "EUR").total.Minor
	lines := int64(maxAdults+maxChildren+maxInfants) + int64(maxAddons)*int64(pt.seats())
	want := new(big.Int).Quo(exact(lines), big.NewInt(11)) // no market on packages
	check("package", got, want)
}
