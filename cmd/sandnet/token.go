package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/store/pgstore"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// TokenCmd mints an HS256 token with the same secret the server verifies
// with: the one in the data directory, or --auth-secret.
type TokenCmd struct {
	User        string        `required:"" env:"SANDNET_TOKEN_USER" help:"Ledger API user the token acts for (its sub claim)."`
	TTL         time.Duration `name:"ttl" default:"24h" env:"SANDNET_TOKEN_TTL" help:"How long the token is valid."`
	DataDir     string        `default:"./.sandnet" env:"SANDNET_DATA_DIR" type:"path" help:"Data directory of the sandnet whose secret signs the token (also with --database-url: the secret stays in the data directory)."`
	AuthSecret  string        `env:"SANDNET_AUTH_SECRET" help:"HS256 secret, when the server was started with --auth-secret."`
	AuthAud     string        `name:"auth-audience" env:"SANDNET_AUTH_AUDIENCE" help:"Audience to put in aud."`
	DatabaseURL string        `env:"SANDNET_DATABASE_URL" placeholder:"postgres://…" help:"The network's PostgreSQL database, when it keeps its data there: read only to check that the user exists."`
	DBSchema    string        `name:"database-schema" default:"sandnet" env:"SANDNET_DATABASE_SCHEMA" help:"Prefix of the network's PostgreSQL schemas."`
}

// Run prints the token, and a warning on stderr when the user does not
// exist on the network (yet): the token is still printed, since the user
// may be created later, but a typo no longer passes silently until the
// first request is refused.
func (c *TokenCmd) Run(ctx context.Context) error {
	return c.run(ctx, os.Stdout, os.Stderr)
}

func (c *TokenCmd) run(ctx context.Context, stdout, stderr io.Writer) error {
	tok, err := mintToken(c.DataDir, c.AuthSecret, c.AuthAud, c.User, c.TTL)
	if err != nil {
		return err
	}
	if warning := c.checkUser(ctx); warning != "" {
		fmt.Fprintln(stderr, "sandnet token: "+warning)
	}
	fmt.Fprintln(stdout, tok)
	return nil
}

// checkUser says what is wrong with --user on the network the flags name,
// or "" when it exists there. The ledger is read as it is, also while the
// server runs; a network that cannot be read is said so, not guessed at.
func (c *TokenCmd) checkUser(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var (
		exists bool
		err    error
		where  string
	)
	if c.DatabaseURL != "" {
		exists, err = pgstore.UserExists(ctx, c.DatabaseURL, c.DBSchema+"_ledger", c.User)
		where = "the PostgreSQL schema " + c.DBSchema + "_ledger"
	} else {
		exists, err = sqlitestore.UserExists(ctx, filepath.Join(c.DataDir, "ledger.db"), c.User)
		where = c.DataDir
	}
	create := "create it with: sandnet admin create-user " + shellQuote(c.User)
	if len(c.User) > 128 {
		create = "a user id has at most 128 characters"
	}
	switch {
	case fault.Is(err, fault.NotFound):
		elsewhere := ""
		if c.DatabaseURL == "" {
			elsewhere = " (or pass --database-url for a network on PostgreSQL)"
		}
		return fmt.Sprintf("user %s does not exist on this network (yet); there is no network in %s%s: start one, then %s",
			fault.Quote(c.User), where, elsewhere, create)
	case err != nil:
		return fmt.Sprintf("could not check that user %s exists (%v); the token is printed anyway", fault.Quote(c.User), err)
	case !exists:
		return fmt.Sprintf("user %s does not exist on this network (yet); %s", fault.Quote(c.User), create)
	}
	return ""
}

func mintToken(dataDir, secret, audience, user string, ttl time.Duration) (string, error) {
	if ttl <= 0 {
		return "", errors.New("--ttl must be positive")
	}
	var key []byte
	if secret != "" {
		key = []byte(secret)
	} else {
		path := filepath.Join(dataDir, "auth-secret")
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("no auth secret at %s: start sandnet with this --data-dir first, or pass --auth-secret", path)
		}
		b, err := auth.LoadOrCreateSecret(path)
		if err != nil {
			return "", err
		}
		key = b
	}
	h, err := newHMAC(key, audience, nil)
	if err != nil {
		return "", err
	}
	return h.Mint(user, ttl, time.Now())
}

// newHMAC accepts a short secret only with a warning: LocalNet's scripts use
// one ("unsafe"), and a user who passes it with --auth-secret means it.
func newHMAC(secret []byte, audience string, log *slog.Logger) (*auth.HMAC, error) {
	if len(secret) < auth.MinSecretLen && log != nil {
		log.Warn("the HS256 secret is short: anyone can guess it and mint tokens", "bytes", len(secret))
	}
	return auth.NewWeakHMAC(secret, audience)
}
