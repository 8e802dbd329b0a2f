package postgres

import (
	"context"
	"math"
	"time"

	"github.com/cockroachdb/errors"
)

// RateLimiter is a rate limit shared by every process on the database: one
// bucket per key, perSecond requests a second with bursts of burst, kept in
// the UNLOGGED table rate_limits. Each Allow is one call of the function
// rate_limit_allow (GCRA, see the migrations), so it costs one round trip
// and one row update.
type RateLimiter struct {
	s                       *Store
	intervalUS, toleranceUS int64
}

// RateLimiter returns the shared limiter of perSecond requests a second per
// key with bursts of up to burst requests. perSecond <= 0 limits nothing.
func (s *Store) RateLimiter(perSecond float64, burst int) *RateLimiter {
	var interval time.Duration
	if perSecond > 0 && !math.IsInf(perSecond, 0) {
		interval = time.Duration(float64(time.Second) / perSecond)
	}
	return &RateLimiter{
		s:           s,
		intervalUS:  interval.Microseconds(),
		toleranceUS: (interval * time.Duration(max(burst-1, 0))).Microseconds(),
	}
}

// Allow takes one request from key's bucket. When the bucket is empty, ok is
// false and retryAfter says when the next request would be allowed. Limiters
// with different rates must not share keys.
func (l *RateLimiter) Allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration, err error) {
	if l.intervalUS == 0 {
		return true, 0, nil
	}
	var retryUS int64
	err = l.s.pool.QueryRow(ctx, "SELECT allowed, retry_after_us FROM rate_limit_allow($1, $2, $3)",
		[]byte(key), l.intervalUS, l.toleranceUS).Scan(&ok, &retryUS)
	if err != nil {
		return false, 0, errors.Wrap(err, "checking the rate limit")
	}
	return ok, time.Duration(retryUS) * time.Microsecond, nil
}
