package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/money"
	"github.com/tradewind/tradewind/internal/store"
)

type catalogImportCmd struct {
	File string `arg:"" help:"Catalog JSON file, or - for standard input."`
}

func (c *catalogImportCmd) Run(e *env) error {
	var r io.Reader = e.stdin
	if c.File != "-" {
		f, err := os.Open(c.File)
		if err != nil {
			return fmt.Errorf("cannot read the catalog: %w", err)
		}
		defer f.Close()
		r = f
	}
	doc, err := catalog.Parse(r)
	if err != nil {
		return catalogErr(err)
	}
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := svc.ImportCatalogWith(e.ctx, doc, booking.ImportOptions{Progress: importProgress(e.stderr, e.clock)})
	if err != nil {
		return catalogErr(err)
	}
	return e.print(rep, func(w io.Writer) {
		fmt.Fprintf(w, "Imported: %d created, %d updated, %d unchanged; %d availability.changed events.\n",
			rep.Created, rep.Updated, rep.Unchanged, rep.Events)
	})
}

// importProgress returns a progress callback that, once an import has run for two
// seconds, writes a line on w at most every second, and ends it when the import is done.
func importProgress(w io.Writer, clock tradewind.Clock) func(booking.ImportProgress) {
	start := clock.Now()
	var last time.Time
	return func(p booking.ImportProgress) {
		now := clock.Now()
		done := p.Items == p.Total
		if now.Sub(start) < 2*time.Second || (!done && now.Sub(last) < time.Second) {
			return
		}
		last = now
		fmt.Fprintf(w, "importing: %d/%d items (%d%%), %d inventory rows written, %s\n",
			p.Items, p.Total, p.Items*100/max(p.Total, 1), p.Rows, now.Sub(start).Round(time.Second))
	}
}

// catalogErr lists every problem of a refused catalog; nothing was written.
func catalogErr(err error) error {
	var ve *catalog.ValidationError
	if errors.As(err, &ve) {
		return fmt.Errorf("the catalog was refused whole, nothing was written; fix these %d problem(s):\n  %s",
			len(ve.Problems), strings.Join(ve.Problems, "\n  "))
	}
	return err
}

type catalogGenerateCmd struct {
	Hotels     int    `name:"hotels" default:"0" help:"Number of hotels."`
	Activities int    `name:"activities" default:"0" help:"Number of activities."`
	Rentals    int    `name:"rentals" default:"0" help:"Number of rentals."`
	Packages   int    `name:"packages" default:"0" help:"Number of packages."`
	Cities     int    `name:"cities" default:"10" help:"Number of cities."`
	Days       int    `name:"days" default:"365" help:"Days of inventory from --start."`
	Seed       int64  `name:"seed" default:"1" help:"Random seed: the same seed gives the same catalog."`
	Start      string `name:"start" help:"First day of inventory (YYYY-MM-DD); default today."`
	Change     int    `name:"change-percent" default:"0" help:"Change this percent of the items (0-100) against the same options with 0: a catalog to re-import."`
}

func (c *catalogGenerateCmd) Run(e *env) error {
	start := e.clock.Now().UTC().Truncate(24 * time.Hour)
	if c.Start != "" {
		t, err := time.Parse(tradewind.DateLayout, c.Start)
		if err != nil {
			return fmt.Errorf("--start: %q is not a date (YYYY-MM-DD)", c.Start)
		}
		start = t
	}
	for name, n := range map[string]int{"hotels": c.Hotels, "activities": c.Activities, "rentals": c.Rentals, "packages": c.Packages} {
		if n < 0 {
			return fmt.Errorf("--%s: must be 0 or more", name)
		}
	}
	if c.Hotels+c.Activities+c.Rentals+c.Packages == 0 {
		return fmt.Errorf("say how many items to generate: --hotels N --activities N --rentals N --packages N")
	}
	if c.Change < 0 || c.Change > 100 {
		return fmt.Errorf("--change-percent must be 0–100")
	}
	if c.Cities < 1 || c.Days < 1 || c.Days > 1100 {
		return fmt.Errorf("--cities must be 1 or more and --days 1–1100")
	}
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: c.Hotels, Activities: c.Activities, Rentals: c.Rentals,
		Packages: c.Packages, Cities: c.Cities, Days: c.Days, Seed: c.Seed, Start: start, ChangePercent: c.Change})
	return catalog.Write(e.stdout, doc)
}

// partnerFlags are the contract flags of partner create and update.
type partnerFlags struct {
	PricingMode      *string  `name:"pricing-mode" enum:"net,markup" help:"net or markup."`
	MarkupPercent    *string  `name:"markup-percent" help:"Markup percent for markup pricing, e.g. 12.5."`
	Currency         *string  `name:"currency" help:"Currency of the credit line (default EUR)."`
	CreditLimit      *string  `name:"credit-limit" help:"Credit limit, e.g. 50000.00."`
	RateLimit        *int     `name:"rate-limit" help:"Requests per minute, all keys together (default 120)."`
	AllowIP          []string `name:"allow-ip" help:"Allowed source IP or CIDR (repeat; replaces the list)."`
	RequireMTLS      *bool    `name:"require-mtls" help:"Require a verified client certificate."`
	CertFingerprint  []string `name:"cert-fingerprint" help:"Pin a client certificate by SHA-256 fingerprint (repeat; replaces the list)."`
	RequireSignature *bool    `name:"require-signature" help:"Require HMAC request signing."`
}

func (f *partnerFlags) params() booking.PartnerParams {
	return booking.PartnerParams{PricingMode: f.PricingMode, MarkupPercent: f.MarkupPercent, Currency: f.Currency,
		CreditLimit: f.CreditLimit, RateLimit: f.RateLimit, AllowIPs: f.AllowIP, RequireMTLS: f.RequireMTLS,
		CertFingerprints: f.CertFingerprint, RequireSignature: f.RequireSignature}
}

type partnerCreateCmd struct {
	Name string `name:"name" required:"" help:"Partner name (unique)."`
	partnerFlags
}

func (c *partnerCreateCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	p, err := svc.CreatePartner(e.ctx, c.Name, c.params())
	if err != nil {
		return err
	}
	c.warnIdleMarkup(e, p)
	return printPartner(e, p, true)
}

// warnIdleMarkup tells, on standard error, of a --markup-percent given to a partner
// whose pricing stays net: it is kept, but prices nothing until the mode is markup.
// A warning, not a refusal: scripts may set both on every partner.
func (f *partnerFlags) warnIdleMarkup(e *env, p *tradewind.Partner) {
	if f.MarkupPercent != nil && p.PricingMode != tradewind.PricingMarkup {
		fmt.Fprintf(e.stderr, "warning: --markup-percent %s is kept but not applied: %s's pricing mode is %s (add --pricing-mode markup)\n",
			*f.MarkupPercent, p.Name, p.PricingMode)
	}
}

type partnerUpdateCmd struct {
	Name string `arg:"" help:"Partner name."`
	partnerFlags
	Block               bool          `name:"block" xor:"block" help:"Put the account on hold: bookings are refused with credit_blocked."`
	Unblock             bool          `name:"unblock" xor:"block" help:"Lift the hold."`
	RotateSigningSecret bool          `name:"rotate-signing-secret" help:"Issue a new signing secret; the old one keeps working for --secret-overlap."`
	SecretOverlap       time.Duration `name:"secret-overlap" default:"24h" help:"How long the previous signing secret stays valid after a rotation."`
}

func (c *partnerUpdateCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	params := c.params()
	if c.Block || c.Unblock {
		params.Blocked = &c.Block
	}
	params.RotateSigningSecret, params.SecretOverlap = c.RotateSigningSecret, c.SecretOverlap
	ch, err := svc.ChangePartner(e.ctx, c.Name, params)
	if err != nil {
		return err
	}
	c.warnIdleMarkup(e, ch.Partner)
	return printPartner(e, ch.Partner, ch.SecretIssued)
}

type partnerListCmd struct {
	Status string `name:"status" enum:",pending,active,rejected" default:"" help:"Only partners in this state: pending (portal sign-ups awaiting review), active or rejected."`
}

func (c partnerListCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	list, err := svc.Partners(e.ctx)
	if err != nil {
		return err
	}
	views := []partnerView{}
	for _, p := range list {
		if c.Status == "" || p.Status == c.Status {
			views = append(views, viewPartner(p, false))
		}
	}
	return e.print(views, func(w io.Writer) {
		fmt.Fprintln(w, "NAME\tSTATUS\tPRICING\tCREDIT LIMIT\tUSED\tRATE/MIN\tBLOCKED")
		for _, v := range views {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s %s\t%s\t%d\t%v\n", v.Name, v.Status, v.PricingMode, v.CreditLimit, v.Currency, v.CreditUsed, v.RateLimit, v.Blocked)
		}
	})
}

type partnerShowCmd struct {
	Name string `arg:"" help:"Partner name."`
}

func (c *partnerShowCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	p, err := svc.Partner(e.ctx, c.Name)
	if err != nil {
		return noPartner(err, c.Name)
	}
	return printPartner(e, p, false)
}

// partnerView is a partner as the operator sees it; the signing secret only once.
type partnerView struct {
	ID               int64                 `json:"id"`
	Name             string                `json:"name"`
	Status           string                `json:"status"`
	StatusReason     string                `json:"status_reason,omitempty"`
	PricingMode      tradewind.PricingMode `json:"pricing_mode"`
	MarkupPercent    string                `json:"markup_percent"`
	Currency         string                `json:"currency"`
	CreditLimit      string                `json:"credit_limit"`
	CreditUsed       string                `json:"credit_used"`
	CreditAvailable  string                `json:"credit_available"`
	Blocked          bool                  `json:"blocked"`
	RateLimit        int                   `json:"rate_limit"`
	AllowIPs         []string              `json:"allow_ips"`
	RequireMTLS      bool                  `json:"require_mtls"`
	CertFingerprints []string              `json:"cert_fingerprints"`
	RequireSignature bool                  `json:"require_signature"`
	SigningSecret    string                `json:"signing_secret,omitempty"`
	CreatedAt        time.Time             `json:"created_at"`
}

func viewPartner(p *tradewind.Partner, secret bool) partnerView {
	v := partnerView{ID: p.ID, Name: p.Name, Status: p.Status, StatusReason: p.StatusReason, PricingMode: p.PricingMode, MarkupPercent: money.FormatPercentBP(p.MarkupBP),
		Currency: p.Currency, CreditLimit: money.Format(p.CreditLimit, p.Currency), CreditUsed: money.Format(p.CreditUsed, p.Currency),
		CreditAvailable: money.Format(p.CreditAvailable(), p.Currency), Blocked: p.Blocked, RateLimit: p.RateLimit,
		AllowIPs: nonNil(p.AllowIPs), RequireMTLS: p.RequireMTLS, CertFingerprints: nonNil(p.CertFingerprints),
		RequireSignature: p.RequireSignature, CreatedAt: p.CreatedAt}
	if secret {
		v.SigningSecret = p.SigningSecret
	}
	return v
}

func nonNil[S ~string](l []S) []S {
	if l == nil {
		return []S{}
	}
	return l
}

func printPartner(e *env, p *tradewind.Partner, secret bool) error {
	v := viewPartner(p, secret && p.SigningSecret != "")
	return e.print(v, func(w io.Writer) {
		fmt.Fprintf(w, "Partner\t%s (id %d, %s)\n", v.Name, v.ID, v.Status)
		if v.PricingMode == tradewind.PricingMarkup {
			fmt.Fprintf(w, "Pricing\tmarkup %s %%\n", v.MarkupPercent)
		} else {
			fmt.Fprintf(w, "Pricing\t%s\n", v.PricingMode) // a markup kept meanwhile is in --json
		}
		fmt.Fprintf(w, "Credit\t%s of %s %s used, %s available\n", v.CreditUsed, v.CreditLimit, v.Currency, v.CreditAvailable)
		fmt.Fprintf(w, "Blocked\t%v\n", v.Blocked)
		fmt.Fprintf(w, "Rate limit\t%d per minute\n", v.RateLimit)
		fmt.Fprintf(w, "Allowed IPs\t%s\n", orAny(v.AllowIPs))
		fmt.Fprintf(w, "mTLS\t%v (pinned: %s)\n", v.RequireMTLS, orAny(v.CertFingerprints))
		fmt.Fprintf(w, "Signing\t%v\n", v.RequireSignature)
		if v.SigningSecret != "" {
			fmt.Fprintf(w, "Signing secret\t%s (shown only now)\n", v.SigningSecret)
		}
	})
}

func orAny(l []string) string {
	if len(l) == 0 {
		return "any"
	}
	return strings.Join(l, ", ")
}

type keyIssueCmd struct {
	Partner string   `name:"partner" required:"" help:"Partner name."`
	Mode    string   `name:"mode" required:"" enum:"test,live" help:"test or live."`
	Scope   []string `name:"scope" help:"Scope (repeat); default all five."`
	Product []string `name:"product" help:"Enabled product (repeat); default all four."`
	Expires string   `name:"expires" help:"Expiry time (RFC 3339)."`
}

// keyView is a key as the operator sees it; the secret key only when issued.
type keyView struct {
	ID        int64      `json:"id"`
	Key       string     `json:"key,omitempty"`
	Prefix    string     `json:"prefix"`
	Partner   string     `json:"partner"`
	Mode      string     `json:"mode"`
	Scopes    []string   `json:"scopes"`
	Products  []string   `json:"products"`
	ExpiresAt *time.Time `json:"expires_at"`
	RevokedAt *time.Time `json:"revoked_at"`
	CreatedAt time.Time  `json:"created_at"`
}

func viewKey(k *tradewind.APIKey, partner, secret string) keyView {
	v := keyView{ID: k.ID, Key: secret, Prefix: k.Prefix, Partner: partner, Mode: string(k.Mode), Scopes: []string{}, Products: []string{}, CreatedAt: k.CreatedAt}
	for _, s := range k.Scopes {
		v.Scopes = append(v.Scopes, string(s))
	}
	for _, p := range k.Products {
		v.Products = append(v.Products, string(p))
	}
	if !k.ExpiresAt.IsZero() {
		v.ExpiresAt = &k.ExpiresAt
	}
	if !k.RevokedAt.IsZero() {
		v.RevokedAt = &k.RevokedAt
	}
	return v
}

func (c *keyIssueCmd) Run(e *env) error {
	var expires time.Time
	if c.Expires != "" {
		t, err := time.Parse(time.RFC3339, c.Expires)
		if err != nil {
			return fmt.Errorf("--expires: %q is not an RFC 3339 time such as 2027-01-31T00:00:00Z", c.Expires)
		}
		expires = t.UTC()
	}
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	k, secret, err := svc.IssueKey(e.ctx, c.Partner, booking.KeyParams{Mode: c.Mode, Scopes: c.Scope, Products: c.Product, ExpiresAt: expires})
	if err != nil {
		return err
	}
	v := viewKey(k, c.Partner, secret)
	return e.print(v, func(w io.Writer) {
		fmt.Fprintf(w, "Key %d for %s (%s): %s\n", v.ID, v.Partner, v.Mode, secret)
		fmt.Fprintf(w, "Scopes: %s; products: %s\n", strings.Join(v.Scopes, " "), strings.Join(v.Products, " "))
		fmt.Fprintln(w, "Store it now: it is shown only once.")
	})
}

type keyListCmd struct {
	Partner string `name:"partner" required:"" help:"Partner name."`
}

func (c *keyListCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	p, keys, err := svc.PartnerKeys(e.ctx, c.Partner)
	if err != nil {
		return noPartner(err, c.Partner)
	}
	views := []keyView{}
	for _, k := range keys {
		views = append(views, viewKey(k, p.Name, ""))
	}
	return e.print(views, func(w io.Writer) {
		fmt.Fprintln(w, "ID\tPREFIX\tMODE\tSCOPES\tPRODUCTS\tEXPIRES\tREVOKED")
		for _, v := range views {
			fmt.Fprintf(w, "%d\t%s…\t%s\t%s\t%s\t%s\t%s\n", v.ID, v.Prefix, v.Mode, strings.Join(v.Scopes, ","),
				strings.Join(v.Products, ","), timeOrDash(v.ExpiresAt), timeOrDash(v.RevokedAt))
		}
	})
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Format(time.RFC3339)
}

type keyRevokeCmd struct {
	ID int64 `arg:"" help:"Key id (see: tradewind key list)."`
}

func (c *keyRevokeCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	if err := svc.RevokeKey(e.ctx, c.ID); err != nil {
		if isNotFound(err) {
			return fmt.Errorf("no key with id %d (see: tradewind key list --partner NAME)", c.ID)
		}
		return err
	}
	return e.print(map[string]any{"id": c.ID, "revoked": true}, func(w io.Writer) { fmt.Fprintf(w, "Key %d revoked.\n", c.ID) })
}

type bookingListCmd struct {
	Partner string `name:"partner" help:"Only this partner's bookings."`
	Status  string `name:"status" enum:",confirmed,pending,on_request,cancelled,completed" default:"" help:"Only bookings in this state."`
}

// bookingRow is a booking as the operator sees it.
type bookingRow struct {
	Reference        string                  `json:"reference"`
	Partner          string                  `json:"partner"`
	PartnerReference string                  `json:"partner_reference"`
	ProductType      string                  `json:"product_type"`
	Status           tradewind.BookingStatus `json:"status"`
	Test             bool                    `json:"test"`
	TotalPrice       string                  `json:"total_price"`
	Currency         string                  `json:"currency"`
	StartDate        string                  `json:"start_date"`
	EndDate          string                  `json:"end_date"`
	CancelReason     string                  `json:"cancel_reason,omitempty"`
	Details          json.RawMessage         `json:"details"`
	CreatedAt        time.Time               `json:"created_at"`
}

// isNotFound reports the service's not_found: only then does a command answer that
// the thing does not exist; any other error is reported as itself.
func isNotFound(err error) bool { return tradewind.ErrorCode(err) == tradewind.ECodeNotFound }

// noPartner turns the service's not_found into what the operator can do about it.
func noPartner(err error, name string) error {
	if isNotFound(err) {
		return fmt.Errorf("no partner named %q (see: tradewind partner list)", name)
	}
	return err
}

// partnerNames maps every partner's id to its name and returns the id of the partner
// named name (0 when name is empty); an unknown name is an error that says what to do.
func partnerNames(e *env, st store.Querier, name string) (map[int64]string, int64, error) {
	partners, err := st.PartnerList(e.ctx)
	if err != nil {
		return nil, 0, err
	}
	names := map[int64]string{}
	var id int64
	for _, p := range partners {
		names[p.ID] = p.Name
		if p.Name == name {
			id = p.ID
		}
	}
	if name != "" && id == 0 {
		return nil, 0, fmt.Errorf("no partner named %q (see: tradewind partner list)", name)
	}
	return names, id, nil
}

func (c *bookingListCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	names, partnerID, err := partnerNames(e, st, c.Partner)
	if err != nil {
		return err
	}
	list, err := svc.ListAllBookings(e.ctx, partnerID, c.Status)
	if err != nil {
		return err
	}
	rows := []bookingRow{}
	for _, b := range list {
		rows = append(rows, bookingRow{Reference: b.Reference, Partner: names[b.PartnerID], PartnerReference: b.PartnerReference,
			ProductType: string(b.ProductType), Status: b.EffectiveStatus(e.clock.Now()), Test: b.Test,
			TotalPrice: money.Format(b.TotalPrice, b.Currency), Currency: b.Currency, StartDate: b.StartDate, EndDate: b.EndDate,
			CancelReason: b.CancelReason, Details: b.Details, CreatedAt: b.CreatedAt})
	}
	return e.print(rows, func(w io.Writer) {
		fmt.Fprintln(w, "REFERENCE\tPARTNER\tPRODUCT\tSTATUS\tTEST\tTOTAL\tDATES")
		for _, r := range rows {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%v\t%s %s\t%s..%s\n", r.Reference, r.Partner, r.ProductType, r.Status, r.Test,
				r.TotalPrice, r.Currency, r.StartDate, r.EndDate)
		}
	})
}

type bookingConfirmCmd struct {
	Reference string `arg:"" help:"Booking reference."`
}

func (c *bookingConfirmCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	b, err := svc.Confirm(e.ctx, c.Reference)
	if err != nil {
		return err
	}
	return e.print(map[string]string{"reference": b.Reference, "status": string(b.Status)}, func(w io.Writer) {
		fmt.Fprintf(w, "Booking %s confirmed; booking.confirmed sent.\n", b.Reference)
	})
}

type bookingRejectCmd struct {
	Reference string `arg:"" help:"Booking reference."`
	Reason    string `name:"reason" help:"Why the supplier refused (sent to the partner)."`
}

func (c *bookingRejectCmd) Run(e *env) error {
	st, svc, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	b, err := svc.Reject(e.ctx, c.Reference, c.Reason)
	if err != nil {
		return err
	}
	return e.print(map[string]string{"reference": b.Reference, "status": string(b.Status), "reason": b.CancelReason, "note": c.Reason}, func(w io.Writer) {
		fmt.Fprintf(w, "Booking %s rejected (%s); booking.cancelled sent with the note.\n", b.Reference, b.CancelReason)
	})
}
