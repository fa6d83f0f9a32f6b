package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/sandnet/sandnet/internal/auth"
)

// TokenCmd mints an HS256 token with the same secret the server verifies
// with: the one in the data directory, or --auth-secret.
type TokenCmd struct {
	User       string        `required:"" env:"SANDNET_TOKEN_USER" help:"Ledger API user the token acts for (its sub claim)."`
	TTL        time.Duration `name:"ttl" default:"24h" env:"SANDNET_TOKEN_TTL" help:"How long the token is valid."`
	DataDir    string        `default:"./.sandnet" env:"SANDNET_DATA_DIR" type:"path" help:"Data directory of the sandnet whose secret signs the token."`
	AuthSecret string        `env:"SANDNET_AUTH_SECRET" help:"HS256 secret, when the server was started with --auth-secret."`
	AuthAud    string        `name:"auth-audience" env:"SANDNET_AUTH_AUDIENCE" help:"Audience to put in aud."`
}

// Run prints the token.
func (c *TokenCmd) Run() error {
	tok, err := mintToken(c.DataDir, c.AuthSecret, c.AuthAud, c.User, c.TTL)
	if err != nil {
		return err
	}
	fmt.Println(tok)
	return nil
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
