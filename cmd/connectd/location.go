package main

import (
	"context"
	"flag"
	"net/url"
	"os"
	"path/filepath"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
	"github.com/integration-connect/connect/store/postgres"
)

// location says where the store is: the flags that serve and every admin
// command share. Which store to open, and whether an admin command reaches it
// through a running server, is decided here and nowhere else.
type location struct {
	dataDir string
	// databaseURL, when set, keeps everything in PostgreSQL instead of the
	// bbolt file in dataDir.
	databaseURL string
	// maxConns sizes the PostgreSQL connection pool (0: the store's default).
	maxConns int
}

// register declares the location flags on fs.
func (l *location) register(fs *flag.FlagSet, dataUsage string) {
	fs.StringVar(&l.dataDir, "data", envOr("CONNECT_DATA", "./connect-data"), dataUsage+" (env CONNECT_DATA)")
	l.registerDatabase(fs, "keep everything in this PostgreSQL database instead of --data")
}

// registerDatabase declares --database-url alone.
func (l *location) registerDatabase(fs *flag.FlagSet, usage string) {
	fs.StringVar(&l.databaseURL, "database-url", os.Getenv("CONNECT_DATABASE_URL"),
		usage+", such as postgres://user:password@host:5432/connect (env CONNECT_DATABASE_URL)")
}

// registerPool declares the pool size flag of serve.
func (l *location) registerPool(fs *flag.FlagSet) {
	fs.IntVar(&l.maxConns, "database-max-conns", defaultMaxConns, "connections to PostgreSQL this process keeps at most (with --database-url)")
}

// defaultMaxConns is the pool of one serve process: enough for the requests
// of two cores, each holding a connection only while its transaction runs.
const defaultMaxConns = 16

// shared reports whether several processes share the store (PostgreSQL): then
// admin commands open it themselves, also while servers run.
func (l location) shared() bool { return l.databaseURL != "" }

// adminSocket is the path of the admin socket of the server holding the store,
// or "" for a store that every process opens itself.
func (l location) adminSocket() string {
	if l.shared() {
		return ""
	}
	return filepath.Join(l.dataDir, adminSocketName)
}

// describe names the store for log lines, without the database password.
func (l location) describe() string {
	if !l.shared() {
		return l.dataDir
	}
	if u, err := url.Parse(l.databaseURL); err == nil && u.Host != "" {
		return "postgres://" + u.Host + u.Path
	}
	return "PostgreSQL"
}

// open opens the store, with a clear message when another process holds the
// bbolt file. A PostgreSQL store is migrated to the binary's schema first.
func (l location) open(ctx context.Context) (store.Store, error) {
	if l.shared() {
		return postgres.Open(ctx, l.databaseURL, &postgres.Options{MaxConns: int32(l.maxConns)})
	}
	s, err := bolt.OpenDir(l.dataDir, nil)
	if errors.Is(err, bolt.ErrLocked) {
		return nil, errors.Newf("%s is in use by another process (another connectd serve, one still starting, or a long admin command); stop it or use another --data directory", l.dataDir)
	}
	return s, err
}

// withStore runs fn, the library calls of one admin command, on the store:
//   - inside connectd serve, on behalf of an admin socket client, on the
//     server's own store;
//   - when a running server answers on the admin socket, by running the whole
//     command there (same code, same output, same exit status), so the change
//     is effective at once;
//   - otherwise on the store opened for this command alone.
//
// An InvalidRequest of the library about a flag's value is a usage error
// naming the flag (see flagSet.explain).
func withStore(ctx context.Context, a *flagSet, fn func(store.Store) error) error {
	l := a.where
	if s := servedStore(ctx); s != nil {
		return a.explain(fn(s))
	}
	if inv := invocationFrom(ctx); inv != nil {
		if sock := l.adminSocket(); sock != "" {
			if forwarded, err := forward(ctx, sock, inv); forwarded {
				return err
			}
		}
	}
	s, err := l.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	return a.explain(fn(s))
}
