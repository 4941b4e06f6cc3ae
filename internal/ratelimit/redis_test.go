package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
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

func TestRedisBurstThenRefuse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		perMinute int
		interval  time.Duration
	}{
		{120, 500 * time.Millisecond},
		{10, 6 * time.Second},
		{1, time.Minute},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d per minute", tt.perMinute), func(t *testing.T) {
			t.Parallel()
			c := newRedisClient(t)
			l := NewRedis(c)
			key := uniqueKey(t, c)
			for i := range tt.perMinute {
				res := mustAllow(t, l, key, tt.perMinute)
				if !res.Allowed || res.Limit != tt.perMinute || res.Remaining != tt.perMinute-1-i || res.RetryAfter != 0 {
					t.Fatalf("request %d: %+v, want allowed with %d remaining", i+1, res, tt.perMinute-1-i)
				}
			}
			res := mustAllow(t, l, key, tt.perMinute)
			if res.Allowed || res.Remaining != 0 {
				t.Fatalf("request %d: %+v, want refused", tt.perMinute+1, res)
			}
			// Real time passes between the calls, so RetryAfter is at most one interval.
			if res.RetryAfter <= 0 || res.RetryAfter > tt.interval {
				t.Errorf("RetryAfter = %v, want in (0, %v]", res.RetryAfter, tt.interval)
			}
			if res.RetryAfter < tt.interval-2*time.Second {
				t.Errorf("RetryAfter = %v, want about %v", res.RetryAfter, tt.interval)
			}
			if res.ResetAfter <= time.Minute-5*time.Second || res.ResetAfter > time.Minute {
				t.Errorf("ResetAfter = %v, want about 1m", res.ResetAfter)
			}
			if got := res.RetryAfterSeconds(); got != int((tt.interval+time.Second-1)/time.Second) {
				t.Errorf("RetryAfterSeconds() = %d for %v", got, res.RetryAfter)
			}
		})
	}
}

func TestRedisRefill(t *testing.T) {
	t.Parallel()
	c := newRedisClient(t)
	l := NewRedis(c)
	key := uniqueKey(t, c)
	// One token a second: the burst of 61 calls takes far less than a second even under
	// -race on a loaded machine, so no token refills during it.
	const perMinute = 60
	if got, _ := allowN(t, l, key, perMinute, perMinute+1); got != perMinute {
		t.Fatalf("burst: %d allowed, want %d", got, perMinute)
	}
	time.Sleep(2100 * time.Millisecond)
	got, _ := allowN(t, l, key, perMinute, 10)
	if got < 2 || got > 3 {
		t.Errorf("after 2.1s: %d allowed, want 2 (3 on a slow machine)", got)
	}
}

func TestRedisTwoInstancesShareBudget(t *testing.T) {
	t.Parallel()
	c1, c2 := newRedisClient(t), newRedisClient(t)
	l1, l2 := NewRedis(c1), NewRedis(c2)
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

func TestRedisConcurrent(t *testing.T) {
	t.Parallel()
	clients := []*redis.Client{newRedisClient(t), newRedisClient(t)}
	key := uniqueKey(t, clients[0])
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := range 8 {
		l := NewRedis(clients[i%2])
		wg.Go(func() {
			for range 20 {
				res, err := l.Allow(context.Background(), key, 50)
				if err != nil {
					t.Error(err)
					return
				}
				if res.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != 50 {
		t.Errorf("%d allowed of 160 concurrent requests on two servers, want 50", got)
	}
}

func TestRedisErrors(t *testing.T) {
	t.Parallel()
	c := newRedisClient(t)
	l := NewRedis(c)
	for _, n := range []int{0, -5} {
		if _, err := l.Allow(context.Background(), uniqueKey(t, c), n); !errors.Is(err, ErrInvalidLimit) {
			t.Errorf("Allow(perMinute=%d) error = %v, want ErrInvalidLimit", n, err)
		}
	}
	down := NewRedis(newDeadRedisClient(t))
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
