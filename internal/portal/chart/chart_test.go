package chart_test

import (
	"encoding/xml"
	"strconv"
	"strings"
	"testing"

	"github.com/tradewind/tradewind/internal/portal/chart"
)

// node is an element of a rendered SVG, for the tests to measure.
type node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []node     `xml:",any"`
}

func (n node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n node) num(t *testing.T, name string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(n.attr(name), 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, n.attr(name), err)
	}
	return f
}

// parse checks that svg is well-formed XML and returns its root.
func parse(t *testing.T, svg string) node {
	t.Helper()
	var root node
	if err := xml.Unmarshal([]byte(svg), &root); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, svg)
	}
	if root.XMLName.Local != "svg" || root.attr("role") != "img" || root.attr("aria-labelledby") == "" {
		t.Fatalf("root: %+v", root.Attrs)
	}
	return root
}

// bars returns the rects that carry a title (the data, not the legend's swatches).
func bars(root node) []node {
	var out []node
	for _, n := range root.Nodes {
		if n.XMLName.Local == "rect" && len(n.Nodes) > 0 {
			out = append(out, n)
		}
	}
	return out
}

func texts(root node) []string {
	var out []string
	for _, n := range root.Nodes {
		if n.XMLName.Local == "text" {
			out = append(out, n.Text)
		}
	}
	return out
}

func TestScale(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ max, step, top int64 }{
		{0, 1, 1}, {1, 1, 1}, {3, 1, 3}, {4, 1, 4}, {5, 2, 6}, {9, 5, 10}, {10, 5, 10}, {17, 5, 20},
		{100, 50, 100}, {101, 50, 150}, {1234, 500, 1500}, {80000, 20000, 80000},
	} {
		step, top := chart.Scale(c.max)
		if step != c.step || top != c.top {
			t.Errorf("Scale(%d) = %d, %d; want %d, %d", c.max, step, top, c.step, c.top)
		}
	}
}

// TestBarsStack: each non-zero value is one rect; a day's series stack from the axis in
// order, their heights in proportion to the values, and the tallest stack reaches the
// top of the scale when the largest total is a multiple of the step.
func TestBarsStack(t *testing.T) {
	t.Parallel()
	svg := chart.Bars{ID: "req", Title: "Requests per day", Labels: []string{"01-04", "01-05", "01-06"}, Series: []chart.Series{
		{Name: "2xx", Color: "#2e7d32", Values: []int64{6, 0, 2}},
		{Name: "404 not_found", Color: "#ef6c00", Values: []int64{2, 0, 0}},
		{Name: "5xx", Color: "#c62828", Values: []int64{0, 0, 2}},
	}}.SVG()
	root := parse(t, string(svg))
	rs := bars(root)
	if len(rs) != 4 {
		t.Fatalf("%d bars, want 4 (zero values draw nothing)", len(rs))
	}
	h := func(i int) float64 { return rs[i].num(t, "height") }
	// Day 1: 6 then 2 on top of it, the stack 8 high = the scale's top (step 2).
	if h(0) != 3*h(1) {
		t.Errorf("heights %v and %v are not 6:2", h(0), h(1))
	}
	if got := rs[1].num(t, "y") + h(1); got != rs[0].num(t, "y") {
		t.Errorf("the second series does not sit on the first: ends at %v, first starts at %v", got, rs[0].num(t, "y"))
	}
	if top := rs[1].num(t, "y"); top != 12 {
		t.Errorf("the tallest stack ends at y=%v, want the plot's top 12", top)
	}
	if h(2) != h(3) || h(2) != h(1) {
		t.Errorf("day 3's 2 and 2 are %v and %v, want %v each", h(2), h(3), h(1))
	}
	if !strings.Contains(rs[0].Nodes[0].Text, "01-04 · 2xx: 6") {
		t.Errorf("tooltip %q", rs[0].Nodes[0].Text)
	}
	got := strings.Join(texts(root), "|")
	for _, want := range []string{"0|", "|8|", "01-05", "404 not_found", "5xx"} {
		if !strings.Contains(got, want) {
			t.Errorf("texts %q lack %q", got, want)
		}
	}
}

// TestBarsLabelsThinOut: 90 days show about ten labels, every bar still drawn.
func TestBarsLabelsThinOut(t *testing.T) {
	t.Parallel()
	labels := make([]string, 90)
	values := make([]int64, 90)
	for i := range labels {
		labels[i] = "d" + strconv.Itoa(i)
		values[i] = int64(i + 1)
	}
	root := parse(t, string(chart.Bars{ID: "x", Title: "x", Labels: labels, Series: []chart.Series{{Name: "n", Color: "#000", Values: values}}}.SVG()))
	if n := len(bars(root)); n != 90 {
		t.Errorf("%d bars", n)
	}
	shown := 0
	for _, s := range texts(root) {
		if strings.HasPrefix(s, "d") {
			shown++
		}
	}
	if shown != 10 {
		t.Errorf("%d day labels shown, want 10", shown)
	}
}

// TestEscaping: names and labels are text, never markup.
func TestEscaping(t *testing.T) {
	t.Parallel()
	evil := `<script>alert(1)</script>"&`
	for _, svg := range []string{
		string(chart.Bars{ID: `a"b`, Title: evil, Labels: []string{evil}, Series: []chart.Series{{Name: evil, Color: `red"/><script>`, Values: []int64{1}}}}.SVG()),
		string(chart.Ranking{ID: "r", Title: evil, Labels: []string{evil}, Values: []int64{3}, Color: "#000"}.SVG()),
	} {
		if strings.Contains(svg, "<script") {
			t.Errorf("unescaped: %s", svg)
		}
		parse(t, svg)
	}
}

// TestEmpty: no data still draws the axis, and says so.
func TestEmpty(t *testing.T) {
	t.Parallel()
	root := parse(t, string(chart.Bars{ID: "e", Title: "Empty", Labels: []string{"a", "b"}, Series: []chart.Series{{Name: "n", Color: "#000", Values: []int64{0, 0}}}}.SVG()))
	if !strings.Contains(strings.Join(texts(root), "|"), "No data in this period") || len(bars(root)) != 0 {
		t.Errorf("empty chart: %v", texts(root))
	}
	root = parse(t, string(chart.Ranking{ID: "e", Title: "Empty"}.SVG()))
	if !strings.Contains(strings.Join(texts(root), "|"), "No data in this period") {
		t.Errorf("empty ranking: %v", texts(root))
	}
}

// TestRanking: bar lengths in proportion to the values, each value written after its bar
// with the format.
func TestRanking(t *testing.T) {
	t.Parallel()
	root := parse(t, string(chart.Ranking{ID: "ep", Title: "Calls per endpoint", Labels: []string{"POST /hotels/search", "POST /bookings"},
		Values: []int64{40, 10}, Color: "#1565c0", Format: func(v int64) string { return strconv.FormatInt(v, 10) + " calls" }}.SVG()))
	rs := bars(root)
	if len(rs) != 2 || rs[0].num(t, "width") != 4*rs[1].num(t, "width") {
		t.Fatalf("bars %+v", rs)
	}
	got := strings.Join(texts(root), "|")
	if !strings.Contains(got, "POST /hotels/search|40 calls|POST /bookings|10 calls") {
		t.Errorf("texts %q", got)
	}
}
