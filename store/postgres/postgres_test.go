package postgres_test

import (
	"context"
	"os"
	"testing"

	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/postgres"
	"github.com/integration-connect/connect/store/postgres/pgtest"
	"github.com/integration-connect/connect/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// open makes a new schema and returns the function that opens the store in
// it.
func open(tb testing.TB) func() store.Store {
	url := pgtest.URL(tb)
	return func() store.Store { return mustOpen(tb, url) }
}

func mustOpen(tb testing.TB, url string) *postgres.Store {
	tb.Helper()
	s, err := postgres.Open(context.Background(), url, nil)
	if err != nil {
		tb.Fatalf("postgres.Open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, open)
}
