package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/safegp/safegp/internal/csvcell"
	"github.com/safegp/safegp/internal/errclass"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/internal/readlimit"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/view"

	"github.com/safegp/safegp/internal/number"

	"github.com/safegp/safegp/internal/plural"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/problem"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study"
)

const studyUsage = `Usage: safegp study COMMAND --db FILE | --server URL [--study NAME] ...

Durable ask/tell studies for tuning a real system (the specification format
is in docs/quickstart.md; every command in docs/cli.md). Commands:
  create SPEC.yaml     create a study from a specification
  ask [--count K] [--lease SECONDS] [--context NAME=V,…]
                       print the next action to try, as JSON {"ask", "index", "x"};
                       asking again before telling returns the same ask.
                       --count K: a batch of up to K (1 … 64) asks to measure
                       in parallel, as {"asks": [...]}: the pending ones first,
                       then new ones, all in the safe set of the observations
                       so far and spread apart. --lease S: each ask handed out
                       is leased for S seconds ("lease_until", and its lease
                       token "lease"): no other ask hands it out until the
                       lease ends or it is told, so parallel workers each get
                       their own. --context: a study
                       with a context takes the value of each context variable
                       measured now, and answers with it ("context"); its seed
                       set is assumed safe in every context
  heartbeat --ask ID --lease SECONDS [--lease-token TOKEN]
                       renew the lease of pending ask ID: it then ends SECONDS
                       from now. --lease-token: the "lease" the ask was handed
                       out with; the heartbeat then fails (exit 1) instead of
                       taking the ask back if its lease ended and the ask went
                       to another worker. Without it a heartbeat cannot tell
                       holders apart, and renews the lease whoever holds it
  tell --ask ID --f V --g V1[,V2…] [--noise-std S]
  tell --index I --f V --g V1[,V2…]   an observation made outside the loop,
  tell --x X1[,X2…] --f V --g V1[,V2…]   at an action or at any point;
                       --noise-std S: the measurement's own noise standard
                       deviation (default: the model's noise_std); no --g for
                       a study whose only safety condition is
                       objective_threshold, f ≥ h_f; --context NAME=V,… the
                       context of a --index or --x measurement (a study with
                       a context; a tell of an ask has the ask's)
  tell --ask ID --value NAME=V [--value NAME=V …]
  tell --param NAME=V [--param …] --value NAME=V [--value …]
                       a study stated in parameters: every outcome's value by
                       name, in raw units; --param gives the setting of a
                       measurement made outside the loop
  tell --ask ID --failed   (or --param …, --index I, --x X --failed)
                       the trial produced no values (a crash, a tripped
                       interlock, a lost measurement): the setting is never
                       asked again and counts against every limit
  import DATA.csv [--repeat]
                       add earlier measurements (warm start), before or during
                       the study, all rows or none: columns x1…xd,f[,g1…gm]
                       [,noise_std], with a study's context variables by name
                       between x1…xd and f; they count as observations, not asks.
                       The CSV of export is read too (its observations in
                       force: a copy of a study into another with the same spec).
                       The same rows imported again (a retry) are refused;
                       --repeat imports them once more on purpose
  posterior POINTS.csv [--json] [--context NAME=V,…]
                       posterior mean, sd and bounds of f and each g at the
                       points of POINTS.csv (columns x1…xd), in the context
                       given for a study with a context, from every
                       observation; changes nothing
  retract --observation N | --trial N
                       withdraw observation N (the "observation" a tell printed),
                       or a study stated in parameters' trial N,
                       e.g. a mistyped value: the policy is rebuilt without it,
                       and every pending ask is withdrawn ("withdrawn_asks")
  extend --horizon N   raise the study's horizon to N (no asks pending): a
                       finished study goes on, its record kept
  list [--json]        every study of the database: algorithm, rounds,
                       violations, pending asks, last change
  delete [--force]     delete the study and everything recorded of it; refused
                       while asks are leased to workers unless --force
  rename NEW           give the study the name NEW
  show [--json]        rounds, safe-set size, best safe action, violations
  export --format csv|json
  plot --out fig.png [--figure-width W]
                       posterior of f and g, safe set, observations (1-D and 2-D);
                       a study stated in parameters in its units: parameters
                       by name on their scales, outcomes as measured

--db FILE: the command opens the database itself, and closes it before it
ends. --server URL (or SAFEGP_SERVER=URL, when no --db is given): the
command is sent to a running safegp serve over its HTTP API, which keeps
its studies in memory — the same answers, without replaying the study at
every command; the token comes from --token-file FILE or SAFEGP_TOKEN.
plot needs the file (the dashboard draws the same on the server).

Only create makes a database; every other command needs an existing safegp
database and refuses any other file without writing to it. show, export,
plot and posterior only read it.

A study takes at most horizon observations (retracted ones do not count):
ask then refuses, and hands out no more asks than the horizon leaves room
for beside the pending ones. A tell of an ask already handed out is always
accepted, leased or not;
a tell --index or --x, or an import, is refused when it would exceed the
horizon, counting a pending ask. A tell warns on stderr about a value more than 6 posterior
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
//
// Ten attempts with the backoff doubling from 50 ms and capped at 1 s wait
// about 5.5 s in all before giving up: a dozen processes telling at once
// on a loaded machine (each reload replays the study) need more than the
// 0.75 s of five attempts, which TestConcurrentCLITells showed under -race
// with the machine's two cores busy.
var (
	writeAttempts = 10
	retryBase     = 50 * time.Millisecond
	retryMax      = time.Second
	busyTimeout   = 10 * time.Second
)

// retryWrite runs a write until it succeeds, fails for a reason other than
// contention, or has had writeAttempts tries, sleeping a jittered,
// doubling (up to retryMax) backoff between tries so that racing processes
// spread out.
func retryWrite(write func() error) error {
	var err error
	for attempt := 1; ; attempt++ {
		if err = write(); err == nil || !contended(err) {
			return err
		}
		if attempt == writeAttempts {
			return fmt.Errorf("%w (%d attempts; last: %w)", errTempFail, attempt, err)
		}
		wait := min(retryBase<<min(attempt-1, 30), retryMax)
		time.Sleep(time.Duration(float64(wait) * (0.5 + rand.Float64())))
	}
}

// contended reports an error worth a retry: another process wrote first,
// or held the database past the busy timeout.
func contended(err error) bool { return errors.Is(err, store.ErrStale) || store.Busy(err) }

// studyCommand is one subcommand of safegp study.
type studyCommand struct {
	args int // positional arguments it takes
	// flags declares the command's own flags on fs (beside --db, --study
	// and --max-memory) and returns the function that runs it.
	flags func(fs *flag.FlagSet) func(*studySession) error
}

var studyCommands = map[string]studyCommand{
	"create":    {args: 1, flags: createFlags},
	"ask":       {flags: askFlags},
	"heartbeat": {flags: heartbeatFlags},
	"tell":      {flags: tellFlags},
	"import":    {args: 1, flags: importFlags},
	"posterior": {args: 1, flags: posteriorFlags},
	"retract":   {flags: retractFlags},
	"extend":    {flags: extendFlags},
	"show":      {flags: showFlags},
	"export":    {flags: exportFlags},
	"plot":      {flags: plotFlags},
	"list":      {flags: listFlags},
	"delete":    {flags: deleteFlags},
	"rename":    {args: 1, flags: renameFlags},
}

// studySession is what every subcommand is given: the common flags, the
// positional arguments and the flags given on the command line.
type studySession struct {
	db, name       string
	maxMem         memlimit.Flag
	pos            []string
	given          map[string]bool
	stdout, stderr io.Writer
	ctx            context.Context
	// server is the URL of the safegp serve to send the command to, and
	// token its bearer token; "" opens db here.
	server, token string
}

func studyCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, studyUsage)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	if _, ok := studyCommands[args[0]]; !ok {
		return unknownCommand(stderr, "safegp study", args[0], "safegp study --help", slices.Sorted(maps.Keys(studyCommands)))
	}
	ctx, stop := withSignals() // a fit during an ask stops on Ctrl-C, recording nothing
	defer stop()
	// A reader that goes away (safegp study list | head -1) fails the
	// write with EPIPE rather than killing the process, so that the
	// command still closes the database and removes its -wal and -shm.
	signal.Ignore(syscall.SIGPIPE)
	return studyRun(ctx, args, stdout, stderr)
}

// studyRun runs study command args (a known one).
func studyRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub := args[0]
	cmd := studyCommands[sub]
	s := &studySession{stdout: stdout, stderr: stderr, ctx: ctx}
	fs := flag.NewFlagSet("safegp study "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&s.db, "db", "", "SQLite `file` holding the studies (this or --server)")
	fs.StringVar(&s.server, "server", "", "send the command to the safegp serve at `URL` (default $SAFEGP_SERVER when no --db is given)")
	tokenFile := fs.String("token-file", "", "with --server: `file` holding the server's bearer token (default $SAFEGP_TOKEN)")
	fs.StringVar(&s.name, "study", "default", "study `name`")
	fs.Var(&s.maxMem, "max-memory", "refuse a study whose memory estimate at its horizon is above `SIZE` (8GiB, 512MiB, bytes)")
	run := cmd.flags(fs)
	fs.Usage = func() { fmt.Fprint(fs.Output(), studyUsage+"\nFlags:\n"); fs.PrintDefaults() }
	pos, ok, err := parse(fs, args[1:])
	if !ok {
		return err
	}
	if err := s.where(sub, *tokenFile); err != nil {
		return err
	}
	if len(pos) != cmd.args {
		fmt.Fprintf(stderr, "safegp study %s: want %s, got %d\n", sub, plural.Count(cmd.args, "positional argument"), len(pos))
		return errUsage
	}
	if err := api.CheckName(s.name); err != nil {
		return err
	}
	s.pos = pos
	s.given = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { s.given[fl.Name] = true })
	return run(s)
}

// where settles where the command goes: the file of --db, or the server
// of --server (SAFEGP_SERVER when neither flag is given), with its token
// from tokenFile or SAFEGP_TOKEN.
func (s *studySession) where(sub, tokenFile string) error {
	if s.db == "" && s.server == "" {
		s.server = os.Getenv("SAFEGP_SERVER")
	}
	switch {
	case s.db != "" && s.server != "":
		fmt.Fprintf(s.stderr, "safegp study %s: give --db FILE or --server URL, not both\n", sub)
		return errUsage
	case s.db == "" && s.server == "":
		fmt.Fprintf(s.stderr, "safegp study %s: --db FILE is required (or --server URL, a running safegp serve)\n", sub)
		return errUsage
	case s.server == "" && tokenFile != "":
		fmt.Fprintf(s.stderr, "safegp study %s: --token-file goes with --server\n", sub)
		return errUsage
	case s.server == "":
		return nil
	case s.maxMem.Limit() != memlimit.Default && sub != "create":
		// The server opens its studies within its own --max-memory.
		fmt.Fprintf(s.stderr, "safegp study %s: --max-memory goes with --db: a server keeps its studies within its own (safegp serve --max-memory)\n", sub)
		return errUsage
	}
	if err := checkServerURL(s.server); err != nil {
		fmt.Fprintf(s.stderr, "safegp study %s: %v\n", sub, err)
		return errUsage
	}
	// --token-file wins over SAFEGP_TOKEN.
	s.token = os.Getenv("SAFEGP_TOKEN")
	if tokenFile != "" {
		t, err := readToken(tokenFile)
		if err != nil {
			return err
		}
		s.token = t
	}
	return nil
}

// open returns the backend the command runs on: the database file, opened
// here with opt (a database kept busy by other processes is errTempFail),
// or the server.
func (s *studySession) open(opt store.OpenOptions) (backend, error) {
	if s.server != "" {
		return newRemote(s.server, s.token)
	}
	return openLocal(s.db, opt, s.maxMem.Limit())
}

// at says where the study is, for messages: the file, or the server.
func (s *studySession) at() string {
	if s.server != "" {
		return s.server
	}
	return s.db
}

func createFlags(*flag.FlagSet) func(*studySession) error {
	return func(s *studySession) error {
		// Check the specification before the database is created.
		res, err := study.LoadSpec(s.pos[0], s.maxMem.Limit())
		if err != nil {
			return err
		}
		if err := res.CheckMemory(s.maxMem.Limit()); err != nil {
			return fmt.Errorf("%s: %w", s.pos[0], err)
		}
		var spec []byte
		if s.server != "" {
			if spec, err = specJSON(s.pos[0], res); err != nil {
				return err
			}
		}
		b, err := s.open(store.OpenOptions{Create: true})
		if err != nil {
			return err
		}
		defer b.close()
		if err := b.create(s.ctx, s.name, spec, res); err != nil {
			return err
		}
		switch n := plural.Count(len(res.Spec.Parameters), "parameter"); {
		case res.Named != nil && res.Box != nil:
			// In the user's terms: parameters and settings, not the
			// cube's dimensions and actions.
			fmt.Fprintf(s.stdout, "created study %q in %s: %s, searched on their box, %s\n", s.name, s.at(), n, plural.Count(len(res.Spec.Seeds), "seed"))
		case res.Named != nil:
			fmt.Fprintf(s.stdout, "created study %q in %s: %s, %s, %s\n", s.name, s.at(), n, plural.Count(len(res.X), "candidate setting"), plural.Count(len(res.Spec.Seeds), "seed"))
		case res.Box != nil:
			fmt.Fprintf(s.stdout, "created study %q in %s: a %d-D box, %s\n", s.name, s.at(), res.Dim(), plural.Count(len(res.Box.Seeds), "seed point"))
		default:
			fmt.Fprintf(s.stdout, "created study %q in %s: %s, %s\n", s.name, s.at(), plural.Count(len(res.X), "action"), plural.Count(len(res.Seed), "seed action"))
		}
		for _, n := range res.Notes() {
			fmt.Fprintf(s.stderr, "safegp: note: %s\n", n)
		}
		return nil
	}
}

// contextFlag declares --context on fs: the context values NAME=V,…
// of a study with a context.
func contextFlag(fs *flag.FlagSet) *string {
	return fs.String("context", "", "the context `NAME=V,…` measured (a study with a context), e.g. temperature=21.5,load=0.3")
}

// contextValues parses --context when given, nil otherwise.
func contextValues(s *studySession, c *string) (map[string]float64, error) {
	if !s.given["context"] {
		return nil, nil
	}
	return api.ParseContext(*c)
}

func askFlags(fs *flag.FlagSet) func(*studySession) error {
	count := intFlag(fs, "count", 0, "hand out up to `k` asks (1 … 64) and print {\"asks\": [...]}")
	lease := floatFlag(fs, "lease", 0, "lease the asks for `SECONDS`: no other ask hands them out until then (renew with heartbeat)")
	c := contextFlag(fs)
	return func(s *studySession) error {
		values, err := contextValues(s, c)
		if err != nil {
			return err
		}
		opt := api.AskOptions{Count: *count, LeaseSeconds: *lease, Context: values}
		// The flags are checked here, so that errors name them rather
		// than the HTTP fields the service's own checks name.
		if s.given["count"] && (*count < 1 || *count > api.MaxBatch) {
			return fmt.Errorf("%w: --count %d: want 1 … %d asks", api.ErrBadAsk, *count, api.MaxBatch)
		}
		if err := api.CheckLease(api.ErrBadAsk, "--lease", *lease, true); err != nil {
			return err
		}
		b, err := s.open(store.OpenOptions{})
		if err != nil {
			return err
		}
		defer b.close()
		a, err := b.ask(s.ctx, s.name, opt, s.given["count"])
		if err != nil {
			return err
		}
		return printJSON(s.stdout, a, false)
	}
}

func heartbeatFlags(fs *flag.FlagSet) func(*studySession) error {
	askID := intFlag(fs, "ask", 0, "the pending ask `id` whose lease to renew (required)")
	lease := floatFlag(fs, "lease", 0, "the lease then ends `SECONDS` from now (required)")
	token := fs.String("lease-token", "", "the ask's lease `token` (its \"lease\"): renew only while the ask is still yours")
	return func(s *studySession) error {
		if !s.given["ask"] || !s.given["lease"] {
			fmt.Fprintln(s.stderr, "safegp study heartbeat: --ask ID and --lease SECONDS are required")
			return errUsage
		}
		if err := api.CheckLease(api.ErrBadHeartbeat, "--lease", *lease, false); err != nil {
			return err
		}
		if s.given["lease-token"] && *token == "" {
			return fmt.Errorf("%w: --lease-token is empty: give the ask's lease token, or leave the flag out", api.ErrBadHeartbeat)
		}
		req := &api.HeartbeatRequest{Ask: *askID, LeaseSeconds: *lease, Lease: *token}
		b, err := s.open(store.OpenOptions{})
		if err != nil {
			return err
		}
		defer b.close()
		a, err := b.heartbeat(s.ctx, s.name, req)
		if err != nil {
			return err
		}
		return printJSON(s.stdout, a, false)
	}
}

func tellFlags(fs *flag.FlagSet) func(*studySession) error {
	askID := intFlag(fs, "ask", 0, "the ask `id` this observation answers")
	index := intFlag(fs, "index", -1, "the action `index`, for an observation made outside the loop")
	x := fs.String("x", "", "the point `x1,x2,…`, for an observation made outside the loop at any point")
	f := floatFlag(fs, "f", 0, "the observed objective `value`")
	g := fs.String("g", "", "the observed constraint `values`, comma-separated (none for a study without constraints)")
	noise := floatFlag(fs, "noise-std", 0, "the measurement's own noise standard `deviation` ≥ 0 (default: the model's noise_std)")
	c := contextFlag(fs)
	var params, values pairsFlag
	fs.Var(&params, "param", "a study stated in parameters: a measurement outside the loop was made at `name=value` (repeat for each parameter)")
	fs.Var(&values, "value", "a study stated in parameters: the outcome `name=value` measured (repeat for each outcome)")
	failed := fs.Bool("failed", false, "the trial produced no values (a crash, a tripped interlock, a lost measurement): it is never asked again and counts against every limit")
	return func(s *studySession) error {
		if *failed {
			return tellFailed(s, askID, index, *x, params, c)
		}
		if s.given["value"] || s.given["param"] {
			return tellNamed(s, askID, params, values)
		}
		req := &api.TellRequest{F: f}
		var err error
		if req.Context, err = contextValues(s, c); err != nil {
			return fmt.Errorf("%w: %w", api.ErrBadTell, err)
		}
		if btoi(s.given["ask"])+btoi(s.given["index"])+btoi(s.given["x"]) != 1 {
			return fmt.Errorf("%w: give exactly one of --ask, --index and --x", api.ErrBadTell)
		}
		switch {
		case s.given["ask"]:
			req.Ask = askID
		case s.given["index"]:
			req.Index = index
		default:
			if req.X, err = pointOf(*x); err != nil {
				return err
			}
		}
		if s.given["noise-std"] {
			req.NoiseStd = noise
		}
		if !s.given["f"] {
			return fmt.Errorf("%w: --f is required (a study stated in parameters takes --value NAME=V for each outcome instead)", api.ErrBadTell)
		}
		// A study whose only safety condition is f ≥ h_f has no constraint
		// values: --g is left out (or empty). The study checks the count.
		req.G = []float64{}
		if strings.TrimSpace(*g) != "" {
			for i, v := range strings.Split(*g, ",") {
				x, err := number.Parse(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("%w: --g: g%d: %w", api.ErrBadTell, i+1, err)
				}
				req.G = append(req.G, x)
			}
		}
		return sendTell(s, req, func(b backend) error {
			if s.given["g"] {
				return nil
			}
			if m, err := b.constraints(s.ctx, s.name); err != nil {
				return err
			} else if m > 0 {
				return fmt.Errorf("%w: --g is required: the study has %s", api.ErrBadTell, plural.Count(m, "constraint"))
			}
			return nil
		})
	}
}

// sendTell opens the database, runs check on the service (nil: none),
// tells req with retries, prints its warnings on stderr and its answer
// on stdout.
func sendTell(s *studySession, req *api.TellRequest, check func(backend) error) error {
	b, err := s.open(store.OpenOptions{})
	if err != nil {
		return err
	}
	defer b.close()
	if check != nil {
		if err := check(b); err != nil {
			return err
		}
	}
	ans, err := b.tell(s.ctx, s.name, req)
	if err != nil {
		return err
	}
	var a struct {
		Warnings    []string `json:"warnings"`
		Calibration string   `json:"calibration"`
	}
	if err := json.Unmarshal(ans, &a); err != nil {
		return fmt.Errorf("%w: %w", errServer, err)
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(s.stderr, "safegp: warning: %s\n", w)
	}
	if a.Calibration != "" {
		fmt.Fprintf(s.stderr, "safegp: warning: %s\n", a.Calibration)
	}
	return printJSON(s.stdout, ans, false)
}

// pairsFlag collects a repeated flag's name=value pairs, in order.
type pairsFlag [][2]string

func (p *pairsFlag) String() string { return "" }

func (p *pairsFlag) Set(v string) error {
	name, val, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("want name=value, got %s", quote.Short(v))
	}
	*p = append(*p, [2]string{strings.TrimSpace(name), strings.TrimSpace(val)})
	return nil
}

// tellNamed tells a study stated in parameters: --ask ID or --param
// name=value for each parameter, and --value name=value for each outcome.
func tellNamed(s *studySession, askID *int, params, values pairsFlag) error {
	var with []string // what was given that makes this a named tell
	for _, f := range []string{"param", "value"} {
		if s.given[f] {
			with = append(with, "--"+f)
		}
	}
	for _, f := range []string{"index", "x", "f", "g", "noise-std", "context"} {
		if s.given[f] {
			why := ""
			if f == "noise-std" {
				why = " (each outcome has a scale of its own, fitted by the transform, and a measurement's own noise is not offered for them yet)"
			}
			return fmt.Errorf("%w: --%s does not go with %s: a study stated in parameters%s takes --ask ID or --param name=value, and --value name=value for each outcome", api.ErrBadTell, f, strings.Join(with, " and "), why)
		}
	}
	switch {
	case s.given["ask"] && len(params) > 0:
		return fmt.Errorf("%w: give --ask ID, or --param name=value for each parameter (a measurement outside the loop), not both", api.ErrBadTell)
	case !s.given["ask"] && len(params) == 0:
		return fmt.Errorf("%w: give --ask ID (the ask measured), or --param name=value for each parameter (a measurement outside the loop)", api.ErrBadTell)
	}
	if len(values) == 0 {
		return fmt.Errorf("%w: give --value name=value for each outcome", api.ErrBadTell)
	}
	req := &api.TellRequest{Values: map[string]float64{}}
	if s.given["ask"] {
		req.Ask = askID
	}
	for _, kv := range values {
		if _, dup := req.Values[kv[0]]; dup {
			return fmt.Errorf("%w: --value %s given twice", api.ErrBadTell, quote.Short(kv[0]))
		}
		v, err := number.Parse(kv[1])
		if err != nil {
			return fmt.Errorf("%w: --value %s: %w", api.ErrBadTell, quote.Short(kv[0]), err)
		}
		req.Values[kv[0]] = v
	}
	var err error
	if req.Params, err = settingOf(params); err != nil {
		return err
	}
	return sendTell(s, req, nil)
}

// settingOf is the setting --param name=value … give, nil for none.
func settingOf(params pairsFlag) (space.Setting, error) {
	if len(params) == 0 {
		return nil, nil
	}
	set := space.Setting{}
	for _, kv := range params {
		if _, dup := set[kv[0]]; dup {
			return nil, fmt.Errorf("%w: --param %s given twice", api.ErrBadTell, quote.Short(kv[0]))
		}
		// A number for a float or an int; anything else, a choice.
		if v, err := number.Parse(kv[1]); err == nil {
			set[kv[0]] = space.Number(v)
		} else {
			set[kv[0]] = space.String(kv[1])
		}
	}
	return set, nil
}

// tellFailed tells a trial that produced no values: its ask, or the
// setting (--param …, --index, --x) of one run outside the loop.
func tellFailed(s *studySession, askID, index *int, x string, params pairsFlag, c *string) error {
	for _, f := range []string{"f", "g", "value", "noise-std"} {
		if s.given[f] {
			return fmt.Errorf("%w: --%s does not go with --failed: a failed trial has no values", api.ErrBadTell, f)
		}
	}
	if btoi(s.given["ask"])+btoi(s.given["index"])+btoi(s.given["x"])+btoi(s.given["param"]) != 1 {
		return fmt.Errorf("%w: --failed takes exactly one of --ask ID, --index I, --x X1,… and --param NAME=V …", api.ErrBadTell)
	}
	req := &api.TellRequest{Failed: true}
	var err error
	if req.Context, err = contextValues(s, c); err != nil {
		return fmt.Errorf("%w: %w", api.ErrBadTell, err)
	}
	switch {
	case s.given["ask"]:
		req.Ask = askID
	case s.given["index"]:
		req.Index = index
	case s.given["x"]:
		if req.X, err = pointOf(x); err != nil {
			return err
		}
	default:
		if req.Params, err = settingOf(params); err != nil {
			return err
		}
	}
	return sendTell(s, req, nil)
}

// pointOf is the point --x x1,x2,… gives.
func pointOf(x string) ([]float64, error) {
	var p []float64
	for j, v := range strings.Split(x, ",") {
		c, err := number.Parse(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%w: --x: coordinate %d: %w", api.ErrBadTell, j+1, err)
		}
		p = append(p, c)
	}
	return p, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func importFlags(fs *flag.FlagSet) func(*studySession) error {
	repeat := fs.Bool("repeat", false, "import rows the study took before once more (they are refused otherwise, as a retried import)")
	return func(s *studySession) error {
		f, err := readlimit.Open(s.pos[0], readlimit.For(s.maxMem.Limit()), readlimit.MaxLine)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		body, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", s.pos[0], err)
		}
		b, err := s.open(store.OpenOptions{})
		if err != nil {
			return err
		}
		defer b.close()
		a, err := b.importCSV(s.ctx, s.name, body, *repeat)
		if err != nil {
			return fmt.Errorf("%s: %w", s.pos[0], err)
		}
		return printJSON(s.stdout, a, false)
	}
}

func posteriorFlags(fs *flag.FlagSet) func(*studySession) error {
	asJSON := fs.Bool("json", false, "print JSON")
	c := contextFlag(fs)
	return func(s *studySession) error {
		values, err := contextValues(s, c)
		if err != nil {
			return err
		}
		f, err := readlimit.Open(s.pos[0], readlimit.For(s.maxMem.Limit()), readlimit.MaxLine)
		if err != nil {
			return fmt.Errorf("posterior: %w", err)
		}
		pts, seed, err := problem.ReadActions(f)
		f.Close()
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", s.pos[0], err)
		case seed != nil:
			return fmt.Errorf("%s: %w: a seed column has no meaning here: give the points only (x1…xd)", s.pos[0], api.ErrBadPoints)
		}
		b, err := s.open(store.OpenOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer b.close()
		ans, err := b.posterior(s.ctx, s.name, pts, values)
		if err != nil {
			return fmt.Errorf("%s: %w", s.pos[0], err)
		}
		if *asJSON {
			return printJSON(s.stdout, ans, true)
		}
		var a api.PosteriorAnswer
		if err := json.Unmarshal(ans, &a); err != nil {
			return fmt.Errorf("%w: %w", errServer, err)
		}
		return writePosterior(s.stdout, &a)
	}
}

// writePosterior prints the posterior as CSV: the point, then the mean,
// sd, lower and upper bound of f and of each g_i; √β_t and the round in a
// comment line first.
func writePosterior(w io.Writer, a *api.PosteriorAnswer) error {
	fmt.Fprintf(w, "# round %d, sqrt_beta %.17g\n", a.Round, a.SqrtBeta)
	if a.Context != nil {
		fmt.Fprintf(w, "# context %s\n", jsonText(a.Context))
	}
	cw := csvcell.NewWriter(w)
	var head []string
	for j := range a.Points[0].X {
		head = append(head, "x"+strconv.Itoa(j+1))
	}
	names := []string{"f"}
	for i := range a.Points[0].G {
		names = append(names, "g"+strconv.Itoa(i+1))
	}
	for _, n := range names {
		head = append(head, n+"_mean", n+"_std", n+"_lower", n+"_upper")
	}
	cw.Write(head)
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, p := range a.Points {
		var row []string
		for _, v := range p.X {
			row = append(row, num(v))
		}
		for _, b := range append([]api.Bound{p.F}, p.G...) {
			row = append(row, num(b.Mean), num(b.Std), num(b.Lower), num(b.Upper))
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

func extendFlags(fs *flag.FlagSet) func(*studySession) error {
	horizon := intFlag(fs, "horizon", 0, "the new `horizon`, above the study's")
	return func(s *studySession) error {
		if !s.given["horizon"] {
			return fmt.Errorf("%w: give --horizon N, the new horizon", api.ErrBadExtend)
		}
		b, err := s.open(store.OpenOptions{})
		if err != nil {
			return err
		}
		defer b.close()
		ans, err := b.extend(s.ctx, s.name, *horizon)
		if err != nil {
			return err
		}
		return printJSON(s.stdout, ans, false)
	}
}

func retractFlags(fs *flag.FlagSet) func(*studySession) error {
	observation := intFlag(fs, "observation", 0, "the observation `number` to retract (the \"observation\" a tell printed)")
	trial := intFlag(fs, "trial", 0, "a study stated in parameters: the `trial` whose observation to retract")
	return func(s *studySession) error {
		if s.given["observation"] == s.given["trial"] {
			return fmt.Errorf("%w: give one of --observation and --trial", api.ErrBadRetract)
		}
		b, err := s.open(store.OpenOptions{})
		if err != nil {
			return err
		}
		defer b.close()
		n := *observation
		if s.given["trial"] {
			n = *trial
		}
		ans, err := b.retract(s.ctx, s.name, n, s.given["trial"])
		if err != nil {
			return err
		}
		var a study.RetractAnswer
		if err := json.Unmarshal(ans, &a); err != nil {
			return fmt.Errorf("%w: %w", errServer, err)
		}
		switch w := a.WithdrawnAsks; len(w) {
		case 0:
		case 1:
			fmt.Fprintf(s.stderr, "safegp: ask %d was withdrawn: it was chosen with the retracted value; run safegp study ask for a new one\n", w[0])
		default:
			ids := make([]string, len(w))
			for k, id := range w {
				ids[k] = strconv.Itoa(id)
			}
			fmt.Fprintf(s.stderr, "safegp: asks %s were withdrawn: they were chosen with the retracted value; run safegp study ask for new ones\n", strings.Join(ids, ", "))
		}
		return printJSON(s.stdout, ans, false)
	}
}

func listFlags(fs *flag.FlagSet) func(*studySession) error {
	asJSON := fs.Bool("json", false, "print JSON")
	return func(s *studySession) error {
		b, err := s.open(store.OpenOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer b.close()
		ans, err := b.list(s.ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(s.stdout, ans, false)
		}
		var l []api.StudyInfo
		if err := json.Unmarshal(ans, &l); err != nil {
			return fmt.Errorf("%w: %w", errServer, err)
		}
		w := tabwriter.NewWriter(s.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "STUDY\tALGORITHM\tROUNDS\tHORIZON\tVIOLATIONS\tFAILED\tPENDING\tUPDATED")
		for _, i := range l {
			fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", i.Study, i.Algorithm, i.Rounds, i.Horizon, i.Violations, i.Failures, i.Pending, i.Updated.UTC().Format(time.RFC3339))
		}
		return w.Flush()
	}
}

func deleteFlags(fs *flag.FlagSet) func(*studySession) error {
	force := fs.Bool("force", false, "delete even while asks are leased to workers")
	return func(s *studySession) error {
		if !s.given["study"] {
			return fmt.Errorf("%w: delete needs --study NAME, the study to delete", api.ErrBadName)
		}
		b, err := s.open(store.OpenOptions{})
		if err != nil {
			return err
		}
		defer b.close()
		a, err := b.remove(s.ctx, s.name, *force)
		if err != nil {
			return err
		}
		return printJSON(s.stdout, a, false)
	}
}

func renameFlags(*flag.FlagSet) func(*studySession) error {
	return func(s *studySession) error {
		b, err := s.open(store.OpenOptions{})
		if err != nil {
			return err
		}
		defer b.close()
		if err := b.rename(s.ctx, s.name, s.pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(s.stdout, "renamed study %q to %q\n", s.name, s.pos[0])
		return nil
	}
}

func showFlags(fs *flag.FlagSet) func(*studySession) error {
	asJSON := fs.Bool("json", false, "print JSON")
	return func(s *studySession) error {
		b, err := s.open(store.OpenOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer b.close()
		ans, err := b.show(s.ctx, s.name)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(s.stdout, ans, true)
		}
		sum := new(api.Summary)
		if err := json.Unmarshal(ans, sum); err != nil {
			return fmt.Errorf("%w: %w", errServer, err)
		}
		w := s.stdout
		safety := plural.Count(sum.Constraints, "constraint")
		if hf := sum.ObjectiveThreshold; hf != nil {
			safety += fmt.Sprintf(" and f ≥ %g", *hf)
		}
		if sum.Parameters != nil {
			// In the user's terms: the goal and every limit.
			var lims []string
			for _, c := range append([]space.Constraint{{Name: sum.Objective.Name, Min: sum.Objective.Min, Max: sum.Objective.Max}}, sum.Limits...) {
				lims = append(lims, limitLabels(c)...)
			}
			safety = sum.Objective.Goal + " " + sum.Objective.Name
			if len(lims) > 0 {
				safety += " with " + strings.Join(lims, ", ")
			}
		}
		switch {
		case sum.Box != nil && sum.Parameters != nil:
			fmt.Fprintf(w, "study %s: %s on the box of its %d parameters, %s, horizon %d\n", sum.Study, sum.Algorithm, len(sum.Parameters), safety, sum.Horizon)
		case sum.Box != nil:
			fmt.Fprintf(w, "study %s: %s on the %d-D box %s, %s, horizon %d\n", sum.Study, sum.Algorithm, sum.Dim, jsonText(sum.Box), safety, sum.Horizon)
		case sum.Parameters != nil:
			its := fmt.Sprintf("its %d parameters", len(sum.Parameters))
			if len(sum.Parameters) == 1 {
				its = "its one parameter"
			}
			fmt.Fprintf(w, "study %s: %s on %s of %s, %s, horizon %d\n", sum.Study, sum.Algorithm, plural.Count(sum.Actions, "candidate setting"), its, safety, sum.Horizon)
		default:
			fmt.Fprintf(w, "study %s: %s on %d actions in %d-D, %s, horizon %d\n", sum.Study, sum.Algorithm, sum.Actions, sum.Dim, safety, sum.Horizon)
		}
		if sum.ContextNames != nil {
			current := "none yet (no ask)"
			if sum.Context != nil {
				current = jsonText(sum.Context) + " (the last ask's: the safe set and the best action below are in it)"
			}
			fmt.Fprintf(w, "context: %s; current %s\n", strings.Join(sum.ContextNames, ", "), current)
		}
		switch {
		case sum.Box != nil && sum.Parameters != nil:
			// line-bo's safe set is its current line's (0 between lines).
			fmt.Fprintf(w, "rounds: %d, violations: %d, safe set: %d points of the current line\n", sum.Rounds, sum.Violations, sum.SafeSetSize)
		case sum.Parameters != nil:
			seeds := ""
			if sum.KnownSafe != sum.SafeSetSize {
				// The seeds are played as safe before the model vouches
				// for them: say so, or a measured seed reads as unsafe.
				seeds = fmt.Sprintf(" (%d with the seeds)", sum.KnownSafe)
			}
			fmt.Fprintf(w, "rounds: %d, violations: %d, safe set: %s%s\n", sum.Rounds, sum.Violations, plural.Count(sum.SafeSetSize, "setting"), seeds)
		default:
			fmt.Fprintf(w, "rounds: %d, violations: %d, safe set: %d actions\n", sum.Rounds, sum.Violations, sum.SafeSetSize)
		}
		if sum.Failures > 0 {
			fmt.Fprintf(w, "of these: %s without values (never asked again)\n", plural.Count(sum.Failures, "failed trial"))
		}
		if sum.Outside > 0 || sum.OwnNoise > 0 {
			fmt.Fprintf(w, "of these: %d at points outside the decision set, %d with their own noise_std\n", sum.Outside, sum.OwnNoise)
		}
		if sum.Retracted > 0 {
			fmt.Fprintf(w, "retracted: %s, counted nowhere above\n", plural.Count(sum.Retracted, "observation"))
		}
		switch {
		case len(sum.PendingAsks) > 1:
			fmt.Fprintf(w, "pending asks: %s\n", strings.ReplaceAll(strings.Trim(jsonText(sum.PendingAsks), "[]"), ",", ", "))
		case sum.Pending != nil:
			fmt.Fprintf(w, "pending ask: %d\n", *sum.Pending)
		}
		if sum.Parameters != nil {
			names := make([]string, len(sum.Parameters))
			for j, p := range sum.Parameters {
				names[j] = p.Name
			}
			fmt.Fprintf(w, "parameters: %s; trials: %d\n", strings.Join(names, ", "), sum.Trials)
		}
		switch {
		case sum.Best != nil && sum.Best.Trial != nil:
			fmt.Fprintf(w, "best safe trial: %d, params %s, values %s\n", *sum.Best.Trial, jsonText(sum.Best.Params), jsonText(sum.Best.Values))
		case sum.Parameters != nil:
			fmt.Fprintln(w, "best safe trial: none yet")
		case sum.Best != nil:
			if sum.Best.Index < 0 {
				fmt.Fprintf(w, "best safe point: %s, lower bound %.4g, mean %.4g\n", jsonText(sum.Best.X), sum.Best.LowerF, sum.Best.MeanF)
			} else {
				fmt.Fprintf(w, "best safe action: %d at %v, lower bound %.4g, mean %.4g\n", sum.Best.Index, sum.Best.X, sum.Best.LowerF, sum.Best.MeanF)
			}
		case sum.ContextNames != nil && sum.Context == nil:
			fmt.Fprintln(w, "best safe action: none yet (no context: ask first)")
		default:
			fmt.Fprintln(w, "best safe action: none yet (empty safe set)")
		}
		if m := sum.Model; m != nil {
			writeModel(w, m, gpLabels(sum))
		}
		if c := sum.Calibration; c != nil {
			by := ""
			if c.ByOutcome != nil {
				by = ": " + c.Outcomes()
			}
			fmt.Fprintf(w, "calibration: %d of the last %d measurements outside their confidence intervals%s (the model expects %.2g; probability %.2g)\n", c.Outside, c.Window, by, c.Expected, c.PValue)
		}
		for _, n := range sum.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
		return nil
	}
}

// limitLabels says each limit of an outcome, "overshoot ≤ 0.05", min
// before max (the conditions' order: space.Outcomes.Conditions).
func limitLabels(c space.Constraint) []string {
	var out []string
	if c.Min != nil {
		out = append(out, fmt.Sprintf("%s ≥ %g", c.Name, *c.Min))
	}
	if c.Max != nil {
		out = append(out, fmt.Sprintf("%s ≤ %g", c.Name, *c.Max))
	}
	return out
}

// gpLabels are the names show gives the model's GPs: a study stated in
// parameters' objective and each limit of its constraints, in the
// conditions' order; nil for f, g1, g2, ….
func gpLabels(sum *api.Summary) []string {
	if sum.Parameters == nil || sum.Objective == nil {
		return nil
	}
	labels := []string{sum.Objective.Name}
	for _, c := range sum.Limits {
		labels = append(labels, limitLabels(c)...)
	}
	return labels
}

// writeModel prints the model in force of a study with a fit block: the
// rule, the last fit that changed it (when, on how many observations, each
// GP's log marginal likelihood) and the kernels, as JSON blocks one can
// paste into a spec; labels name the GPs (gpLabels), nil for f, g1, ….
func writeModel(w io.Writer, m *api.ModelInfo, labels []string) {
	label := func(j int) string {
		switch {
		case j < len(labels) && len(labels) == 1+len(m.Constraints):
			return labels[j]
		case j == 0:
			return "f"
		}
		return fmt.Sprintf("g%d", j)
	}
	if m.Last == nil {
		fmt.Fprintf(w, "model: as configured (fit: %s; %s so far)\n", m.Fit, plural.Count(m.Fits, "fit"))
	} else {
		lml := make([]string, len(m.Last.LML))
		for j, v := range m.Last.LML {
			lml[j] = fmt.Sprintf("%s %.4g", label(j), v)
		}
		fmt.Fprintf(w, "model: fitted by event %d on %s (fit: %s; %s so far); log marginal likelihood %s\n", m.Last.Seq, plural.Count(m.Last.Points, "observation"), m.Fit, plural.Count(m.Fits, "fit"), strings.Join(lml, ", "))
	}
	b, _ := json.Marshal(m.Objective)
	if labels != nil {
		// By name: the order of the lists is the transform's.
		fmt.Fprintf(w, "  objective %s: %s\n", label(0), b)
	} else {
		fmt.Fprintf(w, "  objective: %s\n", b)
	}
	for i, k := range m.Constraints {
		b, _ := json.Marshal(k)
		if labels != nil {
			fmt.Fprintf(w, "  %s: %s\n", label(1+i), b)
		} else {
			fmt.Fprintf(w, "  constraints[%d]: %s\n", i, b)
		}
	}
}

func exportFlags(fs *flag.FlagSet) func(*studySession) error {
	format := fs.String("format", "csv", "csv or json")
	return func(s *studySession) error {
		if *format != "csv" && *format != "json" {
			return fmt.Errorf("--format: want csv or json, got %s", quote.Short(*format))
		}
		b, err := s.open(store.OpenOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer b.close()
		return b.export(s.ctx, s.name, *format, s.stdout)
	}
}

func plotFlags(fs *flag.FlagSet) func(*studySession) error {
	out := fs.String("out", "", "output `file`, .png or .svg (required)")
	figureWidth := figureWidthFlag(fs)
	return func(s *studySession) error {
		restoreWidth, err := figureWidth(s.stderr, "study plot")
		if err != nil {
			return err
		}
		defer restoreWidth()
		if *out == "" {
			fmt.Fprintln(s.stderr, "safegp study plot: --out FILE is required")
			return errUsage
		}
		if s.server != "" {
			return fmt.Errorf("%w: plot draws from the database file: run it where the file is (--db), or open the server's dashboard, which draws the same", errNeedsFile)
		}
		l, err := openLocal(s.db, store.OpenOptions{ReadOnly: true}, s.maxMem.Limit())
		if err != nil {
			return err
		}
		defer l.close()
		svc := l.svc
		// A study stated in parameters on a grid is drawn in its user's
		// units; another (and a box) as before.
		if d, err := view.PlotOf(s.ctx, svc, s.name); err == nil {
			if err := plotNamed(*out, s.name, d); err != nil {
				return err
			}
			fmt.Fprintf(s.stdout, "wrote %s\n", *out)
			return nil
		} else if !errors.Is(err, view.ErrNotPlottable) {
			return err
		}
		x, h, obs, snap, err := svc.Inspect(s.ctx, s.name)
		if err != nil {
			return err
		}
		_, hf, err := svc.Safety(s.ctx, s.name)
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
		plotFn := func() error { return plotStudy(*out, s.name, x, h, hf, kept, snap) }
		if x == nil { // a box decision set
			plotFn = func() error { return plotBox(*out, s.name, kept) }
		}
		if err := plotFn(); err != nil {
			return err
		}
		fmt.Fprintf(s.stdout, "wrote %s\n", *out)
		return nil
	}
}

// errNeedsFile is a command that reads the database file itself, given
// --server.
var errNeedsFile = errclass.New(errclass.ErrInvalid, "needs the file")

// jsonText writes v as JSON ([0.5,1] rather than Go's [0.5 1]), the form
// the rest of the study commands print and take.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
