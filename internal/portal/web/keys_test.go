package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestKeysPageShowsLastUse: a key never used says "never"; once a server has written
// its last use, the Keys page shows it.
func TestKeysPageShowsLastUse(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		e := newEnv(t, o)
		a, owner := e.newPartner(t, "acme")
		if body := owner.get("/keys").body; strings.Count(body, `<td class="last-used">never</td>`) != 2 {
			t.Fatalf("keys never used should say never:\n%s", body)
		}
		ctx := context.Background()
		keys, err := e.api.Store.KeyListByPartner(ctx, a.ID)
		if err != nil || len(keys) != 2 {
			t.Fatal(keys, err)
		}
		used := time.Date(2026, 11, 20, 8, 15, 0, 0, time.UTC)
		if err := e.api.Store.KeyLastUsedSet(ctx, []store.KeyUse{{KeyID: keys[0].ID, At: used}}); err != nil {
			t.Fatal(err)
		}
		body := owner.get("/keys").body
		if !strings.Contains(body, "last used ") || !strings.Contains(body, "2026-11-20 08:15:00 UTC") ||
			strings.Count(body, `<td class="last-used">never</td>`) != 1 {
			t.Errorf("keys page after a use:\n%s", body)
		}
	})
}
