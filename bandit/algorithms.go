package bandit

import (
	"fmt"
	"slices"

	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/theory"
)

// The algorithms' names, written here once: other packages name an
// algorithm through these constants or the table (Lookup), never by a
// literal.
const (
	SGPUCB        = "sgp-ucb"        // the paper's Algorithm 1 (SPEC §4)
	NaiveSGPUCB   = "naive-sgp-ucb"  // SGP-UCB with T' = 0 (paper §6, baseline 3)
	GPUCBOracle   = "gp-ucb-oracle"  // GP-UCB on the true safe set (paper §6, baseline 4)
	GPUCB         = "gp-ucb"         // GP-UCB on the whole decision set: no safety, a reference
	SafeOpt       = "safeopt"        // Sui et al. 2015 (SPEC §5)
	SafeOptMC     = "safeopt-mc"     // Berkenkamp et al. 2016
	StageOpt      = "stageopt"       // Sui et al. 2018
	LineBO        = "line-bo"        // Kirschner et al. 2019, on a box
	SafeOptSwarm  = "safeopt-swarm"  // Duivenvoorden et al. 2017, on a box
	LoSBO         = "losbo"          // Fiedler et al. 2024: safety from a Lipschitz and a noise bound
	ConstrainedEI = "constrained-ei" // Gardner et al. 2014: EI × the probability of feasibility; no safety
	PoFEI         = "pof-ei"         // EI where feasibility is likely (Ax's, BoTorch's practice); no safety
)

// RepeatsExplore is sgp-ucb's repeats rule that explores instead of
// measuring a known setting again (Spec.Repeats).
const RepeatsExplore = "explore"

// Algorithm is one algorithm of the package: its name, where it runs, the
// options it takes, the GPs it keeps and how it builds its rule. The table
// holds every one; Check, Build and the estimates consult it, so that a
// new algorithm is one file and one row.
type Algorithm struct {
	Name string
	// Box: it runs on a box domain (Domain.Box), not on a finite set.
	Box bool
	// OnLine: line-bo may run it on each of its lines.
	OnLine bool
	// SafeSets: the SafeOpt family's safe sets, from Lipschitz bounds or
	// the GP's (options safe_set and lipschitz; SPEC §5).
	SafeSets bool
	// OneGP: it models f alone, knowing the safe set (GPCount).
	OneGP bool
	// NeedsSafeSet: it reads the true safe set, so it runs only in a
	// simulation (Truth.Safe).
	NeedsSafeSet bool
	// TheoryIsTStar: exploration: theory means SafeOpt-MC's t*
	// (Berkenkamp et al. 2016, Theorem 1), not SGP-UCB's T'.
	TheoryIsTStar bool
	// Safety is what its safety guarantee rests on (line-bo's: its inner
	// algorithm's; Spec.Safety).
	Safety Safety
	// MaxBatch is the most asks it hands out before a tell; 0 for any
	// number.
	MaxBatch int
	// UCB: it chooses by f's upper confidence bound (GP-UCB, paper
	// eq. 9), the one bound Model.ObjectiveBeta changes.
	UCB bool
	// InUnits: its options bound the outcomes in the user's units
	// (losbo's lipschitz and noise_bound), so a study that standardizes
	// its outcomes cannot take it (line-bo's: its inner algorithm's;
	// Spec.InUnits).
	InUnits bool
	// Options are the spec's keys it takes besides name and label.
	Options []string
	// check checks the values of its options (Spec.Check has checked
	// which are given).
	check func(s *Spec, horizon int) error
	// rule builds its rule over the models on a finite set (nil for a
	// box algorithm, which Build makes itself).
	rule func(b *building) (rule, error)
	// bytes is the memory its rule holds over n actions beside its GPs
	// (m constraints, an objective threshold when hf; GPs with room for
	// rows observations), for Bytes; nil for nothing that grows with n.
	bytes func(s *Spec, n, m int, hf bool, rows int) int64
	// historyFree reports whether, after tells, its state is a function
	// of its GPs' posterior and the number of tells alone (movedGPs).
	historyFree func(s *Spec) bool
	// pin writes into s the defaults a recorded spec must hold
	// explicitly, so that a later change of a default cannot change how
	// the record replays (Spec.PinDefaults); nil for none.
	pin func(s *Spec)
	// upgrade reads a spec recorded by an older safegp: it fills in what
	// that safegp left out as it meant it (Spec.UpgradeRecorded); nil for
	// nothing to fill.
	upgrade func(s *Spec)
}

// algorithms is the table, in the order names are listed to users; init
// fills it (its rows' functions consult it).
var algorithms []*Algorithm

func init() {
	algorithms = []*Algorithm{
		{Name: SGPUCB, OnLine: true, UCB: true, Options: []string{"phase1", "exploration", "keep_seed", "repeats"},
			check: checkSGPUCB, rule: sgpUCBRule, historyFree: noPlateau},
		{Name: NaiveSGPUCB, UCB: true, Options: []string{"keep_seed"},
			rule: sgpUCBRule, historyFree: noPlateau},
		{Name: GPUCBOracle, OneGP: true, UCB: true, NeedsSafeSet: true,
			rule: oracleRule},
		{Name: GPUCB, OnLine: true, UCB: true, rule: gpUCBRule, historyFree: func(*Spec) bool { return true }},
		{Name: SafeOpt, OnLine: true, SafeSets: true, Options: []string{"safe_set", "lipschitz"},
			check: checkSafeSets, rule: safeOptRule, bytes: safeSetBytes, historyFree: gpModeNoPlateau},
		{Name: SafeOptMC, OnLine: true, SafeSets: true, TheoryIsTStar: true, Options: []string{"safe_set", "lipschitz", "exploration"},
			check: checkSafeSets, rule: safeOptRule, bytes: safeSetBytes, historyFree: gpModeNoPlateau},
		{Name: StageOpt, OnLine: true, SafeSets: true, Options: []string{"safe_set", "lipschitz", "exploration"},
			check: checkSafeSets, rule: safeOptRule, bytes: safeSetBytes, historyFree: gpModeNoPlateau},
		{Name: LoSBO, OnLine: true, Safety: SafetyBounds, InUnits: true, Options: []string{"lipschitz", "noise_bound"},
			check: checkLoSBO, rule: losboRule, bytes: losboBytes},
		{Name: ConstrainedEI, OnLine: true, Safety: SafetyNone, rule: eiRule, bytes: eiBytes},
		{Name: PoFEI, OnLine: true, Safety: SafetyNone, rule: eiRule, bytes: eiBytes},
		{Name: LineBO, Box: true, Options: []string{"inner", "direction", "points", "per_line", "tolerance", "max_step", "keep_line", "seeds_first", "ascent_rule",
			// passed through to the inner algorithm, which checks them
			"phase1", "exploration", "keep_seed", "repeats", "safe_set", "lipschitz", "noise_bound"},
			check: func(s *Spec, horizon int) error { return s.checkLine(horizon) },
			pin:   func(s *Spec) { s.ascentRuleOr("sampled"); s.pinLine() },
			upgrade: func(s *Spec) {
				if s.Direction == "" {
					s.Direction = "coordinate" // the default before cloud (issue 42)
				}
				if s.Points == nil {
					n := defaultLinePoints // the only default before points were pinned
					s.Points = &n
				}
				s.ascentRuleOr("mean")
			}},
		{Name: SafeOptSwarm, Box: true, MaxBatch: 1, Options: []string{"swarm_size", "iterations", "max_step"},
			check: func(s *Spec, horizon int) error { return s.checkSwarm(horizon) }},
	}
	Names = names(func(a *Algorithm) bool { return !a.Box })
	BoxNames = names(func(a *Algorithm) bool { return a.Box })
	LineInners = names(func(a *Algorithm) bool { return a.OnLine })
	allNames = names(func(*Algorithm) bool { return true })
}

// Lookup returns the algorithm of that name.
func Lookup(name string) (*Algorithm, bool) {
	for _, a := range algorithms {
		if a.Name == name {
			return a, true
		}
	}
	return nil, false
}

// Algorithms lists every algorithm, in the table's order.
func Algorithms() []*Algorithm { return slices.Clone(algorithms) }

// names lists the names of the algorithms that keep.
func names(keep func(*Algorithm) bool) []string {
	var out []string
	for _, a := range algorithms {
		if keep(a) {
			out = append(out, a.Name)
		}
	}
	return out
}

// Names lists the algorithm names of finite decision sets; BoxNames those
// of box domains; LineInners those line-bo runs on a line (all from the
// table, in its order).
var (
	Names, BoxNames, LineInners []string
	allNames                    []string
)

// Safety is what an algorithm's safety guarantee rests on.
type Safety int

const (
	// SafetyModel: the GPs' confidence bounds; a wrong model can break
	// it (the default).
	SafetyModel Safety = iota
	// SafetyBounds: a Lipschitz and a noise bound, not the model (losbo).
	SafetyBounds
	// SafetyNone: no safety guarantee at all (the EI family).
	SafetyNone
)

// Safety returns what the safety of spec s rests on, and the algorithm
// whose rule it is: line-bo's is its inner algorithm's.
func (s *Spec) Safety() (Safety, string) {
	if a := s.acting(); a != nil {
		return a.Safety, a.Name
	}
	return SafetyModel, s.Name
}

// CheckObjectiveBeta refuses Model.ObjectiveBeta for a spec whose acting
// algorithm does not choose by f's upper bound (Algorithm.UCB), which
// would ignore it.
func (s *Spec) CheckObjectiveBeta(m *Model) error {
	if m.ObjectiveBeta == nil {
		return nil
	}
	if a := s.acting(); a != nil && !a.UCB {
		return fmt.Errorf("%w: objective_beta: %s does not choose by the objective's upper bound, so it would be ignored; the GP-UCB family does (%s, %s, %s, %s; line-bo with one of them inside)",
			ErrConfig, a.Name, SGPUCB, NaiveSGPUCB, GPUCB, GPUCBOracle)
	}
	return nil
}

// InUnits reports whether spec s bounds the outcomes in the user's units
// (its row's InUnits; line-bo's: its inner algorithm's).
func (s *Spec) InUnits() bool {
	a := s.acting()
	return a != nil && a.InUnits
}

// acting is the algorithm that chooses the points of spec s: its own, or
// for line-bo the inner algorithm on its lines; nil for an unknown name.
func (s *Spec) acting() *Algorithm {
	if s.Name == LineBO {
		a, _ := Lookup(s.LineOptions().Inner.Name)
		return a
	}
	return s.algorithm()
}

// MaxBatch is the most asks a policy of spec s hands out before a tell,
// 0 for any number (its row's).
func (s *Spec) MaxBatch() int {
	if a := s.algorithm(); a != nil {
		return a.MaxBatch
	}
	return 0
}

// PinDefaults writes into s the defaults of its algorithm that a
// recorded spec must hold explicitly (a study records its spec so): a
// later safegp with other defaults then replays the record as it was
// made. The algorithm's row says which (line-bo: the ascent rule).
func (s *Spec) PinDefaults() {
	if a := s.algorithm(); a != nil && a.pin != nil {
		a.pin(s)
	}
}

// UpgradeRecorded reads s as a spec recorded by an older safegp, filling
// in what it left out as that safegp meant it (line-bo ascent recorded
// before ascent_rule existed: the mean's gradient, the rule of then). The
// algorithm's row says what.
func (s *Spec) UpgradeRecorded() {
	if a := s.algorithm(); a != nil && a.upgrade != nil {
		a.upgrade(s)
	}
}

// pinLine writes line-bo's defaults of direction, inner algorithm (with
// its exploration on a cloud), evaluations per line and points into s,
// as LineOptions resolves them.
func (s *Spec) pinLine() {
	l := s.LineOptions()
	if s.Direction == "" {
		s.Direction = l.Direction
	}
	if s.Inner == "" {
		s.Inner = l.Inner.Name
		if s.Exploration.IsZero() && !l.Inner.Exploration.IsZero() {
			s.Exploration = l.Inner.Exploration
		}
	}
	if s.PerLine == nil {
		n := l.PerLine
		s.PerLine = &n
	}
	if s.Points == nil {
		n := l.Points
		s.Points = &n
	}
}

// ascentRuleOr gives an ascent line-bo without an ascent rule the rule
// def.
func (s *Spec) ascentRuleOr(def string) {
	if s.Direction == "ascent" && s.AscentRule == "" {
		s.AscentRule = def
	}
}

// algorithm returns the spec's algorithm, nil for an unknown name.
func (s *Spec) algorithm() *Algorithm {
	a, _ := Lookup(s.Name)
	return a
}

// GPCount is the number of GPs a policy of spec s with m constraints
// keeps: f and every g_i, or f alone for an algorithm that knows the safe
// set.
func GPCount(s *Spec, m int) int {
	if a := s.algorithm(); a != nil && a.OneGP {
		return 1
	}
	return m + 1
}

func gpCount(s *Spec, m int) int64 { return int64(GPCount(s, m)) }

// UsesTStar reports whether s sets its exploration by SafeOpt-MC's t*
// (exploration: theory of an algorithm whose theory is t*).
func (s *Spec) UsesTStar() bool {
	a := s.algorithm()
	return a != nil && a.TheoryIsTStar && s.Exploration.Theory
}

// OnBox reports whether s's algorithm runs on a box domain (line-bo),
// not on a finite decision set.
func (s *Spec) OnBox() bool {
	a := s.algorithm()
	return a != nil && a.Box
}

// NeedsSafeSet reports whether s's algorithm reads the true safe set
// (gp-ucb-oracle), so that it runs only in a simulation.
func (s *Spec) NeedsSafeSet() bool {
	a := s.algorithm()
	return a != nil && a.NeedsSafeSet
}

// NeedsTruth says what of the true functions a policy of spec s reads,
// "" when nothing: the true safe set (gp-ucb-oracle), their Lipschitz
// constants (the SafeOpt family's lipschitz: auto), |R̄_0| of the true
// constraints (SafeOpt-MC's t*). A real system has none of them.
func (s *Spec) NeedsTruth() string {
	a := s.algorithm()
	switch {
	case a == nil:
		return ""
	case a.NeedsSafeSet:
		return "the true safe set"
	case s.UsesTStar():
		return "|R̄_0(D^w)| of the true constraints (exploration: theory, t*)"
	case a.SafeSets && s.lipschitzMode() && (s.Lipschitz == nil || s.Lipschitz.Auto),
		a.Name == LoSBO && s.Lipschitz != nil && s.Lipschitz.Auto:
		return "the true constraints' Lipschitz constants (lipschitz: auto)"
	}
	return ""
}

// lipschitzMode reports whether a SafeOpt-family spec computes its safe
// sets from Lipschitz bounds (safe_set: lipschitz, the default).
func (s *Spec) lipschitzMode() bool { return s.SafeSet != "gp" }

// historyFree reports whether a policy Build makes from spec s is, after
// tells, a function of its GPs' posterior and the number of tells alone.
func historyFree(s *Spec) bool {
	a := s.algorithm()
	return a != nil && a.historyFree != nil && a.historyFree(s)
}

func noPlateau(s *Spec) bool { return s.Exploration.Plateau == nil }

func gpModeNoPlateau(s *Spec) bool { return s.Exploration.Plateau == nil && s.SafeSet == "gp" }

// checkSGPUCB checks sgp-ucb's phase-1 rule and its exploration.
func checkSGPUCB(s *Spec, _ int) error {
	switch s.Phase1 {
	case "", "uniform", "uncertainty":
	default:
		return fielderr.New(ErrConfig, "phase1", "unknown rule %q (uniform, uncertainty)", s.Phase1)
	}
	switch s.Repeats {
	case "", RepeatsExplore:
	default:
		return fielderr.New(ErrConfig, "repeats", "unknown rule %q (leave it out to measure again, or explore)", quote.Short(s.Repeats))
	}
	if s.Exploration.IsZero() {
		return fielderr.New(ErrConfig, "exploration", "missing: give {fixed: n}, {plateau: {window: w, cap: c}} or theory")
	}
	return nil
}

// checkSafeSets checks the SafeOpt family's safe-set mode and, for the
// algorithms with a phase (safeopt-mc's t*, stageopt's stage 1), its
// exploration.
func checkSafeSets(s *Spec, _ int) error {
	bad := func(key string, format string, args ...any) error {
		return fielderr.New(ErrConfig, key, format, args...)
	}
	switch s.SafeSet {
	case "", "lipschitz":
	case "gp":
		if s.Lipschitz != nil {
			return bad("lipschitz", "only used with safe_set: lipschitz")
		}
	default:
		return bad("safe_set", "unknown mode %q (lipschitz, gp)", s.SafeSet)
	}
	a := s.algorithm()
	if !slices.Contains(a.Options, "exploration") {
		return nil
	}
	e := &s.Exploration
	switch {
	case e.IsZero() && a.TheoryIsTStar:
		return bad("exploration", "missing: give {fixed: n}, {plateau: {window: w, cap: c}} or theory")
	case e.IsZero():
		return bad("exploration", "missing: give {fixed: n} or {plateau: {window: w, cap: c}}")
	case e.Theory && !a.TheoryIsTStar:
		return bad("exploration", "theory sets T' for sgp-ucb and t* for safeopt-mc; %s's stage 1 takes fixed or plateau", s.Name)
	case e.Theory && e.TheoryFeatures != (theory.Features{}):
		// t* (Berkenkamp et al. 2016, Theorem 1) uses no feature map:
		// only Theorem 4's T' does.
		return bad("exploration", "theory for %s takes no options (features, nodes, size, seed are Theorem 4's, for sgp-ucb's T'): write exploration: theory", s.Name)
	}
	return nil
}

// building is what a finite algorithm's rule is built from (Build).
type building struct {
	spec  *Spec
	model Model
	set   DecisionSet
	truth *Truth
	opt   Options
	pre   *prebuilt // GPs that hold observations already, or nil
	// safety is the number of safety conditions: the constraints, and
	// f ≥ h_f with an objective threshold.
	safety int
}

// sgpUCBRule builds sgp-ucb and naive-sgp-ucb (SGP-UCB with T' = 0).
func sgpUCBRule(b *building) (rule, error) {
	s := b.spec
	rule, uncertainty := s.Exploration, s.Phase1 == "uncertainty"
	if s.Name == NaiveSGPUCB {
		zero := 0
		rule, uncertainty = Exploration{Fixed: &zero}, false
	}
	if rule.Theory {
		tPrime, err := TheoryLength(b.model, b.set, b.opt, rule.TheoryFeatures)
		if err != nil {
			return nil, fmt.Errorf("exploration: theory: %w", err)
		}
		rule = Exploration{Fixed: &tPrime}
	}
	if !uncertainty && b.opt.Rand == nil && !(rule.Fixed != nil && *rule.Fixed == 0) {
		// Phase 1 plays uniformly random seed actions (SPEC §4).
		return nil, fmt.Errorf("%w: %s draws its phase-1 actions at random and needs a random stream", ErrConfig, s.Name)
	}
	return newSGPUCB(newModelsFrom(b.model, b.set, b.opt, b.pre), uncertainty, rule, s.KeepSeed, s.Repeats == RepeatsExplore), nil
}

// gpUCBRule builds gp-ucb: GP-UCB (Srinivas et al. 2010) over every
// action, x_t = argmax_D u_{f,t}, with no safety condition at all — the
// reference that shows what safety costs (on a line of line-bo, the
// unsafe LineBO). It keeps the constraints' GPs only so that its models
// are any other algorithm's (Inspect, and the GPs line-bo moves).
func gpUCBRule(b *building) (rule, error) {
	all := make([]bool, len(b.set.X))
	for i := range all {
		all[i] = true
	}
	return newOracle(newModelsFrom(b.model, b.set, b.opt, b.pre), all)
}

// oracleRule builds gp-ucb-oracle on the true safe set.
func oracleRule(b *building) (rule, error) {
	n := len(b.set.X)
	switch {
	case b.truth == nil || b.truth.Safe == nil:
		return nil, fmt.Errorf("%w: %s needs the true safe set, which this problem does not provide", ErrConfig, b.spec.Name)
	case len(b.truth.Safe) != n:
		return nil, fmt.Errorf("%w: true safe set of %d flags for %d actions", ErrConfig, len(b.truth.Safe), n)
	case b.pre != nil:
		return nil, fmt.Errorf("bandit: %s takes no prebuilt GPs", b.spec.Name)
	}
	o, err := newOracle(newModels(b.model, b.set, b.opt, false), b.truth.Safe)
	if err != nil {
		return nil, err
	}
	return o, nil
}

// safeOptVariants are the SafeOpt family's rules by name.
var safeOptVariants = map[string]variant{SafeOpt: variantSafeOpt, SafeOptMC: variantMC, StageOpt: variantStage}

// safeOptRule builds safeopt, safeopt-mc and stageopt.
func safeOptRule(b *building) (rule, error) {
	s := b.spec
	lipschitz := s.lipschitzMode()
	var lip []float64
	if lipschitz {
		if s.Lipschitz == nil || s.Lipschitz.Auto {
			if b.truth == nil || len(b.truth.Lipschitz) != b.safety {
				return nil, fmt.Errorf("%w: lipschitz: auto needs the true constraints, which this problem does not provide; give a number", ErrConfig)
			}
			lip = append(lip, b.truth.Lipschitz...)
		} else {
			var err error
			if lip, err = s.Lipschitz.constants(b.safety); err != nil {
				return nil, err
			}
		}
	}
	rule := s.Exploration
	if rule.Theory { // safeopt-mc: Check refuses theory for the others
		var err error
		if rule, err = tStarRule(b.model, b.set, b.opt, b.truth); err != nil {
			return nil, err
		}
	}
	return newSafeOpt(newModelsFrom(b.model, b.set, b.opt, b.pre), safeOptVariants[s.Name], rule, lipschitz, lip, nil), nil
}
