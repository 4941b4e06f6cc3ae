package money

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestParseDecimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, cur string
		want    int64
		err     bool
	}{
		{"120", "EUR", 12000, false},
		{"120.5", "EUR", 12050, false},
		{"120.50", "EUR", 12050, false},
		{"120.500", "EUR", 12050, false},
		{"0.1", "EUR", 10, false},
		{"120.505", "EUR", 0, true},
		{"1200", "JPY", 1200, false},
		{"1200.5", "JPY", 0, true},
		{"1.234", "BHD", 1234, false},
		{"1.2e2", "EUR", 12000, false},
		{"-8", "EUR", -800, false},
		{"0", "EUR", 0, false},
		{"0.000", "EUR", 0, false},
		{"abc", "EUR", 0, true},
		{"", "EUR", 0, true},
		{"1.", "EUR", 100, false},
		{"99999999999999999999", "EUR", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseDecimal(tt.in, tt.cur)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseDecimal(%q, %s) = %d, %v; want %d, err=%v", tt.in, tt.cur, got, err, tt.want, tt.err)
		}
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		minor int64
		cur   string
		want  string
	}{{12000, "EUR", "120.00"}, {5, "EUR", "0.05"}, {-5, "EUR", "-0.05"}, {1200, "JPY", "1200"}, {1234, "BHD", "1.234"}, {0, "EUR", "0.00"}} {
		if got := Format(tt.minor, tt.cur); got != tt.want {
			t.Errorf("Format(%d, %s) = %s, want %s", tt.minor, tt.cur, got, tt.want)
		}
	}
}

func TestApplyPercentBP(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ minor, bp, want int64 }{
		{10000, 1000, 11000}, // +10 %
		{1005, 1000, 1106},   // 1105.5 rounds half up
		{999, 1250, 1124},    // 1123.875
		{10000, -800, 9200},
		{1, 5000, 2}, // 1.5 → 2
		{0, 1000, 0},
	} {
		if got := ApplyPercentBP(tt.minor, tt.bp); got != tt.want {
			t.Errorf("ApplyPercentBP(%d, %d) = %d, want %d", tt.minor, tt.bp, got, tt.want)
		}
	}
}

// formatBefore is Format as it was written before AppendFormat: the reference.
func formatBefore(minor int64, currency string) string {
	exp := Exponent(currency)
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	s := strconv.FormatInt(minor, 10)
	if exp == 0 {
		return sign + s
	}
	if len(s) <= exp {
		s = strings.Repeat("0", exp-len(s)+1) + s
	}
	return sign + s[:len(s)-exp] + "." + s[len(s)-exp:]
}

// TestFormatAsBefore checks Format and AppendFormat against the former Format, in every
// exponent, at the edges of int64 included.
func TestFormatAsBefore(t *testing.T) {
	values := []int64{0, 1, -1, 5, -5, 9, 10, 99, 100, -100, 101, 999, 1000, 1001, 12345, -12345, 1 << 40, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for _, cur := range []string{"EUR", "JPY", "BHD", "USD", "XXX", ""} {
		for _, v := range values {
			want := formatBefore(v, cur)
			if got := Format(v, cur); got != want {
				t.Errorf("Format(%d, %q) = %q, want %q", v, cur, got, want)
			}
			if got := string(AppendFormat([]byte("x"), v, cur)); got != "x"+want {
				t.Errorf("AppendFormat(%d, %q) = %q, want x%q", v, cur, got, want)
			}
		}
	}
}
