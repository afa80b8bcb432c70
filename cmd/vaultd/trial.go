package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/vaultd/vaultd/index"
	"github.com/vaultd/vaultd/tools"
	"github.com/vaultd/vaultd/trial"
)

// trialFlags are the flags of vaultd trial.
type trialFlags struct {
	questions string
	policy    string
	modelURL  string
	model     string
	keyEnv    string
	timeout   time.Duration
	budget    int
	out       string
	allow     string
}

const trialLong = `Run your questions through an agent with a budget of tool calls, and
read what it did step by step: what it asked, what vaultd answered (the
text exactly as the model saw it, with its size), what it said, how many
calls it used and what it answered. Each place where an answer cost the
agent another call is a defect of the vault's texts, error or not.

The questions file is YAML or JSON: a list of {question, note, phrase}.
note (the note that holds the answer) and phrase (words of the answer, as
the note has them) are the proof; a question with a proof gets a verdict:
answered from the note, answered without it, ran out of calls.

The agent is a model behind any OpenAI-compatible chat-completions
endpoint with tool calling (Ollama, llama.cpp server, LM Studio, vLLM, a
hosted API; the API key comes from $OPENAI_API_KEY or --api-key-env), or,
with --policy text, vaultd's built-in text-only policy, which needs
nothing installed: it searches for the question, follows the read:/next:
calls the texts spell out, and answers from the section it read. Either
way the agent gets the tools exactly as an MCP client lists them and sees
exactly their text; every call runs through the same core as vaultd
serve, read-only unless --allow grants more.

Steps that wasted a call are flagged: an error whose suggestion repeats
the failed call, a suggested call that failed when followed, the same
text twice, a read that returned another section than asked, a hit list
whose first hit is not where the answer is.

The report is markdown on stdout (--json: the JSON), or with --out DIR
trial.md and trial.json in DIR and the summary on stdout. The exit status
is 0 when every question with a proof was answered from its note within
the budget, 7 when not.`

func (a *app) trialCmd() *cobra.Command {
	var f trialFlags
	cmd := &cobra.Command{
		Use:   "trial --questions FILE",
		Short: "Run your questions through a budgeted agent and trace every step",
		Long:  trialLong,
		Example: `  vaultd trial --questions questions.yaml --policy text --budget 4
  vaultd trial --questions questions.yaml --model-url http://localhost:11434/v1 --model qwen3:4b --out trial/
  OPENAI_API_KEY=sk-… vaultd trial --questions questions.yaml --model-url https://api.openai.com/v1 --model gpt-4.1-mini`,
		Args: args(0, false, "no arguments", "vaultd trial --questions FILE"),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return a.trial(cmd, f)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.questions, "questions", "", "the questions: a YAML or JSON list of {question, note, phrase}")
	fl.StringVar(&f.policy, "policy", "", `who answers: "model" (the endpoint of --model-url) or "text" (vaultd's text-only policy); default model with --model-url, else text`)
	fl.StringVar(&f.modelURL, "model-url", "", "base URL of an OpenAI-compatible API, e.g. http://localhost:11434/v1")
	fl.StringVar(&f.model, "model", "", "the model's name at that endpoint")
	fl.StringVar(&f.keyEnv, "api-key-env", "OPENAI_API_KEY", "the environment variable holding the endpoint's API key (unset: no key is sent)")
	fl.DurationVar(&f.timeout, "model-timeout", trial.DefaultTimeout, "how long one answer of the model may take")
	fl.IntVar(&f.budget, "budget", trial.DefaultBudget, "tool calls a question may use")
	fl.StringVar(&f.out, "out", "", "write trial.md and trial.json into this folder")
	fl.StringVar(&f.allow, "allow", "read", "the agent's rights: read, write, delete, comma-separated")
	return cmd
}

func (a *app) trial(cmd *cobra.Command, f trialFlags) error {
	try := withGlobals(cmd, "vaultd trial --questions questions.yaml --policy text")
	if f.questions == "" {
		return usagef(try, "trial needs --questions FILE, a YAML or JSON list of {question, note, phrase}")
	}
	if f.policy == "" {
		f.policy = "text"
		if f.modelURL != "" {
			f.policy = "model"
		}
	}
	switch f.policy {
	case "text":
		if f.modelURL != "" || f.model != "" {
			return usagef(try, "--policy text runs no model; leave out --model-url and --model, or use --policy model")
		}
	case "model":
		if f.modelURL == "" || f.model == "" {
			return usagef(withGlobals(cmd, "vaultd trial --questions "+shellQuote(f.questions)+" --model-url http://localhost:11434/v1 --model NAME"),
				"--policy model needs --model-url URL and --model NAME (or --policy text, which needs neither)")
		}
	default:
		return usagef(try, "unknown --policy %q; the policies are model and text", f.policy)
	}
	if f.budget < 1 {
		return usagef(try, "--budget must be at least 1, got %d", f.budget)
	}
	perms, err := parsePerms(false, f.allow)
	if err != nil {
		var fl *failure
		if errors.As(err, &fl) {
			return usagef(withGlobals(cmd, "vaultd trial --questions "+shellQuote(f.questions)+" --allow read,write"), "%s", fl.msg)
		}
		return err
	}
	b, err := os.ReadFile(f.questions)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &failure{code: exitNotFound, msg: fmt.Sprintf("the questions file %s does not exist", f.questions), err: err}
		}
		return err
	}
	qs, err := trial.ParseQuestions(b)
	if err != nil {
		return &failure{code: exitInvalid, msg: f.questions + ": " + err.Error(), err: err}
	}

	v, err := a.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	idx, err := index.OpenShared(v, index.Options{Logger: a.quietLogger()})
	if err != nil {
		return err
	}
	defer idx.Close()
	if err := waitWithProgress(cmd.Context(), idx, a.err, false, a.vaultNamed); err != nil {
		return err
	}
	c, err := tools.NewCore(v, tools.CoreOptions{Index: idx})
	if err != nil {
		return err
	}
	actor := a.actor
	if actor == "cli" {
		actor = "trial"
	}
	r := &trial.Runner{
		Core:   c,
		Conn:   tools.NewConnection(actor, perms, tools.Limits{}),
		Agent:  trial.TextPolicy{},
		Budget: f.budget,
		Progress: func(i int, o trial.Outcome) {
			fmt.Fprintf(a.err, "%d/%d %s (%d calls): %s\n", i+1, len(qs), o.Verdict, o.Calls, o.Question.Question)
		},
	}
	if f.policy == "model" {
		m := &trial.Model{URL: f.modelURL, Name: f.model, Key: os.Getenv(f.keyEnv), KeyFrom: f.keyEnv, Timeout: f.timeout}
		r.Agent, r.Name = m, fmt.Sprintf("model %s at %s", f.model, m.Endpoint())
	}
	tr, runErr := r.Run(cmd.Context(), qs)
	if tr == nil || (runErr != nil && len(tr.Questions) == 1 && len(tr.Questions[0].Steps) == 0) {
		// Nothing ran: a question names a note or phrase the vault
		// lacks, or the model could not be reached at all.
		return runErr
	}
	printed, err := a.writeTrial(tr, f.out)
	if err != nil {
		return err
	}
	if runErr != nil {
		return &failure{code: exitError, msg: runErr.Error(), err: runErr, printed: printed}
	}
	if !tr.OK() {
		s := tr.Summary()
		msg := fmt.Sprintf("%d of %d questions with a proof were not answered from their note within %d calls", s.WithProof-s.Within, s.WithProof, tr.Budget)
		if f.out != "" {
			msg += "; the trace: " + filepath.Join(f.out, "trial.md")
		}
		return &failure{code: exitTrial, msg: msg, printed: printed}
	}
	return nil
}

// writeTrial writes the trace: with out, trial.md and trial.json there and
// the summary on stdout; else the markdown (--json: the JSON) on stdout.
// printed says whether stdout got the JSON.
func (a *app) writeTrial(tr *trial.Trace, out string) (printed bool, err error) {
	js, err := tr.JSON()
	if err != nil {
		return false, err
	}
	if out == "" {
		if a.json {
			_, err = a.out.Write(js)
			return true, err
		}
		_, err = fmt.Fprint(a.out, tr.Markdown())
		return false, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return false, fmt.Errorf("create the output folder: %w", err)
	}
	md := filepath.Join(out, "trial.md")
	if err := os.WriteFile(md, []byte(tr.Markdown()), 0o644); err != nil {
		return false, err
	}
	if err := os.WriteFile(filepath.Join(out, "trial.json"), js, 0o644); err != nil {
		return false, err
	}
	if a.json {
		_, err = a.out.Write(js)
		return true, err
	}
	_, err = fmt.Fprintf(a.out, "%s\ntrace: %s, %s\n", tr.SummaryText(), md, filepath.Join(out, "trial.json"))
	return false, err
}
