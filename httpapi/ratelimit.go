package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/integration-connect/connect"
)

// RateLimiter decides whether a client may send one more request. The
// handler's default keeps a token bucket per client in memory, which is the
// limit of one process; replicas of one service share a limiter kept in their
// database instead (store/postgres.Store.RateLimiter), so a client gets the
// service's allowance, not one per replica.
type RateLimiter interface {
	// Allow takes one request of key's allowance. When none is left, ok is
	// false and retryAfter is how long until there is one again.
	Allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration, err error)
}

// memoryLimiter keeps one token bucket per key in this process.
type memoryLimiter struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func newMemoryLimiter(limit rate.Limit, burst int, now func() time.Time) *memoryLimiter {
	return &memoryLimiter{limit: limit, burst: burst, now: now, buckets: map[string]*rate.Limiter{}}
}

func (l *memoryLimiter) bucket(key string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		b = rate.NewLimiter(l.limit, l.burst)
		l.buckets[key] = b
	}
	return b
}

// Allow implements RateLimiter.
func (l *memoryLimiter) Allow(_ context.Context, key string) (bool, time.Duration, error) {
	b, now := l.bucket(key), l.now()
	if b.AllowN(now, 1) {
		return true, 0, nil
	}
	reservation := b.ReserveN(now, 1)
	wait := reservation.DelayFrom(now)
	reservation.CancelAt(now)
	return false, wait, nil
}

// admit takes one request of the caller's allowance, or answers RateLimited
// with the whole number of seconds (at least 1) until there is one again. A
// limiter that cannot answer (its database is unreachable) lets the request
// through: the limit protects the service, and a request that needs the
// database fails on its own.
func (h *Handler) admitRate(ctx context.Context, c connect.Caller) error {
	ok, wait, err := h.limiter.Allow(ctx, c.TenantID+"\x00"+c.ClientID)
	if err != nil {
		h.cfg.Logger.WarnContext(ctx, "rate limiter unavailable; request let through", slog.Any("error", err))
		return nil
	}
	if ok {
		return nil
	}
	seconds := max(1, int(math.Ceil(wait.Seconds())))
	return &connect.Error{
		Code:       connect.CodeRateLimited,
		Message:    fmt.Sprintf("too many requests: this client may send %g requests per second (bursts of %d); retry in %d s", float64(h.cfg.RateLimit), h.cfg.RateBurst, seconds),
		RetryAfter: time.Duration(seconds) * time.Second,
	}
}
