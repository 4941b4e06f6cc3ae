package reqlog

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
)

// DefaultRetention is serve's --request-log-retention default.
const DefaultRetention = "test=7d,live=30d"

// ParseRetention reads "test=7d,live=30d": how long the entries of each key mode are
// kept, in days ("7d") or as a Go duration ("36h"). A mode left out keeps its default;
// "" is the default.
func ParseRetention(s string) (test, live time.Duration, err error) {
	test, live = 7*24*time.Hour, 30*24*time.Hour
	if strings.TrimSpace(s) == "" {
		return test, live, nil
	}
	for _, part := range strings.Split(s, ",") {
		mode, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return 0, 0, fmt.Errorf("%q: want MODE=DURATION, e.g. test=7d", part)
		}
		d, err := parseDays(val)
		if err != nil || d <= 0 {
			return 0, 0, fmt.Errorf("%q: want a positive duration such as 7d or 36h", part)
		}
		switch tradewind.Mode(mode) {
		case tradewind.ModeTest:
			test = d
		case tradewind.ModeLive:
			live = d
		default:
			return 0, 0, fmt.Errorf("%q: the mode is test or live", part)
		}
	}
	return test, live, nil
}

func parseDays(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days > 100*365 {
			return 0, fmt.Errorf("bad days %q", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}
