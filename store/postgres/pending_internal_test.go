package postgres

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/integration-connect/connect/store/postgres/pgtest"
)

// TestConnectionsHaveCounterSlotsOfTheirOwn: the connections of two replicas
// on one database add to different rows of the striped counters, so their
// concurrent transactions never wait for each other's counter rows.
func TestConnectionsHaveCounterSlotsOfTheirOwn(t *testing.T) {
	const (
		conns = 16 // per replica
		slots = 64 // the counter_slots sequence deals 0 to 63
	)
	url := pgtest.URL(t)
	taken := map[int16]bool{}
	var held []*pgxpool.Conn
	for replica := range 2 {
		s, err := Open(t.Context(), url, &Options{MaxConns: conns})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for i := range conns {
			c, err := s.pool.Acquire(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, c)
			slot := counterSlot(c)
			if slot < 0 || slot >= slots || taken[slot] {
				t.Errorf("replica %d, connection %d has counter slot %d; slots of the others: %v", replica, i, slot, taken)
			}
			taken[slot] = true
		}
	}
	for _, c := range held {
		c.Release()
	}
}
