package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
)

// Amount is a sum of money exactly as the API wrote it: the decimal text of a JSON number
// such as "240.10". It never passes through binary floating point; compare and add
// amounts with Rat, or convert them to minor units with MinorUnits.
type Amount string

// UnmarshalJSON accepts a JSON number (or a string holding one) and keeps its text.
func (a *Amount) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*a = ""
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		b = []byte(s)
	}
	if !json.Valid(b) || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return fmt.Errorf("client: amount %q is not a number", b)
	}
	*a = Amount(b)
	return nil
}

// MarshalJSON writes the amount as a JSON number, or null when it is empty.
func (a Amount) MarshalJSON() ([]byte, error) {
	if a == "" {
		return []byte("null"), nil
	}
	if _, ok := a.Rat(); !ok {
		return nil, fmt.Errorf("client: amount %q is not a number", string(a))
	}
	return []byte(a), nil
}

// String returns the decimal text of the amount.
func (a Amount) String() string { return string(a) }

// Rat returns the exact value of the amount; ok is false when it is not a number.
func (a Amount) Rat() (r *big.Rat, ok bool) {
	return new(big.Rat).SetString(string(a))
}

// errTooPrecise is returned by MinorUnits for an amount with more decimals than asked.
var errTooPrecise = errors.New("client: amount has more decimals than the currency")

// MinorUnits returns the amount in minor units of a currency with the given number of
// decimals (2 for EUR, 0 for JPY, 3 for BHD): "240.1" with 2 decimals is 24010.
func (a Amount) MinorUnits(decimals int) (int64, error) {
	r, ok := a.Rat()
	if !ok {
		return 0, fmt.Errorf("client: amount %q is not a number", string(a))
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
	if !r.IsInt() {
		return 0, errTooPrecise
	}
	if !r.Num().IsInt64() {
		return 0, fmt.Errorf("client: amount %q is too large", string(a))
	}
	return r.Num().Int64(), nil
}
