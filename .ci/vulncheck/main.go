// Command vulncheck runs govulncheck on the module for `make test` (CI):
//
//	go run ./.ci/vulncheck
//
// govulncheck comes from the Go module proxy at a pinned version, and so
// does the Go vulnerability database: the module golang.org/x/vulndb
// carries every report as an OSV file (data/osv), which govulncheck reads
// with -db file://DIR. That works on a machine that reaches the module
// proxy but not vuln.go.dev (CI here). VULNCHECK_DB=online asks
// vuln.go.dev instead.
//
// A called vulnerability fails the run (exit 1), in a required module or in
// the Go standard library: go.mod's toolchain line pins the Go release the
// project is built and tested with (make sets GOTOOLCHAIN=auto so that it
// is used), and a finding in that release means the line must move to the
// release that fixes it, which the message names. VULNCHECK_STDLIB=warn
// only warns about the standard library (for a run with an older local Go).
// When govulncheck or the database cannot be had, the run says so on
// stdout ("vulncheck: SKIPPED: …") and exits 0 — never silently.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

const (
	govulncheck = "golang.org/x/vuln/cmd/govulncheck@v1.9.0"
	vulndb      = "golang.org/x/vulndb@v0.0.0-20261105234957-e22db6528018"
)

func main() { os.Exit(run()) }

func run() int {
	args := []string{"run", govulncheck, "-format", "json"}
	dbName := "vuln.go.dev"
	if os.Getenv("VULNCHECK_DB") != "online" {
		dir, err := download(vulndb)
		if err != nil {
			fmt.Printf("vulncheck: SKIPPED: the Go vulnerability database (%s) cannot be had from the module proxy: %v\n", vulndb, err)
			return 0
		}
		args = append(args, "-db", "file://"+dir+"/data/osv")
		dbName = vulndb
	}
	args = append(args, "./...")
	var out, errb bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	findings, perr := parse(&out)
	if perr != nil || (err != nil && len(findings) == 0 && out.Len() == 0) {
		msg := strings.TrimSpace(errb.String())
		if msg == "" && perr != nil {
			msg = perr.Error()
		}
		if strings.Contains(msg, "fetching vulnerabilities") || strings.Contains(msg, "downloading") ||
			strings.Contains(msg, "dial tcp") || strings.Contains(msg, "no such host") {
			fmt.Printf("vulncheck: SKIPPED: govulncheck could not reach what it needs (%s): %s\n", dbName, lastLine(msg))
			return 0
		}
		fmt.Printf("vulncheck: govulncheck failed: %s\n", msg)
		return 1
	}
	var stdlib, mods []finding
	for _, f := range findings {
		if f.module == "stdlib" || f.module == "toolchain" {
			stdlib = append(stdlib, f)
		} else {
			mods = append(mods, f)
		}
	}
	fmt.Printf("vulncheck: govulncheck (%s, database %s): %d called vulnerabilities in required modules, %d in the Go standard library\n",
		strings.TrimPrefix(govulncheck, "golang.org/x/vuln/cmd/"), dbName, len(mods), len(stdlib))
	for _, f := range mods {
		fmt.Printf("  %s in %s@%s (fixed in %s), called from %s\n", f.id, f.module, f.version, orNone(f.fixed), f.where)
	}
	if len(stdlib) > 0 {
		fmt.Printf("vulncheck: the Go toolchain this runs with (%s) has called vulnerabilities; pin Go %s or newer in go.mod's toolchain line (toolchain go%s) and run through make, which fetches it:\n",
			stdlib[0].version, newest(stdlib), newest(stdlib))
		for _, f := range stdlib {
			fmt.Printf("  %s in %s (fixed in %s), called from %s\n", f.id, f.pkg, orNone(f.fixed), f.where)
		}
	}
	if len(mods) > 0 || (len(stdlib) > 0 && os.Getenv("VULNCHECK_STDLIB") != "warn") {
		return 1
	}
	return 0
}

type finding struct {
	id, module, version, pkg, fixed, where string
}

// parse reads govulncheck's JSON stream and keeps the findings at
// function level: the vulnerable code is called (what govulncheck's text
// output counts as "your code is affected").
func parse(r io.Reader) ([]finding, error) {
	type frame struct {
		Module, Version, Package, Function, Receiver string
		Position                                     *struct {
			Filename string
			Line     int
		}
	}
	dec := json.NewDecoder(r)
	seen := map[string]bool{}
	var out []finding
	for {
		var msg struct {
			Finding *struct {
				OSV          string  `json:"osv"`
				FixedVersion string  `json:"fixed_version"`
				Trace        []frame `json:"trace"`
			} `json:"finding"`
		}
		if err := dec.Decode(&msg); err == io.EOF {
			break
		} else if err != nil {
			return out, err
		}
		f := msg.Finding
		if f == nil || len(f.Trace) == 0 || f.Trace[0].Function == "" || seen[f.OSV] {
			continue
		}
		seen[f.OSV] = true
		last := f.Trace[len(f.Trace)-1]
		where := last.Package + "." + last.Function
		if last.Position != nil {
			where = fmt.Sprintf("%s (%s:%d)", where, last.Position.Filename, last.Position.Line)
		}
		out = append(out, finding{id: f.OSV, module: f.Trace[0].Module, version: f.Trace[0].Version,
			pkg: f.Trace[0].Package, fixed: f.FixedVersion, where: where})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, nil
}

// download fetches a module into the module cache and returns its folder.
func download(mod string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command("go", "mod", "download", "-json", mod)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var info struct{ Dir, Error string }
	_ = json.Unmarshal(out.Bytes(), &info)
	switch {
	case info.Error != "":
		return "", fmt.Errorf("%s", lastLine(info.Error))
	case err != nil:
		return "", fmt.Errorf("%v: %s", err, lastLine(errb.String()))
	case info.Dir == "":
		return "", fmt.Errorf("go mod download named no folder")
	}
	return info.Dir, nil
}

// newest is the highest fixed version among fs ("v1.26.10" → "1.26.10").
func newest(fs []finding) string {
	best := ""
	for _, f := range fs {
		if semverLess(best, f.fixed) {
			best = f.fixed
		}
	}
	return strings.TrimPrefix(best, "v")
}

func semverLess(a, b string) bool {
	pa, pb := strings.Split(strings.TrimPrefix(a, "v"), "."), strings.Split(strings.TrimPrefix(b, "v"), ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			fmt.Sscan(pa[i], &x)
		}
		if i < len(pb) {
			fmt.Sscan(pb[i], &y)
		}
		if x != y {
			return x < y
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "no release yet"
	}
	return s
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
