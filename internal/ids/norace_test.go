//go:build !race

package ids_test

const raceBuild = false
