package sqlstore_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/ids"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// BenchmarkRequestLogInsert is the request log writer's cost per entry (ns/op is per
// entry; cpu-µs/op is the process's CPU time; pg-cpu-µs/op, on PostgreSQL, the
// server's, all its processes together, so only meaningful on a server that no other
// client is using): batches of 200 hotel search entries, as the
// writer sends them, into a database that already holds entries (the indexes are not empty). Run with -cpuprofile,
// or under callgrind, to see where an entry's cost goes.
func BenchmarkRequestLogInsert(b *testing.B) {
	for _, o := range storetest.Openers() {
		b.Run(o.Name, func(b *testing.B) {
			s := o.Open(b)
			ctx := context.Background()
			answer := sqlstore.SampleAnswer()
			at := time.Date(2027, 1, 4, 12, 0, 0, 0, time.UTC)
			batch := make([]*store.RequestLogEntry, 200)
			n := 0
			fill := func() {
				for i := range batch {
					n++
					batch[i] = &store.RequestLogEntry{PartnerID: int64(1 + n%50), Mode: tradewind.ModeLive,
						At: at.Add(time.Duration(n) * time.Millisecond), Method: "POST", Path: "/api/partner/v1/hotels/search",
						Route: "POST /hotels/search", Status: 200, Duration: 3 * time.Millisecond, KeyID: 7,
						KeyPrefix: "tw_live_ab12", ClientAddr: "127.0.0.1", UserAgent: "bench/1.0",
						RequestID:   requestID(at.Add(time.Duration(n) * time.Millisecond)),
						RequestBody: []byte(`{"city": "LISBON", "check_in": "2027-02-03", "check_out": "2027-02-06"}`),
						RequestSize: 72, ResponseBody: answer, ResponseSize: int64(len(answer))}
				}
			}
			for range 10 { // entries already there
				fill()
				if err := s.RequestLogInsert(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			cpu0, pg0 := processCPU(), postgresCPU()
			for i := 0; i < b.N; i += len(batch) {
				b.StopTimer()
				fill()
				b.StartTimer()
				if err := s.RequestLogInsert(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
			if o.Name == "postgres" {
				b.ReportMetric(float64(postgresCPUSince(pg0))/float64(time.Microsecond)/float64(b.N), "pg-cpu-µs/op")
			}
		})
	}
}

// processCPU is the process's CPU time (user and system), less sensitive than the wall
// clock to other load on the machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// postgresCPU is the CPU time (user and system) per process of this machine named
// postgres: the server's backends and its background processes (WAL writer,
// checkpointer), the part of an entry's cost that processCPU does not see. Empty where
// /proc cannot be read.
func postgresCPU() map[string]time.Duration {
	dirs, _ := os.ReadDir("/proc")
	out := map[string]time.Duration{}
	for _, d := range dirs {
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ... utime stime are fields 14 and 15; comm may hold spaces.
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open || s[open+1:end] != "postgres" {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		k, _ := strconv.ParseInt(f[12], 10, 64)
		out[d.Name()] = time.Duration(u+k) * time.Second / 100 // USER_HZ is 100 on Linux
	}
	return out
}

// postgresCPUSince is the CPU the postgres processes alive at both readings used
// between them: the processes of other clients that come and go (another test's
// connections) neither add nor subtract.
func postgresCPUSince(before map[string]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range postgresCPU() {
		if t0, ok := before[pid]; ok {
			d += t - t0
		}
	}
	return d
}

// requestID is a generated X-Request-Id as the API makes them (time-ordered), or with
// TW_BENCH_RANDOM_REQUEST_IDS=1 a random one as before, to compare their index's cost.
func requestID(at time.Time) string {
	if os.Getenv("TW_BENCH_RANDOM_REQUEST_IDS") == "1" {
		return "req_" + ids.Random("0123456789abcdef", 24)
	}
	return ids.TimeOrdered("req_", at)
}
