package readme_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// quickStart finds the README's PostgreSQL quick start: the sh block after
// the "quickstart: postgres" marker.
var quickStart = regexp.MustCompile("(?s)<!-- quickstart: postgres -->\n```sh\n(.*?)```")

// TestPostgresQuickStart runs the README's PostgreSQL quick start, as it is,
// with bash from the repository root, on what it promises to work on: a
// machine where PostgreSQL runs as Debian sets it up (a superuser postgres
// reached with sudo over the socket in /var/run/postgresql, password logins
// on 127.0.0.1:5432). The test sets up that server itself, a throwaway
// cluster, and stops it afterwards. It changes the machine (go install, port
// 5432, /var/run/postgresql), so it runs only when CONNECT_TEST_QUICKSTART=1,
// as CI sets it; it needs root, sudo and PostgreSQL's binaries.
func TestPostgresQuickStart(t *testing.T) {
	if os.Getenv("CONNECT_TEST_QUICKSTART") != "1" {
		t.Skip("the README's PostgreSQL quick start runs only with CONNECT_TEST_QUICKSTART=1 (root, sudo, port 5432 free; CI sets it)")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := quickStart.FindSubmatch(readme)
	if m == nil {
		t.Fatal(`the README has no "<!-- quickstart: postgres -->" sh block`)
	}
	startDebianLikeServer(t)

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-u", "-o", "pipefail", "-c", string(m[1]))
	cmd.Dir = "../.."
	cmd.Env = withoutStoreVariables(os.Environ())
	// Its own process group, so the replicas it starts in the background are
	// stopped with it whatever happens.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		t.Fatalf("the quick start failed: %v\n%s\nreplica logs:\n%s", err, out.String(), replicaLogs())
	}
	for _, want := range []string{`"status":"Accepted"`, `"total":1`, `"externalId":"WO-1"`, `The store PostgreSQL database "connect" on 127.0.0.1:5432 as "connect" has the schema`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the quick start's output lacks %q:\n%s", want, out.String())
		}
	}
}

// startDebianLikeServer starts a throwaway cluster as Debian's package runs
// one: as the user postgres, its socket in /var/run/postgresql, port 5432,
// peer logins on the socket, passwords on 127.0.0.1.
func startDebianLikeServer(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the quick start test runs as root (it creates /var/run/postgresql and uses sudo)")
	}
	for _, tool := range []string{"sudo", "runuser", "psql", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the quick start needs %s: %v", tool, err)
		}
	}
	bin := pgBin(t)
	pg, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("no user postgres: %v", err)
	}
	dir, err := os.MkdirTemp("", "connect-quickstart-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	asPostgres := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(bin, name)}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	for _, d := range []string{dir, "/var/run/postgresql"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, atoi(pg.Uid), atoi(pg.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat("/var/run/postgresql/.s.PGSQL.5432"); err == nil {
		t.Fatal("a PostgreSQL server already listens on /var/run/postgresql/.s.PGSQL.5432: the quick start test needs the machine's port 5432 to itself")
	}
	data := filepath.Join(dir, "data")
	asPostgres("initdb", "-D", data, "-U", "postgres", "--auth-local=peer", "--auth-host=scram-sha-256")
	asPostgres("pg_ctl", "-D", data, "-l", filepath.Join(dir, "server.log"), "-w",
		"-o", "-k /var/run/postgresql -p 5432 -c listen_addresses=127.0.0.1 -c fsync=off", "start")
	t.Cleanup(func() {
		_ = exec.Command("runuser", "-u", "postgres", "--", filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop").Run()
	})
}

// pgBin is the directory of PostgreSQL's server binaries.
func pgBin(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("PG_BIN"); dir != "" {
		return dir
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if len(dirs) == 0 {
		t.Fatal("PostgreSQL's binaries are not installed (/usr/lib/postgresql/<version>/bin, or PG_BIN)")
	}
	return dirs[len(dirs)-1]
}

// withoutStoreVariables is env without the variables that choose a store, so
// the quick start uses the one it sets.
func withoutStoreVariables(env []string) []string {
	var kept []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "CONNECT_DATABASE_URL=") && !strings.HasPrefix(kv, "CONNECT_DATA=") {
			kept = append(kept, kv)
		}
	}
	return kept
}

// replicaLogs are the logs the quick start's replicas wrote, for a failure.
func replicaLogs() string {
	var b strings.Builder
	for _, port := range []string{"8081", "8082"} {
		log, _ := os.ReadFile("/tmp/connect-" + port + ".log")
		fmt.Fprintf(&b, "--- %s\n%s", port, log)
	}
	return b.String()
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}
