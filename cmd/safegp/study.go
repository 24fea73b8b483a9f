package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

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
  show [--json]        rounds, safe-set size, best safe action, violations
  export --format csv|json
  plot --out fig.png   posterior of f and g, safe set, observations (1-D and 2-D)
`

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
	var (
		askID, index   *int
		f              *float64
		g, format, out *string
		asJSON         *bool
	)
	switch sub {
	case "create", "ask":
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
	if sub == "create" {
		// Check the specification before the database is created.
		if res, err = study.LoadSpec(pos[0]); err != nil {
			return err
		}
	} else if _, err := os.Stat(*db); err != nil {
		return fmt.Errorf("--db %s: %w", *db, err)
	}
	store, err := study.Open(*db)
	if err != nil {
		return err
	}
	defer store.Close()
	svc := study.NewService(store)
	ctx := context.Background()
	enc := json.NewEncoder(stdout)
	switch sub {
	case "create":
		if err := svc.Create(ctx, *name, res); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created study %q in %s: %d actions, %d seed actions\n", *name, *db, len(res.X), len(res.Seed))
	case "ask":
		a, err := svc.Ask(ctx, *name)
		if err != nil {
			return err
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
		a, err := svc.Tell(ctx, *name, req)
		if err != nil {
			return err
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
		if s.Pending != nil {
			fmt.Fprintf(stdout, "pending ask: %d\n", *s.Pending)
		}
		if s.Best != nil {
			fmt.Fprintf(stdout, "best safe action: %d at %v, lower bound %.4g, mean %.4g\n", s.Best.Index, s.Best.X, s.Best.LowerF, s.Best.MeanF)
		} else {
			fmt.Fprintln(stdout, "best safe action: none yet (empty safe set)")
		}
	case "export":
		x, h, obs, _, err := svc.Inspect(ctx, *name)
		if err != nil {
			return err
		}
		switch *format {
		case "csv":
			_, err = stdout.Write(study.ExportCSV(obs, len(x[0]), len(h)))
		case "json":
			var b []byte
			if b, err = study.ExportJSON(obs); err == nil {
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
		if err := plotStudy(*out, *name, x, h, obs, snap); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
	}
	return nil
}
