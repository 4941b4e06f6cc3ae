package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
)

// A body can be valid JSON and still leave its reader to guess what it says. Two such
// guesses are refused rather than made (docs/api-decisions.md, "Bodies are UTF-8" and
// "A field given twice"):
//   - a member name given twice in one object: encoding/json keeps the last, other
//     parsers (a partner's proxy, a gateway that checked the body) the first, so the
//     booking made could differ from the one checked;
//   - a \u escape of half a UTF-16 surrogate pair without its other half: it is no
//     character, and encoding/json would read it as U+FFFD and echo that back.

// ambiguityScanner walks a body json.Valid accepted, keeping the path to the value it is
// in (for the problems' field names) and, per open object, the names seen so far.
type ambiguityScanner struct {
	raw      []byte
	frames   []ambiguityFrame
	names    []span // the names of the open objects, each object's from its frame's start
	problems []string
	// The most frames and names held at once: what to clear before the scanner is reused.
	framesUsed, namesUsed int
}

// span is a quoted JSON string of the body, raw[from:to]. A name with a backslash is
// decoded once, into decoded, and compared as that.
type span struct {
	from, to int
	escaped  bool
	decoded  string
}

type ambiguityFrame struct {
	array    bool
	index    int             // array: the element being read
	name     span            // object: the member being read
	start    int             // object: where its names begin in names
	seen     map[string]bool // object past linearNames names: each name, and whether it was reported
	reported []span          // object of at most linearNames names: the names reported as given twice
}

var scanners = sync.Pool{New: func() any { return new(ambiguityScanner) }}

// linearNames is how many names of one object are compared one by one; an object with
// more (a body may hold 100 000) keeps them in a map.
const linearNames = 32

// moreAmbiguities stands for each problem found once the list holds maxDetails: the
// answer shows only maxDetails and counts the rest (boundedDetails), so a body of 1 MiB
// of repeats under a long path costs a string header each, not a path each.
const moreAmbiguities = "another field given twice or another half surrogate pair"

// appendAmbiguities appends to problems what ambiguityScanner finds in body, which must
// be valid JSON.
func appendAmbiguities(body []byte, problems []string) []string {
	// Scanners are reused, so that the scan of a body of small objects allocates
	// nothing but what it reports.
	s := scanners.Get().(*ambiguityScanner)
	s.raw, s.problems = body, problems
	s.value(skipSpace(body, 0))
	problems = s.problems
	if cap(s.frames) > 64 || cap(s.names) > 4*linearNames { // a deep body's: not kept
		return problems
	}
	clear(s.frames[:s.framesUsed]) // the frames' maps and lists, and the decoded names
	clear(s.names[:s.namesUsed])
	*s = ambiguityScanner{frames: s.frames[:0], names: s.names[:0]}
	scanners.Put(s)
	return problems
}

// report appends the problem what says of the value being read.
func (s *ambiguityScanner) report(what string) {
	if len(s.problems) >= maxDetails {
		s.problems = append(s.problems, moreAmbiguities)
		return
	}
	s.problems = append(s.problems, s.path()+": "+what)
}

// value scans the value at raw[i] and returns the index after it.
func (s *ambiguityScanner) value(i int) int {
	switch s.raw[i] {
	case '{':
		return s.object(i)
	case '[':
		return s.array(i)
	case '"':
		end := skipString(s.raw, i)
		s.checkEscapes(s.raw[i:end])
		return end
	}
	return skipValue(s.raw, i)
}

func (s *ambiguityScanner) object(i int) int {
	s.frames = append(s.frames, ambiguityFrame{start: len(s.names)})
	f := len(s.frames) - 1
	s.framesUsed = max(s.framesUsed, len(s.frames))
	i = skipSpace(s.raw, i+1)
	for s.raw[i] != '}' {
		end := skipString(s.raw, i)
		name := span{from: i, to: end}
		if bytes.IndexByte(s.raw[i:end], '\\') >= 0 {
			name.escaped, name.decoded = true, unquote(s.raw[i:end])
		}
		s.frames[f].name = name
		s.note(f, name)
		i = skipSpace(s.raw, end) + 1 // past the colon
		i = skipSpace(s.raw, s.value(skipSpace(s.raw, i)))
		if s.raw[i] == ',' {
			i = skipSpace(s.raw, i+1)
		}
	}
	s.names = s.names[:s.frames[f].start]
	s.frames = s.frames[:f]
	return i + 1
}

func (s *ambiguityScanner) array(i int) int {
	s.frames = append(s.frames, ambiguityFrame{array: true})
	f := len(s.frames) - 1
	i = skipSpace(s.raw, i+1)
	for s.raw[i] != ']' {
		i = skipSpace(s.raw, s.value(i))
		if s.raw[i] == ',' {
			i = skipSpace(s.raw, i+1)
			s.frames[f].index++
		}
	}
	s.frames = s.frames[:f]
	return i + 1
}

// unquote decodes the valid JSON string quoted.
func unquote(quoted []byte) string {
	var out string
	_ = json.Unmarshal(quoted, &out) // valid JSON: it cannot fail
	return out
}

// name returns the name n stands for. Its escapes are not checked: no field's name
// holds a surrogate, so such a name is already refused as an unknown field.
func (s *ambiguityScanner) name(n span) string {
	if n.escaped {
		return n.decoded
	}
	return string(s.raw[n.from+1 : n.to-1])
}

// same reports whether the names a and b are one, escapes read.
func (s *ambiguityScanner) same(a, b *span) bool {
	switch {
	case !a.escaped && !b.escaped:
		return bytes.Equal(s.raw[a.from:a.to], s.raw[b.from:b.to])
	case a.escaped && b.escaped:
		return a.decoded == b.decoded
	case a.escaped:
		return string(s.raw[b.from+1:b.to-1]) == a.decoded
	}
	return string(s.raw[a.from+1:a.to-1]) == b.decoded
}

func (s *ambiguityScanner) among(list []span, n span) bool {
	for i := range list {
		m := &list[i]
		if !m.escaped && !n.escaped && m.to-m.from != n.to-n.from {
			continue // most names differ in length: no bytes to compare
		}
		if s.same(m, &n) {
			return true
		}
	}
	return false
}

// note records name n in object frame f, and reports it the first time it is given
// twice.
func (s *ambiguityScanner) note(f int, n span) {
	fr := &s.frames[f]
	if fr.seen != nil {
		name := s.name(n)
		reported, dup := fr.seen[name]
		if dup && !reported {
			s.report("given more than once in its object; send each field once")
		}
		fr.seen[name] = dup
		return
	}
	dup := s.among(s.names[fr.start:], n)
	s.names = append(s.names, n)
	s.namesUsed = max(s.namesUsed, len(s.names))
	if dup && !s.among(fr.reported, n) {
		fr.reported = append(fr.reported, n)
		s.report("given more than once in its object; send each field once")
	}
	if len(s.names)-fr.start > linearNames {
		fr.seen = make(map[string]bool, 2*linearNames)
		for _, m := range s.names[fr.start:] {
			fr.seen[s.name(m)] = s.among(fr.reported, m)
		}
		s.names = s.names[:fr.start]
	}
}

// checkEscapes reports the quoted JSON string quoted when one of its \u escapes is half
// of a surrogate pair without its other half.
func (s *ambiguityScanner) checkEscapes(quoted []byte) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return
	}
	for i := 1; i < len(quoted)-1; i++ {
		if quoted[i] != '\\' {
			continue
		}
		i++
		if quoted[i] != 'u' {
			continue
		}
		r := hex4(quoted[i+1 : i+5])
		i += 4
		if !utf16.IsSurrogate(r) {
			continue
		}
		// A high half followed by the escape of a low one is a pair: one character.
		if i+6 < len(quoted) && quoted[i+1] == '\\' && quoted[i+2] == 'u' &&
			utf16.DecodeRune(r, hex4(quoted[i+3:i+7])) != unicode.ReplacementChar {
			i += 6
			continue
		}
		s.report(fmt.Sprintf(`holds the escape \u%04x, half of a UTF-16 surrogate pair without its other half; send the character itself or both halves`, r))
		return
	}
}

// hex4 reads four hexadecimal digits (valid JSON: they are).
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		default:
			r |= rune(c-'A') + 10
		}
	}
	return r
}

// path names the value being read as decodeObject's problems do: "guest.first_name",
// "travellers[1].age". decodeBody scans objects only, so a path is never empty. A path
// is cut at maxDetailBytes, what an answer shows, before a long name is copied whole.
func (s *ambiguityScanner) path() string {
	var b strings.Builder
	write := func(text string) bool {
		room := maxDetailBytes - b.Len()
		if len(text) > room {
			b.WriteString(truncateText(text, max(room, 0)))
			return false
		}
		b.WriteString(text)
		return true
	}
	for _, f := range s.frames {
		var ok bool
		switch {
		case f.array:
			ok = write("[" + strconv.Itoa(f.index) + "]")
		case b.Len() == 0:
			ok = write(s.shortName(f.name))
		default:
			ok = write(".") && write(s.shortName(f.name))
		}
		if !ok {
			break
		}
	}
	return b.String()
}

// shortName is name(n), of at most maxDetailBytes+1 bytes read: enough for path to
// see that it must cut it, without copying a name of a megabyte.
func (s *ambiguityScanner) shortName(n span) string {
	if n.escaped {
		return n.decoded
	}
	return string(s.raw[n.from+1 : min(n.to-1, n.from+2+maxDetailBytes)])
}
