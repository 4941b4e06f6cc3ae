package catalog

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// This file splits JSON that is already known to be valid (Parse checks the whole
// document once up front) into object members and array elements without copying or
// re-validating it, which makes parsing large generated catalogs several times faster
// than decoding every nesting level with encoding/json.

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string literal that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	default: // number, true, false, null
		for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != ']' && b[i] != '}' {
			i++
		}
		return i
	}
}

// stringValue decodes a JSON string literal; ok is false when raw is not a string.
func stringValue(raw []byte) (s string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	return s, json.Unmarshal(raw, &s) == nil
}

// splitObject returns the members of the valid JSON object raw, and the names that
// occur more than once (the last occurrence wins, as in encoding/json).
func splitObject(raw []byte) (fields map[string]json.RawMessage, dups []string) {
	fields = map[string]json.RawMessage{}
	b := bytes.TrimSpace(raw)
	i := 1
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] == '}' {
			return fields, dups
		}
		end := skipString(b, i)
		name, _ := stringValue(b[i:end])
		i = skipSpace(b, end) + 1 // past ':'
		i = skipSpace(b, i)
		end = skipValue(b, i)
		if _, dup := fields[name]; dup {
			dups = append(dups, name)
		}
		fields[name] = b[i:end]
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
}

// splitArray returns the elements of the valid JSON array raw.
func splitArray(raw []byte) []json.RawMessage {
	var elems []json.RawMessage
	b := bytes.TrimSpace(raw)
	i := 1
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] == ']' {
			return elems
		}
		end := skipValue(b, i)
		elems = append(elems, b[i:end])
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
}
