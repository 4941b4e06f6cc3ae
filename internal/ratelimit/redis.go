package ratelimit

import (
	"context"
	"fmt"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Redis is a GCRA limiter whose state lives in Redis (keys "rate:<key>"), so that every
// server using the same Redis enforces one shared budget per key.
type Redis struct {
	limiter *redis_rate.Limiter
}

// NewRedis returns a limiter backed by client; as every request waits for it, configure
// the client with short timeouts and few retries (for example DialTimeout and ReadTimeout
// of 100–250 ms, DialerRetries 1, MaxRetries -1) and wrap it with NewFailOpen.
func NewRedis(client *redis.Client) *Redis {
	return &Redis{limiter: redis_rate.NewLimiter(client)}
}

// Allow spends one request of key's shared budget of perMinute per minute if it is
// available; it returns a wrapped error when Redis cannot be reached.
func (r *Redis) Allow(ctx context.Context, key string, perMinute int) (Result, error) {
	if perMinute < 1 {
		return Result{}, fmt.Errorf("redis rate limit %q: %w", key, ErrInvalidLimit)
	}
	res, err := r.limiter.Allow(ctx, key, redis_rate.PerMinute(perMinute))
	if err != nil {
		return Result{}, fmt.Errorf("redis rate limit %q: %w", key, err)
	}
	return Result{
		Allowed:    res.Allowed > 0,
		Limit:      perMinute,
		Remaining:  max(res.Remaining, 0),
		RetryAfter: max(res.RetryAfter, 0), // redis_rate reports -1 when allowed
		ResetAfter: max(res.ResetAfter, 0),
	}, nil
}
