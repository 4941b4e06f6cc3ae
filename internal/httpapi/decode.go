package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tradewind/tradewind"
)

// checkContentType refuses a body that is not declared application/json, a missing
// Content-Type included (docs/api-decisions.md); a request without a body needs none.
func checkContentType(r *http.Request, body []byte) error {
	if len(body) == 0 {
		return nil
	}
	if err := oneHeader(r.Header, hdrContentType); err != nil {
		return err
	}
	// A compressed body would otherwise fail as "not UTF-8", which says nothing of why.
	if ce := headerGet(r.Header, hdrContentEnc); ce != "" && !strings.EqualFold(ce, "identity") {
		return tradewind.Invalid([]string{fmt.Sprintf("Content-Encoding: %.40q is not accepted; send the body uncompressed", ce)})
	}
	ct := headerGet(r.Header, hdrContentType)
	if ct == "application/json" { // what ParseMediaType accepts below, without its parameter map
		return nil
	}
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return tradewind.Invalid([]string{"Content-Type: send application/json with a body"})
	}
	return nil
}

// decodeBody decodes a JSON object into dst (a pointer to a struct) field by field, so
// that every unknown field and every value of the wrong type is reported at once, each
// naming its field. An empty body decodes as {} when allowEmpty.
func decodeBody(r *http.Request, body []byte, dst any, allowEmpty bool) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		if allowEmpty {
			return nil
		}
		return tradewind.Invalid([]string{"body: a JSON object is required"})
	}
	if string(trimmed) == "null" { // encoding/json would read it as {}
		return tradewind.Invalid([]string{"body: must be a JSON object"})
	}
	if bytes.HasPrefix(body, []byte("\uFEFF")) { // else "invalid character 'ï'"
		return tradewind.Invalid([]string{"body: starts with a byte order mark (U+FEFF); send the JSON text without one (RFC 8259, 8.1)"})
	}
	// JSON is UTF-8 (RFC 8259, 8.1); encoding/json would store a broken byte as U+FFFD
	// and echo it back, so the sender would never learn that its text was mangled.
	if !utf8.Valid(body) {
		return tradewind.Invalid([]string{"body: must be UTF-8 text; it holds bytes that are not"})
	}
	var problems []string
	valid := json.Valid(body)
	decodeObject(body, reflect.ValueOf(dst).Elem(), "", &problems, valid)
	if valid && !wholeBodyFailed(problems) {
		problems = appendAmbiguities(body, problems)
	}
	// No text anywhere may hold U+0000: no database stores it, and it is never meant. In
	// valid JSON a string holds it only as the escape \u0000 (a raw control byte is a
	// syntax error), so a body without that text is not decoded a second time.
	if valid && !wholeBodyFailed(problems) && bytes.Contains(body, []byte(`\u0000`)) {
		var v any
		if json.Unmarshal(body, &v) == nil {
			findNUL(v, "", &problems)
		}
	}
	return tradewind.Invalid(problems)
}

// decodeChecked is decodeBody followed, when some fields of the JSON object failed to
// decode, by check: the endpoint's rule checks, run on the fields that did decode. The
// answer then lists every problem of the body at once (decisions.md: "Validation errors
// list every problem"), not the decoding's first and the rules' on the next try. A rule
// problem about a field that failed to decode is left out: "adults: must be an integer"
// is the problem, not the "adults" rule's view of the zero left in its place. check
// must change nothing (a search, a read, a validation): the body is not run, only
// checked, since it is answered 400 whatever check says (or, when check refuses the
// body's product_type as one the key does not enable, that 403, which comes first).
func decodeChecked(r *http.Request, body []byte, dst any, check func() error) error {
	err := decodeBody(r, body, dst, false)
	var decoded *tradewind.Error
	if err == nil || !errors.As(err, &decoded) || wholeBodyFailed(decoded.Details) {
		return err
	}
	var rules *tradewind.Error
	checked := check()
	switch {
	case errors.As(checked, &rules) && rules.Code == tradewind.ECodeProductNotEnabled:
		return checked // a product_type the key does not enable is refused before the body's problems
	case rules == nil || rules.Code != tradewind.ECodeBadRequest:
		return err
	}
	all := slices.Clip(decoded.Details)
	for _, d := range rules.Details {
		if !slices.Contains(all, d) && !aboutFieldOf(d, decoded.Details) {
			all = append(all, d)
		}
	}
	return tradewind.Invalid(all)
}

// wholeBodyFailed reports whether decoding failed for the body as a whole (not JSON,
// not an object): then no field decoded, and no rule has anything to check.
func wholeBodyFailed(problems []string) bool {
	return slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, "body:") })
}

// aboutFieldOf reports whether problem names a field (or a part of one) that one of the
// decoding's problems names: "hotel_id is required" and "guest.name: …" are about
// "hotel_id: must be an integer" and "guest: must be an object".
func aboutFieldOf(problem string, decoding []string) bool {
	for _, d := range decoding {
		field, _, ok := strings.Cut(d, ": ")
		if !ok {
			continue
		}
		if rest, ok := strings.CutPrefix(problem, field); ok && (rest == "" || strings.ContainsAny(rest[:1], ": .[")) {
			return true
		}
	}
	return false
}

// findNUL lists the fields whose strings contain U+0000.
func findNUL(v any, path string, problems *[]string) {
	switch x := v.(type) {
	case string:
		if strings.ContainsRune(x, 0) {
			*problems = append(*problems, strings.TrimPrefix(path, ".")+": must not contain the NUL character")
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			findNUL(x[k], path+"."+k, problems)
		}
	case []any:
		for i, e := range x {
			findNUL(e, fmt.Sprintf("%s[%d]", path, i), problems)
		}
	}
}

// member is one name and raw value of a JSON object.
type member struct{ name, val []byte }

// maxScannedMembers is the most members decodeObject finds itself (on the stack); an
// object with more is decoded through a map.
const maxScannedMembers = 16

// decodeObject decodes the JSON object raw into struct v, field by field, in the order
// of the names. valid tells that raw is known to be valid JSON (a body json.Valid
// accepted, or a value inside one): then an object whose names are plain ASCII without
// escapes and appear once is split by scanMembers, without a map or a copy; any other
// goes through json.Unmarshal into a map, which also words the syntax errors.
func decodeObject(raw []byte, v reflect.Value, prefix string, problems *[]string, valid bool) {
	var buf [maxScannedMembers]member
	var members []member
	ok := false
	if valid {
		members, ok = scanMembers(raw, buf[:0])
	}
	if !ok {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			var syn *json.SyntaxError
			switch {
			case prefix == "" && asSyntax(err, &syn):
				*problems = append(*problems, fmt.Sprintf("body: malformed JSON at byte %d: %s", syn.Offset, syn.Error()))
			case prefix == "":
				*problems = append(*problems, "body: must be a JSON object")
			default:
				*problems = append(*problems, strings.TrimSuffix(prefix, ".")+": must be an object")
			}
			return
		}
		members = buf[:0]
		for _, name := range sortedKeys(fields) {
			members = append(members, member{name: []byte(name), val: fields[name]})
		}
	}
	known := fieldsOf(v.Type())
	for _, m := range members {
		idx, ok := known[string(m.name)]
		if !ok {
			*problems = append(*problems, prefix+string(m.name)+": unknown field")
			continue
		}
		val := m.val
		if string(val) == "null" {
			continue
		}
		target := v.FieldByIndex(idx)
		if target.Kind() == reflect.Pointer && target.Type().Elem().Kind() == reflect.Struct {
			if target.IsNil() {
				target.Set(reflect.New(target.Type().Elem()))
			}
			decodeObject(val, target.Elem(), prefix+string(m.name)+".", problems, true)
			continue
		}
		if target.Kind() == reflect.Slice && target.Type().Elem().Kind() == reflect.Struct {
			decodeArray(val, target, prefix+string(m.name), problems)
			continue
		}
		if t := target.Type(); t.Kind() == reflect.Slice && (t.Elem() == intType || t.Elem() == int64Type) {
			decodeIntList(val, target, prefix+string(m.name), problems)
			continue
		}
		if decodePlain(val, target) {
			continue
		}
		decodeValue(val, target, prefix+string(m.name), problems)
	}
}

// scanMembers appends the members of the valid JSON value raw to dst, sorted by name,
// and reports whether it could: raw is an object of at most maxScannedMembers members
// whose names are ASCII without escapes, each appearing once (json.Unmarshal into a map
// would keep the last of two; this leaves that, and the other cases, to it).
func scanMembers(raw []byte, dst []member) ([]member, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	i = skipSpace(raw, i+1)
	if raw[i] == '}' {
		return dst, true
	}
	for {
		// raw[i] is the opening quote of a name.
		j := i + 1
		for raw[j] != '"' {
			if raw[j] == '\\' || raw[j] >= utf8.RuneSelf {
				return nil, false
			}
			j++
		}
		name := raw[i+1 : j]
		i = skipSpace(raw, j+1) + 1 // past the colon
		i = skipSpace(raw, i)
		end := skipValue(raw, i)
		if len(dst) == maxScannedMembers {
			return nil, false
		}
		for _, m := range dst {
			if bytes.Equal(m.name, name) {
				return nil, false
			}
		}
		dst = append(dst, member{name: name, val: raw[i:end]})
		i = skipSpace(raw, end)
		if raw[i] == '}' {
			break
		}
		i = skipSpace(raw, i+1) // past the comma
	}
	// Insertion sort: a request has a handful of members.
	for a := 1; a < len(dst); a++ {
		for b := a; b > 0 && bytes.Compare(dst[b].name, dst[b-1].name) < 0; b-- {
			dst[b], dst[b-1] = dst[b-1], dst[b]
		}
	}
	return dst, true
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the valid JSON value that starts at raw[i].
func skipValue(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return skipString(raw, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch raw[i] {
			case '"':
				i = skipString(raw, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(raw) {
		switch raw[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString returns the end of the valid JSON string that starts at raw[i].
func skipString(raw []byte, i int) int {
	for i++; raw[i] != '"'; i++ {
		if raw[i] == '\\' {
			i++
		}
	}
	return i + 1
}

var (
	stringType = reflect.TypeFor[string]()
	intType    = reflect.TypeFor[int]()
	int64Type  = reflect.TypeFor[int64]()
	intPtrType = reflect.TypeFor[*int]()
)

// decodePlain decodes the valid JSON value val into target when it is what most request
// fields hold, and answers as json.Unmarshal would: a string without escapes (valid
// UTF-8) into a string, an integer in range into an int, int64 or a nil *int. It reports
// false, having set nothing, for anything else, which json.Unmarshal then decodes.
func decodePlain(val []byte, target reflect.Value) bool {
	switch t := target.Type(); t {
	case stringType:
		if len(val) < 2 || val[0] != '"' {
			return false
		}
		s := val[1 : len(val)-1]
		if bytes.IndexByte(s, '\\') >= 0 || !utf8.Valid(s) {
			return false
		}
		target.SetString(string(s))
		return true
	case intType, int64Type, intPtrType:
		if t == intPtrType && !target.IsNil() {
			return false
		}
		if len(val) == 0 || (val[0] != '-' && (val[0] < '0' || val[0] > '9')) || bytes.ContainsAny(val, ".eE") {
			return false
		}
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil {
			return false
		}
		if t == intPtrType {
			p := new(int)
			*p = int(n)
			target.Set(reflect.ValueOf(p))
			return true
		}
		target.SetInt(n)
		return true
	}
	return false
}

// decodeValue decodes the valid JSON value val into target with json.Unmarshal, and an
// integer written as a number with a fraction or an exponent (2.0, 1e3: integers to
// JSON Schema, which the OpenAPI document's "integer" follows) into an integer field.
// It words the problem of a value of the wrong type, and of an integer beyond range.
func decodeValue(val []byte, target reflect.Value, field string, problems *[]string) {
	switch n, state := integral(val); {
	case state == notIntegral || !isIntTarget(target):
	case state == outOfRange:
		*problems = append(*problems, fmt.Sprintf("%s: %s is out of range", field, truncateText(string(val), 40)))
		return
	case target.Type() == intPtrType:
		p := new(int)
		*p = int(n)
		target.Set(reflect.ValueOf(p))
		return
	default:
		target.SetInt(n)
		return
	}
	if err := json.Unmarshal(val, target.Addr().Interface()); err != nil {
		*problems = append(*problems, fmt.Sprintf("%s: must be %s", field, describe(target.Type())))
	}
}

// decodeIntList decodes a list of integers (child_ages, addon_ids) element by element,
// as a single integer field is read (integral: 2, 2.0 and 2E0 are 2), each problem
// naming its index. encoding/json would read a null element as 0, an age or id that
// was never sent.
func decodeIntList(val []byte, target reflect.Value, field string, problems *[]string) {
	var elems []json.RawMessage
	if err := json.Unmarshal(val, &elems); err != nil {
		*problems = append(*problems, fmt.Sprintf("%s: must be %s", field, describe(target.Type())))
		return
	}
	out := reflect.MakeSlice(target.Type(), len(elems), len(elems))
	for i, e := range elems {
		switch n, state := integral(e); state {
		case isIntegral:
			out.Index(i).SetInt(n)
		case outOfRange:
			*problems = append(*problems, fmt.Sprintf("%s[%d]: %s is out of range", field, i, truncateText(string(e), 40)))
		default:
			*problems = append(*problems, fmt.Sprintf("%s[%d]: must be an integer", field, i))
		}
	}
	target.Set(out)
}

func isIntTarget(target reflect.Value) bool {
	switch target.Type() {
	case intType, int64Type, intPtrType:
		return true
	}
	return false
}

// What integral found of a JSON value.
const (
	notIntegral = iota // not a number, or one with a fraction: for json.Unmarshal to refuse
	isIntegral
	outOfRange
)

// integral reads the valid JSON value val as an integer, from its decimal text (a
// float64 would round 2.9999999999999999 to 3): a number is integral when the digits its
// exponent leaves after the point are all 0, and out of range past int64.
func integral(val []byte) (int64, int) {
	if len(val) == 0 || (val[0] != '-' && (val[0] < '0' || val[0] > '9')) {
		return 0, notIntegral
	}
	neg, num := val[0] == '-', val
	if neg {
		num = val[1:]
	}
	mant, exp := num, 0
	if i := bytes.IndexAny(num, "eE"); i >= 0 {
		mant = num[:i]
		e, err := strconv.Atoi(strings.TrimPrefix(string(num[i+1:]), "+"))
		if err != nil || e > 1000 || e < -1000 { // a number so far from 1 is no count or id
			e = max(min(e, 1001), -1001)
		}
		exp = e
	}
	intPart, frac, _ := bytes.Cut(mant, []byte("."))
	all := string(intPart) + string(frac)
	digits := strings.TrimLeft(all, "0")
	point := len(intPart) + exp - (len(all) - len(digits)) // where the decimal point falls in digits
	switch {
	case digits == "":
		return 0, isIntegral // 0, -0.0, 0e5
	case point < len(digits) && strings.Trim(digits[max(point, 0):], "0") != "":
		return 0, notIntegral // 2.5, 1e-400
	case point > 19:
		return 0, outOfRange
	}
	if point < len(digits) {
		digits = digits[:point]
	} else {
		digits += strings.Repeat("0", point-len(digits))
	}
	if neg {
		digits = "-" + digits
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, outOfRange
	}
	return n, isIntegral
}

// decodeArray decodes a JSON array of objects into slice v element by element, so that
// problems name their index ("travellers[1].age: unknown field").
func decodeArray(raw []byte, v reflect.Value, path string, problems *[]string) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		*problems = append(*problems, path+": must be an array of objects")
		return
	}
	out := reflect.MakeSlice(v.Type(), len(elems), len(elems))
	for i, e := range elems {
		decodeObject(e, out.Index(i), fmt.Sprintf("%s[%d].", path, i), problems, true)
	}
	v.Set(out)
}

func asSyntax(err error, syn **json.SyntaxError) bool {
	s, ok := err.(*json.SyntaxError)
	*syn = s
	return ok
}

// structFields caches fieldsOf: reflect.Type → map[string][]int.
var structFields sync.Map

// fieldsOf maps the json names of struct type t to the index paths of its settable
// fields, embedded structs' included (a later field of a name wins, as it always did).
func fieldsOf(t reflect.Type) map[string][]int {
	if f, ok := structFields.Load(t); ok {
		return f.(map[string][]int)
	}
	out := map[string][]int{}
	collectFields(t, nil, out)
	structFields.Store(t, out)
	return out
}

func collectFields(t reflect.Type, index []int, out map[string][]int) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		idx := append(slices.Clone(index), i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			collectFields(f.Type, idx, out)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out[name] = idx
	}
}

func describe(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return describe(t.Elem())
	case reflect.Int, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // json.RawMessage
			return "valid JSON"
		}
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(describe(t.Elem()), "an "), "a ") + "s"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "of another type"
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
