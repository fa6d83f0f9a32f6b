package sqlitestore_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
	"github.com/sandnet/sandnet/internal/store/storetest"
	"github.com/sandnet/sandnet/internal/validator"
)

// openValidatorAt opens the validator database at path and closes it when
// the test ends.
func openValidatorAt(t testing.TB, path string) *sqlitestore.Validator {
	t.Helper()
	s, err := sqlitestore.OpenValidator(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func TestValidator(t *testing.T) {
	storetest.ExerciseValidator(t,
		func(t *testing.T) validator.Store {
			return openValidatorAt(t, filepath.Join(t.TempDir(), "validator.db"))
		},
		func(t *testing.T, s validator.Store) validator.Store {
			v := s.(*sqlitestore.Validator)
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			return openValidatorAt(t, v.Path())
		})
}

// TestValidatorSecondOpenRefused checks the file lock: a second store on
// the same validator database fails clearly while the first is open, and
// succeeds after it is closed.
func TestValidatorSecondOpenRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "validator.db")
	first, err := sqlitestore.OpenValidator(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sqlitestore.OpenValidator(t.Context(), path)
	if !fault.Is(err, fault.FailedPrecondition) || !strings.Contains(err.Error(), "in use by another sandnet process") {
		t.Fatalf("second open: error = %v; want the database to be in use", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	openValidatorAt(t, path)
}
