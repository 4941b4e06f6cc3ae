package storetest_test

import (
	"testing"

	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestConformance runs the suite on every database.
func TestConformance(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			storetest.Exercise(t, func(tb testing.TB) store.Store { return o.Open(tb) })
		})
	}
}
