package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cockroachdb/errors"

	"github.com/integration-connect/connect/store"
	"github.com/integration-connect/connect/store/bolt"
)

// errPostgresBackup is the answer of backup and compact on PostgreSQL.
var errPostgresBackup = errors.New("with PostgreSQL (--database-url) backups are the database's own: " +
	"pg_dump for a logical copy, or base backups (pg_basebackup) with WAL archiving for point-in-time recovery; " +
	"connectd backup and compact work on the bbolt file of --data")

// backupStore is a store that can copy itself consistently while in use: the
// bbolt store.
type backupStore interface {
	Backup(ctx context.Context, w io.Writer) (int64, error)
}

// runBackup writes a consistent copy of the bbolt store to --out, taken in one
// read transaction: in the server through the admin socket while it runs,
// from the file otherwise. Serving the copy restores everything.
func runBackup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdmin("backup --out FILE [--data DIR | --database-url URL]", stdout, stderr)
	out := a.requiredString("out", "file to write the copy to; an existing file is replaced once the copy is complete")
	if err := a.parse(args); err != nil {
		return err
	}
	if a.where.shared() {
		return errPostgresBackup
	}
	path, err := filepath.Abs(*out)
	if err != nil {
		return errors.Wrapf(err, "resolving --out %s", *out)
	}
	// A running server writes the copy: it must get a path that does not
	// depend on its working directory.
	if inv := invocationFrom(ctx); inv != nil {
		ctx = withInvocation(ctx, &invocation{args: []string{"backup", "--out", path}, stdout: inv.stdout, stderr: inv.stderr})
	}
	return withStore(ctx, a, func(s store.Store) error {
		b, ok := s.(backupStore)
		if !ok {
			return errPostgresBackup
		}
		var n int64
		err := replaceFile(path, func(tmp string) error {
			f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return errors.WithStack(err)
			}
			if n, err = b.Backup(ctx, f); err == nil {
				err = f.Sync()
			}
			return errors.CombineErrors(err, f.Close())
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote a consistent copy of the store to %s (%d bytes)\n", path, n)
		return nil
	})
}

// runCompact writes a compacted copy of the bbolt file to --out while no
// server runs: deleted jobs and purged records no longer take space in it.
func runCompact(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("compact --out FILE [--data DIR | --database-url URL]", stdout, stderr)
	var where location
	where.register(fs.FlagSet, "data directory holding connect.db, which no server may be using")
	out := fs.requiredString("out", "file to write the compacted copy to; an existing file is replaced once the copy is complete")
	if err := fs.parse(args); err != nil {
		return err
	}
	if where.shared() {
		return errPostgresBackup
	}
	src, err := filepath.Abs(filepath.Join(where.dataDir, bolt.FileName))
	if err != nil {
		return errors.WithStack(err)
	}
	dst, err := filepath.Abs(*out)
	if err != nil {
		return errors.Wrapf(err, "resolving --out %s", *out)
	}
	if dst == src {
		return fs.usageError("--out must name a new file, not the store's own %s", src)
	}
	if err := where.boltFileExists(); err != nil {
		return err
	}
	err = replaceFile(dst, func(tmp string) error { return bolt.Compact(src, tmp) })
	if errors.Is(err, bolt.ErrLocked) {
		return errors.Newf("%s is in use (is connectd serve running?): stop the server to compact, or take a backup while it runs", src)
	}
	if err != nil {
		return err
	}
	before, after := fileSize(src), fileSize(dst)
	fmt.Fprintf(stdout, "wrote a compacted copy of %s (%d bytes) to %s (%d bytes); to use it, replace %s with it while no server runs\n",
		src, before, dst, after, bolt.FileName)
	return nil
}

// replaceFile has write create a file at a temporary path beside path, then
// renames it to path: path holds either its old content or the complete new
// one, never a part.
func replaceFile(path string, write func(tmp string) error) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	_ = os.Remove(tmp) // left by an interrupted run
	if err := write(tmp); err != nil {
		_ = os.Remove(tmp)
		return errors.Wrapf(err, "writing %s", path)
	}
	return errors.Wrapf(os.Rename(tmp, path), "writing %s", path)
}

func fileSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}
