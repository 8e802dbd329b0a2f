// Package osrmtest gives tests a real OSRM server (osrm-routed) over the
// Monaco extract in routesuggest/testdata/monaco, never a stand-in.
//
// The server is, in this order:
//   - the one CONNECT_TEST_OSRM_URL names; or
//   - one osrmtest starts from an OSRM installation prepared by .ci/osrm.sh
//     (a Debian root in /opt/osrm-sid, or CONNECT_OSRM_ROOT, with the Monaco
//     graph built in its data directory).
//
// Without either, the road tests skip with one line saying how to enable
// them; CONNECT_REQUIRE_OSRM=1 turns that skip into a failure, so CI cannot
// pass without having run them. Tests that need a server of their own (with
// a small table limit, or to stop it mid-test) call Start, which needs the
// installation.
package osrmtest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Environment variables osrmtest reads.
const (
	// EnvURL names a running server to test against.
	EnvURL = "CONNECT_TEST_OSRM_URL"
	// EnvRequire set to 1 makes a missing server a test failure, not a skip.
	EnvRequire = "CONNECT_REQUIRE_OSRM"
	// EnvRoot names the OSRM installation when it is not /opt/osrm-sid.
	EnvRoot = "CONNECT_OSRM_ROOT"
)

// SkipMessage is the one line a road test prints when no OSRM is available.
const SkipMessage = "road tests skipped: run .ci/osrm.sh (installs and starts OSRM) or set " + EnvURL

// graph is the Monaco graph inside the installation, as .ci/osrm.sh builds it.
const graph = "/data/monaco.osrm"

// readyWithin bounds the wait for a started server to answer: loading the
// Monaco graph takes well under a second, on a busy machine a few.
const readyWithin = 60 * time.Second

var (
	shared     sync.Once
	sharedURL  string
	sharedStop func()
)

// URL returns the address of an OSRM server with the Monaco graph and a table
// limit of at least 1,000, or skips tb (fails it with CONNECT_REQUIRE_OSRM=1).
func URL(tb testing.TB) string {
	tb.Helper()
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	shared.Do(func() {
		if root, ok := installation(); ok {
			if s, err := start(root, 1000); err == nil {
				sharedURL, sharedStop = s.URL, s.Stop
			}
		}
	})
	if sharedURL == "" {
		unavailable(tb)
	}
	return sharedURL
}

// Server is an osrm-routed started for one test.
type Server struct {
	// URL is its address.
	URL string
	cmd *exec.Cmd
	// done is closed when the process has ended.
	done chan struct{}
}

// Start starts a server of tb's own with the given table limit
// (--max-table-size), stopped when tb ends, or skips tb when OSRM is not
// installed.
func Start(tb testing.TB, tableLimit int) *Server {
	tb.Helper()
	root, ok := installation()
	if !ok {
		unavailable(tb)
	}
	s, err := start(root, tableLimit)
	if err != nil {
		tb.Fatalf("osrmtest: %v", err)
	}
	tb.Cleanup(s.Stop)
	return s
}

// Stop kills the server and waits until it has ended; stopping twice is
// harmless.
func (s *Server) Stop() {
	_ = s.cmd.Process.Kill()
	<-s.done
}

func start(root string, tableLimit int) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("chroot", root, "osrm-routed", "-i", "127.0.0.1", "-p", strconv.Itoa(port), "-a", "CH",
		"--max-table-size", strconv.Itoa(tableLimit), graph)
	// The server dies with the test process, even one killed before its
	// cleanups ran (osrmtest runs on Linux, where the installation is).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting osrm-routed: %w", err)
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	if err := s.awaitReady(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// awaitReady polls the server until it answers a nearest request, it ends, or
// readyWithin passes.
func (s *Server) awaitReady() error {
	ctx, cancel := context.WithTimeout(context.Background(), readyWithin)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/nearest/v1/driving/7.4206,43.7384", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.done:
			return fmt.Errorf("osrm-routed ended before it answered (is the Monaco graph built? run .ci/osrm.sh)")
		case <-ctx.Done():
			return fmt.Errorf("osrm-routed did not answer within %s", readyWithin)
		case <-tick.C:
		}
	}
}

// installation returns the OSRM root with the Monaco graph built, if any.
func installation() (string, bool) {
	root := os.Getenv(EnvRoot)
	if root == "" {
		root = "/opt/osrm-sid"
	}
	_, errBin := os.Stat(filepath.Join(root, "usr/bin/osrm-routed"))
	_, errGraph := os.Stat(filepath.Join(root, graph+".hsgr"))
	return root, errBin == nil && errGraph == nil
}

func unavailable(tb testing.TB) {
	tb.Helper()
	if os.Getenv(EnvRequire) == "1" {
		tb.Fatalf("%s=1 but no OSRM server is available: run .ci/osrm.sh or set %s", EnvRequire, EnvURL)
	}
	tb.Skip(SkipMessage)
}

// freePort is a loopback port nobody listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Main runs the tests of a package and then stops the server URL started,
// if it started one (it would die with the process anyway). Use it from
// TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(osrmtest.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	if sharedStop != nil {
		sharedStop()
	}
	return code
}
