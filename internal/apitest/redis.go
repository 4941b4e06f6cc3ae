package apitest

import "os"

// RedisAddr is the Redis that tests use: TRADEWIND_TEST_REDIS_ADDR, or the local
// 127.0.0.1:6379. Tests that need it never skip: CI starts Redis.
func RedisAddr() string {
	if a := os.Getenv("TRADEWIND_TEST_REDIS_ADDR"); a != "" {
		return a
	}
	return "127.0.0.1:6379"
}
