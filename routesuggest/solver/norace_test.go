//go:build !race

package solver_test

// raceDetector is true under the race detector; see race_test.go.
const raceDetector = false
