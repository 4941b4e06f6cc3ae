package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/tradewind/tradewind/internal/ratelimit"
	"github.com/tradewind/tradewind/internal/ratelimit/ratelimittest"
)

func TestMemoryConformance(t *testing.T) {
	t.Parallel()
	ratelimittest.Run(t, func(_ *testing.T, now func() time.Time) ratelimit.Limiter {
		return ratelimit.NewMemory(now)
	})
}

// TestRedisConformance runs the suite against the real Redis, the suite's clock passed
// into the script in place of the Redis server's.
func TestRedisConformance(t *testing.T) {
	t.Parallel()
	c := ratelimit.NewRedisClient(t)
	ratelimittest.Run(t, func(t *testing.T, now func() time.Time) ratelimit.Limiter {
		prefix := ratelimit.UniqueKey(t, c) + ":"
		t.Cleanup(func() {
			if keys := c.Keys(context.Background(), "rate:"+prefix+"*").Val(); len(keys) > 0 {
				c.Del(context.Background(), keys...)
			}
		})
		return prefixed{ratelimit.NewRedis(c, now), prefix}
	})
}

// TestRedisConcurrentServers: servers with clients of their own sharing one Redis take no
// more places than the limit between them.
func TestRedisConcurrentServers(t *testing.T) {
	t.Parallel()
	c1, c2 := ratelimit.NewRedisClient(t), ratelimit.NewRedisClient(t)
	servers := []ratelimit.Limiter{ratelimit.NewRedis(c1, nil), ratelimit.NewRedis(c2, nil)}
	if got := ratelimittest.AllowConcurrently(t, servers, ratelimit.UniqueKey(t, c1), 50, 8, 20); got != 50 {
		t.Errorf("%d allowed of 160 concurrent requests on two servers, want 50", got)
	}
}

// prefixed puts every key of the suite under a prefix of its own test.
type prefixed struct {
	ratelimit.Limiter
	prefix string
}

func (p prefixed) Allow(ctx context.Context, key string, perMinute int) (ratelimit.Result, error) {
	return p.Limiter.Allow(ctx, p.prefix+key, perMinute)
}
