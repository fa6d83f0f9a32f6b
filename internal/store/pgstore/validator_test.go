package pgstore_test

import (
	"testing"

	"github.com/sandnet/sandnet/internal/store/pgstore"
	"github.com/sandnet/sandnet/internal/store/storetest"
	"github.com/sandnet/sandnet/internal/validator"
)

// openValidatorSchema opens a validator store on schema and closes it when
// the test ends.
func openValidatorSchema(t testing.TB, url, schema string) *pgstore.Validator {
	t.Helper()
	s, err := pgstore.OpenValidator(t.Context(), url, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestValidator(t *testing.T) {
	storetest.ExerciseValidator(t,
		func(t *testing.T) validator.Store {
			url, schema := pgstore.NewTestSchema(t)
			return openValidatorSchema(t, url, schema)
		},
		func(t *testing.T, s validator.Store) validator.Store {
			v := s.(*pgstore.Validator)
			v.Close()
			return openValidatorSchema(t, pgstore.TestDatabaseURL(t), v.Schema())
		})
}

func TestValidatorSchemaNameChecked(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "Public", "a-b", "x; DROP TABLE y"} {
		if _, err := pgstore.OpenValidator(t.Context(), pgstore.DefaultTestURL, name); err == nil {
			t.Errorf("schema %q accepted", name)
		}
	}
}
