package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// slidingLog is the Redis side of Redis.Allow, run atomically so that servers sharing
// the key never both take the last place. KEYS[1] is a sorted set of the allowed requests
// of the window (score: unix microseconds; member: unique per request). ARGV: limit,
// window in microseconds, a unique member, and the time in unix microseconds or "" for
// the Redis server's own clock (one clock for every server). It returns {allowed (0/1),
// remaining, microseconds until the oldest entry leaves the window}. Numbers are handed
// to redis.call as numbers, never concatenated: Lua's tostring keeps only 14 digits.
var slidingLog = redis.NewScript(`
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now
if ARGV[4] == "" then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[4])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count > limit then
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, count - limit - 1)
  count = limit
end
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
  count = count + 1
  allowed = 1
end
local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
return {allowed, limit - count, oldest + window - now}
`)

// Redis is a sliding-log limiter whose logs live in Redis (sorted sets "rate:<key>" of at
// most limit entries, expiring a Window after their last request), so that every server
// using the same Redis enforces one shared budget per key.
type Redis struct {
	client redis.Scripter
	clock  func() time.Time
}

// NewRedis returns a limiter backed by client. It reads the time from the Redis server
// (one clock for every server sharing it) unless clock is set, which tests use to drive
// time. As every request waits for Redis, configure the client with short timeouts and few
// retries (for example DialTimeout and ReadTimeout of 100–250 ms, DialerRetries 1,
// MaxRetries -1) and wrap it with NewFailOpen.
func NewRedis(client redis.Scripter, clock func() time.Time) *Redis {
	return &Redis{client: client, clock: clock}
}

// Allow spends one request of key's shared budget of perMinute per Window if it is
// available; it returns a wrapped error when Redis cannot be reached.
func (r *Redis) Allow(ctx context.Context, key string, perMinute int) (Result, error) {
	if perMinute < 1 {
		return Result{}, fmt.Errorf("redis rate limit %q: %w", key, ErrInvalidLimit)
	}
	now := ""
	if r.clock != nil {
		now = fmt.Sprint(r.clock().UnixMicro())
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails
	out, err := slidingLog.Run(ctx, r.client, []string{"rate:" + key},
		perMinute, Window.Microseconds(), hex.EncodeToString(b), now).Int64Slice()
	if err != nil {
		return Result{}, fmt.Errorf("redis rate limit %q: %w", key, err)
	}
	if len(out) != 3 {
		return Result{}, fmt.Errorf("redis rate limit %q: script answered %v", key, out)
	}
	res := Result{
		Allowed:    out[0] == 1,
		Limit:      perMinute,
		Remaining:  int(out[1]),
		ResetAfter: time.Duration(out[2]) * time.Microsecond,
	}
	if !res.Allowed {
		res.RetryAfter = res.ResetAfter
	}
	return res, nil
}
