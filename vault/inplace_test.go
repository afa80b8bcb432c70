package vault

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vaultd/vaultd/note"
)

// These tests check the note after every single append that vaultd
// acknowledges while an editor in another process saves the note in place
// (open with O_TRUNC, then write: VS Code, vim with backupcopy=yes, `cat
// saved > note`). editors_test.go looks only at the end of a race, which an
// editor that keeps saving its own buffer repairs; here the editor is
// paused after each acknowledged append, and the note must then hold
//
//   - the editor's last complete save: not shorter than it, with its own
//     change (its save number);
//   - every acknowledged append, except one the editor's last save may
//     legitimately have overwritten: the editor read the note before that
//     append was acknowledged and truncated it after the append began, and
//     what it read and saved lacks the append — the editor's doing, as in
//     any editor that saves a buffer read earlier (the append stays in
//     vaultd's history).
//
// and history must never record, as another program's text, the empty
// note an in-place save goes through.
//
// The editor reloads the note before each save and saves only a text it
// read whole (with its section, the long text and the Log heading), plus
// its own change — as an editor that reloads a file changed on disk does.
// Which append was acknowledged when is told to the editor through a
// counters file: for each save it reads the last append acknowledged
// before its read of the note, and the last append begun before its
// truncating open returned.

const inplaceHelperEnv = "VAULTD_TEST_INPLACE"

// inplaceEditor says how the editor process saves.
type inplaceEditor struct {
	Cat       bool          // save with `sh -c 'cat saved > note'`, a real shell, instead of Go's open and write
	Gap       time.Duration // between the truncating open and the first write
	Pieces    int           // the text is written in this many pieces (1: one write)
	PieceGap  time.Duration // pause between two pieces
	AtLineEnd bool          // pieces end at line ends (else anywhere)
	Between   time.Duration // up to this long (at random) between two saves
	Durable   bool          // vaultd fsyncs (its writes take longer), as it does unless told not to

	Note, Counters, Last, Saved string // files: the note, the counters, the last save (for the test), cat's source
}

func (e inplaceEditor) String() string {
	if e.Cat {
		if e.Durable {
			return "cat saved > note, vaultd fsyncing"
		}
		return "cat saved > note"
	}
	s := fmt.Sprintf("truncate, %v, write", e.Gap)
	if e.Pieces > 1 {
		where := "anywhere"
		if e.AtLineEnd {
			where = "at line ends"
		}
		s += fmt.Sprintf(" in %d pieces cut %s, %v apart", e.Pieces, where, e.PieceGap)
	}
	if e.Durable {
		s += ", vaultd fsyncing"
	}
	return s
}

// inplaceLast is what the editor reports when paused: its last save (0:
// none yet, the note as the test wrote it), the appends its saves since it
// was last paused overwrote, and how often it found the note not whole.
type inplaceLast struct {
	Save int `json:"save"`
	// Dropped lists each append a save lacked that was acknowledged only
	// after the save's read of the note began and had begun before its
	// truncating open returned: the save overwrote it.
	Dropped  []int `json:"dropped"`
	NotWhole int   `json:"not_whole"`
}

// inplaceWhole reports whether the editor may build a save on text: its
// section, the long text and the Log heading are there.
func inplaceWhole(text string) bool {
	return editorLast(text) >= 0 && strings.Contains(text, "Zeile 599 des langen Textes") && strings.Contains(text, "\n## Log\n")
}

func inplaceCounters(b []byte) (begun, acked int) {
	fmt.Sscanf(string(b), "%d %d", &begun, &acked)
	return begun, acked
}

// TestInPlaceEditorHelper is the editor process (VAULTD_TEST_INPLACE holds
// its inplaceEditor as JSON). It saves until told "pause" on stdin, then
// writes its last save to e.Last, prints an inplaceLast line and waits for
// "resume" or "stop". It never stops in the middle of a save.
func TestInPlaceEditorHelper(t *testing.T) {
	spec := os.Getenv(inplaceHelperEnv)
	if spec == "" {
		t.Skip("helper process only")
	}
	var e inplaceEditor
	if err := json.Unmarshal([]byte(spec), &e); err != nil {
		fmt.Println("spec:", err)
		os.Exit(2)
	}
	fail := func(what string, err error) {
		fmt.Printf("%s: %v\n", what, err)
		os.Exit(2)
	}
	cmds := make(chan string, 1)
	go func() {
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			cmds <- in.Text()
		}
		close(cmds)
	}()
	counters := func() (begun, acked int) {
		b, _ := os.ReadFile(e.Counters)
		return inplaceCounters(b)
	}
	start, err := os.ReadFile(e.Note)
	if err != nil {
		fail("read", err)
	}
	last, lastText := inplaceLast{}, start
	fmt.Println("ready")
	for {
		select {
		case cmd, ok := <-cmds:
			if !ok || cmd == "stop" {
				return
			}
			if cmd != "pause" {
				fail("command", errors.New(cmd))
			}
			if err := os.WriteFile(e.Last, lastText, 0o644); err != nil {
				fail("last", err)
			}
			line, _ := json.Marshal(last)
			fmt.Println(string(line))
			last.Dropped = nil
			if cmd, ok := <-cmds; !ok || cmd == "stop" {
				return
			}
			// Resumed as the next append begins (which takes a few
			// milliseconds): start the next save at any moment of it.
			time.Sleep(time.Duration(rand.Int64N(int64(3*time.Millisecond) + 1)))
			continue
		default:
		}
		_, acked := counters()
		b, err := os.ReadFile(e.Note)
		if err != nil {
			fail("read", err)
		}
		if !inplaceWhole(string(b)) {
			last.NotWhole++
			time.Sleep(time.Millisecond)
			continue
		}
		next, _ := editorSave(string(b), last.Save+1)
		var begun int
		if e.Cat {
			if err := os.WriteFile(e.Saved, []byte(next), 0o644); err != nil {
				fail("saved", err)
			}
			// The shell reads the counters itself (a builtin, no
			// process) right after its truncating open: starting the
			// shell takes longer than an append.
			out, err := exec.Command("sh", "-c", `exec 3>"$2"; read b a < "$3"; cat "$1" >&3; echo "$b"`, "sh", e.Saved, e.Note, e.Counters).CombinedOutput()
			if err != nil {
				fail("cat", fmt.Errorf("%v: %s", err, out))
			}
			if begun, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
				fail("cat", fmt.Errorf("said %q", out))
			}
		} else {
			f, err := os.OpenFile(e.Note, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				fail("open", err)
			}
			begun, _ = counters()
			if e.Gap > 0 {
				time.Sleep(e.Gap)
			}
			data := []byte(next)
			for i := e.Pieces; i > 0 && len(data) > 0; i-- {
				n := len(data)
				if i > 1 {
					n = len(data) / i
					if e.AtLineEnd {
						n = strings.IndexByte(string(data[n:]), '\n') + n + 1
					}
				}
				if _, err := f.Write(data[:n]); err != nil {
					fail("write", err)
				}
				data = data[n:]
				if i > 1 && e.PieceGap > 0 {
					time.Sleep(e.PieceGap)
				}
			}
			if err := f.Close(); err != nil {
				fail("close", err)
			}
		}
		last.Save++
		for a := acked + 1; a <= begun; a++ {
			if !strings.Contains(next, fmt.Sprintf("- agent line %d\n", a)) {
				last.Dropped = append(last.Dropped, a)
			}
		}
		lastText = []byte(next)
		time.Sleep(time.Duration(rand.Int64N(int64(e.Between) + 1)))
	}
}

// inplaceFigures are what a run of inplaceRace counts.
type inplaceFigures struct {
	appends, busy int // acknowledged, refused as busy (and retried)
	paused        int // appends that went through only once the editor was paused
	saves         int // the editor's saves
	shorter       int // checks that found the note shorter than the editor's last save
	saveLost      int // checks that found the editor's last save's own change gone
	lost          int // acknowledged appends gone without the editor having overwritten them
	overwritten   int // acknowledged appends the editor's save overwrote (its doing)
	emptyExternal int // history records of an empty text as another program's
	notWhole      int // the editor's reads of a note that was not whole
	again         int // appends made again on an in-place save that replaced them right after
	firstFailure  string
}

func (f *inplaceFigures) add(g inplaceFigures) {
	f.appends += g.appends
	f.busy += g.busy
	f.paused += g.paused
	f.saves += g.saves
	f.shorter += g.shorter
	f.saveLost += g.saveLost
	f.lost += g.lost
	f.overwritten += g.overwritten
	f.emptyExternal += g.emptyExternal
	f.notWhole += g.notWhole
	f.again += g.again
}

// inplaceRace runs the editor e against n appends at the end of the note,
// one at a time, and checks the note after each (see the top of the file).
func inplaceRace(t *testing.T, e inplaceEditor, n int, o Options) inplaceFigures {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "vault")
	wFiles(t, dir, map[string]string{"Notiz.md": editorNote()})
	e.Note = filepath.Join(dir, "Notiz.md")
	e.Counters, e.Last, e.Saved = filepath.Join(base, "counters"), filepath.Join(base, "last"), filepath.Join(base, "saved")
	setCounters := func(begun, acked int) {
		tmp := e.Counters + ".tmp"
		if err := os.WriteFile(tmp, fmt.Appendf(nil, "%d %d\n", begun, acked), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, e.Counters); err != nil {
			t.Fatal(err)
		}
	}
	setCounters(0, 0)
	v := wOpenDir(t, dir, o)

	spec, _ := json.Marshal(e)
	cmd := exec.Command(os.Args[0], "-test.run=^TestInPlaceEditorHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), inplaceHelperEnv+"="+string(spec))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	out := bufio.NewReader(stdout)
	if line, _ := out.ReadString('\n'); line != "ready\n" {
		t.Fatalf("editor: %q", line)
	}
	say := func(s string) {
		if _, err := fmt.Fprintln(stdin, s); err != nil {
			t.Fatalf("editor: %v", err)
		}
	}

	var f inplaceFigures
	failf := func(format string, args ...any) {
		if f.firstFailure == "" {
			f.firstFailure = fmt.Sprintf(format, args...)
		}
	}
	line := func(j int) string { return fmt.Sprintf("- agent line %d\n", j) }
	var acked []int // appends acknowledged and not overwritten by the editor
	for j := 1; j <= n; j++ {
		setCounters(j, j-1)
		var res *Result
		// Busy while the editor saves: the same append again, a moment
		// later. An editor that keeps the note busy for 3 tries (each
		// recomputes up to maxRecompute times, waiting for the text to
		// settle: on a loaded machine, which slows vaultd's writes and
		// not the editor's saves, 50 tries took minutes and a minute of
		// them failed) is paused, and the append goes through then;
		// its checks use that pause's report.
		reply := ""
		for tries := 1; ; tries++ {
			res, err = v.Append("Notiz.md", "", []byte(strings.TrimSuffix(line(j), "\n")), wOpts("log"))
			if !errors.Is(err, ErrBusy) || (reply != "" && tries > 200) {
				break
			}
			f.busy++ // nothing was changed
			if tries == 3 && reply == "" {
				say("pause")
				if reply, err = out.ReadString('\n'); err != nil {
					t.Fatalf("editor: %v", err)
				}
				f.paused++
				continue
			}
			time.Sleep(time.Millisecond)
		}
		if err != nil {
			t.Fatalf("append %d: %v", j, err)
		}
		setCounters(j, j)
		f.appends++
		acked = append(acked, j)
		if strings.Contains(res.Detail, "appended again") {
			f.again++
		}

		if reply == "" {
			say("pause")
			if reply, err = out.ReadString('\n'); err != nil {
				t.Fatalf("editor: %v", err)
			}
		}
		var last inplaceLast
		if err := json.Unmarshal([]byte(reply), &last); err != nil {
			t.Fatalf("editor said %q", reply)
		}
		saved, err := os.ReadFile(e.Last)
		if err != nil {
			t.Fatal(err)
		}
		// The editor is paused between two saves and vaultd's write has
		// returned: nothing writes the note now.
		now := wRead(t, dir, "Notiz.md")
		if len(now) < len(saved) {
			f.shorter++
			failf("after append %d the note has %d bytes, shorter than the editor's last save (save %d, %d bytes):\n%.200q", j, len(now), last.Save, len(saved), now)
		}
		if got := editorLast(now); got != last.Save {
			f.saveLost++
			failf("after append %d the note shows editor save %d, want its last save %d:\n%.200q", j, got, last.Save, now)
		}
		keep := acked[:0]
		for _, a := range acked {
			switch {
			case strings.Contains(now, line(a)):
				keep = append(keep, a)
			case slices.Contains(last.Dropped, a):
				// A save of the editor that read the note before this
				// append was acknowledged, and whose truncating open
				// returned after the append began, lacked it: the
				// editor's doing.
				f.overwritten++
			default:
				f.lost++
				failf("after append %d the note lacks append %d, and no save of the editor overwrote it (editor save %d; the append said %q):\n%q%s", j, a, last.Save, res.Detail, now[max(0, len(now)-300):], inplaceHistory(v))
			}
		}
		acked = keep
		f.saves = last.Save
		if last.NotWhole > f.notWhole {
			f.notWhole = last.NotWhole
			failf("before append %d was checked the editor found the note not whole (%d reads so far)", j, f.notWhole)
		}
		say("resume")
	}
	say("stop")

	empty := note.Version(nil)
	changes, err := v.History(HistoryFilter{Path: "Notiz.md"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range changes {
		if ch.Op == "external" && ch.After == empty {
			f.emptyExternal++
			failf("history recorded the empty text as another program's: %+v", ch)
		}
	}
	return f
}

// inplaceSweep is the editors the in-place tests race: the gap between the
// truncate and the write from 0 to 5 ms in quarter milliseconds, writes in
// pieces with pauses between them, and `cat saved > note`; vaultd writes
// without fsync, and with it for two of them. short keeps a few of each
// kind, without fsync.
func inplaceSweep(short bool) []inplaceEditor {
	var eds []inplaceEditor
	for us := 0; us <= 5000; us += 250 {
		if short && us != 0 && us != 1000 && us != 5000 {
			continue
		}
		eds = append(eds, inplaceEditor{Gap: time.Duration(us) * time.Microsecond, Pieces: 1})
	}
	for _, pg := range []time.Duration{200 * time.Microsecond, time.Millisecond, 3 * time.Millisecond, 5 * time.Millisecond} {
		for _, atLineEnd := range []bool{true, false} {
			if short && (pg != 3*time.Millisecond || !atLineEnd) {
				continue
			}
			eds = append(eds, inplaceEditor{Gap: time.Millisecond, Pieces: 4, PieceGap: pg, AtLineEnd: atLineEnd})
		}
	}
	eds = append(eds, inplaceEditor{Cat: true})
	if !short {
		eds = append(eds, inplaceEditor{Gap: time.Millisecond, Pieces: 1, Durable: true}, inplaceEditor{Cat: true, Durable: true})
	}
	for i := range eds {
		eds[i].Between = 10 * time.Millisecond
	}
	return eds
}

// An editor saving in place races appends; after each acknowledged append
// the note holds the editor's last save and every append it did not
// overwrite itself, and history never took the truncated note for another
// program's text.
func TestEditors_InPlaceEveryWrite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the in-place race needs Unix file semantics and sh")
	}
	short := stressScale() == 1
	n := 8 // make test: a few seconds
	if !short {
		n = 70 // make stress: 32 editors, 2,520 appends
	}
	if s := os.Getenv("VAULTD_INPLACE_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	var total inplaceFigures
	for _, e := range inplaceSweep(short) {
		m := n
		if e.Cat {
			m = 3 * n // a shell and cat for every save: fewer saves an append
		}
		t.Run(e.String(), func(t *testing.T) {
			f := inplaceRace(t, e, m, Options{NoSync: !e.Durable})
			t.Logf("%s: %d appends (%d refused as busy and retried, %d through once the editor paused), %d editor saves; %d notes shorter than the editor's last save, %d editor saves lost, %d appends lost, %d overwritten by the editor's save, %d empty texts recorded as external, %d reads of a note not whole; %d appended again on a save that replaced them",
				e, f.appends, f.busy, f.paused, f.saves, f.shorter, f.saveLost, f.lost, f.overwritten, f.emptyExternal, f.notWhole, f.again)
			if f.firstFailure != "" {
				t.Errorf("first failure: %s", f.firstFailure)
			}
			total.add(f)
		})
	}
	var gaps []string
	for _, e := range inplaceSweep(short) {
		if !e.Cat && e.Pieces == 1 && !e.Durable {
			gaps = append(gaps, e.Gap.String())
		}
	}
	t.Logf("in place, every write checked: %d appends against %d editors (truncate→write gaps %s; 4 pieces 0.2-5 ms apart; cat saved > note%s): %d notes shorter than the editor's last save (target 0), %d editor saves lost (target 0), %d appends lost (target 0), %d empty texts recorded as external (target 0), %d reads of a note not whole (target 0); %d appends overwritten by a save of the editor that read the note before they were acknowledged (its doing), %d appended again on an in-place save that replaced them right after, %d refused as busy and retried",
		total.appends, len(inplaceSweep(short)), strings.Join(gaps, " "), map[bool]string{false: "; fsync on and off"}[short], total.shorter, total.saveLost, total.lost, total.emptyExternal, total.notWhole, total.overwritten, total.again, total.busy)
}

// inplaceHistory shows the note's last history records, for a failure.
func inplaceHistory(v *Vault) string {
	h, _ := v.History(HistoryFilter{Limit: 6})
	var b strings.Builder
	for _, ch := range h {
		fmt.Fprintf(&b, "\n  %s %s %.8s -> %.8s %s", ch.Time.Format("15:04:05.000000"), ch.Op, ch.Before, ch.After, ch.Summary)
	}
	return b.String()
}
