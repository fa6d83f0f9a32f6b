// Command sandnet runs the Canton Network on one machine: ledger nodes, a
// validator and Scans behind their real HTTP interfaces, on an embedded
// SQLite store or on PostgreSQL.
//
// This package is the only place where sandnet's parts are wired together:
// flags and environment become typed configuration here, and nothing below
// cmd/ reads either.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kong"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// CLI is sandnet's command line.
type CLI struct {
	Start   StartCmd   `cmd:"" help:"Run a local Canton Network: ledger API, validator, Scan and admin API on one port."`
	Init    InitCmd    `cmd:"" help:"Write an example network file for sandnet start --config (sandnet.yaml unless named)."`
	Token   TokenCmd   `cmd:"" help:"Print a bearer token (JWT) for a ledger API user."`
	Admin   AdminCmd   `cmd:"" help:"Drive a running sandnet through its admin API."`
	Status  StatusCmd  `cmd:"" help:"Summarize a running sandnet: readiness, network, clock, ledger ends, Scan."`
	Scan    ScanCmd    `cmd:"" help:"Run a Scan in its own process, reading a running sandnet over its JSON Ledger API."`
	Version VersionCmd `cmd:"" help:"Print the version."`
}

// newParser returns the command-line parser that fills cli.
func newParser(cli *CLI) (*kong.Kong, error) {
	return kong.New(cli,
		kong.Name("sandnet"),
		kong.Description("sandnet is the Canton Network on one machine."),
		kong.Vars{"version": version},
	)
}

func main() {
	var cli CLI
	parser, err := newParser(&cli)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandnet:", err)
		os.Exit(2)
	}
	kctx, err := parser.Parse(os.Args[1:])
	if err != nil {
		// One clear line, no usage dump: the user asked for something
		// specific and gets told exactly what was wrong.
		fmt.Fprintf(os.Stderr, "sandnet: %v (see sandnet --help)\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	kctx.BindTo(ctx, (*context.Context)(nil))
	if err := kctx.Run(); err != nil {
		stop()
		if !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "sandnet:", err)
			os.Exit(1)
		}
	}
}

// VersionCmd prints the version.
type VersionCmd struct{}

// Run prints the version.
func (VersionCmd) Run() error {
	fmt.Println("sandnet", version)
	return nil
}
