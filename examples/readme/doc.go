// Package readme keeps the Go snippets of the project's README honest: each
// is a region of readme_test.go, compiled and run by an Example whose output
// is checked, and a test fails when a README snippet differs from its region.
package readme
