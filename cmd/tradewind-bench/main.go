// Command tradewind-bench is the load benchmark of issue 12: it generates a catalog,
// imports it, starts the partner API in process and a bare net/http handler answering
// the same bytes, drives both with vegeta on loopback, and prints for every scenario the
// throughput, p50 and p99 and the ratio to its floor, measured in the same run. The
// floor of prebook and book is the store's single-row durable commit rate with the same
// number of writers. It is not part of scripts/test.sh; see docs/performance.md.
//
//	go run ./cmd/tradewind-bench --db sqlite --duration 10s
//	go run ./cmd/tradewind-bench --db postgres --hotels 2000 --activities 500 --rentals 500 --packages 100
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/authcache"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/catalog"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/readmodel"
	"github.com/tradewind/tradewind/internal/reqlog"
	"github.com/tradewind/tradewind/internal/store/postgres"
	"github.com/tradewind/tradewind/internal/store/sqlite"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/webhook"
)

type config struct {
	db, pgURL, pgDB, dir                  string
	hotels, activities, rentals, packages int
	cities, days                          int
	seed                                  int64
	duration                              time.Duration
	bookWarmup                            time.Duration
	warmFiles                             bool
	readConns, writeConns                 int
	only                                  string
	storeReads                            bool
	requestLog                            string // on, off or both
	rounds                                int    // off/on pairs per read scenario with --request-log both
	cpuProfile, cpuProfileScenario        string
	writerShare                           float64
	bookGroupMax                          int           // booking.Service.BookGroupMax
	bookGroupsAtOnce                      int           // booking.Service.BookGroupsAtOnce
	bookGroupLockWait                     time.Duration // booking.Service.BookGroupLockWait
	webhooks                              bool          // the partner subscribed to booking.confirmed, delivered to a local sink
	partnerRefs                           bool          // every booking names a partner_reference of its own
}

func main() {
	var c config
	flag.StringVar(&c.db, "db", "sqlite", "database: sqlite or postgres")
	flag.StringVar(&c.pgURL, "pg-url", "postgres://postgres@127.0.0.1:5432/test", "PostgreSQL server; the benchmark (re)creates the database --pg-db on it")
	flag.StringVar(&c.pgDB, "pg-db", "tradewind_bench", "the database the benchmark drops, re-creates and uses on the --pg-url server (lower-case letters, digits and _), so that two benchmarks can share a server")
	flag.StringVar(&c.dir, "dir", "", "directory of the SQLite file (default: a temporary one)")
	flag.IntVar(&c.hotels, "hotels", 20000, "hotels to generate")
	flag.IntVar(&c.activities, "activities", 5000, "activities to generate")
	flag.IntVar(&c.rentals, "rentals", 5000, "rentals to generate")
	flag.IntVar(&c.packages, "packages", 1000, "packages to generate")
	flag.IntVar(&c.cities, "cities", 20, "cities")
	flag.IntVar(&c.days, "days", 365, "days of inventory from today")
	flag.Int64Var(&c.seed, "seed", 7, "catalog seed")
	flag.DurationVar(&c.duration, "duration", 10*time.Second, "duration of each scenario and of each floor")
	flag.BoolVar(&c.warmFiles, "warm-files", true, "SQLite: read the database's files once before the writes, so that they meet them in the page cache as a serving server's writes do, "+
		"not paged out while the read scenarios, served from memory, left them untouched for minutes (docs/performance.md)")
	flag.DurationVar(&c.bookWarmup, "book-warmup", 3*time.Second, "how long to make unmeasured bookings before the book scenario; on PostgreSQL then ANALYZE the database, "+
		"so that book meets the plans of a database that holds bookings, as autovacuum leaves it, not those of its first minute (0: none)")
	flag.IntVar(&c.readConns, "read-connections", 32, "connections of search, availability and get-booking scenarios")
	flag.IntVar(&c.writeConns, "write-connections", 16, "connections of prebook and book, and writers of their floor")
	flag.StringVar(&c.only, "only", "", "comma-separated scenario names to run (default: all)")
	flag.BoolVar(&c.storeReads, "store-reads", false, "searches and availability read the database, not the read model (the path before it)")
	flag.IntVar(&c.bookGroupMax, "book-group-max", 0, "bookings per group commit at most (1: every booking alone; 0: the service's default, booking.DefaultBookGroupMax, booking.DefaultBookGroupMaxOneConn on SQLite)")
	flag.IntVar(&c.bookGroupsAtOnce, "book-groups-at-once", 0, "PostgreSQL: group commits running their bookings at the same time at most (0: booking.DefaultBookGroupsAtOnce); always 1 on SQLite")
	flag.DurationVar(&c.bookGroupLockWait, "book-group-lock-wait", 0, "PostgreSQL: how long a booking in a group waits for a row another transaction holds before it runs again alone (0: no bound; deadlocks wait for deadlock_timeout)")
	flag.StringVar(&c.requestLog, "request-log", "on", "on: the request log and usage counters written to the database as serve does, with the entries the queue dropped per scenario; off: no request log; both: each read scenario run with the log off, then on, and the log's cost in throughput reported (writes run with it on)")
	flag.Float64Var(&c.writerShare, "request-log-writer-share", reqlog.DefaultWriterShare, "the request log writer's most share of the server's CPU, all cores together (1: never held back)")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the scenarios (server and load generator) to this file")
	flag.StringVar(&c.cpuProfileScenario, "cpuprofile-scenario", "", "with --cpuprofile: profile only this scenario's first attack on the API (server and load generator), not the whole run")
	flag.BoolVar(&c.webhooks, "webhooks", false, "subscribe the benchmark's partner to booking.confirmed at a local https sink answering 200, and run the webhook dispatcher as serve does: every booking then makes a delivery, sent and recorded while the scenarios run")
	flag.BoolVar(&c.partnerRefs, "partner-references", false, "every booking names a partner_reference of its own, as most partners send (the booking then checks it is not taken)")
	flag.IntVar(&c.rounds, "rounds", 1, "with --request-log both: how many times each read scenario runs with the log off, on, and its floor, alternating (the rates and CPU are over all rounds)")
	flag.Parse()
	if c.requestLog != "on" && c.requestLog != "off" && c.requestLog != "both" {
		fmt.Fprintln(os.Stderr, "--request-log: want on, off or both")
		os.Exit(2)
	}
	if err := run(context.Background(), c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tradewind-bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config, out io.Writer) error {
	st, cleanup, err := openStore(ctx, c)
	if err != nil {
		return err
	}
	defer cleanup()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	doc := catalog.Generate(catalog.GenerateOptions{Hotels: c.hotels, Activities: c.activities, Rentals: c.rentals,
		Packages: c.packages, Cities: c.cities, Days: c.days, Seed: c.seed, Start: today})
	svc := booking.New(st, tradewind.SystemClock{}, nil)

	fmt.Fprintf(out, "catalog: %d hotels, %d activities, %d rentals, %d packages, %d days, %d cities; %s\n",
		c.hotels, c.activities, c.rentals, c.packages, c.days, c.cities, st.Dialect())
	t0 := time.Now()
	rep, err := svc.ImportCatalogWith(ctx, doc, booking.ImportOptions{Progress: func(p booking.ImportProgress) {
		fmt.Fprintf(os.Stderr, "\rimporting: %d/%d items, %d rows, %s   ", p.Items, p.Total, p.Rows, time.Since(t0).Round(time.Second))
	}})
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	fmt.Fprintf(out, "import: %s (%d created), peak RSS so far %d MB\n", time.Since(t0).Round(100*time.Millisecond), rep.Created, peakRSSMB())

	limit := "1000000000"
	if _, err := svc.CreatePartner(ctx, "bench", booking.PartnerParams{CreditLimit: &limit}); err != nil {
		return err
	}
	_, secret, err := svc.IssueKey(ctx, "bench", booking.KeyParams{Mode: string(tradewind.ModeLive)})
	if err != nil {
		return err
	}
	// The partner API as serve builds it: the read model built before the attack (serve
	// answers /readyz 503 until then), and request logs formatted, then discarded.
	logger := slog.New(httpapi.LogHandler(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})))
	if !c.storeReads {
		model := readmodel.New(st, tradewind.SystemClock{}, nil)
		t0 := time.Now()
		if err := model.Build(ctx); err != nil {
			return err
		}
		fmt.Fprintf(out, "read model: built in %s, peak RSS so far %d MB\n", time.Since(t0).Round(100*time.Millisecond), peakRSSMB())
		runCtx, stopModel := context.WithCancel(ctx)
		defer stopModel()
		go model.Run(runCtx)
		svc = booking.New(readmodel.Tracked(st, model), tradewind.SystemClock{}, nil)
		svc.Reads = model
	}
	var sunk *atomic.Int64 // deliveries the sink received
	if c.webhooks {
		var stopHooks func()
		if svc, sunk, stopHooks, err = withWebhooks(ctx, st, svc); err != nil {
			return err
		}
		defer stopHooks()
	}
	svc.BookGroupMax = c.bookGroupMax
	svc.BookGroupsAtOnce = c.bookGroupsAtOnce
	svc.BookGroupLockWait = c.bookGroupLockWait
	// Keys and partners from memory, as serve has them (authcache).
	auth := authcache.New(st, nil)
	authCtx, stopAuth := context.WithCancel(ctx)
	authDone := make(chan struct{})
	go func() { defer close(authDone); auth.Run(authCtx) }()
	defer func() { stopAuth(); <-authDone }()
	cfg := httpapi.Config{Store: st, Service: svc, Logger: logger, Clock: tradewind.SystemClock{}, Auth: auth}
	var rl *reqlog.Logger
	if c.requestLog != "off" {
		// As serve wires it: entries and usage counters written to the database, off the
		// request path; what the queue drops is reported per scenario.
		rl = reqlog.New(reqlog.Config{Store: st, Logger: logger, WriterShare: c.writerShare})
		defer func() { _ = rl.Close(context.Background()) }()
		cfg.RequestLog = rl
	}
	api := httpapi.NewServer(cfg)
	apiURL, stopAPI, err := serve(api)
	if err != nil {
		return err
	}
	defer stopAPI()
	apiOffURL := ""
	if c.requestLog == "both" {
		// The same service, store and key cache served without the request log.
		cfgOff := cfg
		cfgOff.RequestLog = nil
		u, stop, err := serve(httpapi.NewServer(cfgOff))
		if err != nil {
			return err
		}
		defer stop()
		apiOffURL = u + httpapi.Prefix
	}
	floor := &floorHandler{bodies: map[string][]byte{}}
	floorURL, stopFloor, err := serve(floor)
	if err != nil {
		return err
	}
	defer stopFloor()

	b := &bench{c: c, out: out, key: secret, reqlog: rl, api: apiURL + httpapi.Prefix, apiOff: apiOffURL, floorURL: floorURL, floor: floor,
		doc: doc, day: func(n int) string { return today.AddDate(0, 0, n).Format(tradewind.DateLayout) }}
	if c.cpuProfile != "" && c.cpuProfileScenario == "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	results, err := b.scenarios(ctx, st)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	both := c.requestLog == "both"
	head := "scenario\tconns\treq/s\tp50\tp99\tok %\tfloor req/s\tfloor p99\tratio\tlog drops\t"
	if both {
		head += "log off req/s\tlog cost\tCPU/req off\tCPU/req on\tCPU cost\t"
	}
	fmt.Fprintln(tw, head)
	for _, r := range results {
		drops := "log off"
		if rl != nil {
			drops = fmt.Sprintf("%d (%.2f %%)", r.dropped, 100*float64(r.dropped)/float64(max(1, r.requests)))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%.1f\t%.0f\t%s\t%.1f %%\t%s\t", r.name, r.conns, r.rate, ms(r.p50), ms(r.p99),
			100*r.success, r.floorRate, ms(r.floorP99), 100*r.rate/r.floorRate, drops)
		if both {
			if r.offRate > 0 {
				// The share of the log-off throughput lost with the log on.
				fmt.Fprintf(tw, "%.0f\t%.1f %%\t%.0f µs\t%.0f µs\t%.1f %%\t", r.offRate, 100*(1-r.rate/r.offRate),
					us(r.offCPU), us(r.onCPU), 100*(1-float64(r.offCPU)/float64(r.onCPU)))
			} else {
				fmt.Fprint(tw, "-\t-\t-\t-\t-\t")
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if groups, grouped := svc.BookGroupStats(); groups > 0 {
		fmt.Fprintf(out, "bookings (and on SQLite prebooks) run in groups of two or more (a group that could not commit counted too): %d in %d groups (mean %.1f a group)\n", grouped, groups, float64(grouped)/float64(groups))
	}
	if kept, missed := svc.PrebookAheadStats(); kept+missed > 0 {
		fmt.Fprintf(out, "prebooks priced from the read model and stored as the store held them: %d; priced from the store: %d\n", kept, missed)
	}
	if sunk != nil {
		fmt.Fprintf(out, "webhook deliveries received by the sink: %d\n", sunk.Load())
	}
	fmt.Fprintf(out, "peak RSS of the benchmark process (server, load generator, floor): %d MB\n", peakRSSMB())
	return nil
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// processCPU is the CPU time (user and system) the process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func peakRSSMB() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss / 1024
}

// openStore opens a fresh database of the kind asked.
func openStore(ctx context.Context, c config) (*sqlstore.DB, func(), error) {
	switch c.db {
	case "sqlite":
		dir := c.dir
		cleanup := func() {}
		if dir == "" {
			d, err := os.MkdirTemp("", "tradewind-bench-")
			if err != nil {
				return nil, nil, err
			}
			dir, cleanup = d, func() { os.RemoveAll(d) }
		}
		path := filepath.Join(dir, "bench.db")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(path + suffix)
			os.Remove(sqlite.RequestLogPath(path) + suffix)
		}
		st, err := sqlite.Open(ctx, path)
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		return st, func() { st.Close(); cleanup() }, nil
	case "postgres":
		admin, err := postgres.Open(ctx, c.pgURL)
		if err != nil {
			return nil, nil, err
		}
		defer admin.Close()
		if !pgDBName.MatchString(c.pgDB) {
			return nil, nil, fmt.Errorf("--pg-db %q: want lower-case letters, digits and _, starting with a letter", c.pgDB)
		}
		for _, q := range []string{"DROP DATABASE IF EXISTS " + c.pgDB + " WITH (FORCE)", "CREATE DATABASE " + c.pgDB} {
			if _, err := admin.SQL().ExecContext(ctx, q); err != nil {
				return nil, nil, err
			}
		}
		u := c.pgURL
		if i := strings.LastIndex(u, "/"); i > len("postgres://") {
			rest := ""
			if j := strings.Index(u[i:], "?"); j >= 0 {
				rest = u[i+j:]
			}
			u = u[:i] + "/" + c.pgDB + rest
		}
		st, err := postgres.Open(ctx, u)
		if err != nil {
			return nil, nil, err
		}
		return st, func() { st.Close() }, nil
	}
	return nil, nil, fmt.Errorf("--db: sqlite or postgres, not %q", c.db)
}

// serve serves h on a loopback port and returns its base URL.
func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// floorHandler is the floor of a read: a bare handler writing the recorded answer of
// the scenario named by the path, with the same status and content type.
type floorHandler struct {
	mu     sync.RWMutex
	bodies map[string][]byte
}

func (f *floorHandler) set(name string, body []byte) {
	f.mu.Lock()
	f.bodies[name] = body
	f.mu.Unlock()
}

func (f *floorHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	f.mu.RLock()
	body := f.bodies[strings.TrimPrefix(r.URL.Path, "/")]
	f.mu.RUnlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

type result struct {
	name      string
	conns     int
	rate      float64 // successful requests per second
	p50, p99  time.Duration
	success   float64
	floorRate float64
	floorP99  time.Duration
	// requests sent to the API and the request log entries its queue dropped meanwhile
	requests uint64
	dropped  int64
	// offRate: successful requests per second of the same scenario without the request
	// log (--request-log both; 0 otherwise)
	offRate float64
	// offCPU and onCPU: the process's CPU time per request sent (server and load
	// generator) with the log off and on, the writer's work on the entries included
	// (--request-log both). Unlike req/s, this hardly moves with other load on the
	// machine: 1 − off/on is the cost when the two cores are the limit.
	offCPU, onCPU time.Duration
}

type bench struct {
	c        config
	out      io.Writer
	key      string
	api      string
	apiOff   string // the API without the request log (--request-log both), or ""
	floorURL string
	floor    *floorHandler
	doc      *catalog.Document
	day      func(n int) string
	refs     []string       // bookings made by the book scenario
	reqlog   *reqlog.Logger // nil with --request-log off
	profiled bool           // --cpuprofile-scenario's attack was profiled
}

// attackAPI attacks the API and counts the request log entries dropped meanwhile.
func (b *bench) attackAPI(name string, conns int, next func() request) (vegeta.Metrics, int64) {
	dropped := func() int64 {
		if b.reqlog == nil {
			return 0
		}
		return b.reqlog.Stats().Dropped
	}
	if b.reqlog != nil {
		// What an earlier scenario left queued is written before this one starts.
		_ = b.reqlog.Flush(context.Background())
	}
	before := dropped()
	if b.c.cpuProfile != "" && b.c.cpuProfileScenario == name && !b.profiled {
		b.profiled = true
		stop := b.profile()
		defer stop()
	}
	m := b.attack(name, conns, next, b.api, b.c.duration)
	return m, dropped() - before
}

// profile starts the CPU profile of --cpuprofile-scenario's attack; stop ends it.
func (b *bench) profile() (stop func()) {
	f, err := os.Create(b.c.cpuProfile)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cpuprofile: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// request is one scenario request.
type request struct {
	method, path string
	body         any
	header       http.Header
}

func (b *bench) want(name string) bool {
	return b.c.only == "" || slices.Contains(strings.Split(b.c.only, ","), name)
}

// attack drives url with next's requests for d, conns at a time, as fast as they are
// answered.
func (b *bench) attack(name string, conns int, next func() request, base string, d time.Duration) vegeta.Metrics {
	targeter := func(t *vegeta.Target) error {
		r := next()
		t.Method, t.URL, t.Header = r.method, base+r.path, r.header.Clone()
		if t.Header == nil {
			t.Header = http.Header{}
		}
		t.Header.Set(httpapi.HeaderAPIKey, b.key)
		t.Header.Set("Content-Type", "application/json")
		t.Body = nil
		if r.body != nil {
			data, err := json.Marshal(r.body)
			if err != nil {
				return err
			}
			t.Body = data
		}
		return nil
	}
	a := vegeta.NewAttacker(vegeta.Workers(uint64(conns)), vegeta.MaxWorkers(uint64(conns)),
		vegeta.Connections(conns), vegeta.KeepAlive(true), vegeta.Timeout(30*time.Second))
	var m vegeta.Metrics
	for res := range a.Attack(targeter, vegeta.Rate{Freq: 0}, d, name) {
		m.Add(res)
		if name == "book" && res.Code == http.StatusCreated {
			var env struct {
				Data struct {
					Reference string `json:"reference"`
				} `json:"data"`
			}
			if json.Unmarshal(res.Body, &env) == nil && env.Data.Reference != "" {
				b.refs = append(b.refs, env.Data.Reference)
			}
		}
	}
	m.Close()
	return m
}

// fetch sends one request to the API and returns the answer.
func (b *bench) fetch(r request) (int, []byte, error) {
	var body io.Reader
	if r.body != nil {
		data, _ := json.Marshal(r.body)
		body = strings.NewReader(string(data))
	}
	req, err := http.NewRequest(r.method, b.api+r.path, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set(httpapi.HeaderAPIKey, b.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return res.StatusCode, data, err
}

// read measures a read scenario and its floor: the bare handler answering the bytes
// the API gave for the scenario's request.
func (b *bench) read(name string, next func() request) (result, error) {
	status, body, err := b.fetch(next())
	if err != nil {
		return result{}, err
	}
	if status != http.StatusOK {
		return result{}, fmt.Errorf("%s: status %d: %s", name, status, body)
	}
	b.floor.set(name, body)
	fmt.Fprintf(os.Stderr, "%s: %d-byte answer\n", name, len(body))
	if b.apiOff != "" {
		return b.readBoth(name, next)
	}
	m, dropped := b.attackAPI(name, b.c.readConns, next)
	f := b.attack(name+"-floor", b.c.readConns, func() request { return request{method: "GET", path: "/" + name} }, b.floorURL, b.c.duration)
	return result{name: name, conns: b.c.readConns, rate: m.Throughput, p50: m.Latencies.P50, p99: m.Latencies.P99,
		success: m.Success, floorRate: f.Throughput, floorP99: f.Latencies.P99, requests: m.Requests, dropped: dropped}, nil
}

// readBoth measures a read scenario with the request log off and on (--request-log
// both), and its floor, alternating --rounds times so that the machine's drift between
// two runs weighs on all three alike (a floor taken once, after the rounds, gave the
// same build's hotel search 46–61 % of it over five runs on one host): the rates are
// the successful requests of all rounds over their time, the CPU per request the CPU
// of all rounds over their requests, the latencies the last round's.
func (b *bench) readBoth(name string, next func() request) (result, error) {
	var offOK, onOK, floorOK float64
	var offTime, onTime, floorTime, offCPU, onCPU time.Duration
	var offReqs, onReqs uint64
	var dropped int64
	var m, f vegeta.Metrics
	for range max(1, b.c.rounds) {
		_ = b.reqlog.Flush(context.Background())
		c0 := processCPU()
		off := b.attack(name+"-log-off", b.c.readConns, next, b.apiOff, b.c.duration)
		offCPU += processCPU() - c0
		offOK, offTime, offReqs = offOK+off.Success*float64(off.Requests), offTime+off.Duration+off.Wait, offReqs+off.Requests
		c0 = processCPU()
		var d int64
		m, d = b.attackAPI(name, b.c.readConns, next)
		_ = b.reqlog.Flush(context.Background()) // the entries' writes count too
		onCPU += processCPU() - c0
		onOK, onTime, onReqs, dropped = onOK+m.Success*float64(m.Requests), onTime+m.Duration+m.Wait, onReqs+m.Requests, dropped+d
		f = b.attack(name+"-floor", b.c.readConns, func() request { return request{method: "GET", path: "/" + name} }, b.floorURL, b.c.duration)
		floorOK, floorTime = floorOK+f.Success*float64(f.Requests), floorTime+f.Duration+f.Wait
	}
	return result{name: name, conns: b.c.readConns, rate: onOK / onTime.Seconds(), p50: m.Latencies.P50, p99: m.Latencies.P99,
		success: onOK / float64(max(1, onReqs)), floorRate: floorOK / floorTime.Seconds(), floorP99: f.Latencies.P99, requests: onReqs,
		dropped: dropped, offRate: offOK / offTime.Seconds(), offCPU: offCPU / time.Duration(max(1, offReqs)),
		onCPU: onCPU / time.Duration(max(1, onReqs))}, nil
}

// commitFloor measures single-row durable commits of the store, writers at a time.
func (b *bench) commitFloor(ctx context.Context, st *sqlstore.DB, writers int) (float64, time.Duration, error) {
	db := st.SQL()
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS bench_commit_floor (id INTEGER NOT NULL, v TEXT NOT NULL)`); err != nil {
		return 0, 0, err
	}
	var n atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	deadline := time.Now().Add(b.c.duration)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for i := 0; time.Now().Before(deadline); i++ {
				t := time.Now()
				if _, err := db.ExecContext(ctx, `INSERT INTO bench_commit_floor (id, v) VALUES ($1, $2)`, w*1_000_000+i, "commit"); err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(t))
				n.Add(1)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return 0, 0, firstErr
	}
	slices.Sort(lat)
	var p99 time.Duration
	if len(lat) > 0 {
		p99 = lat[len(lat)*99/100]
	}
	return float64(n.Load()) / elapsed.Seconds(), p99, nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// biggestCity returns the city with the most items.
func biggestCity(cities []string) string {
	count := map[string]int{}
	best := ""
	for _, c := range cities {
		count[c]++
		if best == "" || count[c] > count[best] {
			best = c
		}
	}
	return best
}

func (b *bench) scenarios(ctx context.Context, st *sqlstore.DB) ([]result, error) {
	d := b.doc
	var hotelCities, activityCities, rentalCities, packageCities []string
	for _, h := range d.Hotels {
		hotelCities = append(hotelCities, h.City)
	}
	for _, a := range d.Activities {
		activityCities = append(activityCities, a.City)
	}
	for _, r := range d.Rentals {
		rentalCities = append(rentalCities, r.City)
	}
	for _, p := range d.Packages {
		packageCities = append(packageCities, p.City)
	}
	in, out := b.day(30), b.day(33)
	fixed := func(r request) func() request { return func() request { return r } }
	type scenario struct {
		name string
		next func() request
		ok   bool
	}
	reads := []scenario{
		{"hotel-search", fixed(request{method: "POST", path: "/hotels/search",
			body: map[string]any{"destination": biggestCity(hotelCities), "check_in": in, "check_out": out}}), len(d.Hotels) > 0},
		{"activity-search", fixed(request{method: "POST", path: "/activities/search",
			body: map[string]any{"destination": biggestCity(activityCities), "date": in}}), len(d.Activities) > 0},
		{"rental-search", fixed(request{method: "POST", path: "/rentals/search",
			body: map[string]any{"destination": biggestCity(rentalCities), "check_in": in, "check_out": out}}), len(d.Rentals) > 0},
		{"package-search", fixed(request{method: "POST", path: "/packages/search",
			body: map[string]any{"destination": biggestCity(packageCities)}}), len(d.Packages) > 0},
	}
	if len(d.Hotels) > 0 {
		reads = append(reads, scenario{"hotel-availability", fixed(request{method: "POST", path: "/hotels/availability",
			body: map[string]any{"hotel_id": d.Hotels[len(d.Hotels)/2].ID, "check_in": in, "check_out": out}}), true})
	}
	if len(d.Activities) > 0 {
		reads = append(reads, scenario{"activity-availability", fixed(request{method: "POST", path: "/activities/availability",
			body: map[string]any{"activity_id": d.Activities[len(d.Activities)/2].ID, "date": in}}), true})
	}
	if len(d.Rentals) > 0 {
		reads = append(reads, scenario{"rental-availability", fixed(request{method: "POST", path: "/rentals/availability",
			body: map[string]any{"rental_id": d.Rentals[len(d.Rentals)/2].ID, "check_in": in, "check_out": out}}), true})
	}
	for _, p := range d.Packages {
		if p.Kind != "open" {
			continue
		}
		reads = append(reads, scenario{"package-availability", fixed(request{method: "POST", path: "/packages/availability",
			body: map[string]any{"package_id": p.ID, "travel_date": in, "adults": 2}}), true})
		break
	}
	var results []result
	for _, s := range reads {
		if !s.ok || !b.want(s.name) {
			continue
		}
		r, err := b.read(s.name, s.next)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}

	// Writes: hotel quotes spread over the catalog (any hotel, room and night in the
	// first 300 days), so that they rarely meet on a row.
	if len(d.Hotels) == 0 || !(b.want("prebook") || b.want("book") || b.want("get-booking")) {
		return results, nil
	}
	days := max(1, min(300, b.c.days-2))
	quote := func() map[string]any {
		h := d.Hotels[rand.IntN(len(d.Hotels))]
		room := h.Rooms[rand.IntN(len(h.Rooms))]
		n := rand.IntN(days)
		return map[string]any{"product_type": "hotel", "hotel_id": h.ID, "room_id": room.ID,
			"check_in": b.day(n), "check_out": b.day(n + 1), "rooms": 1, "adults": 1}
	}
	// Each write scenario's floor is the mean of the commit floors measured just before
	// and just after it: this shared host's floor drifts by 15 % and more within a run,
	// and one floor measured minutes away from the scenario moved its ratio as much as
	// the code did (docs/performance.md).
	floor := func(when string) (float64, time.Duration, error) {
		rate, p99, err := b.commitFloor(ctx, st, b.c.writeConns)
		if err != nil {
			return 0, 0, fmt.Errorf("commit floor: %w", err)
		}
		fmt.Fprintf(os.Stderr, "commit floor %s: %.0f/s, p99 %s\n", when, rate, ms(p99))
		return rate, p99, nil
	}
	if err := b.warmFiles(ctx, st); err != nil {
		return nil, err
	}
	lastRate, lastP99, err := floor("before the writes")
	if err != nil {
		return nil, err
	}
	write := func(name string, next func() request) (result, error) {
		m, dropped := b.attackAPI(name, b.c.writeConns, next)
		if len(m.Errors) > 0 {
			fmt.Fprintf(os.Stderr, "%s: status codes %v, first errors %v\n", name, m.StatusCodes, m.Errors[:min(3, len(m.Errors))])
		}
		before, beforeP99 := lastRate, lastP99
		var err error
		if lastRate, lastP99, err = floor("after " + name); err != nil {
			return result{}, err
		}
		return result{name: name, conns: b.c.writeConns, rate: m.Throughput, p50: m.Latencies.P50, p99: m.Latencies.P99,
			success: m.Success, floorRate: (before + lastRate) / 2, floorP99: max(beforeP99, lastP99), requests: m.Requests,
			dropped: dropped}, nil
	}
	if b.want("prebook") {
		r, err := write("prebook", func() request {
			return request{method: "POST", path: "/bookings/prebook", body: quote()}
		})
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	var seq atomic.Int64
	if b.want("book") || b.want("get-booking") {
		book := func() request {
			body := quote()
			body["guest"] = map[string]any{"name": "Load Test"}
			key := fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), seq.Add(1))
			if b.c.partnerRefs {
				body["partner_reference"] = key
			}
			return request{method: "POST", path: "/bookings", body: body, header: http.Header{"Idempotency-Key": {key}}}
		}
		if err := b.warmBookings(ctx, st, book); err != nil {
			return nil, err
		}
		r, err := write("book", book)
		if err != nil {
			return nil, err
		}
		if b.want("book") {
			results = append(results, r)
		}
	}
	if b.want("get-booking") {
		if len(b.refs) == 0 {
			return nil, errors.New("get-booking: the book scenario made no booking")
		}
		var i atomic.Int64
		r, err := b.read("get-booking", func() request {
			return request{method: "GET", path: "/bookings/" + b.refs[int(i.Add(1))%len(b.refs)]}
		})
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return results, nil
}

// warmFiles reads a SQLite database's files once (--warm-files), so that the writes meet
// its pages in the operating system's page cache, as a serving server's writes do. The
// read scenarios are answered from the read model and leave the file untouched for
// minutes, and this host's kernel pages out memory untouched for a while (a DAMON
// pageout scheme): prebook then read 0.5–0.7 GB from the disk and ran at 13.6–16.8 % of
// the floor instead of about 21 % (docs/performance-history.md, "Night").
func (b *bench) warmFiles(ctx context.Context, st *sqlstore.DB) error {
	if !b.c.warmFiles || st.Dialect() != "sqlite" {
		return nil
	}
	var path string
	if err := st.SQL().QueryRowContext(ctx, `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&path); err != nil {
		return fmt.Errorf("warm files: %w", err)
	}
	start := time.Now()
	var n int64
	for _, name := range []string{path, path + "-wal"} {
		f, err := os.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("warm files: %w", err)
		}
		read, err := io.Copy(io.Discard, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("warm files: %w", err)
		}
		n += read
	}
	fmt.Fprintf(os.Stderr, "page cache: read the database's files (%d MB) in %s\n", n>>20, time.Since(start).Round(time.Millisecond))
	return nil
}

// warmBookings makes bookings for --book-warmup, unmeasured. The tables a booking
// writes start empty in the benchmark's new database; on PostgreSQL each pooled
// connection then keeps the plans it made for them while they were (a foreign key's
// check of the new booking scanned the whole table, docs/performance-history.md,
// "Second afternoon"), until autovacuum's ANALYZE, a minute or more
// into a run, makes it plan again. The benchmark runs that ANALYZE at once. SQLite,
// which nothing ANALYZEs in production, is left as it is.
func (b *bench) warmBookings(ctx context.Context, st *sqlstore.DB, next func() request) error {
	if b.c.bookWarmup <= 0 {
		return nil
	}
	m := b.attack("book-warmup", b.c.writeConns, next, b.api, b.c.bookWarmup)
	if m.StatusCodes["201"] == 0 {
		return fmt.Errorf("book warm-up: no booking made: status codes %v, first errors %v", m.StatusCodes, m.Errors[:min(3, len(m.Errors))])
	}
	note := ""
	if st.Dialect() == "postgres" {
		if _, err := st.SQL().ExecContext(ctx, `ANALYZE`); err != nil {
			return fmt.Errorf("book warm-up: %w", err)
		}
		note = ", then ANALYZE"
	}
	fmt.Fprintf(os.Stderr, "book warm-up: %d bookings in %s, not measured%s\n", m.StatusCodes["201"], b.c.bookWarmup, note)
	return nil
}

// pgDBName is the shape --pg-db may take: it goes into DROP and CREATE DATABASE as is.
var pgDBName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)

// withWebhooks subscribes the benchmark's partner to booking.confirmed at a local https
// sink answering 200 and runs a webhook dispatcher as serve wires it (its store nudging the
// dispatcher once an event commits). It returns svc over that store, the count of
// deliveries the sink received, and how to stop both.
func withWebhooks(ctx context.Context, st *sqlstore.DB, svc *booking.Service) (*booking.Service, *atomic.Int64, func(), error) {
	sunk := new(atomic.Int64)
	// Over https, as every subscription is: the sink's own certificate trusted.
	sink := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		sunk.Add(1)
	}))
	sinkURL, stopSink := sink.URL, sink.Close
	roots := x509.NewCertPool()
	roots.AddCert(sink.Certificate())
	d, err := webhook.NewDispatcher(webhook.DispatcherConfig{Store: st,
		Deliverer: webhook.NewDeliverer(true, webhook.DefaultTimeout, &tls.Config{RootCAs: roots}),
		Logger:    slog.New(slog.DiscardHandler)})
	if err != nil {
		stopSink()
		return nil, nil, nil, err
	}
	hooked := booking.New(webhook.NotifyOnEvent(svc.Store, d.Nudge), tradewind.SystemClock{}, nil)
	hooked.Reads = svc.Reads
	hooked.WebhookAllowPrivate = true // the sink is on loopback
	p, keys, err := hooked.PartnerKeys(ctx, "bench")
	if err == nil && len(keys) == 0 {
		err = errors.New("the benchmark's partner has no key")
	}
	if err == nil {
		_, err = hooked.CreateSubscription(ctx, &booking.Caller{Partner: p, Key: keys[0]},
			&booking.SubscriptionRequest{URL: sinkURL + "/hook", EventTypes: []string{string(tradewind.EventBookingConfirmed)}})
	}
	if err != nil {
		stopSink()
		return nil, nil, nil, fmt.Errorf("webhook subscription: %w", err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); d.Run(runCtx) }()
	return hooked, sunk, func() { stop(); <-done; stopSink() }, nil
}
