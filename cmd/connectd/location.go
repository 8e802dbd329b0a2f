package main

import (
	"context"
	"flag"
	"path/filepath"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
)

// location says where the store is: the flags that serve and every admin
// command share. Which store to open, and whether an admin command reaches it
// through a running server, is decided here and nowhere else.
type location struct {
	dataDir string
}

// register declares the location flags on fs.
func (l *location) register(fs *flag.FlagSet, dataUsage string) {
	fs.StringVar(&l.dataDir, "data", envOr("CONNECT_DATA", "./connect-data"), dataUsage+" (env CONNECT_DATA)")
}

// adminSocket is the path of the admin socket of the server holding the store,
// or "" for a store that every process opens itself.
func (l location) adminSocket() string {
	return filepath.Join(l.dataDir, adminSocketName)
}

// open opens the store, with a clear message when another process holds it.
func (l location) open() (store.Store, error) {
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
	s, err := l.open()
	if err != nil {
		return err
	}
	defer s.Close()
	return a.explain(fn(s))
}
