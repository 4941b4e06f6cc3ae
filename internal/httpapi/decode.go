package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/tradewind/tradewind"
)

// checkContentType refuses a body that is not declared application/json, a missing
// Content-Type included (docs/api-decisions.md); a request without a body needs none.
func checkContentType(r *http.Request, body []byte) error {
	if len(body) == 0 {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return tradewind.Invalid([]string{"Content-Type: send application/json with a body"})
	}
	return nil
}

// decodeBody decodes a JSON object into dst (a pointer to a struct) field by field, so
// that every unknown field and every value of the wrong type is reported at once, each
// naming its field. An empty body decodes as {} when allowEmpty.
func decodeBody(r *http.Request, body []byte, dst any, allowEmpty bool) error {
	if len(bytes.TrimSpace(body)) == 0 {
		if allowEmpty {
			return nil
		}
		return tradewind.Invalid([]string{"body: a JSON object is required"})
	}
	var problems []string
	decodeObject(body, reflect.ValueOf(dst).Elem(), "", &problems)
	// No text anywhere may hold U+0000: no database stores it, and it is never meant. In
	// valid JSON a string holds it only as the escape \u0000 (a raw control byte is a
	// syntax error), so a body without that text is not decoded a second time.
	if len(problems) == 0 && bytes.Contains(body, []byte(`\u0000`)) {
		var v any
		if json.Unmarshal(body, &v) == nil {
			findNUL(v, "", &problems)
		}
	}
	return tradewind.Invalid(problems)
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

func decodeObject(raw []byte, v reflect.Value, prefix string, problems *[]string) {
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
	known := map[string]reflect.Value{}
	collectFields(v, known)
	for _, name := range sortedKeys(fields) {
		fv, ok := known[name]
		if !ok {
			*problems = append(*problems, prefix+name+": unknown field")
			continue
		}
		val := fields[name]
		if string(val) == "null" {
			continue
		}
		target := fv
		if target.Kind() == reflect.Pointer && target.Type().Elem().Kind() == reflect.Struct {
			if target.IsNil() {
				target.Set(reflect.New(target.Type().Elem()))
			}
			decodeObject(val, target.Elem(), prefix+name+".", problems)
			continue
		}
		if target.Kind() == reflect.Slice && target.Type().Elem().Kind() == reflect.Struct {
			decodeArray(val, target, prefix+name, problems)
			continue
		}
		if err := json.Unmarshal(val, target.Addr().Interface()); err != nil {
			*problems = append(*problems, fmt.Sprintf("%s%s: must be %s", prefix, name, describe(target.Type())))
		}
	}
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
		decodeObject(e, out.Index(i), fmt.Sprintf("%s[%d].", path, i), problems)
	}
	v.Set(out)
}

func asSyntax(err error, syn **json.SyntaxError) bool {
	s, ok := err.(*json.SyntaxError)
	*syn = s
	return ok
}

// collectFields maps json names to the settable fields of struct v, embedded included.
func collectFields(v reflect.Value, out map[string]reflect.Value) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			collectFields(v.Field(i), out)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out[name] = v.Field(i)
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
