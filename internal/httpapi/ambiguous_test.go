package httpapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tradewind/tradewind/internal/booking"
)

const (
	twice = ": given more than once in its object; send each field once"
	half  = ", half of a UTF-16 surrogate pair without its other half; send the character itself or both halves"
)

func TestAmbiguities(t *testing.T) {
	cases := []struct {
		body string
		want []string
	}{
		{`{"destination":"Lisbon","adults":2}`, nil},
		{`{"destination":"Lisbon","destination":"Porto"}`, []string{"destination" + twice}},
		{`{"a":1,"a":2,"a":3,"b":1,"b":[]}`, []string{"a" + twice, "b" + twice}},
		// An escaped name is the name it stands for.
		{`{"destin\u0061tion":"Lisbon","destination":"Porto"}`, []string{"destination" + twice}},
		// The same name in two objects, or in an object and its parent, is no repeat.
		{`{"guest":{"name":"A"},"name":"B","travellers":[{"name":"C"},{"name":"D"}]}`, nil},
		{`{"guest":{"name":"A","name":"B"}}`, []string{"guest.name" + twice}},
		{`{"travellers":[{"age":3},{"age":3,"x":[1,{"age":1}],"age":4}]}`, []string{"travellers[1].age" + twice}},
		{`{"x":[[1,2],[3,{"k":1,"k":2}]]}`, []string{"x[1][1].k" + twice}},
		// Surrogates: a pair is a character; half of one is not.
		{`{"destination":"\ud83d\ude00 Lisbon","n":"\uD83D\uDE00"}`, nil},
		{`{"destination":"\ud800Lisbon"}`, []string{`destination: holds the escape \ud800` + half}},
		{`{"destination":"Lisbon\udc00"}`, []string{`destination: holds the escape \udc00` + half}},
		{`{"destination":"\ud83d\u0041"}`, []string{`destination: holds the escape \ud83d` + half}},
		{`{"destination":"\ud83d"}`, []string{`destination: holds the escape \ud83d` + half}},
		{`{"destination":"\\ud800 is text, not an escape","g":{"n":["a","\uDBFF"]}}`, []string{`g.n[1]: holds the escape \udbff` + half}},
		{`{"destination":"\"\u00e9\\"}`, nil},
	}
	for _, c := range cases {
		if !json.Valid([]byte(c.body)) {
			t.Fatalf("not JSON: %s", c.body)
		}
		if got := appendAmbiguities([]byte(c.body), nil); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.body, got, c.want)
		}
	}
}

// TestAmbiguitiesManyMembers: an object past linearNames members keeps its names in a
// map, and still finds a repeat (a body of 1 MiB may hold 100 000 names: comparing each
// with every other would take minutes).
func TestAmbiguitiesManyMembers(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"inner":{"k0":0`)
	for i := 1; i < 100_000; i++ {
		fmt.Fprintf(&b, `,"k%d":%d`, i, i)
	}
	b.WriteString(`,"k5":1,"k99999":2},"k5":3}`)
	got := appendAmbiguities([]byte(b.String()), nil)
	if want := []string{"inner.k5" + twice, "inner.k99999" + twice}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestAmbiguitiesBounded: a body of 1 MiB makes no more than a string header a problem
// past the answer's maxDetails, and no path longer than an answer shows: a long name
// over many repeats, or many repeats deep down, must not cost a path each.
func TestAmbiguitiesBounded(t *testing.T) {
	long := `{"` + strings.Repeat("n", 64<<10) + `":[` + strings.Repeat(`"\ud800",`, 100_000) + `"\ud800"]}`
	got := appendAmbiguities([]byte(long), nil)
	if len(got) != 100_001 {
		t.Fatalf("%d problems, want 100001", len(got))
	}
	size := 0
	for i, p := range got {
		if i >= maxDetails && p != moreAmbiguities {
			t.Fatalf("problem %d is %.80q, want the shared placeholder", i, p)
		}
		size += len(p)
	}
	if perShown := size / len(got); perShown > 100 {
		t.Errorf("%d bytes of problems for %d problems", size, len(got))
	}
	if p := got[0]; len(p) > maxDetailBytes+200 || !strings.HasSuffix(p, half) {
		t.Errorf("first problem %d bytes: %.80q…", len(p), p)
	}
	// A name of a megabyte over the problems shown is not copied for each of them.
	huge := []byte(`{"` + strings.Repeat("n", 1000<<10) + `":[` + strings.Repeat(`"\ud800",`, 49) + `"\ud800"]}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got = appendAmbiguities(huge, nil)
	runtime.ReadMemStats(&after)
	if len(got) != 50 || len(got[0]) > maxDetailBytes+200 {
		t.Errorf("%d problems, the first of %d bytes", len(got), len(got[0]))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4*uint64(len(huge)) {
		t.Errorf("the scan of a %d-byte body allocated %d bytes", len(huge), n)
	}
	// Many names, each given twice, escaped or not: one problem each.
	var b strings.Builder
	b.WriteString(`{"x":{`)
	for round := range 2 {
		for i := range 8000 {
			if round+i > 0 {
				b.WriteByte(',')
			}
			if i%2 == 0 {
				fmt.Fprintf(&b, `"\u0061%d":0`, i)
			} else {
				fmt.Fprintf(&b, `"a%d":0`, i)
			}
		}
	}
	b.WriteString(`}}`)
	if got := appendAmbiguities([]byte(b.String()), nil); len(got) != 8000 || got[0] != "x.a0"+twice {
		t.Errorf("%d problems, first %q; want 8000, x.a0 first", len(got), got[0])
	}
}

// FuzzAmbiguities compares the repeats found with encoding/json's reading of the names,
// object by object, and checks that a body is refused for a lone surrogate exactly when
// encoding/json would read one of its strings as U+FFFD without the body holding it.
func FuzzAmbiguities(f *testing.F) {
	for _, body := range []string{`{"a":1,"a":2}`, `{"a":{"b":[{"c":1,"c":2}]}}`, `{"\u0061":1,"a":2}`, `{"s":"\ud800"}`, `{"s":"\ud83d\ude00"}`} {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		// decodeBody scans only objects it found valid JSON and UTF-8.
		if !json.Valid([]byte(body)) || !utf8.ValidString(body) || !strings.HasPrefix(strings.TrimLeft(body, " \t\r\n"), "{") {
			return
		}
		got := appendAmbiguities([]byte(body), nil)
		if len(got) > maxDetails { // the rest are placeholders (TestAmbiguitiesBounded)
			return
		}
		repeats, lone := refAmbiguities(t, body)
		gotRepeats, gotLone := 0, false
		for _, p := range got {
			switch {
			case strings.HasSuffix(p, twice):
				gotRepeats++
			case strings.HasSuffix(p, half):
				gotLone = true
			default:
				t.Fatalf("unexpected problem %q", p)
			}
		}
		if gotRepeats != repeats || gotLone != lone {
			t.Errorf("%q: got %q; want %d names repeated, lone surrogate %v", body, got, repeats, lone)
		}
	})
}

// refAmbiguities counts, with encoding/json's decoder, the names repeated in each object
// of body, and tells whether a string value of it decodes to more U+FFFD than it holds,
// raw or escaped as \ufffd: encoding/json reads half a surrogate pair as U+FFFD.
func refAmbiguities(t *testing.T, body string) (repeats int, lone bool) {
	dec := json.NewDecoder(strings.NewReader(body))
	type obj struct {
		seen, reported map[string]bool
		wantName       bool
	}
	var stack []*obj
	for {
		from := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return repeats, lone
		}
		top := (*obj)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			if top != nil && top.seen != nil {
				top.wantName = true
			}
			switch v {
			case '{':
				stack = append(stack, &obj{seen: map[string]bool{}, reported: map[string]bool{}, wantName: true})
			case '[':
				stack = append(stack, &obj{})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.seen != nil && top.wantName {
				if top.seen[v] && !top.reported[v] {
					top.reported[v] = true
					repeats++
				}
				top.seen[v] = true
				top.wantName = false
				continue
			}
			raw := body[from:dec.InputOffset()]
			if strings.Count(v, "\uFFFD") > strings.Count(raw, "\uFFFD")+escapedFFFD(raw) {
				lone = true
			}
		}
		if top != nil && top.seen != nil {
			top.wantName = true
		}
	}
}

// escapedFFFD counts the escapes \ufffd in the raw JSON text raw.
func escapedFFFD(raw string) int {
	n := 0
	for i := 0; i < len(raw)-1; i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] == 'u' && strings.EqualFold(raw[i+2:i+6], "fffd") {
			n++
		}
		i++
	}
	return n
}

// BenchmarkAmbiguities measures the scan beside the decoding it follows, on a booking's
// body: go test -run XXX -bench Ambiguities ./internal/httpapi/
func BenchmarkAmbiguities(b *testing.B) {
	body := []byte(`{"product_type":"hotel","hotel_id":1001,"room_id":1,"check_in":"2027-03-01","check_out":"2027-03-04","rooms":1,"adults":2,` +
		`"guest":{"name":"Ana Silva","email":"ana@example.com","phone":"+351 21 000 0000"},"partner_reference":"PO-88121"}`)
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var req booking.BookRequest
			var problems []string
			decodeObject(body, reflect.ValueOf(&req).Elem(), "", &problems, json.Valid(body))
		}
	})
	b.Run("ambiguities", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			appendAmbiguities(body, nil)
		}
	})
}
