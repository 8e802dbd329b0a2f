//go:build !race

package store_test

// raceDetector is true under the race detector; see race_test.go.
const raceDetector = false
