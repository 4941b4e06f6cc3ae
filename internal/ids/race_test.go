//go:build race

package ids_test

// raceBuild: the race detector's instrumentation moves the random bytes' buffer that
// crypto/rand.Read fills to the heap, one allocation more than in a normal build.
const raceBuild = true
