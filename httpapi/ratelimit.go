package httpapi

import (
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/integration-connect/connect"
)

// limiter keeps one token bucket per Integration Client.
type limiter struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func newLimiter(limit rate.Limit, burst int, now func() time.Time) *limiter {
	return &limiter{limit: limit, burst: burst, now: now, buckets: map[string]*rate.Limiter{}}
}

func (l *limiter) bucket(c connect.Caller) *rate.Limiter {
	key := c.TenantID + "\x00" + c.ClientID
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		b = rate.NewLimiter(l.limit, l.burst)
		l.buckets[key] = b
	}
	return b
}

// admit takes a token of the caller's bucket, or answers RateLimited with the
// whole number of seconds (at least 1) until a token is there again.
func (l *limiter) admit(c connect.Caller) error {
	b, now := l.bucket(c), l.now()
	if b.AllowN(now, 1) {
		return nil
	}
	reservation := b.ReserveN(now, 1)
	wait := reservation.DelayFrom(now)
	reservation.CancelAt(now)
	seconds := max(1, int(math.Ceil(wait.Seconds())))
	return &connect.Error{
		Code:       connect.CodeRateLimited,
		Message:    fmt.Sprintf("too many requests: this client may send %g requests per second (bursts of %d); retry in %d s", float64(l.limit), l.burst, seconds),
		RetryAfter: time.Duration(seconds) * time.Second,
	}
}
