package sqlstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// sampleAnswer is a hotel search answer of the shape the API gives.
func sampleAnswer() []byte {
	var b strings.Builder
	b.WriteString(`{"data":{"hotels":[`)
	for i := range 20 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"hotel_id":"htl_%05d","name":"Hotel %d Lisboa","city":"LISBON","stars":%d,"rooms":[{"room_id":"rm_%05d_1","name":"Double","board":"room_only","available":%d,"price":{"amount":%d,"currency":"EUR"},"nightly":[{"date":"2026-12-23","amount":%d},{"date":"2026-12-24","amount":%d},{"date":"2026-12-25","amount":%d}]}],"cancellation":{"free_until":"2026-12-20"}}`,
			i*37, i, 1+i%5, i*37, i%7, 10000+i*313, 3000+i*7, 3100+i*11, 3200+i*13)
	}
	b.WriteString(`]},"page":1,"per_page":20,"total":240}`)
	return []byte(b.String())
}

// BenchmarkBodyCodecs compares codecs of the request log's bodies on a search answer
// (~7 KB): time per body and its compressed size.
func BenchmarkBodyCodecs(b *testing.B) {
	for _, size := range []string{"7KB", "100B"} {
		body := sampleAnswer()
		if size == "100B" {
			body = body[:100]
		}
		b.Run(size, func(b *testing.B) { benchmarkCodecs(b, body) })
	}
}

func benchmarkCodecs(b *testing.B, body []byte) {
	zfast, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	znoent, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithNoEntropyCompression(true))
	for name, f := range map[string]func([]byte) []byte{
		"zstd-fastest": func(in []byte) []byte { return zfast.EncodeAll(in, nil) },
		"zstd-noent":   func(in []byte) []byte { return znoent.EncodeAll(in, nil) },
		"s2":           func(in []byte) []byte { return s2.Encode(nil, in) },
		"s2-better":    func(in []byte) []byte { return s2.EncodeBetter(nil, in) },
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			var n int
			for b.Loop() {
				n = len(f(body))
			}
			b.ReportMetric(float64(n), "out-bytes")
		})
	}
}
