// Package reqlog keeps the partner API's request log and usage counters
// (docs/request-logs.md) off the request path: Record hands an entry to a bounded
// queue that a writer drains in batches, and counts it in the usage counters, which are
// added to the store apart from the entries. A request never waits for either: when the
// queue is full the entry is dropped and counted; the counters are never dropped.
package reqlog

import (
	"context"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// MaxBody is how much of each body an entry keeps.
const MaxBody = store.RequestLogMaxBody

// Defaults of Config.
const (
	DefaultQueueSize = 10000
	// DefaultQueueBytes bounds the bodies queued, whatever their number: 10 000 entries
	// of two full 64 KB bodies would otherwise hold 1.3 GB.
	DefaultQueueBytes    = 64 << 20
	DefaultBatchSize     = 200
	DefaultFlushInterval = time.Second
	DefaultUsageInterval = 10 * time.Second
	// DefaultWriterShare: the entry writer takes at most 3 % of the server's CPU (of all
	// its cores) writing batches, so that at full load the log costs the API little
	// and drops (counted) what it cannot write in that share (docs/request-logs.md,
	// "The writer's share": at 5 % SQLite's log cost 9–11 % of a saturated search's
	// throughput, at the 10 % the issue allows; at 3 %, 3–9 %).
	DefaultWriterShare = 0.03
	// writeTimeout bounds one batch write, so that a stuck database delays the writer
	// (and the queue drops) rather than holding it forever.
	writeTimeout = 30 * time.Second
)

// Store is what the writers need of the database. RequestLogInsert must not keep the
// entries' bodies once it returns: the response bodies' buffers are then reused
// (CaptureBuffer).
type Store interface {
	RequestLogInsert(ctx context.Context, entries []*store.RequestLogEntry) error
	UsageAdd(ctx context.Context, rows []tradewind.UsageRow) error
}

// Config configures a Logger. Store and Logger are required.
type Config struct {
	Store         Store
	Logger        *slog.Logger
	QueueSize     int           // entries waiting for the writer; 0: DefaultQueueSize
	QueueBytes    int64         // body bytes waiting for the writer; 0: DefaultQueueBytes
	BatchSize     int           // entries per write; 0: DefaultBatchSize
	FlushInterval time.Duration // the longest an entry waits for a batch to fill; 0: DefaultFlushInterval
	UsageInterval time.Duration // how often the counters are added to the store; 0: DefaultUsageInterval
	// WriterShare bounds the share of the server's CPU, all Cores together, that the
	// entry writer (one goroutine) spends writing: its share of the wall time is
	// WriterShare·Cores, and after a batch that took t it rests t·(1−w)/w (w that wall
	// share) before it takes the next entry, while the queue fills (and drops, counted,
	// when full), so that at full load the writer never takes more than its share from
	// the API. 0: DefaultWriterShare; when WriterShare·Cores is 1 or more it never
	// rests. Flush and Close write everything queued whatever the share.
	WriterShare float64
	// Cores is the number of cores WriterShare is of; 0: runtime.GOMAXPROCS.
	Cores int
	// Clock times the batches; nil: the system clock.
	Clock tradewind.Clock
}

// Logger is the request log's queue, writer and usage counters. Its methods are safe
// for concurrent use.
type Logger struct {
	cfg     Config
	queue   chan *store.RequestLogEntry
	flushes chan chan struct{} // a Flush's request to the entry writer
	stop    chan struct{}
	done    sync.WaitGroup
	closed  atomic.Bool
	// queuedBytes is the size of the bodies in the queue.
	queuedBytes atomic.Int64

	dropped     atomic.Int64 // entries refused by a full queue
	failed      atomic.Int64 // entries lost to a failed write
	written     atomic.Int64
	usageFailed atomic.Int64 // failed counter flushes (the counters stay in memory)

	mu    sync.Mutex
	usage map[usageKey]int64 // counted, not yet added to the store
	// usageFlush serializes counter flushes, so that a retry never races a newer flush.
	usageFlush sync.Mutex
	// after starts the writer's rest (time.After; a test double in tests).
	after  func(time.Duration) <-chan time.Time
	rested atomic.Int64 // nanoseconds the writer rested
	// captured is the writer's list of a batch's captured response bodies, recycled
	// once the batch is written.
	captured [][]byte
}

type usageKey struct {
	partnerID int64
	mode      tradewind.Mode
	hour      time.Time
	route     string
	status    int
	errorCode string
}

// New starts a Logger's writers; Close stops them.
func New(cfg Config) *Logger { return newLogger(cfg, time.After) }

func newLogger(cfg Config, after func(time.Duration) <-chan time.Time) *Logger {
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = DefaultQueueSize
	}
	if cfg.QueueBytes <= 0 {
		cfg.QueueBytes = DefaultQueueBytes
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = DefaultFlushInterval
	}
	if cfg.UsageInterval <= 0 {
		cfg.UsageInterval = DefaultUsageInterval
	}
	if !(cfg.WriterShare > 0) { // NaN too
		cfg.WriterShare = DefaultWriterShare
	}
	if cfg.Cores <= 0 {
		cfg.Cores = runtime.GOMAXPROCS(0)
	}
	if cfg.Clock == nil {
		cfg.Clock = tradewind.SystemClock{}
	}
	l := &Logger{cfg: cfg, queue: make(chan *store.RequestLogEntry, cfg.QueueSize), flushes: make(chan chan struct{}),
		stop: make(chan struct{}), usage: map[usageKey]int64{}, after: after}
	l.done.Add(2)
	go l.writeEntries()
	go l.writeUsage()
	return l
}

// Full reports whether an entry recorded now would be dropped (the queue is full, or
// the Logger closed). A request that starts while the log is full need not capture its
// answer: it is recorded with keep false.
func (l *Logger) Full() bool {
	return l.closed.Load() || len(l.queue) == cap(l.queue) || l.queuedBytes.Load() >= l.cfg.QueueBytes
}

// Record counts e in the usage counters and, when keep, queues it for the writer,
// without ever waiting: when the queue is full, or keep is false (the request started
// while the log was Full), e is dropped and counted. e belongs to the Logger from then
// on; its bodies are redacted by the writer, off the request path, and its response
// body, when it came from CaptureBuffer, goes back there once written or dropped.
func (l *Logger) Record(e *store.RequestLogEntry, keep bool) {
	k := usageKey{e.PartnerID, e.Mode, e.At.UTC().Truncate(time.Hour), e.Route, e.Status, e.ErrorCode}
	l.mu.Lock()
	l.usage[k]++
	l.mu.Unlock()
	if !keep {
		l.drop(e)
		return
	}
	size := bodySize(e)
	if l.closed.Load() || l.queuedBytes.Add(size) > l.cfg.QueueBytes {
		l.queuedBytes.Add(-size)
		l.drop(e)
		return
	}
	select {
	case l.queue <- e:
	default:
		l.queuedBytes.Add(-size)
		l.drop(e)
	}
}

func (l *Logger) drop(e *store.RequestLogEntry) {
	l.dropped.Add(1)
	Recycle(e.ResponseBody)
}

// captureBuffers hold the answers captured for the log: a search answer of ~7 KB per
// request is otherwise garbage the collector has to keep up with. They are held as
// *[]byte, and the emptied boxes kept in bufferBoxes, so that neither Get nor Put
// allocates a slice header.
var (
	captureBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}
	bufferBoxes    = sync.Pool{New: func() any { return new([]byte) }}
)

// CaptureBuffer returns an empty buffer for a response body that will be Recorded.
func CaptureBuffer() []byte {
	box := captureBuffers.Get().(*[]byte)
	b := (*box)[:0]
	*box = nil
	bufferBoxes.Put(box)
	return b
}

// Recycle hands back a buffer from CaptureBuffer that was not Recorded; Record hands
// back those it takes. A buffer grown past two bodies' worth is left to the collector.
func Recycle(b []byte) {
	if cap(b) == 0 || cap(b) > 2*MaxBody {
		return
	}
	box := bufferBoxes.Get().(*[]byte)
	*box = b[:0]
	captureBuffers.Put(box)
}

func bodySize(e *store.RequestLogEntry) int64 { return int64(len(e.RequestBody) + len(e.ResponseBody)) }

// Stats are the Logger's counts since it started.
type Stats struct {
	Dropped     int64 // entries refused because the queue was full
	WriteFailed int64 // entries lost because their batch could not be written
	Written     int64
	Queued      int   // entries waiting now
	UsageFailed int64 // counter flushes that failed and will be retried
	// Rested is how long the writer rested to keep to its share (Config.WriterShare).
	Rested time.Duration
}

// Stats returns the Logger's counts.
func (l *Logger) Stats() Stats {
	return Stats{Dropped: l.dropped.Load(), WriteFailed: l.failed.Load(), Written: l.written.Load(),
		Queued: len(l.queue), UsageFailed: l.usageFailed.Load(), Rested: time.Duration(l.rested.Load())}
}

// Flush writes every entry queued before it and adds the counters to the store. It
// returns the error of the counter flush (the counters then stay in memory).
func (l *Logger) Flush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case l.flushes <- done:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return l.flushUsage(ctx)
}

// Close stops taking entries, writes those queued and adds the counters to the store;
// for a graceful shutdown, after the API server stopped serving.
func (l *Logger) Close(ctx context.Context) error {
	if l.closed.Swap(true) {
		return nil
	}
	close(l.stop)
	stopped := make(chan struct{})
	go func() {
		l.done.Wait()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-ctx.Done(): // a stuck write: the counters still go
		l.cfg.Logger.Error("request log: entries still queued at shutdown were not written", "queued", len(l.queue))
	}
	// The counters are added even when ctx ran out waiting for the entries.
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	return l.flushUsage(uctx)
}

func (l *Logger) writeEntries() {
	defer l.done.Done()
	tick := time.NewTicker(l.cfg.FlushInterval)
	defer tick.Stop()
	batch := make([]*store.RequestLogEntry, 0, l.cfg.BatchSize)
	// resume is set while the writer rests after a batch: it then takes no entry (the
	// queue fills) and writes nothing on the tick, until resume fires.
	var resume <-chan time.Time
	write := func() {
		if len(batch) == 0 {
			return
		}
		start := l.cfg.Clock.Now()
		l.write(batch)
		batch = batch[:0]
		if rest := restAfter(l.cfg.Clock.Now().Sub(start), l.cfg.WriterShare*float64(l.cfg.Cores)); rest > 0 {
			l.rested.Add(int64(rest))
			resume = l.after(rest)
		}
	}
	take := func(e *store.RequestLogEntry) {
		l.queuedBytes.Add(-bodySize(e))
		if batch = append(batch, e); len(batch) == l.cfg.BatchSize {
			write()
		}
	}
	drain := func() {
		for {
			select {
			case e := <-l.queue:
				take(e)
			default:
				write()
				return
			}
		}
	}
	for {
		queue := l.queue
		if resume != nil {
			queue = nil
		}
		select {
		case e := <-queue:
			take(e)
		case <-resume:
			resume = nil
		case <-tick.C:
			if resume == nil {
				write()
			}
		case done := <-l.flushes:
			drain()
			close(done)
		case <-l.stop:
			drain()
			return
		}
	}
}

// restAfter is how long the writer rests after a batch that took busy, so that its
// busy share of the wall time stays at most share (WriterShare·Cores).
func restAfter(busy time.Duration, share float64) time.Duration {
	if share >= 1 || busy <= 0 {
		return 0
	}
	return time.Duration(float64(busy) * (1 - share) / share)
}

// write redacts and stores a batch; a failed batch is logged and counted, never retried
// (the queue behind it keeps filling).
func (l *Logger) write(batch []*store.RequestLogEntry) {
	captured := l.captured[:0]
	for _, e := range batch {
		captured = append(captured, e.ResponseBody)
		e.RequestBody = RedactJSON(e.RequestBody)
		e.ResponseBody = RedactJSON(e.ResponseBody)
		e.Query = RedactQuery(e.Query)
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	err := l.cfg.Store.RequestLogInsert(ctx, batch)
	for i, b := range captured {
		Recycle(b)
		captured[i] = nil
	}
	l.captured = captured[:0]
	if err != nil {
		l.failed.Add(int64(len(batch)))
		l.cfg.Logger.Error("request log: batch not written", "entries", len(batch), "err", err)
		return
	}
	l.written.Add(int64(len(batch)))
}

func (l *Logger) writeUsage() {
	defer l.done.Done()
	tick := time.NewTicker(l.cfg.UsageInterval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			if err := l.flushUsage(ctx); err != nil {
				l.cfg.Logger.Warn("usage counters: flush failed, kept for the next one", "err", err)
			}
			cancel()
		case <-l.stop:
			return
		}
	}
}

// flushUsage adds the counters counted so far to the store; when that fails they are
// put back, to be added by the next flush (UsageAdd adds all or nothing).
func (l *Logger) flushUsage(ctx context.Context) error {
	l.usageFlush.Lock()
	defer l.usageFlush.Unlock()
	l.mu.Lock()
	counts := l.usage
	l.usage = make(map[usageKey]int64, len(counts))
	l.mu.Unlock()
	if len(counts) == 0 {
		return nil
	}
	rows := make([]tradewind.UsageRow, 0, len(counts))
	for k, n := range counts {
		rows = append(rows, tradewind.UsageRow{PartnerID: k.partnerID, Mode: k.mode, Hour: k.hour, Route: k.route,
			Status: k.status, ErrorCode: k.errorCode, Count: n})
	}
	if err := l.cfg.Store.UsageAdd(ctx, rows); err != nil {
		l.usageFailed.Add(1)
		l.mu.Lock()
		for k, n := range counts {
			l.usage[k] += n
		}
		l.mu.Unlock()
		return err
	}
	return nil
}
