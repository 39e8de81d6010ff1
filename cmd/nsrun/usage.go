package main

//go:generate go test -run ^TestOptionsDoc$ . -update

import (
	"fmt"
	"io"
	"strings"
)

// usageHead is the start of the help: the forms of the command line.
const usageHead = `usage: nsrun [OPTIONS] [--] COMMAND [ARG...]
       nsrun session start [OPTIONS] NAME | list | stop NAME   a sandbox kept up
       nsrun exec NAME [--env K=V --chdir D --tty M --report F] -- CMD...
       nsrun changes [apply] DIR       what --keep-changes DIR kept; apply it
       nsrun probe [--json]            what this host can enforce, and why not
       nsrun policy explain [OPTIONS] PATH...   which rule decides each path
       nsrun policy show [OPTIONS]     the rules in effect
       nsrun policy suggest REPORT     options that would allow its denials
       nsrun version (or --version)
`

const exitStatus = "Exit status: the command's; 128+N if killed by signal N; 124 timeout; " +
	"125 nsrun or the sandbox failed (nothing ran); 126 not executable; 127 not found."

const (
	helpWidth = 80 // the help's lines are at most this long
	helpCol   = 28 // where an option's help starts
)

// writeUsage writes the help, nsrun --help.
func writeUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString(usageHead)
	for _, s := range optionSections {
		fmt.Fprintf(&b, "\n%s:\n", s.title)
		if s.intro != "" {
			wrap(&b, "  ", plain(s.intro), "  ")
		}
		for i := range s.options {
			opt := &s.options[i]
			syn := "  " + opt.synopsis()
			if len(syn)+2 > helpCol {
				b.WriteString(syn + "\n")
				syn = ""
			}
			wrap(&b, syn+strings.Repeat(" ", helpCol-len(syn)), plain(opt.help), strings.Repeat(" ", helpCol))
		}
	}
	b.WriteString("\n")
	wrap(&b, "", exitStatus, "")
	io.WriteString(w, b.String())
}

// synopsis is the option as the help shows it: its names and argument.
func (opt *option) synopsis() string {
	s := dashes(opt.name)
	if opt.alias != "" {
		s = dashes(opt.alias) + ", " + s
	}
	if opt.arg != "" {
		s += " " + opt.arg
	}
	return s
}

// plain is a help text as the terminal shows it, without the quotes of
// its code.
func plain(s string) string { return strings.ReplaceAll(s, "`", "") }

// wrap writes text in lines of at most helpWidth, where a word allows: the
// first after first, the others after indent.
func wrap(b *strings.Builder, first, text, indent string) { wrapTo(b, helpWidth, first, text, indent) }

func wrapTo(b *strings.Builder, width int, first, text, indent string) {
	line := first
	for i, word := range strings.Fields(text) {
		if i > 0 && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent + word
			continue
		}
		if i > 0 {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
}

// optionsDocHead is the start of docs/OPTIONS.md.
const optionsDocHead = `<!-- Code generated from cmd/nsrun/optable.go by go generate ./cmd/nsrun; DO NOT EDIT. -->

# nsrun options

    nsrun [OPTIONS] [--] COMMAND [ARG...]

The command starts at the first argument that is not an option, or after
` + "`--`" + `; everything after it is the command's. An option's value follows it
(` + "`--timeout 10s`" + `) or an equals sign (` + "`--timeout=10s`" + `); an option with two
arguments (` + "`--bind SRC DEST`" + `) takes the next two, whatever they look like.
An unknown option, or a bad or missing value, exits 125 with one line
naming the option (an unknown one with the nearest known one, if it is a
typo away), and nothing runs. ` + "`nsrun --help`" + ` lists the same options.
`

// writeOptionsDoc writes docs/OPTIONS.md, the option reference.
func writeOptionsDoc(w io.Writer) {
	var b strings.Builder
	b.WriteString(optionsDocHead)
	for _, s := range optionSections {
		fmt.Fprintf(&b, "\n## %s\n\n", s.title)
		if s.intro != "" {
			wrapTo(&b, 72, "", s.intro, "")
			b.WriteString("\n")
		}
		b.WriteString("| option | what it does | given twice |\n|---|---|---|\n")
		for i := range s.options {
			opt := &s.options[i]
			twice := "the last counts"
			switch {
			case opt.many:
				twice = "adds one more"
			case opt.once:
				twice = "refused"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", cell("`"+opt.synopsis()+"`"), cell(opt.help), twice)
		}
	}
	io.WriteString(w, b.String())
}

// cell is markdown for a table cell: a | would end it, even in code.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
