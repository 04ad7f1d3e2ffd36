package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/hpcbench/hpcbench/internal/version"
	"github.com/hpcbench/hpcbench/pmi"
)

// Every subcommand's help has one layout, written by writeHelp:
//
//	usage: hpcbench CMD ...            one line, the synopsis
//
//	What the command does.             helpInfo.about
//
//	Options:                           the options, switches written bare
//	  -n, --np int   ...
//
//	Not supported (...):               helpInfo.unsupported, when there are any
//	  -hosts, -f
//	      why
//
//	Exit status:                       helpInfo.exits
//	  0    ...
//
// It goes to stdout and the command exits 0, for CMD --help, CMD -h,
// help CMD and help CMD --help alike.

// helpInfo is what a subcommand's help says around its options; helpFor
// has every command's.
type helpInfo struct {
	// about says what the command does and how its options are spelled:
	// lines of text under 80 columns, paragraphs separated by blank lines.
	about string
	// unsupported are options of the tool the command imitates that it
	// refuses, with a message and exit status 2, instead of ignoring them.
	unsupported []notSupported
	// exits are the command's exit statuses, 0 first.
	exits []exitStatus
}

// notSupported is a group of options refused for one reason.
type notSupported struct {
	names []string // as a user types them: "-hosts", "--gpuDirect"
	why   string
}

// exitStatus is one line of a help's "Exit status:" section.
type exitStatus struct {
	code    string // "0", "124", "128+N"
	meaning string
}

// writeHelp prints the help of the command name: synopsis (without
// "usage: "), options (a section with its own heading line) and what
// helpFor(name) says.
func writeHelp(w io.Writer, name, synopsis, options string) {
	h := helpFor(name)
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n\n%s\n", synopsis, strings.TrimSpace(h.about))
	if options != "" {
		fmt.Fprintf(&b, "\n%s", markUnsupported(options, h.unsupported))
	}
	if commands()[name].iface {
		b.WriteString("\n" + ifaceHelp)
	}
	if commands()[name].progress {
		b.WriteString("\n" + progressHelp)
	}
	if commands()[name].notes {
		b.WriteString("\n" + notesHelp)
	}
	if len(h.unsupported) > 0 {
		b.WriteString("\nNot supported (refused with a message, exit status 2):\n")
		for _, u := range h.unsupported {
			fmt.Fprintf(&b, "  %s\n      %s\n", strings.Join(u.names, ", "), u.why)
		}
	}
	b.WriteString("\nExit status:\n")
	width := 0
	for _, e := range h.exits {
		width = max(width, len(e.code))
	}
	for _, e := range h.exits {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, e.code, e.meaning)
	}
	io.WriteString(w, b.String())
}

// optionSpelling matches an option line of pflag's layout, capturing its
// short and long spellings: "  -y, --dualMount   ..." or "      --dryRun ...".
var optionSpelling = regexp.MustCompile(`^  (?:(-\S), |    )(--[^\s\[]+)`)

// markUnsupported appends " (not supported; see below)" to the option
// lines of options that spell an option unsupported lists, unless they say
// so already, so that the list of options marks them too.
func markUnsupported(options string, unsupported []notSupported) string {
	names := map[string]bool{}
	for _, u := range unsupported {
		for _, n := range u.names {
			names[n] = true
		}
	}
	lines := strings.Split(options, "\n")
	for i, l := range lines {
		m := optionSpelling.FindStringSubmatch(l)
		if m != nil && (names[m[1]] || names[m[2]]) && !strings.Contains(l, "not supported") {
			lines[i] = l + " (not supported; see below)"
		}
	}
	return strings.Join(lines, "\n")
}

// isHelp reports whether arg asks for help: -h, -help or --help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// isVersion reports whether arg asks for the version: --version or
// -version, as mpiexec takes it.
func isVersion(arg string) bool {
	return arg == "--version" || arg == "-version"
}

// runHelp is `hpcbench help [CMD]`: the list of commands, or CMD's help
// (help CMD --help too, as a user who adds --help by habit types it).
func runHelp(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		usage(stdout)
		return nil
	}
	if isHelp(args[0]) {
		args = []string{"help"}
	}
	name := args[0]
	cmd, ok := commands()[name]
	if !ok || cmd.hidden {
		return usagef("help: unknown command %q; run 'hpcbench help' for the list", oneLine(name))
	}
	if len(args) > 2 || len(args) == 2 && !isHelp(args[1]) {
		return usagef("help: takes one command name and an optional --help, got %q", oneLine(args[len(args)-1]))
	}
	switch name {
	case "help":
		writeHelp(stdout, "help", "hpcbench help [CMD]", "")
		return nil
	case "version":
		writeHelp(stdout, "version", "hpcbench version", "")
		return nil
	}
	return cmd.run(ctx, stdout, stderr, []string{"--help"})
}

// runVersion is `hpcbench version` (and --version, -version).
func runVersion(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	if len(args) == 1 && isHelp(args[0]) {
		return runHelp(ctx, stdout, stderr, []string{"version"})
	}
	if len(args) > 0 {
		return usagef("version: takes no arguments, got %q", oneLine(args[0]))
	}
	fmt.Fprintln(stdout, version.String())
	fmt.Fprintln(stdout, "launchers:")
	for _, l := range pmi.Launchers() {
		fmt.Fprintln(stdout, "  "+l)
	}
	return nil
}

// usage prints hpcbench's own help: the commands and how to get theirs.
func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("usage: hpcbench COMMAND [options] [args]\n\n")
	b.WriteString("One binary for what mpiexec, IOR, mdtest and the Intel MPI Benchmarks do.\n\nCommands:\n")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n, c := range cmds {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "  %-9s %s\n", n, cmds[n].summary)
	}
	b.WriteString("\nOptions:\n")
	b.WriteString("  -h, --help      this help; hpcbench help CMD or hpcbench CMD --help for a command's\n")
	b.WriteString("      --version   the version of this build (also -version)\n")
	b.WriteString("\nExit status:\n")
	b.WriteString("  0  success; each command's help lists its own statuses\n")
	b.WriteString("  2  no command, or an unknown one\n")
	io.WriteString(w, b.String())
}
