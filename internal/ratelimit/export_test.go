package ratelimit

// Exported for the conformance tests in package ratelimit_test.
var (
	NewRedisClient = newRedisClient
	UniqueKey      = uniqueKey
)
