//go:build race

package store_test

// raceDetector is true under the race detector, whose runtime allocates
// differently (it drops sync.Pool items at random, for one), so allocation
// bounds are checked without it (.ci/run has a step for them).
const raceDetector = true
