// Package netconfig reads sandnet's network file: a YAML description of the
// network a first start seeds (its SVs, validators, users with their
// parties, rights, balances, pre-approvals and names, extra synchronizers,
// the clock's start, the network seed) and of the start command's other
// settings (listen address, data directory, database, auth, log).
//
// Parse checks the file strictly: every mistake, an unknown key included,
// is an *Error naming the file, the line and the field. The file's network
// part becomes a Spec, a canonical form that is stored with the ledger at
// first start so that a restart can tell whether the file still describes
// the network it has. Its other settings become flag values (FlagValues)
// that the command line applies below flags and their environment twins.
package netconfig

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	yaml "github.com/oasdiff/yaml3"

	"github.com/sandnet/sandnet/internal/daml"
)

// MaxFileSize bounds a network file, so that a wrong path (a log, an
// image) fails at once rather than being parsed.
const MaxFileSize = 1 << 20

// File is a parsed network file. A pointer field is nil when the file
// leaves it out. Fields with a flag tag set the start command's flag of
// that name.
type File struct {
	Listen      *string  `yaml:"listen" flag:"listen"`
	SVListen    *string  `yaml:"svListen" flag:"sv-listen"`
	DataDir     *string  `yaml:"dataDir" flag:"data-dir"`
	Database    Database `yaml:"database"`
	Auth        Auth     `yaml:"auth"`
	CORSOrigins []string `yaml:"corsOrigins" flag:"cors-origins"`
	Scan        Scan     `yaml:"scan"`
	HTTP        HTTP     `yaml:"http"`
	Log         Log      `yaml:"log"`
	Network     Network  `yaml:"network"`
}

// Database is where the data is kept: SQLite in the data directory unless
// URL names a PostgreSQL database.
type Database struct {
	URL    *string `yaml:"url" flag:"database-url"`
	Schema *string `yaml:"schema" flag:"database-schema"`
}

// Auth is how tokens are verified.
type Auth struct {
	Mode     *Enum   `yaml:"mode" flag:"auth"`
	Secret   *string `yaml:"secret" flag:"auth-secret"`
	Audience *string `yaml:"audience" flag:"auth-audience"`
	JWKSURL  *string `yaml:"jwksUrl" flag:"auth-jwks-url"`
}

// Scan holds the Scans' settings.
type Scan struct {
	SnapshotPeriod *Duration `yaml:"snapshotPeriod" flag:"scan-snapshot-period"`
}

// HTTP holds the APIs' limits.
type HTTP struct {
	ListMaxElementsLimit *int `yaml:"listMaxElementsLimit" flag:"http-list-max-elements-limit"`
}

// Log is the log's shape.
type Log struct {
	Format *Enum `yaml:"format" flag:"log-format"`
	Level  *Enum `yaml:"level" flag:"log-level"`
}

// Network is the part of the file that decides the seeded network.
type Network struct {
	// Seed is the network seed every id derives from.
	Seed *string `yaml:"seed" flag:"network-seed"`
	// SVs is the number of super validators.
	SVs *int `yaml:"svs" flag:"svs"`
	// Preapprovals gives every wallet user a transfer pre-approval.
	Preapprovals *bool `yaml:"preapprovals" flag:"seed-preapprovals"`
	// Clock is where ledger time starts.
	Clock Clock `yaml:"clock"`
	// Synchronizers are aliases of synchronizers added beside the global
	// one.
	Synchronizers []string `yaml:"synchronizers"`
	// Validators are the validator nodes with their users; nil (the key
	// left out) is the default validator with alice and bob.
	Validators []Validator `yaml:"validators"`
}

// Clock is where ledger time starts: at a time, or ahead of the wall
// clock by an offset (not both).
type Clock struct {
	Start  *Timestamp `yaml:"start"`
	Offset *Duration  `yaml:"offset"`
}

// Validator is a validator node: its participant, its operator party and
// the users it hosts.
type Validator struct {
	Name                string   `yaml:"name"`
	Party               *string  `yaml:"party"`
	OperatorUser        *string  `yaml:"operatorUser"`
	OperatorWalletUsers []string `yaml:"operatorWalletUsers"`
	SV                  *int     `yaml:"sv"`
	Parties             []Party  `yaml:"parties"`
	Users               []User   `yaml:"users"`
}

// Party is a party hosted on a validator with no user of its own.
type Party struct {
	Hint    string   `yaml:"hint"`
	Balance *Decimal `yaml:"balance"`
}

// User is a ledger API user of a validator, with a party of its own and,
// unless Wallet is false, a wallet.
type User struct {
	Name             string   `yaml:"name"`
	Party            *string  `yaml:"party"`
	Wallet           *bool    `yaml:"wallet"`
	Balance          *Decimal `yaml:"balance"`
	Preapproval      *bool    `yaml:"preapproval"`
	Names            []string `yaml:"names"`
	PrimaryParty     *string  `yaml:"primaryParty"`
	ActAs            []string `yaml:"actAs"`
	ReadAs           []string `yaml:"readAs"`
	ParticipantAdmin *bool    `yaml:"participantAdmin"`
	ReadAsAnyParty   *bool    `yaml:"readAsAnyParty"`
}

// Decimal is an amount of amulet, as a decimal number.
type Decimal struct{ daml.Numeric }

func (d *Decimal) parseScalar(s string) error {
	n, err := daml.ParseNumeric(s)
	if err != nil {
		return fmt.Errorf("%q is not a decimal number (digits, optionally a point and up to 10 more)", s)
	}
	if n.Sign() < 0 {
		return fmt.Errorf("%q is negative", s)
	}
	d.Numeric = n
	return nil
}

// Duration is a Go duration: 90s, 3h, 720h.
type Duration struct{ time.Duration }

func (d *Duration) parseScalar(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (such as 90s, 3h or 720h)", s)
	}
	d.Duration = v
	return nil
}

// Timestamp is an RFC 3339 time, as 2030-01-01T00:00:00Z.
type Timestamp struct{ time.Time }

func (t *Timestamp) parseScalar(s string) error {
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("%q is not an RFC 3339 time (such as 2030-01-01T00:00:00Z)", s)
	}
	t.Time = v.UTC()
	return nil
}

// Enum is one of a fixed set of words, checked by validate.
type Enum string

func (e *Enum) parseScalar(s string) error {
	*e = Enum(s)
	return nil
}

// FlagValue is what the file sets a start flag to.
type FlagValue struct {
	// Line and Field say where in the file the value is.
	Line  int
	Field string
	// Value is the scalar's text; List the items of a list (IsList).
	Value  string
	List   []string
	IsList bool
}

// Config is a parsed and checked network file.
type Config struct {
	// Path is the file's path, as given.
	Path string
	// File is the file's content.
	File File
	// Flags are the start flags the file sets, by flag name.
	Flags map[string]FlagValue

	lines map[string]int
}

// DescribesNetwork reports whether the file's network section describes
// more than the seed, the SV count and the pre-approval switch (which
// are also flags): validators, synchronizers or the clock.
func (c *Config) DescribesNetwork() bool {
	n := c.File.Network
	return n.Validators != nil || n.Synchronizers != nil || n.Clock.Start != nil || n.Clock.Offset != nil
}

// yamlLine matches the line in the YAML library's syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// Parse reads a network file's content; path names it in errors. Every
// mistake is an *Error.
func Parse(path string, data []byte) (*Config, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("the file is larger than %d bytes", MaxFileSize)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(path, err)
	}
	c := &Config{Path: path, Flags: map[string]FlagValue{}, lines: map[string]int{}}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return c, nil // an empty file (or only comments) sets nothing
	}
	d := &decoder{file: path, lines: c.lines, flags: c.Flags}
	root := doc.Content[0]
	if isNull(root) {
		return c, nil
	}
	if err := d.decode(root, "", reflect.ValueOf(&c.File).Elem()); err != nil {
		return nil, err
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func syntaxError(path string, err error) *Error {
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = strings.TrimPrefix(te.Errors[0], "yaml: ")
	}
	return &Error{File: path, Line: line, Msg: "not valid YAML: " + msg}
}

// Errorf returns an *Error at a field of the file (its line, or its
// nearest parent's), for mistakes found when the file is applied.
func (c *Config) Errorf(field, format string, args ...any) error {
	return c.errorf(field, format, args...)
}

// errorf returns an *Error at a field of the file.
func (c *Config) errorf(field, format string, args ...any) *Error {
	return &Error{File: c.Path, Line: c.line(field), Field: field, Msg: fmt.Sprintf(format, args...)}
}

// line returns the line of a field, or of its nearest parent the file has.
func (c *Config) line(field string) int {
	for field != "" {
		if l, ok := c.lines[field]; ok {
			return l
		}
		i := strings.LastIndexAny(field, ".[")
		if i < 0 {
			break
		}
		field = field[:i]
	}
	return c.lines[""]
}

// Example is the commented example network file sandnet init writes: the
// default network, spelled out, with the other settings commented out.
func Example() []byte { return bytes.Clone(example) }
