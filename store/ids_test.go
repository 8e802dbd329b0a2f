package store_test

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/integration-connect/connect/store"
)

// TestIDsSortByCreation: ids carry their prefix and 26 Crockford base32
// characters, and sort in creation order, within one millisecond and when
// the clock steps back.
func TestIDsSortByCreation(t *testing.T) {
	var ids store.IDs
	at := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	pattern := regexp.MustCompile(`^evt_[0-9A-HJKMNP-TV-Z]{26}$`)
	var made []string
	for _, step := range []time.Duration{0, 0, time.Millisecond, -time.Hour, 0} {
		at = at.Add(step)
		id, err := ids.Next("evt_", at)
		if err != nil || !pattern.MatchString(id) {
			t.Fatalf("Next = %q, %v", id, err)
		}
		made = append(made, id)
	}
	if !slices.IsSorted(made) || len(slices.Compact(slices.Clone(made))) != len(made) {
		t.Errorf("ids not strictly increasing: %v", made)
	}
}
