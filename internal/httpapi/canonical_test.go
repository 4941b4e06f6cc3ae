package httpapi

import (
	"path"
	"strings"
	"testing"
)

// cleanCanonical is canonical as it was written first, with path.Clean: the reference.
func cleanCanonical(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

var canonicalCases = []string{"", "/", "//", "///", "/a", "/a/", "/a//", "//a", "/a/b", "/a//b", "/.", "/..", "/./", "/../",
	"/a/.", "/a/..", "/a/./b", "/a/../b", "/a/.b", "/a/..b", "/a/b.", "/...", "/a/.../", "a", "a/", ".", "./a",
	"/api/partner/v1/hotels/search", "/api/partner/v1/hotels/search/", "/api/partner/v1//hotels", "/api/partner/v1/./hotels",
	"/api/partner/v1/hotels/..", "/api/partner/v1/hotels/%2e%2e", "/%2F", "/a/b/c/d/e/"}

// TestCanonicalAsClean checks that canonical answers as the path.Clean comparison does.
func TestCanonicalAsClean(t *testing.T) {
	for _, p := range canonicalCases {
		if got, want := canonical(p), cleanCanonical(p); got != want {
			t.Errorf("canonical(%q) = %v, path.Clean says %v", p, got, want)
		}
	}
}

func FuzzCanonicalAsClean(f *testing.F) {
	for _, p := range canonicalCases {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if got, want := canonical(p), cleanCanonical(p); got != want {
			t.Errorf("canonical(%q) = %v, path.Clean says %v", p, got, want)
		}
	})
}
