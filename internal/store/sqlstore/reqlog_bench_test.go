package sqlstore_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// BenchmarkRequestLogInsert is the request log writer's cost per entry (ns/op is per
// entry; cpu-µs/op is the process's CPU time; pg-cpu-µs/op, on PostgreSQL, the
// server's, all its processes together): batches of 200 hotel search entries, as the
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
						RequestID:   fmt.Sprintf("req_%024x", n),
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
				b.ReportMetric(float64(postgresCPU()-pg0)/float64(time.Microsecond)/float64(b.N), "pg-cpu-µs/op")
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

// postgresCPU is the CPU time (user and system) of every process of this machine named
// postgres: the server's backends and its background processes (WAL writer,
// checkpointer, autovacuum), the part of an entry's cost that processCPU does not see.
// It is 0 where /proc cannot be read.
func postgresCPU() time.Duration {
	dirs, _ := os.ReadDir("/proc")
	var ticks int64
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
		ticks += u + k
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ is 100 on Linux
}
