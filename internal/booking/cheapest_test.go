package booking

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tradewind/tradewind/internal/money"
)

// TestCheapestFirstKeepsTheFullOrder: keeping only a page's cheapest items as they come
// gives the same indexes, in the same order, as sorting every item, whatever the page
// size, with ties on price and items in other currencies; and rankedFirst, the hotel
// search's version over currencies ranked by currencyRanks, gives them too (a third of
// the rounds in one currency, rankedFirst's cheapestOfOne).
func TestCheapestFirstKeepsTheFullOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	currencies := []string{"EUR", "EUR", "EUR", "USD", "GBP", "CHF"}
	for round := range 300 {
		items := make([]money.Amount, rng.IntN(300))
		// A third of the rounds in one currency (most cities): the credit currency or
		// another, prices from few (ties) to many.
		choice, prices := currencies, 50
		if round%3 == 1 {
			choice, prices = []string{[]string{"EUR", "USD", "GBP"}[round/3%3]}, 1+rng.IntN(2000)
		}
		for i := range items {
			items[i] = money.Amount{Minor: int64(rng.IntN(prices)), Currency: choice[rng.IntN(len(choice))]}
		}
		// The order the search promises: EUR (the credit currency) first, then by
		// currency, price and index.
		want := make([]int, len(items))
		for i := range want {
			want[i] = i
		}
		slices.SortFunc(want, func(a, b int) int {
			x, y := items[a], items[b]
			if c := cmp.Compare(boolInt(x.Currency != "EUR"), boolInt(y.Currency != "EUR")); c != 0 {
				return c
			}
			if c := cmp.Compare(x.Currency, y.Currency); c != 0 {
				return c
			}
			if c := cmp.Compare(x.Minor, y.Minor); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		// Hotel candidates: currencies as numbers, ranked by currencyRanks.
		var codes []string
		found := make([]hotelCandidate, len(items))
		for i, a := range items {
			found[i] = hotelCandidate{total: a.Minor, cur: internCurrency(&codes, a.Currency)}
		}
		rank := currencyRanks(codes, "EUR")
		for _, n := range []int{0, 1, 5, 20, 100, len(items), len(items) + 10} {
			got := cheapestFirst(items, "EUR", func(a money.Amount) money.Amount { return a }, n)
			if w := want[:min(n, len(want))]; !slices.Equal(got, w) {
				t.Fatalf("round %d, %d items, n %d: got %v, want %v", round, len(items), n, got, w)
			}
			var ranked []int
			for _, k := range rankedFirst(found, rank, n) {
				ranked = append(ranked, int(k.i))
			}
			if w := want[:min(n, len(want))]; !slices.Equal(ranked, w) && (len(w) > 0 || len(ranked) > 0) {
				t.Fatalf("round %d, %d items, n %d: rankedFirst %v, want %v", round, len(items), n, ranked, w)
			}
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
