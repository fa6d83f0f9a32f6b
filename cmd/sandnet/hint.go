package main

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// startHints returns the commands that reach a sandnet started with cfg
// and listening on addr, spelled with its own flags, so that a user who
// started it with a non-default --listen, --data-dir or database can copy
// them as they are: how to mint a token (empty unless --auth hs256) and
// how to drive it with the admin API. Secrets are never printed: a
// secret given with --auth-secret is named by its environment variable,
// and a database URL's password is redacted. `sandnet status` takes the
// same connection flags as admin (nodeConn), so its hint is admin's with
// the subcommand swapped.
func startHints(cfg StartCmd, addr string) (token, admin, status string) {
	var common []string
	if dir := displayPath(cfg.DataDir); dir != "" {
		common = append(common, "--data-dir", shellQuote(dir))
	}
	switch {
	case cfg.Auth == "hs256" && cfg.LocalNet && cfg.AuthSecret == localNetSecret:
		// LocalNet's secret is public: spelled out, it can be copied.
		common = append(common, "--auth-secret", localNetSecret)
	case cfg.Auth == "hs256" && cfg.AuthSecret != "":
		common = append(common, "--auth-secret", `"$SANDNET_AUTH_SECRET"`)
	}
	if cfg.Auth == "hs256" && cfg.AuthAud != "" {
		common = append(common, "--auth-audience", shellQuote(cfg.AuthAud))
	}
	adminArgs := []string{"sandnet", "admin"}
	if u := adminURL(addr); u != defaultAdminURL {
		adminArgs = append(adminArgs, "--url", u)
	}
	switch cfg.Auth {
	case "hs256":
		adminArgs = append(adminArgs, common...)
	case "jwks":
		adminArgs = append(adminArgs, "--token", `"$OPERATOR_TOKEN"`)
	}
	admin = strings.Join(append(adminArgs, "network"), " ")
	status = strings.Join(append([]string{"sandnet", "status"}, adminArgs[2:]...), " ")
	if cfg.Auth != "hs256" {
		return "", admin, status
	}
	tokenArgs := append([]string{"sandnet", "token"}, common...)
	if cfg.DatabaseURL != "" {
		// Only to check that the user exists: the secret is in the data
		// directory whatever the store.
		tokenArgs = append(tokenArgs, "--database-url", shellQuote(redactURL(cfg.DatabaseURL)))
		if cfg.DBSchema != "sandnet" {
			tokenArgs = append(tokenArgs, "--database-schema", shellQuote(cfg.DBSchema))
		}
	}
	return strings.Join(append(tokenArgs, "--user", "alice"), " "), admin, status
}

// defaultAdminURL is AdminCmd's default --url.
const defaultAdminURL = "http://127.0.0.1:7575"

// adminURL is the base URL a client on this machine reaches addr at: a
// wildcard listen address is reached on loopback.
func adminURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port)
}

// displayPath is how the hints name the data directory: "" for the
// default, "./x" for one under the working directory, else its absolute
// path (kong has made it absolute).
func displayPath(dir string) string {
	wd, err := os.Getwd()
	if err != nil {
		return dir
	}
	if def, err := filepath.Abs(".sandnet"); err == nil && filepath.Clean(dir) == def {
		return ""
	}
	if rel, err := filepath.Rel(wd, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "." + string(filepath.Separator) + rel
	}
	return dir
}

// redactURL hides a database URL's password (in its user info or its
// query), keeping the rest for the user to complete.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "postgres://…"
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
