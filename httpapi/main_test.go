package httpapi_test

import (
	"os"
	"testing"

	"github.com/integration-connect/connect/store/teststore"
)

// TestMain runs every test of the package on bbolt and then on PostgreSQL.
func TestMain(m *testing.M) { os.Exit(teststore.Main(m)) }
