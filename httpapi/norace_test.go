//go:build !race

package httpapi_test

// raceDetector is true under the race detector; see race_test.go.
const raceDetector = false
