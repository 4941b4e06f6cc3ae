package booking

import (
	"context"
	"fmt"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
)

// Hinted is an answer that carries, beside its data, a short text for the people
// integrating: the envelope's message, null otherwise. A search that found nothing in a
// city that has nothing of its product says so (a misspelt destination answers an empty
// 200 otherwise), and a hotel search or availability whose party fits no room says how
// many rooms would. Programs read the data; the text is for people and may change.
type Hinted interface{ Hint() string }

// hint is embedded in the answers that may carry one (Hinted).
type hint struct{ text string }

func (h hint) Hint() string { return h.text }

// productPlurals name each product's items in a hint.
var productPlurals = map[tradewind.ProductType]string{
	tradewind.ProductHotel: "hotels", tradewind.ProductActivity: "activities",
	tradewind.ProductRental: "rentals", tradewind.ProductPackage: "packages",
}

// CityCounter is implemented by Reads that hold each city's items in memory (the read
// model): an empty search's hint asks it rather than copy or read the city's items. ok
// false: it cannot tell now; no hint is given.
type CityCounter interface {
	CityHas(kind tradewind.ProductType, city string) (has, ok bool)
	// EachCityItem calls each with the city's items of kind (decoded, *catalog.Hotel, …)
	// under the reader's lock until it returns false; ok false: it cannot now. each must
	// not keep the item nor call the reader.
	EachCityItem(kind tradewind.ProductType, city string, each func(v any) bool) (ok bool)
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

// cityPartyHint is the hint of a hotel search in dest that found nothing although the
// city has hotels: when no room of any of them takes the party in the rooms asked, it
// says how many rooms would at some hotel, or that none would. Asked of the read model
// only (CityCounter, the city's hotels in memory); a store reader gives no hint.
func (s *Service) cityPartyHint(dest string, st *hotelStay) hint {
	cc, ok := s.reads().(CityCounter)
	if !ok {
		return hint{}
	}
	fits, need := false, 0
	if !cc.EachCityItem(tradewind.ProductHotel, cityKey(dest), func(v any) bool {
		h, _ := v.(*catalog.Hotel)
		if h == nil {
			return true
		}
		for i := range h.Rooms {
			r := &h.Rooms[i]
			if st.fits(r) {
				fits = true
				return false
			}
			if n := roomsFor(st.adults, st.children, r); n > 0 && (need == 0 || n < need) {
				need = n
			}
		}
		return true
	}) || fits {
		return hint{}
	}
	party := partyText(st)
	if need == 0 {
		return hint{fmt.Sprintf("No hotel in %q takes %s in any number of rooms: each room holds at least 1 adult, at most %d rooms are booked at once, and children need rooms that take children.",
			clip(dest), party, maxRooms)}
	}
	return hint{fmt.Sprintf("No hotel in %q takes %s in %s; %d rooms would at some (rooms: %d).",
		clip(dest), party, countOf(st.rooms, "room", "rooms"), need, need)}
}

// partyText names a hotel party: "5 adults", "1 adult and 3 children".
func partyText(st *hotelStay) string {
	party := countOf(st.adults, "adult", "adults")
	if st.children > 0 {
		party += " and " + countOf(st.children, "child", "children")
	}
	return party
}

// emptyHotelSearchHint is emptySearchHint for hotels, and, for a city with hotels, the
// party no room there takes (cityPartyHint).
func (s *Service) emptyHotelSearchHint(ctx context.Context, dest string, st *hotelStay, total int) hint {
	if h := s.emptySearchHint(ctx, tradewind.ProductHotel, dest, total); h.text != "" || total > 0 {
		return h
	}
	return s.cityPartyHint(dest, st)
}
