package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/vbauerster/mpb/v8/decor"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/internal/outdir"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/shard"
	"github.com/safegp/safegp/study/api"
)

//go:embed config.txt
var configHelp string

// errUsage reports a command-line mistake whose message was already printed.
var errUsage = errors.New("usage")

// Exit codes of a study that cannot go on, apart from errors (1): it has
// its horizon's worth of observations, or no safe setting is left to ask.
const (
	exitFinished = 3
	exitNoSafe   = 4
)

func exitCode(err error) int {
	switch {
	case err == errUsage:
		return 2
	case errors.Is(err, errTempFail):
		return exitTempFail
	case errors.Is(err, api.ErrFinished):
		return exitFinished
	case errors.Is(err, api.ErrNoSafeSetting):
		return exitNoSafe
	case errors.Is(err, syscall.EPIPE):
		return 128 + int(syscall.SIGPIPE) // as a shell reports a reader gone
	}
	var es errSignal
	if errors.As(err, &es) {
		return es.exitStatus()
	}
	return 1
}

const usage = `safegp — safe Gaussian-process bandit optimization

Usage:
  safegp reproduce [--out DIR] [--quick]      run every experiment of the paper, with a report
  safegp run CONFIG --out DIR [--workers N]   run an experiment
  safegp sweep SWEEP --out DIR [--workers N]  run a configuration over a grid of values
  safegp safety [--out DIR]                  how safe each algorithm is when the model is wrong, with a report
  safegp safety --suite losbo [--runs N]     the LoSBO paper's 200 functions under its protocol, as a table
  safegp bound CONFIG                        the paper's theory quantities for a configured problem
  safegp merge --out DIR SHARD_DIR...        combine the shard folders of run/reproduce/sweep/safety --suite --shard i/n
  safegp study COMMAND --db FILE ...         durable ask/tell studies of a real system (or --server URL)
  safegp serve --db FILE [--addr A]          the studies over HTTP
  safegp fit DATA.csv [--ard] [--json] ...   fit each GP's kernel and noise to measured data
  safegp help [COMMAND]                      show help
  safegp version                             the version and revision of this binary (also --version)

Run 'safegp run --help' for the configuration format.
`

// commands are safegp's commands, for the nearest name to a mistyped one.
var commands = []string{"reproduce", "run", "sweep", "safety", "bound", "merge", "study", "serve", "fit", "help", "version"}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "sweep":
		return sweepCmd(args[1:], stdout, stderr)
	case "bound":
		return boundCmd(args[1:], stdout, stderr)
	case "merge":
		return mergeCmd(args[1:], stdout, stderr)
	case "reproduce":
		return reproduceCmd(args[1:], stdout, stderr)
	case "safety":
		return safetyCmd(args[1:], stdout, stderr)
	case "study":
		return studyCmd(args[1:], stdout, stderr)
	case "serve":
		return serveCmd(args[1:], stdout, stderr)
	case "fit":
		return fitCmd(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		return versionCmd(stdout)
	case "help", "-h", "--help", "-help":
		if len(args) > 1 {
			switch args[1] {
			case "run":
				return runCmd([]string{"--help"}, stdout, stderr)
			case "sweep":
				return sweepCmd([]string{"--help"}, stdout, stderr)
			case "bound":
				return boundCmd([]string{"--help"}, stdout, stderr)
			case "merge":
				return mergeCmd([]string{"--help"}, stdout, stderr)
			case "reproduce":
				return reproduceCmd([]string{"--help"}, stdout, stderr)
			case "safety":
				return safetyCmd([]string{"--help"}, stdout, stderr)
			case "study":
				return studyCmd([]string{"--help"}, stdout, stderr)
			case "serve":
				return serveCmd([]string{"--help"}, stdout, stderr)
			case "fit":
				return fitCmd([]string{"--help"}, stdout, stderr)
			}
		}
		fmt.Fprint(stdout, usage)
		return nil
	default:
		return unknownCommand(stderr, "safegp", args[0], "safegp help", commands)
	}
}

// parse parses a subcommand's arguments. When ok is false the command
// returns err at once: nil after --help, errUsage after a bad flag, of
// which parse has told stderr. A bad flag value (--shard 3/2, --workers x,
// a flag without its value) is the message and one line pointing to
// --help, as the go tool and git answer it: the usage would bury the one
// line that matters. So is an unknown flag, with the nearest flag there
// is when it looks like a typo of it.
func parse(fs *flag.FlagSet, args []string) (pos []string, ok bool, err error) {
	// The flag package prints its message and calls Usage before Parse
	// returns: silence both, and say it here once the error is known.
	out, usage := fs.Output(), fs.Usage
	if usage == nil {
		usage = func() {
			fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
	}
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	pos, err = parseInterspersed(fs, args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == flag.ErrHelp:
		usage()
		return nil, false, nil
	case err != nil && badValue(err):
		// The flag package names a flag -x; the docs and the usage
		// write --x (both are accepted).
		msg := shortFlagError(err.Error())
		for _, f := range []string{" flag -", "argument: -", " for -"} {
			msg = strings.Replace(msg, f, f+"-", 1)
		}
		fmt.Fprintf(out, "%s: %s\nRun '%s --help' for usage.\n", fs.Name(), msg, fs.Name())
		return nil, false, errUsage
	case err != nil:
		// An unknown flag: the nearest one, and where the list is; the
		// usage would bury the line that matters, as for a bad value.
		msg := shortFlagError(err.Error())
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			var known []string
			fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
			name = strings.TrimPrefix(name, "-")
			msg = "flag provided but not defined: --" + quote.Prefix(name)
			if best := nearest(name, known); best != "" {
				msg += " (did you mean --" + best + "?)"
			}
		}
		fmt.Fprintf(out, "%s: %s\nRun '%s --help' for usage.\n", fs.Name(), msg, fs.Name())
		return nil, false, errUsage
	}
	return pos, true, nil
}

// shortFlagError shortens what the flag package quotes whole in its
// messages — the value in "invalid value %q for flag -%s: …", the name in
// "flag provided but not defined: -%s" — to a short prefix (quote.Short):
// a 16 MB argument must not make a 16 MB error (issue 24, item 3).
func shortFlagError(msg string) string {
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if end := strings.Index(rest, `" for flag -`); end > 0 {
			if v, err := strconv.Unquote(rest[:end+1]); err == nil {
				msg = "invalid value " + quote.Short(v) + rest[end+1:]
			}
		}
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "flag provided but not defined: -" + quote.Prefix(name)
	}
	if name, ok := strings.CutPrefix(msg, "bad flag syntax: "); ok {
		msg = "bad flag syntax: " + quote.Prefix(name)
	}
	return msg
}

// badValue reports whether err, from flag.FlagSet.Parse, is about a
// flag's value rather than the flag itself. The flag package has no typed
// errors: these are the beginnings of its messages for a value (Go's
// flag.go, parseOne), the rest ("flag provided but not defined", "bad
// flag syntax") being about the flag.
func badValue(err error) bool {
	for _, p := range []string{"invalid value ", "invalid boolean value ", "invalid boolean flag ", "flag needs an argument"} {
		if strings.HasPrefix(err.Error(), p) {
			return true
		}
	}
	return false
}

// parseInterspersed parses flags that may stand before or after the
// positional arguments, and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func runCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("safegp run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	figureWidth := figureWidthFlag(fs)
	out := fs.String("out", "", "output `folder` for results.json, summary.csv and regret.png/.svg (required)")
	workers := intFlag(fs, "workers", runtime.NumCPU(), "number of parallel `workers`, and the most cores used; results do not depend on it")
	quiet := fs.Bool("quiet", false, "no progress bar")
	force := fs.Bool("force", false, "replace DIR whole if it holds an earlier safegp output")
	bandName := fs.String("band", "se", "the band around each mean curve of the figure: `std`, se (standard error) or none")
	var maxMem memlimit.Flag
	fs.Var(&maxMem, "max-memory", "refuse a configuration whose memory estimate is above `SIZE` (8GiB, 512MiB, bytes)")
	var part shardFlag
	fs.Var(&part, "shard", "run only shard `i/n` of the work units into DIR, for `safegp merge`")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: safegp run CONFIG --out DIR [--force] [--workers N] [--max-memory SIZE] [--band std|se|none] [--quiet] [--shard i/n] [--figure-width W]\n\n"+
			"Runs every algorithm of CONFIG on every realization and writes DIR/results.json,\n"+
			"DIR/summary.csv and the regret figure DIR/regret.png and .svg. Runs are streamed to\n"+
			"DIR/runs.jsonl (one run a line) as they finish, and results.json and summary.csv are\n"+
			"made from it. DIR is written whole or not at all; an existing, non-empty DIR is\n"+
			"replaced only with --force, and only if safegp wrote it.\n\n"+
			"With --shard i/n, DIR holds only shard i of n: the work units are the (algorithm,\n"+
			"realization) pairs, and those of realization r belong to shard (r mod n) + 1.\n"+
			"DIR then holds runs.jsonl and shard.json; `safegp merge --out ALL DIR1 … DIRn`\n"+
			"makes from the n shard folders exactly the unsharded DIR (byte-identical\n"+
			"results.json, summary.csv and runs.jsonl; the figure redrawn).\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\n"+configHelp)
	}
	pos, ok, err := parse(fs, args)
	if !ok {
		return err
	}
	restoreWidth, err := figureWidth(stderr, "run")
	if err != nil {
		return err
	}
	defer restoreWidth()
	defer useCores(*workers)()
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "safegp run: want exactly one CONFIG file, got %d arguments\n", len(pos))
		fs.Usage()
		return errUsage
	}
	if *out == "" {
		fmt.Fprintln(stderr, "safegp run: --out DIR is required")
		return errUsage
	}
	if *workers < 1 {
		fmt.Fprintf(stderr, "safegp run: --workers must be ≥ 1, got %d\n", *workers)
		return errUsage
	}
	band, err := experiment.ParseBand(*bandName)
	if err != nil {
		fmt.Fprintf(stderr, "safegp run: --band: %v\n", err)
		return errUsage
	}
	if err := checkOut(*out, *force); err != nil {
		return err
	}
	cfg, err := experiment.Load(pos[0])
	if err != nil {
		return err
	}
	cfg.SetMaxMemory(maxMem.Bytes)
	ctx, stop := withSignals()
	defer stop()
	opt := experiment.Options{Workers: *workers, MaxMemory: maxMem.Bytes}
	units := experiment.Units(cfg)
	name := strings.TrimSuffix(filepath.Base(pos[0]), filepath.Ext(pos[0]))
	wopt := experiment.WriteOptions{Figures: runFigures(name, band, cfg.Realizations), Force: *force}
	if part.Sharded() {
		opt.Units = part.ByRealization(0)
		units = len(shard.Held(opt.Units, 0, len(cfg.Algorithms), cfg.Realizations))
		wopt.Shard = &shard.Info{Command: "run", Shard: part.I, Of: part.N, Name: name, Band: *bandName}
	}
	step, finish := progressBar(ctx, stderr, *quiet, int64(units), decor.Name("runs "),
		decor.Percentage(), decor.Name(" "), decor.Elapsed(decor.ET_STYLE_GO))
	defer finish()
	opt.Progress = step
	_, err = experiment.ExecuteToDir(ctx, cfg, opt, *out, wopt)
	finish()
	if err != nil {
		return stopped(ctx, fmt.Errorf("%s: %w", pos[0], err))
	}
	if part.Sharded() {
		fmt.Fprintf(stdout, "wrote %s: shard %s, %d of %s; %s\n", *out, part.Shard, units, count(experiment.Units(cfg), "run"), mergeHint(part.N))
		if units == 0 {
			// Legal (the merge wants every shard), but likely a mistake.
			fmt.Fprintf(stderr, "safegp run: note: shard %s holds no runs: a realization's runs go to one shard, and there are %s for %d shards\n", part.Shard, count(cfg.Realizations, "realization"), part.N)
		}
		return nil
	}
	fmt.Fprintf(stdout, "wrote %s: %s (%s × %s)\n", *out, count(units, "run"), count(cfg.Realizations, "realization"), count(len(cfg.Algorithms), "algorithm"))
	return nil
}

// runFigures draws run's regret figure with the chosen band, titled with
// the configuration's name and the band: the same for a run, for the
// merge of its shards (merge --band) and for a sweep's cells (the default
// band, so that a cell's folder is what run writes).
func runFigures(name string, band experiment.Band, realizations int) func(tmp string, curves []experiment.Curve) error {
	title := fmt.Sprintf("%s: %s", name, band.Describe(realizations))
	return experiment.RegretFigureBand(title, band, realizations)
}

// checkOut refuses an unusable --out before any work is done, in the
// words of the command line; the writers check again when they publish.
func checkOut(dir string, force bool) error {
	err := outdir.Check(dir, force)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, outdir.ErrNotEmpty):
		return fmt.Errorf("--out %s exists and is not empty: give --force to replace it, or another folder", dir)
	case errors.Is(err, outdir.ErrNotOutput):
		return fmt.Errorf("--out %s %w: give another folder, or empty it yourself", dir, err)
	default:
		return fmt.Errorf("--out %s %w", dir, err)
	}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
