package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if err := newFlags("version", stdout, stderr).parse(args); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "connectd %s (%s, %s)\n", version, revision(), runtime.Version())
	return nil
}

// revision returns the VCS revision the binary was built from, when recorded.
func revision() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "revision unknown"
}
