package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisAddr is the Redis the tests use: TRADEWIND_TEST_REDIS_ADDR or the local default.
// These tests never skip: CI starts Redis, and a missing Redis is a failure.
func redisAddr() string {
	if a := os.Getenv("TRADEWIND_TEST_REDIS_ADDR"); a != "" {
		return a
	}
	return "127.0.0.1:6379"
}

// newRedisClient returns a client of the test Redis, failing the test if it does not answer.
func newRedisClient(tb testing.TB) *redis.Client {
	tb.Helper()
	c := redis.NewClient(&redis.Options{Addr: redisAddr(), DialTimeout: 2 * time.Second})
	tb.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		tb.Fatalf("Redis at %s is required for this test (set TRADEWIND_TEST_REDIS_ADDR to use another): %v", redisAddr(), err)
	}
	return c
}

// uniqueKey returns a rate-limit key unique to this test run and deletes it afterwards.
func uniqueKey(tb testing.TB, c *redis.Client) string {
	tb.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	key := "tradewind-test:" + strings.ReplaceAll(tb.Name(), "/", ":") + ":" + hex.EncodeToString(b)
	tb.Cleanup(func() { c.Del(context.Background(), "rate:"+key) })
	return key
}

// TestRedisUsesTheServerClock runs without an injected clock, as production does: the
// script reads Redis's TIME, one clock for every server.
func TestRedisUsesTheServerClock(t *testing.T) {
	t.Parallel()
	c := newRedisClient(t)
	l := NewRedis(c, nil)
	key := uniqueKey(t, c)
	if got, _ := allowN(t, l, key, 10, 10); got != 10 {
		t.Fatalf("%d allowed, want 10", got)
	}
	res := mustAllow(t, l, key, 10)
	// Real time passes between the calls: the first request leaves the window in a bit
	// less than a minute.
	if res.Allowed || res.RetryAfter <= 50*time.Second || res.RetryAfter > Window || res.RetryAfterSeconds() != 60 {
		t.Errorf("11th request: %+v, want refused with RetryAfter just under 1m (60 s)", res)
	}
}

// TestRedisLogIsBoundedAndExpires: the sorted set holds at most limit entries and expires
// a window after its last request.
func TestRedisLogIsBoundedAndExpires(t *testing.T) {
	t.Parallel()
	c := newRedisClient(t)
	clock := newFakeClock()
	l := NewRedis(c, clock.Now)
	key := uniqueKey(t, c)
	allowN(t, l, key, 20, 20)
	clock.Advance(time.Second)
	allowN(t, l, key, 5, 10) // a lowered limit trims to the entries that decide
	ctx := context.Background()
	if n := c.ZCard(ctx, "rate:"+key).Val(); n != 5 {
		t.Errorf("%d entries at limit 5, want 5", n)
	}
	if ttl := c.PTTL(ctx, "rate:"+key).Val(); ttl <= 0 || ttl > Window {
		t.Errorf("TTL %v, want in (0, %v]", ttl, Window)
	}
}

func TestRedisTwoInstancesShareBudget(t *testing.T) {
	t.Parallel()
	c1, c2 := newRedisClient(t), newRedisClient(t)
	l1, l2 := NewRedis(c1, nil), NewRedis(c2, nil)
	key := uniqueKey(t, c1)
	var got1, got2 int
	for range 10 {
		if mustAllow(t, l1, key, 10).Allowed {
			got1++
		}
		if mustAllow(t, l2, key, 10).Allowed {
			got2++
		}
	}
	if got1 != 5 || got2 != 5 {
		t.Errorf("allowed %d on server 1 and %d on server 2, want 5 and 5 (one budget of 10)", got1, got2)
	}
	// Another key has its own budget.
	if got, _ := allowN(t, l2, uniqueKey(t, c2), 10, 11); got != 10 {
		t.Errorf("other key: %d allowed, want 10", got)
	}
}

func TestRedisErrors(t *testing.T) {
	t.Parallel()
	c := newRedisClient(t)
	l := NewRedis(c, nil)
	for _, n := range []int{0, -5} {
		if _, err := l.Allow(context.Background(), uniqueKey(t, c), n); !errors.Is(err, ErrInvalidLimit) {
			t.Errorf("Allow(perMinute=%d) error = %v, want ErrInvalidLimit", n, err)
		}
	}
	down := NewRedis(newDeadRedisClient(t), nil)
	if res, err := down.Allow(context.Background(), "p", 10); err == nil {
		t.Errorf("Allow on a closed port = %+v, nil; want an error", res)
	}
}

// newDeadRedisClient returns a client of a port nothing listens on, failing fast.
func newDeadRedisClient(tb testing.TB) *redis.Client {
	tb.Helper()
	c := redis.NewClient(&redis.Options{
		Addr:          "127.0.0.1:1",
		DialTimeout:   250 * time.Millisecond,
		DialerRetries: 1,
		MaxRetries:    -1,
	})
	tb.Cleanup(func() { c.Close() })
	return c
}
