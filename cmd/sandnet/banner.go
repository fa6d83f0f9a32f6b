package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// banner is what `sandnet start` prints for a person once the network is
// ready: where each API is, how to get a token and where the data lives.
// The log lines say the same for machines (scripts wait for "sandnet is
// ready"); the banner is printed only with text logs.
type banner struct {
	// base is the URL a client on this machine reaches the main listener at.
	base      string
	startup   time.Duration
	store     string
	dashboard string
	seeded    *splice.Seeded
	// tokenHint, adminHint and statusHint are the `sandnet token`,
	// `sandnet admin` and `sandnet status` commands spelled with this
	// process's flags (startHints; no token hint when it mints no tokens).
	tokenHint, adminHint, statusHint string
	// localNet lists LocalNet's addresses as name, description pairs
	// (localNet.urls), when --localnet serves them.
	localNet []any
}

// write prints the banner. Every URL in it is one a client can call as
// printed.
func (b banner) write(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nsandnet is ready in %s: data in %s\n\n", b.startup.Round(time.Millisecond), b.store)
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	row := func(what, url, note string) { fmt.Fprintf(tw, "  %s\t%s\t%s\n", what, url, note) }
	row("dashboard", b.dashboard, "")
	first := b.seeded.Validators[0]
	row("ledger API", b.base+"/v2", "the validator's participant; SV k's at /sv/k/v2")
	row("validator API", b.base+"/api/validator", "wallet users "+userNames(first))
	for _, v := range b.seeded.Validators[1:] {
		row("", b.base+validatorPathPrefix(v.Name)+"/api/validator", "validator "+v.Name+": wallet users "+userNames(v)+"; its ledger API at "+validatorPathPrefix(v.Name)+"/v2")
	}
	row("Scan", b.base+"/api/scan", fmt.Sprintf("SV 1's; SV k's (of %d) at /sv/k/api/scan", len(b.seeded.SVs)))
	row("registry", b.base+"/registry", "the token standard's registry for Amulet")
	row("admin API", b.base+"/api/sandnet/v0", "operator user "+OperatorUser)
	row("metrics", b.base+"/metrics", "")
	for i := 0; i+1 < len(b.localNet); i += 2 {
		row("LocalNet "+fmt.Sprint(b.localNet[i]), fmt.Sprint(b.localNet[i+1]), "")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	sb.WriteString("\n")
	tw = tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	if b.tokenHint != "" {
		fmt.Fprintf(tw, "  a token\t%s\n", b.tokenHint)
	}
	fmt.Fprintf(tw, "  the network\t%s\n", b.adminHint)
	fmt.Fprintf(tw, "  a summary\t%s\n", b.statusHint)
	if err := tw.Flush(); err != nil {
		return err
	}
	sb.WriteString("\n")
	// An empty last column leaves tabwriter's padding at the line's end.
	lines := strings.Split(sb.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}

// userNames lists a validator's wallet users for the banner.
func userNames(v splice.SeededValidator) string {
	if len(v.Users) == 0 {
		return "none"
	}
	names := make([]string, len(v.Users))
	for i, u := range v.Users {
		names[i] = u.Name
	}
	return strings.Join(names, ", ")
}

// dataPlace says where the data lives, for the banner: the directory of
// the SQLite databases, or PostgreSQL's schemas.
func dataPlace(cfg StartCmd) string {
	if cfg.DatabaseURL != "" {
		return fmt.Sprintf("PostgreSQL %s, schemas %s_*", redactURL(cfg.DatabaseURL), cfg.DBSchema)
	}
	if abs, err := filepath.Abs(cfg.DataDir); err == nil {
		return abs + " (SQLite)"
	}
	return cfg.DataDir + " (SQLite)"
}
