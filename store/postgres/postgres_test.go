package postgres_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/postgres"
	"github.com/integration-connect/connect/store/postgres/pgtest"
	"github.com/integration-connect/connect/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// opener gives each directory the suite asks for a schema of its own: the
// same directory opens the same schema again.
func opener() storetest.Opener {
	var mu sync.Mutex
	urls := map[string]string{}
	schemaOf := func(tb testing.TB, dir string) string {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := urls[dir]; !ok {
			urls[dir] = pgtest.URL(tb)
		}
		return urls[dir]
	}
	return func(tb testing.TB, dir string) store.Store {
		tb.Helper()
		return mustOpen(tb, schemaOf(tb, dir))
	}
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
	storetest.Run(t, opener())
}
