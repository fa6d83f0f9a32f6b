package scanapi_test

import (
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/scanapi"
)

// TestOpenAPIDocumentIsValid loads the embedded document.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	if _, err := apitest.LoadSpec(scanapi.OpenAPI()); err != nil {
		t.Fatal(err)
	}
}
