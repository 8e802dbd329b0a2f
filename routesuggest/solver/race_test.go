//go:build race

package solver_test

// raceDetector is true under the race detector, which makes the solver many
// times slower: the longest quality runs are left to the run without it.
const raceDetector = true
