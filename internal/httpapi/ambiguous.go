package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
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
}

// span is a quoted JSON string of the body, raw[from:to]; escaped tells that it holds a
// backslash, so that the name it stands for must be decoded to be compared.
type span struct {
	from, to int
	escaped  bool
}

type ambiguityFrame struct {
	array    bool
	index    int  // array: the element being read
	name     span // object: the member being read
	start    int  // object: where its names begin in names
	seen     map[string]struct{}
	reported []span // object: the names already reported as given twice
}

var scanners = sync.Pool{New: func() any { return new(ambiguityScanner) }}

// linearNames is how many names of one object are compared one by one; an object with
// more (a body may hold 100 000) keeps them in a map.
const linearNames = 32

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
	*s = ambiguityScanner{frames: s.frames[:0], names: s.names[:0]}
	scanners.Put(s)
	return problems
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
	i = skipSpace(s.raw, i+1)
	for s.raw[i] != '}' {
		end := skipString(s.raw, i)
		name := span{i, end, bytes.IndexByte(s.raw[i:end], '\\') >= 0}
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

// name returns the name the quoted JSON string n stands for. Its escapes are not
// checked: no field's name holds a surrogate, so such a name is already refused as an
// unknown field.
func (s *ambiguityScanner) name(n span) string {
	quoted := s.raw[n.from:n.to]
	if !n.escaped {
		return string(quoted[1 : len(quoted)-1])
	}
	var name string
	_ = json.Unmarshal(quoted, &name) // valid JSON: it cannot fail
	return name
}

// same reports whether the names a and b are one, escapes read.
func (s *ambiguityScanner) same(a, b span) bool {
	if !a.escaped && !b.escaped {
		return bytes.Equal(s.raw[a.from:a.to], s.raw[b.from:b.to])
	}
	return s.name(a) == s.name(b)
}

func (s *ambiguityScanner) among(list []span, n span) bool {
	for _, m := range list {
		if s.same(m, n) {
			return true
		}
	}
	return false
}

// note records name n in object frame f, and reports it the first time it is given
// twice.
func (s *ambiguityScanner) note(f int, n span) {
	fr := &s.frames[f]
	dup := false
	switch {
	case fr.seen != nil:
		name := s.name(n)
		_, dup = fr.seen[name]
		fr.seen[name] = struct{}{}
	default:
		dup = s.among(s.names[fr.start:], n)
		s.names = append(s.names, n)
		if len(s.names)-fr.start > linearNames {
			fr.seen = make(map[string]struct{}, 2*linearNames)
			for _, m := range s.names[fr.start:] {
				fr.seen[s.name(m)] = struct{}{}
			}
			s.names = s.names[:fr.start]
		}
	}
	if !dup || s.among(fr.reported, n) {
		return
	}
	fr.reported = append(fr.reported, n)
	s.problems = append(s.problems, s.path()+": given more than once in its object; send each field once")
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
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if i+6 < len(quoted) && quoted[i+1] == '\\' && quoted[i+2] == 'u' {
				if low := hex4(quoted[i+3 : i+7]); low >= 0xDC00 && low <= 0xDFFF {
					i += 6
					continue
				}
			}
		case r < 0xDC00 || r > 0xDFFF:
			continue
		}
		s.problems = append(s.problems, fmt.Sprintf(`%s: holds the escape \u%04x, half of a UTF-16 surrogate pair without its other half; send the character itself or both halves`,
			s.path(), r))
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
// "travellers[1].age". decodeBody scans objects only, so a path is never empty.
func (s *ambiguityScanner) path() string {
	var b strings.Builder
	for _, f := range s.frames {
		switch {
		case f.array:
			fmt.Fprintf(&b, "[%d]", f.index)
		case b.Len() == 0:
			b.WriteString(s.name(f.name))
		default:
			b.WriteByte('.')
			b.WriteString(s.name(f.name))
		}
	}
	return b.String()
}
