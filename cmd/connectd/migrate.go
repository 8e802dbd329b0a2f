package main

import (
	"context"
	"fmt"
	"io"

	"github.com/integration-connect/connect/store/postgres"
)

// runMigrate applies the PostgreSQL schema migrations of this binary. serve
// applies them too, once, under an advisory lock; migrate lets a deploy do it
// explicitly before starting new replicas. The bbolt file needs no command:
// it is migrated whenever it is opened.
func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("migrate --database-url URL", stdout, stderr)
	var where location
	where.registerDatabase(fs.FlagSet, "the PostgreSQL database to migrate")
	if err := fs.parse(args); err != nil {
		return err
	}
	if !where.shared() {
		return fs.usageError("--database-url is required (or CONNECT_DATABASE_URL): migrate applies the PostgreSQL schema; a bbolt file migrates itself when opened")
	}
	if err := postgres.Migrate(ctx, where.databaseURL); err != nil {
		return err
	}
	_, err := fmt.Fprintf(stdout, "The database at %s has the schema of connectd %s.\n", where.describe(), version)
	return err
}
