package sqlstore_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// BenchmarkRequestLogInsert is the request log writer's cost per entry (ns/op is per
// entry; cpu-µs/op is the process's CPU time, the database's own for
// PostgreSQL aside): batches of 200 hotel search entries, as the writer sends them, into a
// database that already holds entries (the indexes are not empty). Run with -cpuprofile,
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
			cpu0 := processCPU()
			for i := 0; i < b.N; i += len(batch) {
				b.StopTimer()
				fill()
				b.StartTimer()
				if err := s.RequestLogInsert(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
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
