package validator_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
)

// A name the participant could not hold as a user id (nor as the hint of
// a party id of at most 255 characters) is refused, and onboards no one:
// a user named with 1 MiB could never send a token that fits in a header.
func TestOnboardRefusesInvalidNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	before, err := e.v.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"with space", "ünï", strings.Repeat("n", 129), strings.Repeat("n", 300), strings.Repeat("x", 1<<20)} {
		if _, err := e.v.Onboard(ctx, name, ""); !fault.Is(err, fault.InvalidArgument) {
			t.Errorf("onboard %.20q (%d bytes): %v, want InvalidArgument", name, len(name), err)
		} else if len(err.Error()) > 200 {
			t.Errorf("onboard %.20q: the error quotes the name: %.100s…", name, err)
		}
	}
	if after, err := e.v.Users(ctx); err != nil || !slices.Equal(after, before) {
		t.Errorf("users after refused onboardings: %.200q (%v), want %q", after, err, before)
	}
	if _, err := e.v.Onboard(ctx, strings.Repeat("n", 128), ""); err != nil {
		t.Errorf("onboard a 128-character name: %v", err)
	}
}
