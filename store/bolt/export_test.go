package bolt

import (
	bbolt "go.etcd.io/bbolt"

	"github.com/integration-connect/connect/store"
)

// Queued returns how many writes wait for the committer.
func (s *Store) Queued() int { return len(s.writes) }

// BboltTx returns the bbolt transaction a write's function runs in, so a test
// can see which writes shared one.
func BboltTx(t store.Tx) *bbolt.Tx { return t.(*tx).btx }
