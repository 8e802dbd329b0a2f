package postgres

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/integration-connect/connect/store/postgres/pgtest"
)

// TestConnectionsHaveCounterSlotsOfTheirOwn: the connections of one store add
// to different rows of the striped counters, so its concurrent transactions
// never wait for each other's counter rows.
func TestConnectionsHaveCounterSlotsOfTheirOwn(t *testing.T) {
	const conns = 32 // the benchmarks' pool
	s, err := Open(t.Context(), pgtest.URL(t), &Options{MaxConns: conns})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	held := make([]*pgxpool.Conn, conns)
	slots := map[int16]bool{}
	for i := range held {
		if held[i], err = s.pool.Acquire(t.Context()); err != nil {
			t.Fatal(err)
		}
		slot := counterSlot(held[i])
		if slot < 0 || slot >= counterSlots || slots[slot] {
			t.Errorf("connection %d has counter slot %d; slots of the others: %v", i, slot, slots)
		}
		slots[slot] = true
	}
	for _, c := range held {
		c.Release()
	}
}
