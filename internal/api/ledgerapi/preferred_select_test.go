package ledgerapi

import (
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/ledger"
)

// The choice among several packages of a name, which the registry (one
// package per name) cannot show through the API: the highest version,
// compared numerically, then the greater id; and the reason when a name
// has no package, the one way to NO_PREFERRED_PACKAGES_FOUND.
func TestSelectPackages(t *testing.T) {
	t.Parallel()
	pkgs := []ledger.Package{
		{Name: "a", ID: "a9", Version: "0.1.9"},
		{Name: "a", ID: "a10", Version: "0.1.10"},
		{Name: "a", ID: "a2", Version: "0.1"},
		{Name: "b", ID: "b1", Version: "1.0.0"},
		{Name: "b", ID: "b2", Version: "1.0.0"},
		{Name: "c", ID: "c1", Version: ""},
	}
	ref := func(p ledger.Package) PackageReference {
		return PackageReference{PackageID: p.ID, PackageName: p.Name, PackageVersion: p.Version}
	}
	cases := []struct {
		name   string
		names  []string
		want   []PackageReference
		reason string
	}{
		{name: "numeric versions", names: []string{"a"}, want: []PackageReference{ref(pkgs[1])}},
		{name: "equal versions: the greater id", names: []string{"b"}, want: []PackageReference{ref(pkgs[4])}},
		{name: "in the names' order", names: []string{"c", "b", "a"}, want: []PackageReference{ref(pkgs[5]), ref(pkgs[4]), ref(pkgs[1])}},
		{name: "a name without a package", names: []string{"a", "z"},
			reason: "No package is consistently vetted by all hosting participants of the requested parties for package-name 'z'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, reason := selectPackages(pkgs, tc.names)
			if !slices.Equal(got, tc.want) || reason != tc.reason {
				t.Errorf("selectPackages(%v) = %+v, %q; want %+v, %q", tc.names, got, reason, tc.want, tc.reason)
			}
		})
	}
}

func TestCompareVersions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		want int
	}{
		{"0.1.10", "0.1.9", 1},
		{"1.0.0", "1.0.0", 0},
		{"1.0", "1.0.0", -1},
		{"2", "10", -1},
		{"99999999999999999999999", "99999999999999999999998", 1},
		{"", "0", -1},
	}
	for _, tc := range cases {
		if got := compareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := compareVersions(tc.b, tc.a); got != -tc.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}
