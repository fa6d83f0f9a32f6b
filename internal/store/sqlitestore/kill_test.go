package sqlitestore_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// killHelperEnv makes the test binary run writeUntilKilled instead of the
// tests: the child process of TestKill9KeepsCommitted.
const killHelperEnv = "SANDNET_TEST_SQLITE_KILL_HELPER"

func TestMain(m *testing.M) {
	if path := os.Getenv(killHelperEnv); path != "" {
		writeUntilKilled(path)
		return
	}
	os.Exit(m.Run())
}

var (
	killSync = ledger.Synchronizer{ID: "global-domain::1220aa", Alias: "global"}
	killPar  = ledger.Participant{ID: "PAR::sv1::1220bb", Name: "sv1"}
)

// writeUntilKilled appends transactions of one create each, printing
// "committed N" after each Write returns, until it is killed.
func writeUntilKilled(path string) {
	ctx := context.Background()
	l, err := sqlitestore.OpenLedger(ctx, path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	err = l.Write(ctx, func(w ledger.WriteTx) error {
		if err := w.PutSynchronizer(ctx, killSync); err != nil {
			return err
		}
		return w.PutParticipant(ctx, killPar)
	})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for {
		var seq int64
		err := l.Write(ctx, func(w ledger.WriteTx) error {
			h, err := w.Head(ctx)
			if err != nil {
				return err
			}
			seq = h.Sequence + 1
			id := fmt.Sprintf("update-%d", seq)
			tx := &ledger.Transaction{
				UpdateID: id, Synchronizer: killSync.ID, RecordTime: daml.Timestamp(seq), EffectiveAt: daml.Timestamp(seq),
				Roots: []int32{0},
				Events: []ledger.Event{{NodeID: 0, Witnesses: []daml.Party{"alice::1220"}, Created: &ledger.Contract{
					ID: daml.ContractID(fmt.Sprintf("00%064d", seq)), Template: ledger.TemplateID{PackageName: "p"},
					Argument: &daml.Record{Fields: []daml.Field{{Label: "n", Value: daml.Int64(seq)}}}, Signatories: []daml.Party{"alice::1220"},
					CreatedBy: id, Synchronizer: killSync.ID,
				}}},
			}
			return w.AppendTransaction(ctx, tx, map[ledger.ParticipantID]ledger.Offset{killPar.ID: ledger.Offset(seq)})
		})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("committed", seq)
	}
}

// TestKill9KeepsCommitted checks the durability claim of the package
// documentation with a real SIGKILL: every transaction whose Write returned
// before the kill is there after reopening, the database is consistent,
// and the dead process's file lock does not block the new open.
func TestKill9KeepsCommitted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.db")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), killHelperEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var last int64
	sc := bufio.NewScanner(out)
	for sc.Scan() && last < 200 {
		line := sc.Text()
		n, ok := strings.CutPrefix(line, "committed ")
		if !ok {
			t.Fatalf("helper: %s", line)
		}
		if last, err = strconv.ParseInt(n, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	// Kill while the helper is in the middle of its next writes.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if last < 200 {
		t.Fatalf("helper stopped after %d commits", last)
	}

	deadline := time.Now().Add(5 * time.Second)
	var l *sqlitestore.Ledger
	for {
		l, err = sqlitestore.OpenLedger(t.Context(), path)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer l.Close()
	h, err := l.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h.Sequence < last {
		t.Fatalf("head sequence %d after kill; %d were committed", h.Sequence, last)
	}
	n, err := l.CountActiveContracts(t.Context())
	if err != nil || n != h.Sequence || h.Offsets[killPar.ID] != ledger.Offset(h.Sequence) {
		t.Errorf("inconsistent after kill: %d contracts, head %+v, err %v", n, h, err)
	}
	if _, err := l.Transaction(t.Context(), fmt.Sprintf("update-%d", last)); err != nil {
		t.Errorf("last committed update: %v", err)
	}
}
