package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cockroachdb/errors"
	"github.com/jackc/pgx/v5/pgconn"

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

// describe names the store for output and log lines: the bbolt file's
// absolute path, or the database, its host and user, never a password.
func (l location) describe() string {
	if !l.shared() {
		path := filepath.Join(l.dataDir, bolt.FileName)
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		return path
	}
	cfg, err := pgconn.ParseConfig(l.databaseURL)
	if err != nil {
		return "a PostgreSQL database (the URL does not parse)"
	}
	return fmt.Sprintf("PostgreSQL database %q on %s as %q", cfg.Database, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), cfg.User)
}

// howToChoose says which flags and variables choose a store, for messages
// about a store that is not there.
const howToChoose = "--data DIR (or CONNECT_DATA) chooses the directory of a bbolt store, --database-url URL (or CONNECT_DATABASE_URL) a PostgreSQL database"

// open opens the store, with a clear message when another process holds the
// bbolt file. create says whether a store that is not there yet may be
// created (serve and migrate); every other command refuses, naming where it
// looked, so a mistyped directory or URL cannot start an empty store. An
// existing PostgreSQL schema is brought up to the binary's first.
func (l location) open(ctx context.Context, create bool) (store.Store, error) {
	if l.shared() {
		s, err := postgres.Open(ctx, l.databaseURL, &postgres.Options{MaxConns: int32(l.maxConns), ExistingOnly: !create})
		if errors.Is(err, postgres.ErrNoSchema) {
			return nil, errors.Newf("no store in %s: it has no Integration Connect schema yet; connectd migrate (or serve) creates it. %s", l.describe(), howToChoose)
		}
		return s, err
	}
	if err := l.boltFileExists(); !create && err != nil {
		return nil, err
	}
	s, err := bolt.OpenDir(l.dataDir, nil)
	if errors.Is(err, bolt.ErrLocked) {
		return nil, errors.Newf("%s is in use by another process (another connectd serve, one still starting, or a long admin command); stop it or use another --data directory", l.dataDir)
	}
	return s, err
}

// boltFileExists fails, naming where it looked and how to choose a store,
// when there is no bbolt file in the data directory.
func (l location) boltFileExists() error {
	_, err := os.Stat(filepath.Join(l.dataDir, bolt.FileName))
	if errors.Is(err, os.ErrNotExist) {
		return errors.Newf("no store at %s; connectd serve (or connectd migrate --data %s) creates one there. %s", l.describe(), l.dataDir, howToChoose)
	}
	return errors.WithStack(err)
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
	fmt.Fprintf(a.stderr, "Store: %s\n", l.describe())
	if inv := invocationFrom(ctx); inv != nil {
		if sock := l.adminSocket(); sock != "" {
			if forwarded, err := forward(ctx, sock, inv); forwarded {
				return err
			}
		}
	}
	s, err := l.open(ctx, false)
	if err != nil {
		return err
	}
	defer s.Close()
	return a.explain(fn(s))
}
