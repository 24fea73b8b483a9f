package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/study"
)

const studyUsage = `Usage: safegp study COMMAND --db FILE [--study NAME] ...

Durable ask/tell studies for tuning a real system (the specification format
is in the README). Commands:
  create SPEC.yaml     create a study from a specification
  ask                  print the next action to try, as JSON {"ask", "index", "x"};
                       asking again before telling returns the same ask
  tell --ask ID --f V --g V1[,V2…]
  tell --index I --f V --g V1[,V2…]   an observation made outside the loop
  retract --observation N
                       withdraw observation N (the "observation" a tell printed),
                       e.g. a mistyped value: the policy is rebuilt without it
  show [--json]        rounds, safe-set size, best safe action, violations
  export --format csv|json
  plot --out fig.png   posterior of f and g, safe set, observations (1-D and 2-D)

Only create makes a database; every other command needs an existing safegp
database and refuses any other file without writing to it. show, export and
plot only read it.

A study takes at most horizon observations (retracted ones do not count):
ask then refuses. A tell of an ask already handed out is always accepted;
a tell --index is refused when it would exceed the horizon, counting a
pending ask. A tell warns on stderr about a value more than 6 posterior
standard deviations from the model's mean: retract it if it is a typo.

Exit codes: 0 success; 1 error (bad input changes nothing); 2 usage error;
75 the database stayed busy — another process kept writing to it through
several attempts — so nothing was recorded: try again.
`

// errTempFail reports a write that kept losing to other processes writing
// to the same database: exit code exitTempFail (EX_TEMPFAIL of sysexits.h).
var errTempFail = errors.New("the database is busy: another process kept writing to it, and nothing was recorded; try again")

const exitTempFail = 75

// Retries of a write that lost a race with another process: each attempt
// reloads the study and checks the request again, so that a tell which
// became invalid meanwhile (its ask told by the other process) fails
// properly. Variables, so that tests can shorten them.
var (
	writeAttempts = 5
	retryBase     = 50 * time.Millisecond
	busyTimeout   = 10 * time.Second
)

// retryWrite runs a write until it succeeds, fails for a reason other than
// contention, or has had writeAttempts tries, sleeping a jittered,
// doubling backoff between tries so that racing processes spread out.
func retryWrite(write func() error) error {
	var err error
	for attempt := 1; ; attempt++ {
		if err = write(); err == nil || !contended(err) {
			return err
		}
		if attempt == writeAttempts {
			return fmt.Errorf("%w (%d attempts; last: %w)", errTempFail, attempt, err)
		}
		time.Sleep(time.Duration(float64(retryBase<<(attempt-1)) * (0.5 + rand.Float64())))
	}
}

// contended reports an error worth a retry: another process wrote first,
// or held the database past the busy timeout.
func contended(err error) bool { return errors.Is(err, study.ErrStale) || study.ErrBusy(err) }

func studyCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, studyUsage)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	sub := args[0]
	fs := flag.NewFlagSet("safegp study "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "", "SQLite `file` holding the studies (required)")
	name := fs.String("study", "default", "study `name`")
	var maxMem memlimit.Flag
	fs.Var(&maxMem, "max-memory", "refuse a study whose memory estimate at its horizon is above `SIZE` (8GiB, 512MiB, bytes)")
	var (
		askID, index   *int
		f              *float64
		g, format, out *string
		asJSON         *bool
		observation    *int
	)
	switch sub {
	case "create", "ask":
	case "retract":
		observation = fs.Int("observation", 0, "the observation `number` to retract (the \"observation\" a tell printed)")
	case "tell":
		askID = fs.Int("ask", 0, "the ask `id` this observation answers")
		index = fs.Int("index", -1, "the action `index`, for an observation made outside the loop")
		f = fs.Float64("f", 0, "the observed objective `value`")
		g = fs.String("g", "", "the observed constraint `values`, comma-separated")
	case "show":
		asJSON = fs.Bool("json", false, "print JSON")
	case "export":
		format = fs.String("format", "csv", "csv or json")
	case "plot":
		out = fs.String("out", "", "output `file`, .png or .svg (required)")
	default:
		fmt.Fprintf(stderr, "safegp study: unknown command %q\n\n%s", sub, studyUsage)
		return errUsage
	}
	fs.Usage = func() { fmt.Fprint(fs.Output(), studyUsage+"\nFlags:\n"); fs.PrintDefaults() }
	pos, ok, err := parse(fs, args[1:])
	if !ok {
		return err
	}
	if *db == "" {
		fmt.Fprintf(stderr, "safegp study %s: --db FILE is required\n", sub)
		return errUsage
	}
	if want := map[bool]int{true: 1, false: 0}[sub == "create"]; len(pos) != want {
		fmt.Fprintf(stderr, "safegp study %s: want %d positional arguments, got %d\n", sub, want, len(pos))
		return errUsage
	}
	if err := study.CheckName(*name); err != nil {
		return err
	}
	var res *study.Resolved
	opt := study.OpenOptions{BusyTimeout: busyTimeout}
	switch sub {
	case "create":
		// Check the specification before the database is created.
		if res, err = study.LoadSpec(pos[0]); err != nil {
			return err
		}
		if err := res.CheckMemory(maxMem.Limit()); err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		opt.Create = true
	case "show", "export", "plot":
		opt.ReadOnly = true
	}
	store, err := study.Open(*db, opt)
	if contended(err) {
		return fmt.Errorf("%w (%w)", errTempFail, err)
	}
	if err != nil {
		return err
	}
	defer store.Close()
	svc := study.NewService(store, study.ServiceOptions{MaxMemory: maxMem.Limit()})
	ctx := context.Background()
	enc := json.NewEncoder(stdout)
	switch sub {
	case "create":
		if err := retryWrite(func() error { return svc.Create(ctx, *name, res) }); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created study %q in %s: %d actions, %d seed actions\n", *name, *db, len(res.X), len(res.Seed))
	case "ask":
		var a *study.AskAnswer
		if err := retryWrite(func() (err error) { a, err = svc.Ask(ctx, *name); return err }); err != nil {
			return err
		}
		return enc.Encode(a)
	case "retract":
		set := map[string]bool{}
		fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
		if !set["observation"] {
			return fmt.Errorf("%w: --observation is required", study.ErrBadRetract)
		}
		var a *study.RetractAnswer
		if err := retryWrite(func() (err error) { a, err = svc.Retract(ctx, *name, *observation); return err }); err != nil {
			return err
		}
		if a.WithdrawnAsk != 0 {
			fmt.Fprintf(stderr, "safegp: ask %d was withdrawn: it was chosen with the retracted value; run safegp study ask for a new one\n", a.WithdrawnAsk)
		}
		return enc.Encode(a)
	case "tell":
		req := &study.TellRequest{F: f}
		set := map[string]bool{}
		fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
		if set["ask"] == set["index"] {
			return fmt.Errorf("%w: give exactly one of --ask and --index", study.ErrBadTell)
		}
		if set["ask"] {
			req.Ask = askID
		} else {
			req.Index = index
		}
		if !set["f"] {
			return fmt.Errorf("%w: --f is required", study.ErrBadTell)
		}
		if !set["g"] {
			return fmt.Errorf("%w: --g is required", study.ErrBadTell)
		}
		for _, s := range strings.Split(*g, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return fmt.Errorf("%w: --g: %q is not a number", study.ErrBadTell, s)
			}
			req.G = append(req.G, v)
		}
		var a *study.TellAnswer
		if err := retryWrite(func() (err error) { a, err = svc.Tell(ctx, *name, req); return err }); err != nil {
			return err
		}
		for _, w := range a.Warnings {
			fmt.Fprintf(stderr, "safegp: warning: %s\n", w)
		}
		return enc.Encode(a)
	case "show":
		s, err := svc.Show(ctx, *name)
		if err != nil {
			return err
		}
		if *asJSON {
			enc.SetIndent("", "  ")
			return enc.Encode(s)
		}
		fmt.Fprintf(stdout, "study %s: %s on %d actions in %d-D, %d constraint(s), horizon %d\n", s.Study, s.Algorithm, s.Actions, s.Dim, s.Constraints, s.Horizon)
		fmt.Fprintf(stdout, "rounds: %d, violations: %d, safe set: %d actions\n", s.Rounds, s.Violations, s.SafeSetSize)
		if s.Retracted > 0 {
			fmt.Fprintf(stdout, "retracted: %d observation(s), counted nowhere above\n", s.Retracted)
		}
		if s.Pending != nil {
			fmt.Fprintf(stdout, "pending ask: %d\n", *s.Pending)
		}
		if s.Best != nil {
			fmt.Fprintf(stdout, "best safe action: %d at %v, lower bound %.4g, mean %.4g\n", s.Best.Index, s.Best.X, s.Best.LowerF, s.Best.MeanF)
		} else {
			fmt.Fprintln(stdout, "best safe action: none yet (empty safe set)")
		}
	case "export":
		x, err := svc.Export(ctx, *name)
		if err != nil {
			return err
		}
		switch *format {
		case "csv":
			_, err = stdout.Write(study.ExportCSV(x))
		case "json":
			var b []byte
			if b, err = study.ExportJSON(x); err == nil {
				_, err = stdout.Write(b)
			}
		default:
			return fmt.Errorf("--format: want csv or json, got %q", *format)
		}
		return err
	case "plot":
		if *out == "" {
			fmt.Fprintln(stderr, "safegp study plot: --out FILE is required")
			return errUsage
		}
		x, h, obs, snap, err := svc.Inspect(ctx, *name)
		if err != nil {
			return err
		}
		// Retracted values are not data: plotting them would show the
		// typo the retraction removed from the model.
		kept := obs[:0]
		for _, o := range obs {
			if !o.Retracted {
				kept = append(kept, o)
			}
		}
		if err := plotStudy(*out, *name, x, h, kept, snap); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
	}
	return nil
}
