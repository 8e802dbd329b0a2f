package main

import (
	"context"
	"fmt"
	"io"

	"github.com/integration-connect/connect/store/postgres"
)

// runMigrate creates the store, or brings its schema up to this binary's:
// the PostgreSQL schema migrations, or a new or older bbolt file. serve does
// the same on start (on PostgreSQL once, under an advisory lock); migrate
// lets a deploy do it explicitly before starting new replicas, and is with
// serve the only command that creates a store.
func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("migrate [--data DIR | --database-url URL]", stdout, stderr)
	var where location
	where.register(fs.FlagSet, "data directory of the bbolt store to create or upgrade")
	if err := fs.parse(args); err != nil {
		return err
	}
	if where.shared() {
		if err := postgres.Migrate(ctx, where.databaseURL); err != nil {
			return err
		}
	} else {
		s, err := where.open(ctx, true)
		if err != nil {
			return err
		}
		if err := s.Close(); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(stdout, "The store %s has the schema of connectd %s.\n", where.describe(), version)
	return err
}
