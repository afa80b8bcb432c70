package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vaultd/vaultd/mcpserver"
)

// runningDir is the folder of the state dir where each vaultd serve --http
// (and vaultd app) says where it listens, one file per process
// ("PID.json"), written when it starts listening and removed when it
// stops: so that vaultd owner link and vaultd keys create print the
// address of the server that is running, not the default one (issue 32:
// with any other port the sign-in link was dead).
const runningDir = "servers"

// runningServer is one such file.
type runningServer struct {
	PID int `json:"pid"`
	// Page is the owner's page as browsers reach it: --public-url, or
	// http://ADDR (127.0.0.1 for 0.0.0.0).
	Page    string    `json:"page"`
	MCP     string    `json:"mcp"` // Page + /mcp: where MCP clients connect
	Listen  string    `json:"listen"`
	Started time.Time `json:"started"`
}

// announceServer writes s into the state dir; the returned func removes
// it. A failure to write is only logged by the caller: the server works
// without it.
func announceServer(stateDir string, s runningServer) (remove func(), err error) {
	dir := filepath.Join(stateDir, runningDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return func() {}, err
	}
	name := filepath.Join(dir, strconv.Itoa(s.PID)+".json")
	b, _ := json.Marshal(s)
	tmp := filepath.Join(dir, "."+strconv.Itoa(s.PID)+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return func() {}, err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return func() {}, err
	}
	return func() { os.Remove(name) }, nil
}

// runningServers lists the HTTP servers running on the vault whose state
// dir this is, newest first. Files of processes that are gone (killed,
// so they could not remove theirs) are removed.
func runningServers(stateDir string) []runningServer {
	dir := filepath.Join(stateDir, runningDir)
	entries, _ := os.ReadDir(dir)
	var out []runningServer
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		var s runningServer
		if err != nil || json.Unmarshal(b, &s) != nil || s.PID <= 0 || s.Page == "" {
			continue
		}
		if !processAlive(s.PID) {
			os.Remove(filepath.Join(dir, e.Name()))
			continue
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out
}

// processAlive reports whether a process with this id runs. On Unix
// signal 0 asks without sending anything (EPERM: it runs, as another
// user); on Windows finding the process opens it, which fails for one
// that is gone.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	if runtime.GOOS == "windows" {
		p.Release()
		return true
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// serverAddress is the address a command prints for the vault's HTTP
// server: given (--url) when set, else the running server's, else
// fallback; note says where it came from when that is not obvious, for
// stderr ("" for --url).
func serverAddress(stateDir, given, fallback string, mcp bool) (addr, note string) {
	if given != "" {
		return given, ""
	}
	pick := func(s runningServer) string {
		if mcp {
			return s.MCP
		}
		return s.Page
	}
	switch rs := runningServers(stateDir); len(rs) {
	case 0:
		return fallback, fmt.Sprintf("no vaultd serve --http is running on this vault, so the address is the default one, %s; start the server (vaultd serve --http 127.0.0.1:8765, or vaultd app), or give the address it has with --url", fallback)
	case 1:
		return pick(rs[0]), fmt.Sprintf("%s is the address of the server running on this vault (pid %d)", pick(rs[0]), rs[0].PID)
	default:
		var others []string
		for _, s := range rs[1:] {
			others = append(others, fmt.Sprintf("%s (pid %d)", pick(s), s.PID))
		}
		return pick(rs[0]), fmt.Sprintf("%s is the address of the newest of %d servers running on this vault (pid %d); the others: %s — --url picks one", pick(rs[0]), len(rs), rs[0].PID, strings.Join(others, ", "))
	}
}

// pageOf is the page address of an MCP URL.
func pageOf(mcpURL string) string { return strings.TrimSuffix(mcpURL, mcpserver.HTTPPath) }
