package postgres

import (
	"testing"
	"time"

	"github.com/integration-connect/connect/store/postgres/pgtest"
)

// TestClaimDiesWithItsSession: when the session holding a replica's claims
// ends — as when its process is killed — another replica may take them at
// once, long before their ttl; the replica whose session ended connects again
// on its next claim, and its late release frees nothing of the new holder's.
func TestClaimDiesWithItsSession(t *testing.T) {
	url := pgtest.URL(t)
	var stores [2]*Store
	for i := range stores {
		s, err := Open(t.Context(), url, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		stores[i] = s
	}
	release, ok, err := stores[0].Claim(t.Context(), "k", time.Hour)
	if err != nil || !ok {
		t.Fatalf("first claim: %v %v", ok, err)
	}
	if _, ok, _ := stores[1].Claim(t.Context(), "k", time.Hour); ok {
		t.Fatal("the claim is not held for the other replica")
	}
	pid := stores[0].claims.conn.PgConn().PID()
	if _, err := stores[1].pool.Exec(t.Context(), "SELECT pg_terminate_backend($1, 5000)", pid); err != nil {
		t.Fatal(err)
	}
	taken, ok, err := stores[1].Claim(t.Context(), "k", time.Hour)
	if err != nil || !ok {
		t.Fatalf("the claim of an ended session is still held: %v %v", ok, err)
	}
	release() // the old holder's release must not free the new holder's claim
	if _, ok, _ := stores[0].Claim(t.Context(), "other", time.Hour); !ok {
		t.Error("the replica whose session ended cannot claim again")
	}
	if _, ok, _ := stores[0].Claim(t.Context(), "k", time.Hour); ok {
		t.Error("the old holder's release freed the new holder's claim")
	}
	taken()
}
