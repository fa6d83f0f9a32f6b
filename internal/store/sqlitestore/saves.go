package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// Saves keeps the saves of the SQLite stores of one data directory, each
// in <data-dir>/saves/<name>/: a copy of every database file (every *.db
// of the data directory) and a manifest.json holding the save's
// description and each file's size and CRC-32C, checked before a restore
// touches anything.
//
// A save also keeps a spare copy of its files (<name>/.spare/), made in
// the background after the save and after each restore of it: a restore
// then only reads the save's files to check them and moves the spare in
// place, rather than writing a copy while the network waits. Without a
// spare (still being made, or the disk refused it) a restore copies.
type Saves struct {
	dir string

	// spareMu is held while a spare is made, and by whatever uses or
	// removes one; spares waits for the background work at Close.
	spareMu sync.Mutex
	spares  sync.WaitGroup
	ctx     context.Context
	stop    context.CancelFunc
}

var _ store.Saves = (*Saves)(nil)

// NewSaves returns the saves of the data directory dir.
func NewSaves(dir string) *Saves {
	ctx, stop := context.WithCancel(context.Background())
	s := &Saves{dir: dir, ctx: ctx, stop: stop}
	// What a process that stopped during a restore left behind.
	s.spares.Go(func() {
		leftovers, _ := filepath.Glob(filepath.Join(dir, ".trash-*"))
		for _, l := range leftovers {
			_ = os.RemoveAll(l)
		}
	})
	return s
}

// Close stops making spares and waits for the one being made.
func (s *Saves) Close() {
	s.stop()
	s.spares.Wait()
}

// spareDir is where a save keeps its spare copy.
const spareDir = ".spare"

// makeSpare makes save name's spare copy in the background, unless it
// has one.
func (s *Saves) makeSpare(name string, files []savedFile) {
	s.spares.Go(func() {
		s.spareMu.Lock()
		defer s.spareMu.Unlock()
		dir := filepath.Join(s.root(), name)
		spare := filepath.Join(dir, spareDir)
		if s.ctx.Err() != nil {
			return
		}
		if _, err := os.Stat(spare); err == nil {
			return
		}
		tmp := filepath.Join(dir, ".spare-tmp")
		_ = os.RemoveAll(tmp)
		if err := os.Mkdir(tmp, 0o700); err != nil {
			return
		}
		for _, f := range files {
			got, err := copyFile(filepath.Join(tmp, f.Name), filepath.Join(dir, f.Name), false)
			if err != nil || got != f || s.ctx.Err() != nil {
				_ = os.RemoveAll(tmp) // no spare: the next restore copies
				return
			}
		}
		if err := os.Rename(tmp, spare); err != nil {
			_ = os.RemoveAll(tmp)
		}
	})
}

// ledgerFile is the ledger's database, saved last.
const ledgerFile = "ledger.db"

// manifestFile describes a save in its directory.
const manifestFile = "manifest.json"

// restorePrefix names the files a prepared restore stages in the data
// directory.
const restorePrefix = ".restore-"

type manifest struct {
	Name       string      `json:"name"`
	CreatedAt  time.Time   `json:"created_at"`
	LedgerTime int64       `json:"ledger_time_us"`
	LedgerEnd  int64       `json:"ledger_end"`
	SizeBytes  int64       `json:"size_bytes"`
	Files      []savedFile `json:"files"`
}

type savedFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	CRC32C uint32 `json:"crc32c"`
}

func (m manifest) info() store.SaveInfo {
	return store.SaveInfo{Name: m.Name, CreatedAt: m.CreatedAt, LedgerTime: daml.Timestamp(m.LedgerTime), LedgerEnd: m.LedgerEnd, SizeBytes: m.SizeBytes}
}

func (s *Saves) root() string { return filepath.Join(s.dir, "saves") }

// saver is an open store: all of them share conns.
type saver interface {
	saveTo(ctx context.Context, dir string, held func(context.Context, *sql.Conn) error) ([]savedFile, error)
}

// Save copies every database of the data directory into a new save: the
// open ones through their store (saveTo), holding each one's writer while
// its file is copied, every Scan's and validator's before the ledger's.
func (s *Saves) Save(ctx context.Context, req store.SaveRequest) (info store.SaveInfo, err error) {
	if err := store.CheckSaveName(req.Name); err != nil {
		return store.SaveInfo{}, err
	}
	final := filepath.Join(s.root(), req.Name)
	if _, err := os.Stat(final); err == nil {
		return store.SaveInfo{}, store.SaveExists(req.Name)
	}
	if err := os.MkdirAll(s.root(), 0o700); err != nil {
		return store.SaveInfo{}, fmt.Errorf("save: %w", err)
	}
	tmp, err := os.MkdirTemp(s.root(), "."+req.Name+"-")
	if err != nil {
		return store.SaveInfo{}, fmt.Errorf("save: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = os.RemoveAll(tmp)
		}
	}()
	open := map[string]saver{}
	for _, l := range req.Live {
		if sv, isSaver := l.(saver); isSaver {
			open[filepath.Base(fileOf(l))] = sv
		}
	}
	names, err := s.liveFiles()
	if err != nil {
		return store.SaveInfo{}, err
	}
	if !slices.Contains(names, ledgerFile) {
		return store.SaveInfo{}, fault.New(fault.FailedPrecondition, "nothing to save: %s holds no ledger", s.dir)
	}
	var (
		m    = manifest{Name: req.Name}
		head ledger.Head
		at   time.Time
	)
	// Every derived store in parallel, then the ledger.
	save := func(name string) ([]savedFile, error) {
		sv, isOpen := open[name]
		if !isOpen {
			// Not open in this process: nothing writes it.
			return copyDB(tmp, filepath.Join(s.dir, name))
		}
		var held func(context.Context, *sql.Conn) error
		if name == ledgerFile {
			held = func(ctx context.Context, c *sql.Conn) (err error) {
				head, err = readHead(ctx, c)
				at = time.Now()
				return err
			}
		}
		return sv.saveTo(ctx, tmp, held)
	}
	derived := names[:len(names)-1]
	results := make([][]savedFile, len(derived))
	errs := make([]error, len(derived))
	var wg sync.WaitGroup
	for i, name := range derived {
		wg.Go(func() { results[i], errs[i] = save(name) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return store.SaveInfo{}, fmt.Errorf("save %s: %w", derived[i], err)
		}
		m.Files = append(m.Files, results[i]...)
	}
	files, err := save(ledgerFile)
	if err != nil {
		return store.SaveInfo{}, fmt.Errorf("save %s: %w", ledgerFile, err)
	}
	m.Files = append(m.Files, files...)
	if at.IsZero() {
		return store.SaveInfo{}, errors.New("save: the ledger store is not open")
	}
	for _, f := range m.Files {
		m.SizeBytes += f.Size
	}
	info = store.NewSaveInfo(req.Name, head, req.Participant, at, m.SizeBytes)
	m.CreatedAt, m.LedgerTime, m.LedgerEnd = info.CreatedAt, int64(info.LedgerTime), info.LedgerEnd
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return store.SaveInfo{}, err
	}
	if err := os.WriteFile(filepath.Join(tmp, manifestFile), b, 0o600); err != nil {
		return store.SaveInfo{}, fmt.Errorf("save: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, serr := os.Stat(final); serr == nil {
			return store.SaveInfo{}, store.SaveExists(req.Name)
		}
		return store.SaveInfo{}, fmt.Errorf("save: %w", err)
	}
	ok = true
	s.makeSpare(req.Name, m.Files)
	return info, nil
}

func fileOf(l any) string {
	switch s := l.(type) {
	case *Ledger:
		return s.file
	case *Scan:
		return s.file
	case *Validator:
		return s.file
	}
	return ""
}

// liveFiles lists the data directory's databases, the ledger's last.
func (s *Saves) liveFiles() ([]string, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("save: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".db") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		if (a == ledgerFile) != (b == ledgerFile) {
			if a == ledgerFile {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	return names, nil
}

// saveTo copies the database into dir as it is at one point of its
// history: it holds the write connection (no commit runs meanwhile) and
// the checkpointer, checkpoints the whole WAL into the database file and
// copies the file (and the WAL too, when a reader kept the checkpoint
// from emptying it: then the two together are the database). held, if
// set, runs on the write connection before the copy.
func (c *conns) saveTo(ctx context.Context, dir string, held func(context.Context, *sql.Conn) error) ([]savedFile, error) {
	conn, err := c.w.Conn(ctx)
	if err != nil {
		return nil, interpret(err)
	}
	defer conn.Close()
	c.cp.mu.Lock()
	defer c.cp.mu.Unlock()
	// The checkpoint does not wait for readers (a Scan ingesting holds
	// read transactions on the ledger): what they keep it from copying
	// stays in the WAL, which is then copied too.
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		return nil, interpret(err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA busy_timeout = %d", busyTimeoutMS))
	var busy, logged, done int
	if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &done); err != nil {
		return nil, interpret(err)
	}
	if held != nil {
		if err := held(ctx, conn); err != nil {
			return nil, err
		}
	}
	return copyDB(dir, c.file)
}

// copyDB copies the database at path, and its WAL if that is not empty,
// into dir.
func copyDB(dir, path string) ([]savedFile, error) {
	f, err := copyFile(filepath.Join(dir, filepath.Base(path)), path, false)
	if err != nil {
		return nil, err
	}
	files := []savedFile{f}
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		w, err := copyFile(filepath.Join(dir, filepath.Base(path)+"-wal"), path+"-wal", false)
		if err != nil {
			return nil, err
		}
		files = append(files, w)
	}
	return files, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum reads the file at path and returns its size and CRC-32C.
func checksum(path string) (savedFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return savedFile{}, err
	}
	defer f.Close()
	h := crc32.New(castagnoli)
	n, err := io.CopyBuffer(h, struct{ io.Reader }{f}, make([]byte, copyBuffer))
	return savedFile{Name: filepath.Base(path), Size: n, CRC32C: h.Sum32()}, err
}

// copyBuffer is the copy's buffer size: large reads keep the copy near
// the disk's (or the page cache's) speed.
const copyBuffer = 1 << 20

// copyFile copies src to a new file dst and returns dst's size and
// CRC-32C (computed while copying, so that the data is read once). With
// durable, dst is synced to disk before it returns. Neither a save nor a
// restore asks for it: a save's checksums tell a torn one, and a
// restored database is synced by SQLite's next checkpoint; only an
// operating-system crash in between could tear it (see
// docs/decisions.md), and syncing would make a restore as slow as the
// disk rather than the page cache.
func copyFile(dst, src string, durable bool) (savedFile, error) {
	in, err := os.Open(src)
	if err != nil {
		return savedFile{}, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return savedFile{}, err
	}
	h := crc32.New(castagnoli)
	n, err := io.CopyBuffer(io.MultiWriter(out, h), struct{ io.Reader }{in}, make([]byte, copyBuffer))
	if err == nil && durable {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(dst)
		return savedFile{}, err
	}
	return savedFile{Name: filepath.Base(dst), Size: n, CRC32C: h.Sum32()}, nil
}

func (s *Saves) manifest(name string) (manifest, error) {
	if err := store.CheckSaveName(name); err != nil {
		return manifest{}, store.SaveNotFound(name)
	}
	b, err := os.ReadFile(filepath.Join(s.root(), name, manifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		if _, derr := os.Stat(filepath.Join(s.root(), name)); derr == nil {
			return manifest{}, store.SaveCorrupt(name, "its %s is missing", manifestFile)
		}
		return manifest{}, store.SaveNotFound(name)
	}
	if err != nil {
		return manifest{}, err
	}
	return decodeManifest(name, b)
}

// decodeManifest reads save name's manifest.json, b. Whatever b holds,
// the answer is the manifest or a store.SaveCorrupt saying what is wrong:
// a save's directory may have been edited by hand.
func decodeManifest(name string, b []byte) (manifest, error) {
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil || m.Name != name {
		return manifest{}, store.SaveCorrupt(name, "its %s does not describe it", manifestFile)
	}
	if m.SizeBytes < 0 || m.LedgerEnd < 0 {
		return manifest{}, store.SaveCorrupt(name, "its %s gives a negative size or ledger end", manifestFile)
	}
	seen := map[string]bool{}
	for _, f := range m.Files {
		if f.Name != filepath.Base(f.Name) || !strings.HasSuffix(strings.TrimSuffix(f.Name, "-wal"), ".db") || strings.HasPrefix(f.Name, ".") {
			return manifest{}, store.SaveCorrupt(name, "its manifest names a file %s", fault.Quote(f.Name))
		}
		if f.Size < 0 {
			return manifest{}, store.SaveCorrupt(name, "its manifest gives file %s a negative size", fault.Quote(f.Name))
		}
		if seen[f.Name] {
			return manifest{}, store.SaveCorrupt(name, "its manifest names file %s twice", fault.Quote(f.Name))
		}
		seen[f.Name] = true
	}
	return m, nil
}

// List lists the saves, oldest first.
func (s *Saves) List(context.Context) ([]store.SaveInfo, error) {
	entries, err := os.ReadDir(s.root())
	if errors.Is(err, fs.ErrNotExist) {
		return []store.SaveInfo{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []store.SaveInfo{}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		m, err := s.manifest(e.Name())
		if err != nil {
			continue // not a save (a damaged one is refused by name)
		}
		out = append(out, m.info())
	}
	store.SortSaves(out)
	return out, nil
}

// Get describes a save.
func (s *Saves) Get(_ context.Context, name string) (store.SaveInfo, error) {
	m, err := s.manifest(name)
	return m.info(), err
}

// Delete removes a save.
func (s *Saves) Delete(_ context.Context, name string) error {
	if err := store.CheckSaveName(name); err != nil {
		return store.SaveNotFound(name)
	}
	dir := filepath.Join(s.root(), name)
	if _, err := os.Stat(dir); err != nil {
		return store.SaveNotFound(name)
	}
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	// Renamed first, so that a crash half-way leaves no half save.
	gone := filepath.Join(s.root(), ".deleted-"+name+fmt.Sprint(time.Now().UnixNano()))
	if err := os.Rename(dir, gone); err != nil {
		return err
	}
	return os.RemoveAll(gone)
}

// Prepare checks a save and stages a copy of its files in the data
// directory, checking each against the manifest's size and CRC-32C as it
// is copied: a damaged save is refused here, before the live databases
// are touched.
func (s *Saves) Prepare(_ context.Context, name string) (store.SaveInfo, store.Restore, error) {
	m, err := s.manifest(name)
	if err != nil {
		return store.SaveInfo{}, nil, err
	}
	r := &restore{s: s, dir: s.dir}
	hasLedger := false
	for _, f := range m.Files {
		hasLedger = hasLedger || f.Name == ledgerFile
		r.files = append(r.files, f.Name)
	}
	s.spareMu.Lock()
	defer s.spareMu.Unlock()
	dir := filepath.Join(s.root(), name)
	spare := filepath.Join(dir, spareDir)
	_, err = os.Stat(spare)
	useSpare := err == nil
	// Each file is checked against the manifest as it is read: only read
	// when the spare is moved in, read and copied otherwise; in parallel.
	errs := make([]error, len(m.Files))
	var wg sync.WaitGroup
	for i, f := range m.Files {
		wg.Go(func() {
			staged := filepath.Join(s.dir, restorePrefix+f.Name)
			_ = os.Remove(staged) // a leftover of an interrupted restore
			var got savedFile
			var err error
			if useSpare {
				got, err = checksum(filepath.Join(dir, f.Name))
			} else {
				got, err = copyFile(staged, filepath.Join(dir, f.Name), false)
			}
			switch {
			case errors.Is(err, fs.ErrNotExist):
				errs[i] = store.SaveCorrupt(name, "%s is missing", f.Name)
			case err != nil:
				errs[i] = err
			case got.Size != f.Size || got.CRC32C != f.CRC32C:
				errs[i] = store.SaveCorrupt(name, "%s has changed since it was saved (size %d, expected %d; checksum %08x, expected %08x)",
					f.Name, got.Size, f.Size, got.CRC32C, f.CRC32C)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			r.Discard()
			return store.SaveInfo{}, nil, err
		}
	}
	if useSpare {
		for _, f := range m.Files {
			if err := os.Rename(filepath.Join(spare, f.Name), filepath.Join(s.dir, restorePrefix+f.Name)); err != nil {
				r.Discard()
				_ = os.RemoveAll(spare)
				return store.SaveInfo{}, nil, err
			}
		}
		_ = os.RemoveAll(spare)
	}
	r.after = func() { s.makeSpare(name, m.Files) }
	if !hasLedger {
		r.Discard()
		return store.SaveInfo{}, nil, store.SaveCorrupt(name, "it holds no %s", ledgerFile)
	}
	return m.info(), r, nil
}

// restore is a prepared restore: the save's files staged in the data
// directory under restorePrefix.
type restore struct {
	s     *Saves
	dir   string
	files []string
	// after makes the save's next spare once the restore is done.
	after func()
}

// Apply replaces every live database with the staged ones: the live
// databases the save does not hold (a Scan of an SV added since) are
// removed, with every WAL and shared-memory file. The stores must be
// closed.
func (r *restore) Apply(context.Context) error {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return err
	}
	// The live files are moved aside and removed in the background:
	// unlinking large files takes a while, which the network need not
	// wait for.
	trash, err := os.MkdirTemp(r.dir, ".trash-")
	if err != nil {
		return err
	}
	defer r.s.spares.Go(func() { _ = os.RemoveAll(trash) })
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || !e.Type().IsRegular() {
			continue
		}
		if strings.HasSuffix(n, ".db") || strings.HasSuffix(n, ".db-wal") || strings.HasSuffix(n, ".db-shm") {
			if err := os.Rename(filepath.Join(r.dir, n), filepath.Join(trash, n)); err != nil {
				return err
			}
		}
	}
	for _, f := range r.files {
		if err := os.Rename(filepath.Join(r.dir, restorePrefix+f), filepath.Join(r.dir, f)); err != nil {
			return err
		}
	}
	r.files = nil
	if r.after != nil {
		r.after()
	}
	return syncDir(r.dir)
}

// Discard removes the staged files (a spare moved in is remade).
func (r *restore) Discard() {
	if r.after != nil {
		defer r.after()
	}
	for _, f := range r.files {
		_ = os.Remove(filepath.Join(r.dir, restorePrefix+f))
	}
	r.files = nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
