package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/store/database"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestOperatorCommandsReportRealErrors: "no partner named …" and "no key with id …"
// only when the row is missing; a database that cannot be opened or a partner row that
// cannot be read is reported as itself.
func TestOperatorCommandsReportRealErrors(t *testing.T) {
	t.Run("database cannot be opened", func(t *testing.T) {
		t.Parallel()
		dsn := "sqlite:" + filepath.Join(t.TempDir(), "missing-dir", "sub", "tradewind.db")
		for _, args := range [][]string{{"partner", "show", "acme"}, {"key", "list", "--partner", "acme"}, {"key", "revoke", "7"},
			{"partner", "list"}, {"webhook", "deliveries", "--partner", "acme"}, {"webhook", "redeliver", "evt_x"}} {
			r := runTradewind(t, dsn, "", args...)
			if r.err == nil || strings.Contains(r.err.Error(), "no partner named") || strings.Contains(r.err.Error(), "no key with id") ||
				strings.Contains(r.err.Error(), "no event") {
				t.Errorf("tradewind %v on a database that cannot be opened = %v; want the database's error", args, r.err)
			}
		}
	})
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			dsn := o.DSN(t)
			if r := runTradewind(t, dsn, "", "partner", "create", "--name", "acme", "--allow-ip", "10.0.0.0/8"); r.err != nil {
				t.Fatal(r.err)
			}
			// Missing rows still say what to do.
			for _, tc := range []struct {
				args []string
				want string
			}{
				{[]string{"partner", "show", "globex"}, `no partner named "globex"`},
				{[]string{"key", "list", "--partner", "globex"}, `no partner named "globex"`},
				{[]string{"key", "revoke", "999"}, "no key with id 999"},
				{[]string{"webhook", "deliveries", "--partner", "globex"}, `no partner named "globex"`},
				{[]string{"webhook", "redeliver", "evt_missing"}, `no event "evt_missing"`},
			} {
				if r := runTradewind(t, dsn, "", tc.args...); r.err == nil || !strings.Contains(r.err.Error(), tc.want) {
					t.Errorf("tradewind %v = %v; want %q", tc.args, r.err, tc.want)
				}
			}
			// A partner row whose allowlist cannot be decoded is an error, not a missing partner.
			st, err := database.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			_, err = st.SQL().Exec(`UPDATE partners SET allow_ips = 'not json' WHERE name = 'acme'`)
			st.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"partner", "show", "acme"}, {"key", "list", "--partner", "acme"}, {"partner", "list"}} {
				r := runTradewind(t, dsn, "", args...)
				if r.err == nil || !strings.Contains(r.err.Error(), "corrupt") || !strings.Contains(r.err.Error(), "allow_ips") {
					t.Errorf("tradewind %v on a corrupt partner row = %v; want the store's corrupt-row error", args, r.err)
				}
			}
		})
	}
}
