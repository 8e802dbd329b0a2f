package webhooks

import "time"

// jitter is the largest share by which a retry delay is shortened at random,
// so many subscriptions failing at once do not retry at once.
const jitter = 0.2

// delay is the wait after the nth failed attempt in a row: RetryMin doubled
// n-1 times, at most RetryMax, shortened by a random 0-20%.
func (d *Dispatcher) delay(n int) time.Duration {
	base := d.cfg.RetryMin
	for i := 1; i < n && base < d.cfg.RetryMax; i++ {
		base *= 2
	}
	base = min(base, d.cfg.RetryMax)
	return base - time.Duration(float64(base)*jitter*d.cfg.Rand())
}
