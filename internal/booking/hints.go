package booking

import (
	"context"
	"fmt"

	"github.com/tradewind/tradewind"
)

// Hinted is an answer that carries, beside its data, a short text for the people
// integrating: the envelope's message, null otherwise. A search that found nothing in a
// city that has nothing of its product says so (a misspelt destination answers an empty
// 200 otherwise), and a hotel availability whose party fits no room says so. Programs
// read the data; the text is for people and may change.
type Hinted interface{ Hint() string }

// hint is embedded in the answers that may carry one (Hinted).
type hint struct{ text string }

func (h hint) Hint() string { return h.text }

// productPlurals name each product's items in a hint.
var productPlurals = map[tradewind.ProductType]string{
	tradewind.ProductHotel: "hotels", tradewind.ProductActivity: "activities",
	tradewind.ProductRental: "rentals", tradewind.ProductPackage: "packages",
}

// CityCounter is implemented by Reads that can tell at once whether a city has an item
// of a kind (the read model): an empty search's hint asks it rather than copy the city's
// items. ok false: it cannot tell now; no hint is given.
type CityCounter interface {
	CityHas(kind tradewind.ProductType, city string) (has, ok bool)
}

// emptySearchHint is the hint of a search of kind in dest that found total items: when
// it found none and the city has no item of kind at all, it says so and where the cities
// are listed. Asked only for an empty answer, of the read model (CityCounter: a map
// lookup); a reader without one (the store: tests, embedded use) reads the city's items.
// A failed read gives no hint, not an error.
func (s *Service) emptySearchHint(ctx context.Context, kind tradewind.ProductType, dest string, total int) hint {
	if total > 0 {
		return hint{}
	}
	if cc, ok := s.reads().(CityCounter); ok {
		if has, known := cc.CityHas(kind, cityKey(dest)); has || !known {
			return hint{}
		}
	} else if items, err := s.reads().CityItems(ctx, kind, cityKey(dest)); err != nil || len(items) > 0 {
		return hint{}
	}
	return hint{fmt.Sprintf("There are no %s in %q. GET /destinations lists the cities to search, with what each has.",
		productPlurals[kind], clip(dest))}
}
