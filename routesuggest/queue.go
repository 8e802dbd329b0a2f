package routesuggest

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/integration-connect/connect"
)

// DefaultQueueLength is how many route suggestions may wait for a solver by
// default (DECISIONS.md "Bounded cost of every request").
const DefaultQueueLength = 64

// minRetryAfter is the shortest wait a RateLimited answer asks for.
const minRetryAfter = time.Second

// Load is how busy the solvers are: suggestions being solved and waiting.
type Load struct {
	Running int
	Waiting int
}

// queue bounds the solves of one Service: at most limit run at a time, the
// next capacity wait in first-in first-out order, and any further one is
// refused at once with RateLimited. A solve takes a core and, on a large job,
// hundreds of megabytes, so without it a burst of requests takes the service
// down for everyone.
type queue struct {
	limit, capacity int

	mu      sync.Mutex
	running int
	waiting []chan struct{} // closed when the waiter is given a slot
	// solveTime is a moving average of how long a solve holds its slot, for
	// the retry advice of a refusal.
	solveTime time.Duration
}

func newQueue(limit, capacity int) *queue {
	return &queue{limit: limit, capacity: capacity}
}

// enter waits for a slot and returns the function that gives it back. It
// fails with RateLimited when the queue is full, and with ctx's error when
// the caller leaves while waiting, giving up its place.
func (q *queue) enter(ctx context.Context) (leave func(), err error) {
	q.mu.Lock()
	if q.running < q.limit && len(q.waiting) == 0 {
		q.running++
		q.mu.Unlock()
		return q.leaver(), nil
	}
	if len(q.waiting) >= q.capacity {
		retry := q.retryAfter()
		q.mu.Unlock()
		return nil, &connect.Error{Code: connect.CodeRateLimited, RetryAfter: retry,
			Message: "every route solver is busy and the queue of waiting route suggestions is full; retry later"}
	}
	turn := make(chan struct{})
	q.waiting = append(q.waiting, turn)
	q.mu.Unlock()
	select {
	case <-turn:
		return q.leaver(), nil
	case <-ctx.Done():
		q.abandon(turn)
		return nil, ctx.Err()
	}
}

// abandon takes a waiter that left out of the queue; when it was given a
// slot meanwhile, the slot goes on to the next.
func (q *queue) abandon(turn chan struct{}) {
	q.mu.Lock()
	for i, w := range q.waiting {
		if w == turn {
			q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
			q.mu.Unlock()
			return
		}
	}
	q.mu.Unlock()
	q.release(0)
}

// leaver returns the function that ends a solve, once.
func (q *queue) leaver() func() {
	start := time.Now()
	var once sync.Once
	return func() { once.Do(func() { q.release(time.Since(start)) }) }
}

// release hands the slot to the first waiter, or frees it; took is how long
// it was held (0: not a solve).
func (q *queue) release(took time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if took > 0 {
		q.solveTime = (q.solveTime*7 + took) / 8
	}
	if len(q.waiting) > 0 {
		close(q.waiting[0])
		q.waiting = q.waiting[1:]
		return
	}
	q.running--
}

// retryAfter estimates when a place frees up: the waiting line drained by
// every slot at the recent solve time, at least a second. q.mu is held.
func (q *queue) retryAfter() time.Duration {
	rounds := math.Ceil(float64(len(q.waiting)+1) / float64(q.limit))
	return max(minRetryAfter, time.Duration(rounds)*q.solveTime)
}

func (q *queue) load() Load {
	q.mu.Lock()
	defer q.mu.Unlock()
	return Load{Running: q.running, Waiting: len(q.waiting)}
}
