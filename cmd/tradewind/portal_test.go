package main

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/portal"
	"github.com/tradewind/tradewind/internal/store/database"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// signUp registers a company through the portal's rules on dsn's database.
func signUp(t *testing.T, dsn, company, email string) {
	t.Helper()
	st, err := database.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ps := portal.New(booking.New(st, nil, nil), portal.Config{Hash: portal.TestParams})
	if _, _, err := ps.SignUp(context.Background(), portal.Signup{Company: company, Name: "N", Email: email,
		Password: "correct horse battery 9", ClientAddr: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
}

// TestPartnerReview: the operator lists pending sign-ups, approves one with a contract
// (an active partner is a clear error) and rejects another with a reason.
func TestPartnerReview(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLiteDSN(t)
	runTradewind(t, dsn, "", "partner", "create", "--name", "old")
	signUp(t, dsn, "Acme Travel", "ann@acme.example")
	signUp(t, dsn, "Shady", "bo@shady.example")
	var pending []map[string]any
	mustJSON(t, dsn, &pending, "partner", "list", "--status", "pending")
	if len(pending) != 2 || pending[0]["name"] != "acme-travel" || pending[0]["status"] != "pending" {
		t.Fatalf("pending = %v", pending)
	}
	var active []map[string]any
	mustJSON(t, dsn, &active, "partner", "list", "--status", "active")
	if len(active) != 1 || active[0]["name"] != "old" {
		t.Fatalf("existing partners are active: %v", active)
	}
	var p map[string]any
	mustJSON(t, dsn, &p, "partner", "approve", "acme-travel", "--credit-limit", "2500", "--pricing-mode", "markup", "--markup-percent", "8")
	if p["status"] != "active" || p["credit_limit"] != "2500.00" || p["pricing_mode"] != "markup" {
		t.Fatalf("approved = %v", p)
	}
	r := runTradewind(t, dsn, "", "partner", "approve", "acme-travel")
	if r.err == nil || !strings.Contains(r.err.Error(), "is active, not pending") {
		t.Fatalf("approving an active partner: %v", r.err)
	}
	if r := runTradewind(t, dsn, "", "partner", "reject", "old"); r.err == nil {
		t.Fatal("rejecting an active partner succeeded")
	}
	mustJSON(t, dsn, &p, "partner", "reject", "shady", "--reason", "not a travel company")
	if p["status"] != "rejected" || p["reason"] != "not a travel company" {
		t.Fatalf("rejected = %v", p)
	}
	if r := runTradewind(t, dsn, "", "partner", "list", "--status", "rejected"); !strings.Contains(r.stdout, "shady") || !strings.Contains(r.stdout, "STATUS") {
		t.Fatalf("human list:\n%s", r.stdout)
	}
}

// TestPortalUserCommands: invite prints a one-time link, list shows users,
// reset-password prints a link, disable and enable flip the user.
func TestPortalUserCommands(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLiteDSN(t)
	runTradewind(t, dsn, "", "partner", "create", "--name", "acme")
	var link map[string]any
	mustJSON(t, dsn, &link, "portal", "user", "invite", "--partner", "acme", "--email", "Ann@Acme.example", "--role", "owner",
		"--portal-url", "https://portal.example/")
	if l, _ := link["link"].(string); !strings.HasPrefix(l, "https://portal.example/invitations/") || link["email"] != "ann@acme.example" {
		t.Fatalf("invite = %v", link)
	}
	if r := runTradewind(t, dsn, "", "portal", "user", "invite", "--partner", "nope", "--email", "x@y.example", "--role", "viewer"); r.err == nil {
		t.Fatal("invite to an unknown partner succeeded")
	}
	signUp(t, dsn, "Globex", "cy@globex.example")
	var users []map[string]any
	mustJSON(t, dsn, &users, "portal", "user", "list")
	if len(users) != 1 || users[0]["email"] != "cy@globex.example" || users[0]["partner"] != "globex" || users[0]["role"] != "owner" {
		t.Fatalf("users = %v", users)
	}
	mustJSON(t, dsn, &users, "portal", "user", "list", "--partner", "acme")
	if len(users) != 0 {
		t.Fatalf("acme users before the invitation is accepted = %v", users)
	}
	mustJSON(t, dsn, &link, "portal", "user", "reset-password", "cy@globex.example")
	if l, _ := link["link"].(string); !strings.HasPrefix(l, "http://127.0.0.1:8081/reset/") {
		t.Fatalf("reset = %v", link)
	}
	var flipped map[string]any
	mustJSON(t, dsn, &flipped, "portal", "user", "disable", "cy@globex.example")
	if flipped["disabled"] != true {
		t.Fatalf("disable = %v", flipped)
	}
	mustJSON(t, dsn, &flipped, "portal", "user", "enable", "cy@globex.example")
	if flipped["disabled"] != false {
		t.Fatalf("enable = %v", flipped)
	}
	if r := runTradewind(t, dsn, "", "portal", "user", "disable", "nobody@x.example"); r.err == nil || !strings.Contains(r.err.Error(), "not found") {
		t.Fatalf("disable nobody: %v", r.err)
	}
}

// TestServeDemoPortal: serve --demo --json names the portal and a demo owner whose
// fresh password signs in.
func TestServeDemoPortal(t *testing.T) {
	t.Parallel()
	doc, _ := startServeJSON(t, storetest.SQLiteDSN(t), "--demo")
	demo, _ := doc["demo"].(map[string]any)
	portalURL, _ := doc["portal_url"].(string)
	password, _ := demo["portal_password"].(string)
	if portalURL == "" || demo["portal_email"] != demoOwner || len(password) < 12 || demo["portal_url"] != portalURL {
		t.Fatalf("serve --demo --json = %v", doc)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	res, err := c.PostForm(portalURL+"/signin", url.Values{"email": {demoOwner}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/" {
		t.Fatalf("demo owner sign-in: %d at %s", res.StatusCode, res.Request.URL)
	}
}
