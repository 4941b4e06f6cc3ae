package main

import (
	"strings"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
)

// TestImportProgress: a short import prints nothing; a long one a line about every
// second on standard error, and always its last step.
func TestImportProgress(t *testing.T) {
	clock := apitest.NewClock(apitest.Start)
	var out strings.Builder
	progress := importProgress(&out, clock)
	progress(booking.ImportProgress{Items: 500, Total: 2000, Rows: 100})
	clock.Advance(2 * time.Second)
	progress(booking.ImportProgress{Items: 1000, Total: 2000, Rows: 200})
	clock.Advance(300 * time.Millisecond)
	progress(booking.ImportProgress{Items: 1500, Total: 2000, Rows: 300}) // too soon
	progress(booking.ImportProgress{Items: 2000, Total: 2000, Rows: 400})
	want := "importing: 1000/2000 items (50%), 200 inventory rows written, 2s\n" +
		"importing: 2000/2000 items (100%), 400 inventory rows written, 2s\n"
	if out.String() != want {
		t.Errorf("progress =\n%s\nwant\n%s", out.String(), want)
	}
}
