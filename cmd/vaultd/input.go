package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// contentFlags are the ways a write command takes the new text.
type contentFlags struct {
	content string // --content TEXT
	file    string // --file F ("-" for stdin)

	// given is how the content was given, to repeat it in a suggested
	// command: {"--content", TEXT}, {"--file", F}, or nil for stdin.
	given []string
}

// contentPlaceholder is how the core writes the caller's content in a
// suggested call: it never echoes long content back to an agent.
const contentPlaceholder = " --content …"

// fillContent puts the user's own content flag back into a suggested
// command in place of the core's placeholder, so that the command runs as
// shown; content that came from stdin has to be piped in again.
func (c *contentFlags) fillContent(try string) string {
	if !strings.Contains(try, contentPlaceholder) {
		return try
	}
	repl := ""
	if len(c.given) > 0 {
		repl = " " + strings.Join(quoteAll(c.given), " ")
	}
	return strings.Replace(try, contentPlaceholder, repl, 1)
}

func (c *contentFlags) register(cmd *cobra.Command, what string) {
	cmd.Flags().StringVar(&c.content, "content", "", what+" (or use --file, or pipe it in)")
	cmd.Flags().StringVarP(&c.file, "file", "f", "", `read the content from file F ("-" for stdin)`)
}

// read returns the content from --content, --file or stdin, in that order.
// Stdin is read when --file is "-", or when neither flag is given and stdin
// is not a terminal (a pipe or a redirected file). Text read implicitly from
// stdin must not be empty: an empty pipe is almost always a mistake, and an
// empty note can still be written with --content "".
func (c *contentFlags) read(cmd *cobra.Command, in io.Reader) (string, error) {
	setContent := cmd.Flags().Changed("content")
	setFile := cmd.Flags().Changed("file")
	try := fmt.Sprintf("vaultd %s --help", cmd.Name())
	switch {
	case setContent && setFile:
		return "", usagef(try, "give the content once: --content TEXT or --file F, not both")
	case setContent:
		c.given = []string{"--content", c.content}
		return c.content, nil
	case setFile && c.file != "-":
		b, err := os.ReadFile(c.file)
		if err != nil {
			code := exitError
			if errors.Is(err, fs.ErrNotExist) {
				code = exitNotFound
			}
			return "", &failure{code: code, msg: fmt.Sprintf("cannot read --file %s: %v", c.file, unwrapPath(err)), err: err}
		}
		c.given = []string{"--file", c.file}
		return string(b), nil
	case setFile || !isTerminal(in):
		b, err := io.ReadAll(in)
		if err != nil {
			return "", fmt.Errorf("read the content from stdin: %w", err)
		}
		if len(b) == 0 && !setFile {
			return "", usagef("", `content missing: add --content "TEXT", --file F, or pipe the text in`)
		}
		return string(b), nil
	}
	return "", usagef("", `content missing: add --content "TEXT", --file F, or pipe the text in`)
}

// isTerminal reports whether r is a terminal or another character device
// such as /dev/null: nothing to read content from. A pipe, a regular file
// or an in-memory reader is read.
func isTerminal(r io.Reader) bool {
	yes, err := charDevice(r)
	return err != nil || yes
}

// charDevice reports whether f is an *os.File on a character device (a
// terminal, /dev/null), and the error when its mode cannot be read.
func charDevice(f any) (bool, error) {
	file, ok := f.(*os.File)
	if !ok {
		return false, nil
	}
	fi, err := file.Stat()
	if err != nil {
		return false, err
	}
	return fi.Mode()&os.ModeCharDevice != 0, nil
}

// unwrapPath drops the "open F:" prefix of a *fs.PathError; the message
// names the file already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// needSummary refuses a write without a change summary before the vault
// is touched.
func needSummary(s string) error {
	if strings.TrimSpace(s) == "" {
		return usagef("", `change summary missing: add --summary "what you changed and why"`)
	}
	return nil
}
