package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/store/storetest"
)

// cliSubprocess, set in the environment, makes the test binary run the command line of
// its arguments and exit (see TestMain): the operator's CLI as another process.
const cliSubprocess = "TRADEWIND_TEST_RUN_CLI"

func cliMain() int {
	if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tradewind:", err)
		return 1
	}
	return 0
}

// cliProcess runs `tradewind args…` on dsn as another process and returns its output.
func cliProcess(t *testing.T, dsn string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), cliSubprocess+"=1", "TRADEWIND_DB="+dsn)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("tradewind %v: %v\n%s", args, err, stderr)
	}
	return out
}

// TestServeAppliesCLIChangesToKeysAndPartners: a running server serves keys and partners
// from memory, yet a partner blocked and a key revoked by the operator's CLI, another
// process, are applied within the 1 s bound (issue 12), on both databases.
func TestServeAppliesCLIChangesToKeysAndPartners(t *testing.T) {
	t.Parallel()
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			dsn := o.DSN(t)
			cliProcess(t, dsn, "partner", "create", "--name", "acme")
			var revoked, kept struct {
				ID  int64
				Key string
			}
			for _, k := range []any{&revoked, &kept} {
				if err := json.Unmarshal(cliProcess(t, dsn, "--json", "key", "issue", "--partner", "acme", "--mode", "live"), k); err != nil {
					t.Fatal(err)
				}
			}
			s := startServe(t, dsn)
			ping := func(key string) (int, string) {
				status, body := getJSON(t, s.base+"/meta/ping", key)
				data, _ := body["data"].(map[string]any)
				return status, fmt.Sprint(data["status"])
			}
			// Cached by now: both keys and the partner were looked up.
			for _, k := range []string{revoked.Key, kept.Key} {
				if status, st := ping(k); status != 200 || st != "active" {
					t.Fatalf("ping = %d %s", status, st)
				}
			}

			// within fails unless a request started within the bound (1 s, plus a second
			// of margin for the loaded machine) sees the change.
			within := func(what string, applied func() bool) {
				t.Helper()
				deadline := time.Now().Add(2 * time.Second)
				for {
					started := time.Now()
					if applied() {
						return
					}
					if started.After(deadline) {
						t.Fatalf("%s: not applied by the server within the bound", what)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			cliProcess(t, dsn, "partner", "update", "acme", "--block")
			within("partner blocked", func() bool { _, st := ping(kept.Key); return st == "blocked" })

			cliProcess(t, dsn, "key", "revoke", fmt.Sprint(revoked.ID))
			within("key revoked", func() bool { status, _ := ping(revoked.Key); return status == 401 })
			if status, _ := ping(kept.Key); status != 200 {
				t.Errorf("the other key = %d after one was revoked", status)
			}
		})
	}
}
