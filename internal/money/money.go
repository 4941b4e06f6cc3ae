// Package money holds amounts as integer minor units of their currency and converts
// them to and from decimal text without ever passing through binary floating point.
package money

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// exponents lists ISO 4217 minor-unit exponents that differ from the default of 2.
var exponents = map[string]int{
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0,
	"PYG": 0, "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
}

// known lists the ISO 4217 codes accepted; a code outside it is refused so that a typo
// ("EUROS", "eur") never becomes a currency of its own.
var known = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB
	BRL BSD BTN BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP
	GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW
	KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN
	NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS
	SRD SSP STN SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XOF
	XPF YER ZAR ZMW ZWL`) {
		m[c] = true
	}
	return m
}()

// ValidCurrency reports whether code is a known ISO 4217 currency code (upper case).
func ValidCurrency(code string) bool { return known[code] }

// Exponent returns the number of decimals of the currency's minor unit (EUR 2, JPY 0, BHD 3).
func Exponent(currency string) int {
	if e, ok := exponents[currency]; ok {
		return e
	}
	return 2
}

// ErrTooPrecise is returned when a decimal has more decimals than its currency allows.
var ErrTooPrecise = errors.New("more decimals than the currency allows")

// ParseDecimal converts decimal text such as "120.5" or "-3" into minor units of
// currency. It accepts an optional exponent part ("1.2e2") as JSON numbers may carry one.
func ParseDecimal(s, currency string) (int64, error) {
	exp := Exponent(currency)
	orig := s
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	shift := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > 30 || e < -30 {
			return 0, fmt.Errorf("%q is not a decimal amount", orig)
		}
		shift, s = e, s[:i]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" || strings.Trim(intPart, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a decimal amount", orig)
	}
	digits := intPart + frac
	scale := len(frac) - shift // value = digits × 10^-scale
	digits = strings.TrimLeft(digits, "0")
	for scale > exp {
		if digits == "" || !strings.HasSuffix(digits, "0") {
			if strings.Trim(digits, "0") == "" {
				digits, scale = "", exp
				break
			}
			return 0, ErrTooPrecise
		}
		digits, scale = digits[:len(digits)-1], scale-1
	}
	digits += strings.Repeat("0", exp-scale)
	if digits == "" || strings.Trim(digits, "0") == "" {
		return 0, nil
	}
	if len(digits) > 17 {
		return 0, fmt.Errorf("%q is too large an amount", orig)
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a decimal amount", orig)
	}
	if neg {
		v = -v
	}
	return v, nil
}

// Format renders minor units as decimal text with exactly the currency's decimals.
func Format(minor int64, currency string) string {
	var buf [32]byte
	return string(AppendFormat(buf[:0], minor, currency))
}

// AppendFormat appends Format(minor, currency) to b, without allocating when b has room
// (the answers' encoders write every price with it).
func AppendFormat(b []byte, minor int64, currency string) []byte {
	exp := Exponent(currency)
	if minor < 0 {
		b = append(b, '-')
		minor = -minor
	}
	var digits [40]byte
	s := strconv.AppendInt(digits[:0], minor, 10)
	if exp == 0 {
		return append(b, s...)
	}
	if len(s) <= exp { // at least one digit before the point
		var padded [40]byte
		p := padded[:0]
		for range exp - len(s) + 1 {
			p = append(p, '0')
		}
		s = append(p, s...)
	}
	b = append(b, s[:len(s)-exp]...)
	b = append(b, '.')
	return append(b, s[len(s)-exp:]...)
}

// Amount is a sum of money. It marshals to a JSON number with the currency's decimals.
type Amount struct {
	Minor    int64
	Currency string
}

// MarshalJSON writes the amount as a bare JSON number, e.g. 120.00.
func (a Amount) MarshalJSON() ([]byte, error) {
	return AppendFormat(make([]byte, 0, 24), a.Minor, a.Currency), nil
}

// String renders the amount with its currency, e.g. "120.00 EUR".
func (a Amount) String() string { return Format(a.Minor, a.Currency) + " " + a.Currency }

// ApplyPercentBP returns minor × (1 + bp/10000), rounded half away from zero to a whole
// minor unit. bp is a percentage in basis points (12.5 % = 1250).
func ApplyPercentBP(minor int64, bp int64) int64 {
	n := minor * (10000 + bp)
	if n >= 0 {
		return (n + 5000) / 10000
	}
	return -((-n + 5000) / 10000)
}

// ParsePercentBP converts a percentage written as decimal text ("12.5", "-8") into basis points.
func ParsePercentBP(s string) (int64, error) {
	// A percent with two decimals is exactly a 2-exponent "currency".
	bp, err := ParseDecimal(s, "EUR")
	if err != nil {
		return 0, fmt.Errorf("percent %q: at most two decimals", s)
	}
	return bp, nil
}

// FormatPercentBP renders basis points as a percentage ("12.5").
func FormatPercentBP(bp int64) string {
	s := Format(bp, "EUR")
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
