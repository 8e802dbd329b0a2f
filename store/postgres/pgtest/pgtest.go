// Package pgtest gives tests a real, empty PostgreSQL schema of their own.
//
// The server is, in this order:
//   - the one CONNECT_TEST_DATABASE_URL names (the URL of a role that may create
//     databases); or
//   - a throwaway cluster pgtest starts by itself when PostgreSQL's binaries are
//     installed (/usr/lib/postgresql/<version>/bin, or PG_BIN). It lives in
//     /tmp/connect-pgtest-<uid>, listens only on a unix socket there, runs
//     without fsync, and is shared by the test processes running at the same
//     time (go test runs packages in parallel): a file lock counts its users,
//     and the last one leaving stops it when its TestMain calls Main.
//
// Without either, tests calling URL skip with one line saying how to enable
// them; CONNECT_REQUIRE_POSTGRES=1 turns that skip into a failure, so CI cannot
// pass without having run them.
//
// Each test process gets a database of its own, and each URL call a new schema
// in it (the URL sets search_path), so tests never see each other's data.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/jackc/pgx/v5"
)

// Environment variables pgtest reads.
const (
	// EnvURL names a server to test against instead of a throwaway cluster.
	EnvURL = "CONNECT_TEST_DATABASE_URL"
	// EnvRequire set to 1 makes a missing server a test failure, not a skip.
	EnvRequire = "CONNECT_REQUIRE_POSTGRES"
	// EnvBin names the directory of initdb and pg_ctl when it is not the newest
	// /usr/lib/postgresql/*/bin.
	EnvBin = "PG_BIN"
)

// SkipMessage is the one line a test prints when PostgreSQL is not available.
const SkipMessage = "PostgreSQL tests skipped: set " + EnvURL + " or install postgresql-15"

var (
	once     sync.Once
	server   *cluster // nil when no server is available
	dbURL    string   // this process's database
	setupErr error
	schemas  sync.Mutex
	nschema  int
)

// URL returns the URL of a new, empty schema for tb in this process's
// database, dropped when tb ends. It skips (or, with CONNECT_REQUIRE_POSTGRES=1,
// fails) tb when no PostgreSQL server is available.
func URL(tb testing.TB) string {
	tb.Helper()
	base := Database(tb)
	schemas.Lock()
	nschema++
	name := fmt.Sprintf("t%d_%s", nschema, randomHex(4))
	schemas.Unlock()
	ctx := context.Background()
	if err := exec1(ctx, base, "CREATE SCHEMA "+name); err != nil {
		tb.Fatalf("pgtest: creating schema %s: %v", name, err)
	}
	tb.Cleanup(func() {
		if err := exec1(ctx, base, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			tb.Logf("pgtest: dropping schema %s: %v", name, err)
		}
	})
	return withParam(base, "search_path", name)
}

// Database returns the URL of this process's test database, creating it (and
// starting a throwaway cluster) on first use. Tests that need a database of
// their own, such as a test of migrations, use URL instead.
func Database(tb testing.TB) string {
	tb.Helper()
	once.Do(setup)
	if setupErr != nil {
		tb.Fatalf("pgtest: %v", setupErr)
	}
	if dbURL == "" {
		if os.Getenv(EnvRequire) == "1" {
			tb.Fatalf("%s=1 but no PostgreSQL server is available: set %s or install postgresql-15", EnvRequire, EnvURL)
		}
		tb.Skip(SkipMessage)
	}
	return dbURL
}

// Available reports whether a PostgreSQL server is available to the tests of
// this process, starting the throwaway cluster when that is the way to one.
// A process that called it must end through Main, which leaves the cluster.
func Available() bool {
	once.Do(setup)
	return setupErr == nil && dbURL != ""
}

// Main runs the tests of a package and then drops its database and, when it
// was the last user of the throwaway cluster, stops it. Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	if dbURL != "" {
		dropDatabase(dbURL)
	}
	if server != nil {
		server.leave()
	}
	return code
}

func setup() {
	admin := os.Getenv(EnvURL)
	if admin == "" {
		bin := binDir()
		if bin == "" {
			return
		}
		server, setupErr = join(bin)
		if setupErr != nil {
			return
		}
		admin = server.url("postgres")
	}
	dbURL, setupErr = createDatabase(admin)
}

// createDatabase creates a database named after the test binary and a random
// suffix on the server of admin and returns its URL.
func createDatabase(admin string) (string, error) {
	name := "connect_" + sanitize(filepath.Base(os.Args[0])) + "_" + randomHex(4)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := exec1(ctx, admin, "CREATE DATABASE "+name+" ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"); err != nil {
		return "", errors.Wrapf(err, "creating database %s", name)
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", errors.Wrap(err, "parsing "+EnvURL)
	}
	u.Path = "/" + name
	return u.String(), nil
}

func dropDatabase(db string) {
	u, err := url.Parse(db)
	if err != nil {
		return
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = exec1(ctx, u.String(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
}

// exec1 runs one statement on a new connection to url.
func exec1(ctx context.Context, url, sql string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return errors.Wrap(err, "connecting")
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return errors.Wrap(err, sql)
}

func withParam(rawURL, key, value string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

func sanitize(s string) string {
	s = strings.TrimSuffix(strings.ToLower(s), ".test")
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
		if b.Len() == 20 {
			break
		}
	}
	return b.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// binDir returns the directory of initdb: PG_BIN, else the newest installed
// /usr/lib/postgresql/<version>/bin, else "".
func binDir() string {
	if dir := os.Getenv(EnvBin); dir != "" {
		return dir
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(found, func(i, j int) bool { return version(found[i]) > version(found[j]) })
	if len(found) == 0 {
		return ""
	}
	return filepath.Dir(found[0])
}

func version(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

// cluster is the throwaway cluster shared by the test processes of one user.
// The users of the cluster hold a shared lock on users.lock for as long as
// they use it; changes (start, stop) happen under an exclusive lock on
// start.lock, so a process leaving stops the cluster only when nobody else
// holds users.lock.
type cluster struct {
	bin, dir string
	users    *os.File
}

// clusterDir is short because a unix socket path is at most 107 bytes, and
// outside the test's temporary directory because the postgres user cannot
// enter it.
func clusterDir() string { return fmt.Sprintf("/tmp/connect-pgtest-%d", os.Getuid()) }

func (c *cluster) data() string   { return filepath.Join(c.dir, "data") }
func (c *cluster) socket() string { return filepath.Join(c.dir, "sock") }

func (c *cluster) url(db string) string {
	return fmt.Sprintf("postgres://postgres@/%s?host=%s&sslmode=disable", db, url.QueryEscape(c.socket()))
}

// join starts using the shared cluster, initialising and starting it when
// needed.
func join(bin string) (*cluster, error) {
	c := &cluster{bin: bin, dir: clusterDir()}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return nil, errors.Wrap(err, "creating the cluster directory")
	}
	if err := os.Chmod(c.dir, 0o755); err != nil {
		return nil, errors.Wrap(err, "opening the cluster directory to the postgres user")
	}
	unlock, err := lockFile(filepath.Join(c.dir, "start.lock"), syscall.LOCK_EX)
	if err != nil {
		return nil, err
	}
	defer unlock()
	users, err := os.OpenFile(filepath.Join(c.dir, "users.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, errors.Wrap(err, "opening users.lock")
	}
	if err := syscall.Flock(int(users.Fd()), syscall.LOCK_SH); err != nil {
		users.Close()
		return nil, errors.Wrap(err, "locking users.lock")
	}
	c.users = users
	if err := c.ensureRunning(); err != nil {
		users.Close()
		return nil, err
	}
	return c, nil
}

// leave stops using the cluster and stops it when nobody else uses it.
func (c *cluster) leave() {
	unlock, err := lockFile(filepath.Join(c.dir, "start.lock"), syscall.LOCK_EX)
	if err != nil {
		return
	}
	defer unlock()
	_ = syscall.Flock(int(c.users.Fd()), syscall.LOCK_UN)
	if syscall.Flock(int(c.users.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
		_ = c.run("pg_ctl", "stop", "-D", c.data(), "-m", "fast", "-w")
	}
	c.users.Close()
}

// ensureRunning starts the cluster unless it runs. A data directory that
// does not start (another PostgreSQL version, or damaged: it runs without
// fsync) is made anew once; nobody uses a cluster that is not running.
func (c *cluster) ensureRunning() error {
	if c.run("pg_ctl", "status", "-D", c.data()) == nil {
		return nil
	}
	err := c.start()
	if err != nil {
		if err = c.initdb(); err == nil {
			err = c.start()
		}
	}
	return err
}

func (c *cluster) start() error {
	if _, err := os.Stat(filepath.Join(c.data(), "PG_VERSION")); err != nil {
		if err := c.initdb(); err != nil {
			return err
		}
	}
	log := filepath.Join(c.data(), "server.log") // the postgres user can write there
	opts := "-k " + c.socket() + " -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
	if err := c.run("pg_ctl", "start", "-D", c.data(), "-w", "-t", "120", "-l", log, "-o", opts); err != nil {
		return errors.Wrapf(err, "starting the test cluster (log: %s)", log)
	}
	return nil
}

func (c *cluster) initdb() error {
	_ = os.RemoveAll(c.data())
	for _, dir := range []string{c.data(), c.socket()} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return errors.Wrap(err, "creating "+dir)
		}
		if err := c.chownToRunner(dir); err != nil {
			return err
		}
	}
	err := c.run("initdb", "-D", c.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	return errors.Wrap(err, "initialising the test cluster")
}

// asPostgres reports whether the server must run as the postgres user:
// PostgreSQL refuses to run as root.
func asPostgres() bool { return os.Geteuid() == 0 }

func (c *cluster) chownToRunner(dir string) error {
	if !asPostgres() {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return errors.Wrap(err, "looking up the postgres user")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return errors.Wrap(os.Chown(dir, uid, gid), "handing "+dir+" to the postgres user")
}

// run runs a PostgreSQL program, as the postgres user when this is root.
func (c *cluster) run(program string, args ...string) error {
	path := filepath.Join(c.bin, program)
	if asPostgres() {
		args = append([]string{"-u", "postgres", "--", path}, args...)
		path = "runuser"
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if err != nil {
		return errors.Wrapf(err, "%s: %s", program, strings.TrimSpace(string(out)))
	}
	return nil
}

// lockFile takes a flock on path and returns its release.
func lockFile(path string, how int) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, errors.Wrap(err, "opening "+path)
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, errors.Wrap(err, "locking "+path)
	}
	return func() { f.Close() }, nil
}
