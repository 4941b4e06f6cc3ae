package httpapi

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadBodyAsReadAll checks that readBody reads what io.ReadAll reads, with the same
// error, whatever the declared length says of the body.
func TestReadBodyAsReadAll(t *testing.T) {
	boom := errors.New("boom")
	for _, body := range []string{"", "{}", `{"hotel_id":1}`, strings.Repeat("x", 511), strings.Repeat("y", 513), strings.Repeat("z", 5000)} {
		for _, declared := range []int64{-1, 0, 1, int64(len(body)) - 1, int64(len(body)), int64(len(body)) + 1, 4 * int64(len(body)), MaxBodyBytes + 1} {
			readers := map[string]func() io.Reader{
				"plain":    func() io.Reader { return strings.NewReader(body) },
				"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) },
				"data+err": func() io.Reader { return iotest.DataErrReader(strings.NewReader(body)) },
				"fails":    func() io.Reader { return io.MultiReader(strings.NewReader(body), iotest.ErrReader(boom)) },
			}
			for name, rd := range readers {
				got, gotErr := readBody(rd(), declared)
				want, wantErr := io.ReadAll(rd())
				if !bytes.Equal(got, want) || !errors.Is(gotErr, wantErr) || (gotErr == nil) != (wantErr == nil) {
					t.Errorf("%s, %d bytes declared %d: got %d bytes, %v; want %d bytes, %v", name, len(body), declared, len(got), gotErr, len(want), wantErr)
				}
			}
		}
	}
}
