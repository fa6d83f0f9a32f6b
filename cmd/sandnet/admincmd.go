package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/sandnet/sandnet/internal/api/admin"
)

// nodeConn is how a CLI command reaches a running sandnet: its URL and the
// operator token (given, or minted from the data directory's secret).
// AdminCmd and StatusCmd embed it, so both take the same flags.
type nodeConn struct {
	URL        string `default:"http://127.0.0.1:7575" env:"SANDNET_URL" help:"Base URL of the running sandnet."`
	Token      string `env:"SANDNET_TOKEN" help:"Operator token. Default: minted for the operator user from the data directory's secret."`
	DataDir    string `default:"./.sandnet" env:"SANDNET_DATA_DIR" type:"path" help:"Data directory whose secret signs the default token."`
	AuthSecret string `env:"SANDNET_AUTH_SECRET" help:"HS256 secret, when the server was started with --auth-secret."`
	AuthAud    string `name:"auth-audience" env:"SANDNET_AUTH_AUDIENCE" help:"Audience to put in the minted token."`
}

// AdminCmd groups the subcommands that call a running sandnet's admin API.
type AdminCmd struct {
	nodeConn `embed:""`

	Network      AdminNetworkCmd      `cmd:"" help:"Describe the network: DSO party, participants, synchronizers, SVs, users."`
	CreateUser   AdminCreateUserCmd   `cmd:"" help:"Create a ledger API user with a new party on the validator participant."`
	Tap          AdminTapCmd          `cmd:"" help:"Mint coin (CC) for a user."`
	AdvanceClock AdminAdvanceClockCmd `cmd:"" help:"Move ledger time forward, e.g. 1h30m or 720h."`
	Prune        AdminPruneCmd        `cmd:"" help:"Prune a participant's update stream up to and including an offset."`
	Snapshot     AdminSnapshotCmd     `cmd:"" help:"Take an ACS snapshot of the Scan now, outside its schedule."`
	Migrate      AdminMigrateCmd      `cmd:"" help:"Run a hard synchronizer migration: end migration N and start N+1."`
	AddSV        AdminAddSVCmd        `cmd:"" name:"add-sv" help:"Add a super validator: its participant, its Scan (which backfills from the others) and its DSO membership."`
	Host         AdminHostCmd         `cmd:"" help:"Host an existing party on a participant, or change its permission there."`
	Unhost       AdminUnhostCmd       `cmd:"" help:"Revoke a party's hosting on a participant (not its last one)."`

	Save       AdminSaveCmd       `cmd:"" help:"Save the whole network (every store) under a name, to restore it later; not a Scan ACS snapshot."`
	Restore    AdminRestoreCmd    `cmd:"" help:"Put the whole network back to a save (open streams end; requests wait meanwhile)."`
	Saves      AdminSavesCmd      `cmd:"" help:"List the saves, oldest first."`
	DeleteSave AdminDeleteSaveCmd `cmd:"" name:"delete-save" help:"Delete a save."`

	AddSynchronizer AdminAddSynchronizerCmd `cmd:"" help:"Add a synchronizer to the current migration."`
	Reassign        AdminReassignCmd        `cmd:"" help:"Reassign a contract to another synchronizer (unassign, then assign)."`
}

// OperatorUser is the ledger API user a seeded network gives ParticipantAdmin
// on the validator participant.
const OperatorUser = "participant_admin"

func (a *nodeConn) call(ctx context.Context, method, path string, body, out any) error {
	token := a.Token
	if token == "" {
		t, err := mintToken(a.DataDir, a.AuthSecret, a.AuthAud, OperatorUser, 5*time.Minute)
		if err == nil {
			token = t
		}
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(a.URL, "/")+admin.Prefix+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	// 30 s unless the caller gave a deadline (a save or a restore of a
	// large network takes longer).
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		req = req.WithContext(ctx)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("is sandnet running at %s? %w", a.URL, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			return fmt.Errorf("%s: %s", resp.Status, e.Error)
		}
		return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(data)))
	}
	if out == nil {
		if len(data) == 0 {
			return nil // 204: nothing to print
		}
		_, err = os.Stdout.Write(data)
		return err
	}
	return json.Unmarshal(data, out)
}

// AdminNetworkCmd prints the network description as JSON.
type AdminNetworkCmd struct{}

// Run calls GET /network.
func (c *AdminNetworkCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodGet, "/network", nil, nil)
}

// AdminCreateUserCmd creates a user.
type AdminCreateUserCmd struct {
	Name      string `arg:"" help:"User id."`
	PartyHint string `help:"Hint of the new party (default: the user id)."`
}

// Run calls POST /users.
func (c *AdminCreateUserCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodPost, "/users", admin.CreateUserRequest{Name: c.Name, PartyHint: c.PartyHint}, nil)
}

// AdminTapCmd taps coin.
type AdminTapCmd struct {
	User   string `arg:"" help:"User id."`
	Amount string `arg:"" help:"Amount of CC, e.g. 100.0."`
}

// Run calls POST /tap.
func (c *AdminTapCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodPost, "/tap", admin.TapRequest{User: c.User, Amount: c.Amount}, nil)
}

// AdminAdvanceClockCmd advances the clock.
type AdminAdvanceClockCmd struct {
	Duration string `arg:"" help:"How far to move ledger time, e.g. 1h30m."`
}

// Run calls POST /clock/advance.
func (c *AdminAdvanceClockCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodPost, "/clock/advance", admin.AdvanceClockRequest{Duration: c.Duration}, nil)
}

// AdminPruneCmd prunes a participant's update stream.
type AdminPruneCmd struct {
	Offset      int64  `arg:"" help:"Last offset to prune (inclusive); at most the participant's ledger end."`
	Participant string `help:"Participant id (default: the validator participant)."`
}

// Run calls POST /prune.
func (c *AdminPruneCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodPost, "/prune", admin.PruneRequest{ParticipantID: c.Participant, Offset: c.Offset}, nil)
}

// AdminMigrateCmd runs a hard synchronizer migration.
type AdminMigrateCmd struct{}

// Run calls POST /migrations.
func (c *AdminMigrateCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodPost, "/migrations", nil, nil)
}

// AdminAddSVCmd adds a super validator to the running network.
type AdminAddSVCmd struct{}

// Run calls POST /svs.
func (c *AdminAddSVCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodPost, "/svs", nil, nil)
}

// AdminSnapshotCmd takes an ACS snapshot of the Scan on demand.
type AdminSnapshotCmd struct{}

// Run calls POST /scan/snapshots.
func (c *AdminSnapshotCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodPost, "/scan/snapshots", nil, nil)
}

// AdminHostCmd hosts a party on a participant or changes its permission.
type AdminHostCmd struct {
	Party       string `arg:"" help:"Party id, <hint>::<namespace>."`
	Participant string `required:"" help:"Participant id, PAR::<name>::<fingerprint>."`
	Permission  string `default:"Submission" enum:"Submission,Confirmation,Observation" help:"Permission to host the party at: Submission, Confirmation or Observation."`
}

// Run calls POST /parties/{party}/hostings.
func (c *AdminHostCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodPost, "/parties/"+url.PathEscape(c.Party)+"/hostings",
		admin.HostPartyRequest{ParticipantID: c.Participant, Permission: c.Permission}, nil)
}

// AdminUnhostCmd revokes a party's hosting on a participant.
type AdminUnhostCmd struct {
	Party       string `arg:"" help:"Party id, <hint>::<namespace>."`
	Participant string `required:"" help:"Participant id, PAR::<name>::<fingerprint>."`
}

// Run calls DELETE /parties/{party}/hostings/{participant_id}.
func (c *AdminUnhostCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodDelete, "/parties/"+url.PathEscape(c.Party)+"/hostings/"+url.PathEscape(c.Participant), nil, nil)
}

// AdminAddSynchronizerCmd adds a synchronizer.
type AdminAddSynchronizerCmd struct {
	Alias string `arg:"" help:"The synchronizer's alias, e.g. app-synchronizer."`
}

// Run calls POST /synchronizers.
func (c *AdminAddSynchronizerCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodPost, "/synchronizers", admin.AddSynchronizerRequest{Alias: c.Alias}, nil)
}

// AdminReassignCmd reassigns a contract to another synchronizer.
type AdminReassignCmd struct {
	Contract string `arg:"" name:"cid" help:"Contract id."`
	Target   string `required:"" help:"Target synchronizer id, <alias>::<fingerprint>."`
}

// Run calls POST /reassignments.
func (c *AdminReassignCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodPost, "/reassignments",
		admin.ReassignRequest{ContractID: c.Contract, TargetSynchronizerID: c.Target}, nil)
}

// saveTimeout bounds a save or a restore asked from the command line.
const saveTimeout = 10 * time.Minute

// AdminSaveCmd saves the whole network.
type AdminSaveCmd struct {
	Name string `arg:"" optional:"" help:"Name of the save: a-z, 0-9, '.', '_', '-' (default: save-<n>)."`
}

// Run calls POST /saves.
func (c *AdminSaveCmd) Run(ctx context.Context, a *AdminCmd) error {
	ctx, cancel := context.WithTimeout(ctx, saveTimeout)
	defer cancel()
	return a.call(ctx, http.MethodPost, "/saves", admin.SaveRequest{Name: c.Name}, nil)
}

// AdminRestoreCmd restores the whole network from a save.
type AdminRestoreCmd struct {
	Name string `arg:"" help:"Name of the save."`
}

// Run calls POST /saves/{name}/restore.
func (c *AdminRestoreCmd) Run(ctx context.Context, a *AdminCmd) error {
	ctx, cancel := context.WithTimeout(ctx, saveTimeout)
	defer cancel()
	return a.call(ctx, http.MethodPost, "/saves/"+url.PathEscape(c.Name)+"/restore", nil, nil)
}

// AdminSavesCmd lists the saves.
type AdminSavesCmd struct{}

// Run calls GET /saves.
func (c *AdminSavesCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodGet, "/saves", nil, nil)
}

// AdminDeleteSaveCmd deletes a save.
type AdminDeleteSaveCmd struct {
	Name string `arg:"" help:"Name of the save."`
}

// Run calls DELETE /saves/{name}.
func (c *AdminDeleteSaveCmd) Run(ctx context.Context, a *AdminCmd) error {
	return a.call(ctx, http.MethodDelete, "/saves/"+url.PathEscape(c.Name), nil, nil)
}
