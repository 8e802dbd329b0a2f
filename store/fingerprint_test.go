package store_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/integration-connect/connect/store"
)

// TestFingerprintComparesMeaning: white space, member order and the spelling
// of numbers and strings do not change a fingerprint; every difference in
// value does (DECISIONS.md "Idempotency" and "Bounded cost of every request").
func TestFingerprintComparesMeaning(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"white space and member order", `{"a":1,"b":[1,2]}`, "{ \"b\" : [ 1 , 2 ] ,\n\"a\":1 }", true},
		{"1.0 equals 1", `{"n":1.0}`, `{"n":1}`, true},
		{"exponent spellings", `{"n":[10e-1,0.1e1,1E0,100e-2]}`, `{"n":[1,1,1,1]}`, true},
		{"zeros", `[0,-0,0.000,0e10]`, `[0,0,0,0]`, true},
		{"string escapes", `["\u00e9\n"]`, "[\"é\\n\"]", true},
		{"long string escapes", `["\u0061` + strings.Repeat("a", 99) + `"]`, `["` + strings.Repeat("a", 100) + `"]`, true},
		{"long strings differ", `["` + strings.Repeat("a", 100) + `"]`, `["` + strings.Repeat("a", 99) + `b"]`, false},
		{"empty object and array", `[{},[]]`, `[[],{}]`, false},
		{"empty object alone", `{"a":{}}`, `{"a":{ }}`, true},
		{"elements do not run together", `["ab","c"]`, `["a","bc"]`, false},
		{"2^53+1 differs from 2^53", `{"n":9007199254740993}`, `{"n":9007199254740992}`, false},
		{"long fractions differ", `{"n":0.10000000000000000000000000001}`, `{"n":0.1}`, false},
		{"sign", `{"n":-1}`, `{"n":1}`, false},
		{"string and number", `{"n":"1"}`, `{"n":1}`, false},
		{"array order", `[1,2]`, `[2,1]`, false},
		{"nesting", `[[1],2]`, `[1,[2]]`, false},
		{"member moved into a child", `{"a":{"b":1},"c":2}`, `{"a":{"b":1,"c":2}}`, false},
		{"duplicate member counts", `{"a":1,"a":1}`, `{"a":1}`, false},
		{"null and absent", `{"a":null}`, `{}`, false},
		{"invalid JSON byte for byte", `{"a":`, `{"a": `, false},
		{"invalid UTF-8 byte for byte", "[\"\xff\"]", "[\"\xfe\"]", false},
		{"huge exponents as written", `[1e99999999999999999999]`, `[1e99999999999999999999]`, true},
		{"huge exponents differ", `[1e99999999999999999999]`, `[1e99999999999999999998]`, false},
		{"objects beyond the member limit byte for byte", bigObject(1001, ""), bigObject(1001, " "), false},
		{"objects at the member limit by meaning", bigObject(1000, ""), bigObject(1000, " "), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fa, fb := store.Fingerprint("POST /x", []byte(tc.a)), store.Fingerprint("POST /x", []byte(tc.b))
			if bytes.Equal(fa, fb) != tc.same {
				t.Errorf("same fingerprint = %v for %s and %s, want %v", !tc.same, tc.a, tc.b, tc.same)
			}
		})
	}
	if bytes.Equal(store.Fingerprint("POST /x", []byte(`{}`)), store.Fingerprint("POST /y", []byte(`{}`))) {
		t.Error("the operation does not count")
	}
}

// TestFingerprintAllocatesBoundedMemory: hostile bodies cost the
// fingerprint at most a third of their size, plus one hash state per level of
// nesting (at most 10,000 levels: under 3 MB).
func TestFingerprintAllocatesBoundedMemory(t *testing.T) {
	if raceDetector {
		t.Skip("allocation is measured without the race detector (see .ci/run)")
	}
	shapes := []struct {
		name, open string
		item       func(i int) string
		close      string
	}{
		{"array of zeros", "[", func(int) string { return "0," }, "0]"},
		{"array of empty objects", "[", func(int) string { return "{}," }, "{}]"},
		{"object of short members", "{", func(i int) string { return fmt.Sprintf(`"%x":0,`, i) }, `"":0}`},
		{"nested arrays", "", func(int) string { return "[" }, ""},
		{"array of distinct numbers", "[", func(i int) string { return fmt.Sprintf("%d.50e-3,", i) }, "0]"},
	}
	for _, shape := range shapes {
		t.Run(shape.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString(shape.open)
			for i := 0; b.Len() < 4<<20; i++ {
				b.WriteString(shape.item(i))
			}
			b.WriteString(shape.close)
			body := []byte(b.String())
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			store.Fingerprint("POST /x", body)
			runtime.ReadMemStats(&after)
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(len(body))/3+3<<20 {
				t.Errorf("allocated %d bytes for a %d-byte body", allocated, len(body))
			}
		})
	}
}

// BenchmarkFingerprint reports the cost of fingerprinting a realistic 1 MB
// batch body.
func BenchmarkFingerprint(b *testing.B) {
	var body strings.Builder
	body.WriteString(`{"targets":[`)
	for i := range 2000 {
		fmt.Fprintf(&body, `{"externalId":"WO-%d","title":"Boiler %d","planning":{"estimatedWorkMinutes":60,"priority":"normal"},"address":{"latitude":52.5,"longitude":13.4}},`, i, i)
	}
	body.WriteString(`{"externalId":"last","title":"x"}]}`)
	b.SetBytes(int64(body.Len()))
	b.ReportAllocs()
	for b.Loop() {
		store.Fingerprint("POST /x", []byte(body.String()))
	}
}

// bigObject is an object of n members, with space after each comma.
func bigObject(n int, space string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString("," + space)
		}
		fmt.Fprintf(&b, `"m%d":%d`, i, i)
	}
	return b.String() + "}"
}
