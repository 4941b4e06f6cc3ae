package sqlstore

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// A batch's compressed bodies stay intact when the arena outgrows its buffer midway.
func TestBodyArenaKeepsEarlierBodies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var a bodyArena
	var in, out [][]byte
	for i := range 400 { // incompressible 7 KB bodies: about 2.8 MB, past several buffers
		body := make([]byte, 7000+i)
		for j := range body {
			body[j] = byte(r.Uint32())
		}
		in = append(in, body)
		out = append(out, a.encode(body))
	}
	for i := range in {
		got, err := DecodeRequestLogBody(bodyEncodingS2, out[i])
		if err != nil || !bytes.Equal(got, in[i]) {
			t.Fatalf("body %d: %v, equal %v", i, err, bytes.Equal(got, in[i]))
		}
	}
}
