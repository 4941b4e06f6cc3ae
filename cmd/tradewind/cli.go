package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"

	"github.com/alecthomas/kong"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/store/database"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
)

// cli is the command line of shared/spec/operator-cli.md; its commands and flags are a
// contract that outside scripts use.
type cli struct {
	DB   string `name:"db" help:"Database: sqlite:FILE, sqlite::memory: or postgres://user:pass@host:5432/db (env TRADEWIND_DB)." default:"sqlite:tradewind.db"`
	JSON bool   `name:"json" help:"Print exactly one JSON document on standard output."`

	Serve   serveCmd   `cmd:"" help:"Serve the partner API under /api/partner/v1."`
	Migrate migrateCmd `cmd:"" help:"Apply the database migrations and exit."`
	Catalog struct {
		Import   catalogImportCmd   `cmd:"" help:"Import a catalog document (FILE, or - for standard input)."`
		Generate catalogGenerateCmd `cmd:"" help:"Print a synthetic, valid catalog of any size (deterministic for a seed)."`
	} `cmd:"" help:"Load inventory."`
	Partner struct {
		Create partnerCreateCmd `cmd:"" help:"Sign a partner contract."`
		Update partnerUpdateCmd `cmd:"" help:"Change a partner's contract."`
		List   partnerListCmd   `cmd:"" help:"List partners."`
		Show   partnerShowCmd   `cmd:"" help:"Show one partner."`
		// Sign-ups from the portal: portal.go.
		Approve partnerApproveCmd `cmd:"" help:"Approve a pending portal sign-up with a contract (partner create's flags)."`
		Reject  partnerRejectCmd  `cmd:"" help:"Decline a pending portal sign-up."`
	} `cmd:"" help:"Manage partners."`
	Key struct {
		Issue  keyIssueCmd  `cmd:"" help:"Issue an API key (shown only once)."`
		List   keyListCmd   `cmd:"" help:"List a partner's keys."`
		Revoke keyRevokeCmd `cmd:"" help:"Revoke a key."`
	} `cmd:"" help:"Manage API keys."`
	Booking struct {
		List    bookingListCmd    `cmd:"" help:"List bookings."`
		Confirm bookingConfirmCmd `cmd:"" help:"Confirm a pending or on_request booking (supplier accepted)."`
		Reject  bookingRejectCmd  `cmd:"" help:"Reject a pending or on_request booking (supplier refused)."`
	} `cmd:"" help:"Manage bookings."`
	Webhook webhookCmd `cmd:"" help:"Inspect and replay webhook deliveries."`
	Portal  portalCmd  `cmd:"" help:"Manage the partner portal's users."`
}

// env is what every command gets: its streams, the environment and, once opened, the
// database and the service.
type env struct {
	ctx    context.Context
	cli    *cli
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	logger *slog.Logger
	clock  tradewind.Clock
	// command is the command being run, e.g. "portal user disable".
	command string
}

// open opens the database named by --db or TRADEWIND_DB and the service over it.
func (e *env) open() (*sqlstore.DB, *booking.Service, error) {
	st, err := database.Open(e.ctx, e.cli.DB)
	if err != nil {
		return nil, nil, err
	}
	return st, booking.New(st, e.clock, e.logger), nil
}

// print writes v as one JSON document with --json, else calls human.
func (e *env) print(v any, human func(w io.Writer)) error {
	if e.cli.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	human(tw)
	return tw.Flush()
}

type exitCode int

// run parses args and runs one command. It is main without the process: tests call it.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	var c cli
	defer func() {
		if v := recover(); v != nil {
			if code, ok := v.(exitCode); ok {
				if code != 0 {
					err = errors.New("invalid command line")
				}
				return
			}
			panic(v)
		}
	}()
	parser, err := kong.New(&c, kong.Name("tradewind"),
		kong.Description("Tradewind: the partner API server and the operator's tool."),
		kong.Writers(stdout, stderr), kong.Exit(func(code int) { panic(exitCode(code)) }),
		kong.UsageOnError(), kong.ConfigureHelp(kong.HelpOptions{Compact: true}))
	if err != nil {
		return err
	}
	if dsn := getenv("TRADEWIND_DB"); dsn != "" && !hasFlag(args, "--db") {
		args = append([]string{"--db", dsn}, args...)
	}
	kctx, err := parser.Parse(withServeEnv(args, getenv))
	if err != nil {
		return err
	}
	e := &env{ctx: ctx, cli: &c, getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr, clock: tradewind.SystemClock{},
		command: strings.Join(strings.Fields(strings.ReplaceAll(kctx.Command(), "<email>", "")), " ")}
	e.logger = slog.New(httpapi.LogHandler(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	return describeErr(kctx.Run(e))
}

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// describeErr turns an application error into a message that says what to do.
func describeErr(err error) error {
	var te *tradewind.Error
	if errors.As(err, &te) {
		if len(te.Details) > 0 {
			return fmt.Errorf("%s\n  %s", te.Message, strings.Join(te.Details, "\n  "))
		}
		return errors.New(te.Message)
	}
	return err
}

type migrateCmd struct{}

func (migrateCmd) Run(e *env) error {
	st, _, err := e.open()
	if err != nil {
		return err
	}
	defer st.Close()
	return e.print(map[string]string{"status": "migrated", "database": st.Dialect()}, func(w io.Writer) {
		fmt.Fprintf(w, "Migrations applied (%s).\n", st.Dialect())
	})
}
