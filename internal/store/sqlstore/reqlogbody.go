package sqlstore

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"

	"github.com/tradewind/tradewind/internal/store"
)

// Request log bodies are stored s2-compressed (column body_encoding 's2') when the
// entry's bodies together reach bodyCompressMin bytes: a search answer of ~7 KB becomes
// ~1.4 KB, so that the batch writer writes (WAL, pages, checkpoints) a
// fraction of the bytes. Rows written before migration 00017, and small ones, keep
// their bodies as captured (body_encoding empty). Reads decompress, so that no caller
// sees the encoding.
const (
	bodyEncodingNone = ""
	bodyEncodingS2   = "s2"
	bodyCompressMin  = 512
)

// s2 rather than zstd: on a 7 KB search answer, s2 costs ~8 400 instructions against
// ~150 000 for zstd's fastest level (with or without entropy coding), for 1 362 bytes
// against 635-832 (BenchmarkBodyCodecs, counted with callgrind).

// encodeRequestLogBodies returns the entry's bodies as stored and their encoding; the
// compressed ones are in arena.
func encodeRequestLogBodies(e *store.RequestLogEntry, arena *bodyArena) (req, resp []byte, encoding string) {
	if len(e.RequestBody)+len(e.ResponseBody) < bodyCompressMin {
		return nonNil(e.RequestBody), nonNil(e.ResponseBody), bodyEncodingNone
	}
	return arena.encode(e.RequestBody), arena.encode(e.ResponseBody), bodyEncodingS2
}

// bodyArena holds a batch's compressed bodies, so that a batch allocates once for all
// of them rather than once per body (the writer's garbage is the API's garbage
// collection). Its slices stay valid until reset.
type bodyArena struct{ buf []byte }

var bodyArenas = sync.Pool{New: func() any { return &bodyArena{buf: make([]byte, 0, 1<<20)} }}

func (a *bodyArena) encode(src []byte) []byte {
	need := s2.MaxEncodedLen(len(src))
	if need < 0 {
		need = len(src) + len(src)/4 + 64 // too long for s2's own bound: never for a log body
	}
	if cap(a.buf)-len(a.buf) < need {
		// A new buffer: the slices already handed out keep the old one.
		a.buf = make([]byte, 0, max(2*cap(a.buf), need))
	}
	out := s2.Encode(a.buf[len(a.buf):len(a.buf)+need], src)
	a.buf = a.buf[:len(a.buf)+len(out)]
	return out
}

func (a *bodyArena) reset() { a.buf = a.buf[:0] }

// DecodeRequestLogBody returns a stored body as it was captured (redacted), given the
// row's body_encoding. Tests read the raw table with it.
func DecodeRequestLogBody(encoding string, b []byte) ([]byte, error) {
	switch encoding {
	case bodyEncodingNone:
		return b, nil
	case bodyEncodingS2:
		// A body is at most a little more than 64 KB (redaction may lengthen it): a
		// corrupt length prefix does not make Decode allocate more.
		if n, err := s2.DecodedLen(b); err != nil || n > 1<<20 {
			return nil, fmt.Errorf("%w: request log body: length %d, %v", store.ErrCorrupt, n, err)
		}
		out, err := s2.Decode(nil, b)
		if err != nil {
			return nil, fmt.Errorf("%w: request log body: %v", store.ErrCorrupt, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: request log body encoding %q", store.ErrCorrupt, encoding)
}
