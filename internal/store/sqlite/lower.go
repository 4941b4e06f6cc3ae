package sqlite

import (
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"

	"modernc.org/sqlite"
)

// SQLite's own lower() folds ASCII letters only, so a booking search for "ñandú" would
// not find "Ñandú" here while it does on PostgreSQL. The shared SQL calls LOWER(); this
// replaces it, for every connection of this driver, with Go's Unicode case folding,
// which is also what the store applies to the search text. No index or stored value is
// built from lower() (the migrations use none), so replacing it changes no stored order.
func init() {
	sqlite.MustRegisterDeterministicScalarFunction("lower", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case nil:
			return nil, nil
		case string:
			return strings.ToLower(v), nil
		case []byte:
			return strings.ToLower(string(v)), nil
		case float64: // lower() of a number is its text, as SQLite writes it: 2.0, not 2
			text := strconv.FormatFloat(v, 'g', -1, 64)
			if !strings.ContainsAny(text, ".eIN") {
				text += ".0"
			}
			return text, nil
		default:
			return fmt.Sprint(v), nil
		}
	})
}
