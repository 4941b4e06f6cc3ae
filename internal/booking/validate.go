package booking

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/catalog"
)

// Limits decided in shared/spec/decisions.md.
const (
	maxDaysAhead = 500
	maxNights    = 30
	maxRooms     = 9
	maxAdults    = 30
	maxChildren  = 20
	maxInfants   = 10
	maxChildAge  = 17
)

// Party sizes a search or availability request gets when it leaves the field out, as
// partner-api.md gives them per endpoint: two adults on hotel, activity and package
// searches and hotel and package availability; one adult on activity availability
// (a seat check for one); one guest on rental searches and availability; one room.
const (
	defaultAdults              = 2
	defaultActivityCheckAdults = 1
	defaultGuests              = 1
	defaultRooms               = 1
)

// problems collects every validation problem of a request, one string each.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

func (p problems) err() error { return tradewind.Invalid(p) }

// date checks a required service date: a real YYYY-MM-DD, not before today (UTC) and
// at most 500 days ahead.
func (p *problems) date(field, value string, today time.Time) (time.Time, bool) {
	if value == "" {
		p.add("%s is required", field)
		return time.Time{}, false
	}
	t, ok := catalog.ParseDate(value)
	if !ok {
		p.add("%s: %q is not a date (YYYY-MM-DD)", field, value)
		return time.Time{}, false
	}
	if t.Before(today) {
		p.add("%s: %s is in the past", field, value)
		return t, false
	}
	if t.After(today.AddDate(0, 0, maxDaysAhead)) {
		p.add("%s: %s is more than %d days ahead", field, value, maxDaysAhead)
		return t, false
	}
	return t, true
}

// stay checks a check_in/check_out pair and returns the number of nights.
func (p *problems) stay(checkIn, checkOut string, today time.Time) (int, bool) {
	in, ok1 := p.date("check_in", checkIn, today)
	if checkOut == "" {
		p.add("check_out is required")
		return 0, false
	}
	if _, ok := catalog.ParseDate(checkOut); !ok {
		p.add("check_out: %q is not a date (YYYY-MM-DD)", checkOut)
		return 0, false
	}
	if in.IsZero() {
		return 0, false
	}
	nights := nightsOf(checkIn, checkOut)
	switch {
	case nights < 1:
		p.add("check_out must be after check_in")
		return 0, false
	case nights > maxNights:
		p.add("check_out: a stay of %d nights; at most %d", nights, maxNights)
		return 0, false
	}
	return nights, ok1
}

func (p *problems) between(field string, v, lo, hi int) {
	if v < lo || v > hi {
		p.add("%s: %d is outside %d–%d", field, v, lo, hi)
	}
}

// requiredCount says "field is required" of a count a quote needs and left at zero (a
// quote's counts, like its ids, are told missing by their zero: an omitted field and 0
// decode alike), and returns the count the rest of the party is checked with, so that
// the missing count is not reported a second time as out of its range.
func (p *problems) requiredCount(field string, v, instead int) int {
	if v == 0 {
		p.add("%s is required", field)
		return instead
	}
	return v
}

func (p *problems) party(adults, children, infants int) {
	p.between("adults", adults, 1, maxAdults)
	p.between("children", children, 0, maxChildren)
	p.between("infants", infants, 0, maxInfants)
}

// childAges checks that ages hold exactly children ages of 0–17.
func (p *problems) childAges(children int, ages []int) {
	if children > 0 && len(ages) == 0 {
		p.add("child_ages is required and non-empty when children > 0")
		return
	}
	if len(ages) != children && children >= 0 {
		p.add("child_ages: %s given for %s", countOf(len(ages), "age", "ages"), countOf(children, "child", "children"))
	}
	for i, a := range ages {
		if a < 0 || a > maxChildAge {
			p.add("child_ages[%d]: %d is outside 0–%d", i, a, maxChildAge)
		}
	}
}

func (p *problems) nationality(code string) { p.country("nationality_code", code) }

// country checks an optional ISO 3166-1 alpha-2 country code.
func (p *problems) country(field, code string) {
	if code != "" && !catalog.ValidCountry(code) {
		p.add(`%s: %q is not a 2-letter ISO country code in upper case (such as "PT")`, field, code)
	}
}

// positiveID checks a required id: 0 is "not sent" (api-decisions.md), below it is a
// value sent that no item has.
func (p *problems) positiveID(field string, id int64) {
	switch {
	case id == 0:
		p.add("%s is required", field)
	case id < 0:
		p.add("%s: must be a positive integer", field)
	}
}

func (p *problems) maxLen(field, v string, n int) {
	if len([]rune(v)) > n {
		p.add("%s: at most %d characters", field, n)
	}
}

// lineText refuses in a one-line text (a name, a phone) what would change how it reads
// rather than what it says, so that a name shown in the portal or on a voucher is the
// name that was sent: control characters (a line break, an escape), line and paragraph
// separators, and format characters, among them the bidirectional controls that
// reorder the text around them ("Ana" + U+202E + "avliS" shows as "Ana Silva" read
// backwards) and invisible ones (U+200B, U+FEFF). The joiners U+200C and U+200D stay:
// Persian and Indic names, and emoji, need them.
func (p *problems) lineText(field, v string) {
	for _, r := range v {
		if notPlain(r) {
			p.add("%s: holds the control character %U; send plain text", field, r)
			return
		}
	}
}

// notPlain reports whether r is a character lineText refuses.
func notPlain(r rune) bool {
	if r == '\u200C' || r == '\u200D' {
		return false
	}
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// email checks the shape of an e-mail address: one @ between a local part and a domain
// of two or more non-empty labels, no spaces, controls or angle brackets inside. Mail is
// never sent to it here; the check catches a field filled with something else (a name,
// "n/a") before a voucher goes nowhere.
func (p *problems) email(field, v string) {
	if v == "" {
		return
	}
	// Spaces around it are a paste's, not the address's: it is checked without them.
	addr := strings.TrimSpace(v)
	local, domain, ok := strings.Cut(addr, "@")
	labels := strings.Split(domain, ".")
	if !ok || local == "" || len(labels) < 2 || slices.Contains(labels, "") ||
		strings.Contains(domain, "@") ||
		strings.ContainsFunc(addr, func(r rune) bool { return unicode.IsSpace(r) || notPlain(r) || r == '<' || r == '>' }) {
		p.add("%s: %q is not an e-mail address such as ana@example.com", field, clip(v))
	}
}

// countOf writes n with the noun's singular or plural: "1 child", "2 children".
func countOf(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// nightRange returns the first and last night of a stay: check_in .. check_out−1.
func nightRange(checkIn, checkOut string) (string, string) {
	out, _ := catalog.ParseDate(checkOut)
	return checkIn, out.AddDate(0, 0, -1).Format(tradewind.DateLayout)
}

func (s *Service) todayDate() time.Time {
	t, _ := catalog.ParseDate(s.today())
	return t
}
