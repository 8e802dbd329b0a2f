package bolt

import (
	"context"
	"io"
	"os"

	"github.com/cockroachdb/errors"
	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Backup writes a consistent copy of the whole database file to w, taken in
// one read transaction: writes go on meanwhile, and the copy holds exactly
// those committed before it began, idempotency records included. Opened as
// the store's file, the copy restores everything. It returns the bytes
// written.
func (s *Store) Backup(ctx context.Context, w io.Writer) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, errors.WithStack(err)
	}
	var n int64
	err := s.db.View(func(btx *bbolt.Tx) (err error) {
		n, err = btx.WriteTo(w)
		return err
	})
	return n, errors.Wrap(err, "writing a backup")
}

// compactTxBytes is how much one transaction of Compact copies at most, so
// compacting a large file needs little memory.
const compactTxBytes = 64 << 20

// Compact writes a compacted copy of the database file at src to dst, a path
// that must not exist yet: every page filled, the free pages of deleted
// records (expired jobs, purged idempotency records and events) left out. The
// file at src must not be in use: ErrLocked when a server holds it. Serving
// the copy instead of the original frees the space; ids go on where they
// were.
func Compact(src, dst string) error {
	if _, err := os.Stat(src); err != nil {
		return errors.Wrap(err, "opening the database to compact")
	}
	from, err := bbolt.Open(src, 0o600, &bbolt.Options{ReadOnly: true, Timeout: withDefaults(nil).LockTimeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return errors.Wrapf(ErrLocked, "opening %s", src)
	}
	if err != nil {
		return errors.Wrapf(err, "opening %s", src)
	}
	defer from.Close()
	if _, err := os.Stat(dst); err == nil {
		return errors.Newf("%s exists already; compact writes a new file", dst)
	}
	to, err := bbolt.Open(dst, 0o600, nil)
	if err != nil {
		return errors.Wrapf(err, "creating %s", dst)
	}
	var used int64
	err = bbolt.Compact(to, from, compactTxBytes)
	if err == nil {
		err = to.View(func(btx *bbolt.Tx) error { used = btx.Size(); return nil })
	}
	err = errors.CombineErrors(err, to.Close())
	if err == nil {
		// bbolt sizes a new file in powers of two; the copy needs no room to
		// grow until it is opened, and bbolt grows it again then.
		err = os.Truncate(dst, used)
	}
	if err != nil {
		_ = os.Remove(dst)
		return errors.Wrapf(err, "compacting %s into %s", src, dst)
	}
	return nil
}
