package index

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultd/vaultd/vault"
)

var sharedFiles = map[string]string{
	"1_Projekte/Alpha.md":      "# Alpha\n\nDas Krankenhaus plant einen Neubau. Siehe [[Beta]].\n",
	"1_Projekte/Beta.md":       "# Beta\n\nZeitleiste für den Launch.\n",
	"2_Bereiche/Gesundheit.md": "# Gesundheit\n\nKrankenhäuser und [[Alpha]].\n",
}

// sharedVault writes the files and returns the vault folder and a state
// dir; each process (or test "process") opens its own *vault.Vault on it.
func sharedVault(t *testing.T) (dir, state string) {
	t.Helper()
	dir, state = t.TempDir(), t.TempDir()
	writeFiles(t, dir, sharedFiles)
	return dir, state
}

func openVaultAt(t testing.TB, dir, state string) *vault.Vault {
	t.Helper()
	v, err := vault.Open(dir, vault.Options{StateDir: state, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func openShared(t testing.TB, dir, state string) *Shared {
	t.Helper()
	s, err := OpenShared(openVaultAt(t, dir, state), Options{Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	if err := s.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

func sharedSearch(t testing.TB, s *Shared, text string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangCap)
	defer cancel()
	res, err := s.Search(ctx, Query{Text: text})
	if err != nil {
		t.Fatalf("search %q: %v", text, err)
	}
	return hitPaths(res)
}

func TestShared_SecondProcessIsClient(t *testing.T) {
	dir, state := sharedVault(t)
	owner := openShared(t, dir, state)
	client := openShared(t, dir, state)
	if !owner.Owner() || client.Owner() {
		t.Fatalf("Owner(): got first %v, second %v; want true, false", owner.Owner(), client.Owner())
	}
	if got := client.OwnerPID(); got != os.Getpid() {
		t.Errorf("client.OwnerPID(): got %d, want %d", got, os.Getpid())
	}
	if got := sharedSearch(t, client, "Krankenhaus"); strings.Join(got, ",") != strings.Join(sharedSearch(t, owner, "Krankenhaus"), ",") || len(got) != 2 {
		t.Errorf("client search Krankenhaus: got %v, want the owner's 2 hits", got)
	}
	bl, err := client.Backlinks(context.Background(), "1_Projekte/Alpha.md")
	if err != nil || len(bl) != 1 || bl[0].Path != "2_Bereiche/Gesundheit.md" || bl[0].Line != 3 {
		t.Errorf("client backlinks of Alpha: got %+v, %v; want Gesundheit line 3", bl, err)
	}
	if st := client.Status(); st.Building || st.Total != 3 || st.Problem != "" {
		t.Errorf("client status: got %+v, want 3 notes, ready", st)
	}
	_, err = client.Search(context.Background(), Query{Text: `"unclosed`})
	var qe *QueryError
	if !errors.As(err, &qe) || !errors.Is(err, ErrBadQuery) {
		t.Errorf("client search with a bad query: got %v (%T), want *QueryError", err, err)
	}

	// A write by the client's process is searchable everywhere as soon as
	// its Update returns (read-your-writes across processes).
	writeFiles(t, dir, map[string]string{"1_Projekte/Gamma.md": "# Gamma\n\nZqxmarker im Text.\n"})
	if err := client.Update("1_Projekte/Gamma.md"); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Shared{"owner": owner, "client": client} {
		if got := sharedSearch(t, s, "zqxmarker"); len(got) != 1 || got[0] != "1_Projekte/Gamma.md" {
			t.Errorf("%s search after the client's Update: got %v, want [1_Projekte/Gamma.md]", name, got)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := client.Search(ctx, Query{Text: "Alpha"}); !errors.Is(err, context.Canceled) {
		t.Errorf("client search with a cancelled context: got %v, want context.Canceled", err)
	}
}

// When the owner closes, the next call of each client takes over: exactly
// one becomes the owner, the others its clients, and nobody fails.
func TestShared_TakeoverWhenOwnerCloses(t *testing.T) {
	dir, state := sharedVault(t)
	owner := openShared(t, dir, state)
	var clients []*Shared
	for range 3 {
		clients = append(clients, openShared(t, dir, state))
	}
	if err := owner.Close(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if got := sharedSearch(t, c, "Zeitleiste"); len(got) != 1 {
					t.Errorf("client %d after the owner closed: got %v, want [1_Projekte/Beta.md]", i, got)
				}
			}
		}()
	}
	wg.Wait()
	owners := 0
	for _, c := range clients {
		if c.Owner() {
			owners++
		}
	}
	if owners != 1 {
		t.Fatalf("after the takeover: %d owners, want 1", owners)
	}
	if _, err := owner.Search(context.Background(), Query{Text: "x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("search on the closed handle: got %v, want ErrClosed", err)
	}
}

// A state dir whose socket path would be too long for a unix address gets
// its socket in a private temp folder; the clients find it through the
// address file.
func TestShared_LongStateDir(t *testing.T) {
	dir, _ := sharedVault(t)
	state := filepath.Join(t.TempDir(), strings.Repeat("lang", 30))
	owner := openShared(t, dir, state)
	client := openShared(t, dir, state)
	if !owner.Owner() || client.Owner() {
		t.Fatalf("Owner(): got %v, %v; want true, false", owner.Owner(), client.Owner())
	}
	addr, err := readAddr(state)
	if err != nil || strings.HasPrefix(addr, state) {
		t.Fatalf("socket address %q (%v): want one outside the long state dir", addr, err)
	}
	if got := sharedSearch(t, client, "Krankenhaus"); len(got) != 2 {
		t.Errorf("client search: got %v, want 2 hits", got)
	}
	owner.Close()
	if _, err := os.Stat(addr); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket %s after the owner closed: %v, want it removed", addr, err)
	}
}

// An owner that holds the lock but never answers does not make anybody
// hang: OpenShared gives up after AttachTimeout with ErrBusy.
func TestShared_UnreachableOwner(t *testing.T) {
	dir, state := sharedVault(t)
	l, err := acquireLock(filepath.Join(state, lockName))
	if err != nil {
		t.Fatal(err)
	}
	defer l.release()
	old := AttachTimeout
	AttachTimeout = 300 * time.Millisecond
	defer func() { AttachTimeout = old }()
	start := time.Now()
	_, err = OpenShared(openVaultAt(t, dir, state), Options{Logger: quietLog()})
	var ue *UnreachableError
	if !errors.As(err, &ue) || !errors.Is(err, ErrBusy) || ue.PID != os.Getpid() {
		t.Fatalf("OpenShared with a silent owner: got %v, want *UnreachableError naming pid %d", err, os.Getpid())
	}
	if took := time.Since(start); took > 20*time.Second { // without AttachTimeout it would hang; a loaded machine is only slow
		t.Errorf("OpenShared took %s, want about AttachTimeout", took)
	}
}

// The owner is another process that dies (kill -9): the client's next
// search takes over.
func TestShared_TakeoverWhenOwnerProcessDies(t *testing.T) {
	dir, state := sharedVault(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSharedOwner$")
	cmd.Env = append(os.Environ(), "SHARED_HELPER_VAULT="+dir, "SHARED_HELPER_STATE="+state)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "owner ready") {
		t.Fatalf("helper: got %q, %v; want \"owner ready\"", line, err)
	}
	client := openShared(t, dir, state)
	if client.Owner() || client.OwnerPID() != cmd.Process.Pid {
		t.Fatalf("client: Owner %v, OwnerPID %d; want a client of pid %d", client.Owner(), client.OwnerPID(), cmd.Process.Pid)
	}
	if got := sharedSearch(t, client, "Krankenhaus"); len(got) != 2 {
		t.Fatalf("search through the other process: got %v, want 2 hits", got)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	start := time.Now()
	if got := sharedSearch(t, client, "Krankenhaus"); len(got) != 2 {
		t.Fatalf("search after the owner died: got %v, want 2 hits", got)
	}
	if !client.Owner() {
		t.Fatal("the client did not take over")
	}
	t.Logf("takeover after kill -9 took %s", time.Since(start).Round(time.Millisecond))
}

// TestHelperSharedOwner is the owner process of
// TestShared_TakeoverWhenOwnerProcessDies: it owns the index until killed.
func TestHelperSharedOwner(t *testing.T) {
	dir := os.Getenv("SHARED_HELPER_VAULT")
	if dir == "" {
		t.Skip("helper process only")
	}
	s := openShared(t, dir, os.Getenv("SHARED_HELPER_STATE"))
	if !s.Owner() {
		t.Fatal("helper is not the owner")
	}
	fmt.Println("owner ready")
	time.Sleep(time.Minute)
}

func quietLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Concurrent writers, in the owner's process and in a client's: every
// Update returns only when its own note is searchable, also when it was
// indexed in one batch with the others.
func TestShared_ConcurrentUpdates(t *testing.T) {
	dir, state := sharedVault(t)
	owner := openShared(t, dir, state)
	client := openShared(t, dir, state)
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := owner
			if i%2 == 1 {
				s = client
			}
			word := fmt.Sprintf("zqxgruppe%dwort", i)
			p := fmt.Sprintf("0_Inbox/Gruppe %d.md", i)
			writeFiles(t, dir, map[string]string{p: "# Gruppe\n\n" + word + "\n"})
			if err := s.Update(p); err != nil {
				t.Error(err)
				return
			}
			if got := sharedSearch(t, s, word); len(got) != 1 || got[0] != p {
				t.Errorf("search %s right after its Update: got %v, want [%s]", word, got, p)
			}
		}()
	}
	wg.Wait()
}

// An owner that stops answering but keeps the lock makes a client's call
// fail after AttachTimeout, not hang; once the lock is free, the client's
// next call takes over.
func TestShared_OwnerStopsAnswering(t *testing.T) {
	dir, state := sharedVault(t)
	owner := openShared(t, dir, state)
	client := openShared(t, dir, state)
	old := AttachTimeout
	AttachTimeout = 300 * time.Millisecond
	defer func() { AttachTimeout = old }()

	owner.mu.Lock()
	owner.srv.close() // the socket goes away; the index and its lock stay
	owner.mu.Unlock()
	start := time.Now()
	_, err := client.Search(context.Background(), Query{Text: "Krankenhaus"})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("search while the owner does not answer: got %v, want ErrBusy", err)
	}
	if took := time.Since(start); took > 20*time.Second { // without AttachTimeout it would hang; a loaded machine is only slow
		t.Errorf("the failing search took %s, want about AttachTimeout", took)
	}
	if st := client.Status(); !strings.Contains(st.Problem, "cannot be reached") {
		t.Errorf("status while the owner does not answer: got %+v, want a problem saying so", st)
	}
	owner.Close()
	if got := sharedSearch(t, client, "Krankenhaus"); len(got) != 2 || !client.Owner() {
		t.Fatalf("search after the owner closed: got %v, owner %v; want 2 hits, taken over", got, client.Owner())
	}
}
