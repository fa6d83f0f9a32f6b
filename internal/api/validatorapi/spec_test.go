package validatorapi_test

import (
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/validatorapi"
)

// TestOpenAPIDocumentIsValid loads the embedded document.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	if _, err := apitest.LoadSpec(validatorapi.OpenAPI()); err != nil {
		t.Fatal(err)
	}
}
