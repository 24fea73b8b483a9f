"""safegp.optuna.SafeSampler with Debian's python3-optuna against the real
server (skipped where Optuna is not installed)."""

import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

try:
    import optuna
except ImportError:  # pragma: no cover - the CI runs these with Debian's Optuna
    optuna = None

import safegp  # noqa: E402
from test_client import ServerTest  # noqa: E402

if optuna is not None:
    import safegp.optuna  # noqa: E402

    optuna.logging.set_verbosity(optuna.logging.ERROR)


def problem(trial):
    """Minimize (x − 0.8)² + 0.01·n with x + 0.05·n ≤ 0.7 (feasible when
    c ≤ 0): the optimum lies on the limit. A choice doubles the cost."""
    x = trial.suggest_float("x", 0.01, 1.0, log=True)
    n = trial.suggest_int("n", 1, 3)
    mode = trial.suggest_categorical("mode", ["a", "b"])
    trial.set_user_attr("c", x + 0.05 * n - 0.7)
    cost = (x - 0.8) ** 2 + 0.01 * n
    return cost * (2 if mode == "b" else 1)


def constraints(trial):
    return [trial.user_attrs["c"]]


SEEDS = [{"x": 0.1, "n": 1, "mode": "a"}]


@unittest.skipIf(optuna is None, "optuna not installed (Debian: python3-optuna)")
class TestSafeSampler(ServerTest):
    def sampler(self, **kw):
        return safegp.optuna.SafeSampler(
            self.server.url, seeds=SEEDS, constraints_func=constraints, horizon=40,
            spec={"model": {"fit": {"when": "never"}}} if kw.pop("nofit", False) else None, **kw)

    def test_safe_trials(self):
        sampler = self.sampler()
        study = optuna.create_study(sampler=sampler, direction="minimize", study_name="s")
        study.enqueue_trial({"x": 0.2, "n": 2, "mode": "a"})  # a known setting
        study.optimize(problem, n_trials=15)
        trials = study.trials
        self.assertEqual(len(trials), 15)
        # Optuna runs the enqueued setting first; safegp was told it as a
        # measurement made outside the loop.
        self.assertEqual(trials[0].params, {"x": 0.2, "n": 2, "mode": "a"})
        for t in trials:
            self.assertEqual(t.state, optuna.trial.TrialState.COMPLETE)
            self.assertLessEqual(t.user_attrs["c"], 0, t.params)  # never unsafe
            self.assertTrue(0.01 <= t.params["x"] <= 1)
            self.assertIsInstance(t.params["n"], int)
            self.assertIn(t.params["mode"], ["a", "b"])
        # every trial is in the safegp study, in order, with its values
        st = sampler.safegp_study
        self.assertEqual(st.name, "optuna-s")
        told = st.trials()
        self.assertEqual(len(told), 15)
        for t, r in zip(trials, told):
            self.assertEqual(r["values"]["objective"], t.value)
            self.assertEqual(r["values"]["c0"], t.user_attrs["c"])
            self.assertEqual(r["params"]["mode"], t.params["mode"])
            self.assertFalse(r["violation"])
        spec = {p["name"]: p for p in st.summary()["parameters"]}
        self.assertEqual(spec["x"].get("scale"), "log")
        self.assertEqual(spec["n"]["type"], "int")
        self.assertEqual(spec["mode"]["values"], ["a", "b"])
        # The study improves on the known settings.
        seed_cost = (SEEDS[0]["x"] - 0.8) ** 2 + 0.01
        self.assertLess(study.best_value, min(seed_cost, trials[0].value))

        # A sampler made again takes the study up where it was.
        again = self.sampler()
        study2 = optuna.create_study(sampler=again, direction="minimize", study_name="s")
        study2.optimize(problem, n_trials=2)
        self.assertEqual(len(again.safegp_study.trials()), 17)

    def test_parallel_trials(self):
        # n_jobs > 1: the first trials end at once, each about to create
        # the study; it is created once, and every trial is told.
        import threading
        gate = threading.Barrier(4, timeout=30)

        def together(trial):
            v = problem(trial)
            if trial.number < 4:
                gate.wait()  # the first four trials end together
            return v

        sampler = self.sampler(lease_seconds=60)
        study = optuna.create_study(sampler=sampler, direction="minimize", study_name="p")
        study.optimize(together, n_trials=12, n_jobs=4)
        self.assertEqual([t.state for t in study.trials], [optuna.trial.TrialState.COMPLETE] * 12)
        for t in study.trials:
            self.assertLessEqual(t.user_attrs["c"], 0, t.params)
        self.assertEqual(len(sampler.safegp_study.trials()), 12)

        # A second sampler (another process's, sharing Optuna's storage)
        # creating the same study takes it up instead of failing.
        other = self.sampler(study_name="optuna-p")
        other._attach = lambda study: None  # it started before the study existed
        study2 = optuna.create_study(sampler=other, direction="minimize", study_name="p2")
        study2.optimize(problem, n_trials=2)
        self.assertEqual(len(other.safegp_study.trials()), 14)

    def test_failed_trial_is_not_asked_again(self):
        """Issue 43: a failed trial is told as failed — its setting is
        never asked again — and counted apart from the violations."""
        sampler = self.sampler()
        study = optuna.create_study(sampler=sampler, direction="minimize", study_name="f")
        study.optimize(problem, n_trials=6)  # past phase 1 (T' = 3) at the seed

        def failing(trial):
            problem(trial)
            raise RuntimeError("the rig stopped")

        study.optimize(failing, n_trials=1, catch=(RuntimeError,))
        study.optimize(problem, n_trials=3)
        failed = study.trials[6]
        self.assertEqual(failed.state, optuna.trial.TrialState.FAIL)
        self.assertNotEqual(failed.params, SEEDS[0])
        for t in study.trials[7:]:
            self.assertNotEqual(t.params, failed.params)
        summary = sampler.safegp_study.summary()
        self.assertEqual(summary["failures"], 1)
        self.assertEqual(summary["violations"], 0)

    def test_past_the_horizon(self):
        """Issue 43: past the horizon a trial fails with HorizonReached;
        no trial is left running."""
        sampler = safegp.optuna.SafeSampler(self.server.url, seeds=SEEDS, constraints_func=constraints, horizon=3)
        study = optuna.create_study(sampler=sampler, direction="minimize")
        with self.assertRaises(safegp.optuna.HorizonReached):
            study.optimize(problem, n_trials=5)
        states = [t.state for t in study.trials]
        self.assertEqual(states[:3], [optuna.trial.TrialState.COMPLETE] * 3)
        self.assertEqual(states[3:], [optuna.trial.TrialState.FAIL])
        # extended, the study goes on
        sampler.safegp_study.extend(5)
        study.optimize(problem, n_trials=2)
        self.assertEqual([t.state for t in study.trials][4:], [optuna.trial.TrialState.COMPLETE] * 2)
        # an unnamed Optuna study's safegp study is named without its UUID
        name = sampler.safegp_study.name
        self.assertTrue(name.startswith("optuna-2"), name)
        self.assertNotIn("no-name", name)

    def test_int_among_three(self):
        """Issue 42: an int among three numeric parameters and a choice
        (refused before: a candidate set took at most two numeric ones),
        searched on their box; every trial keeps the limit."""
        def mixed(trial):
            x = trial.suggest_float("x", 0.01, 1.0, log=True)
            y = trial.suggest_float("y", 0.0, 1.0)
            n = trial.suggest_int("n", 1, 5)
            mode = trial.suggest_categorical("mode", ["a", "b"])
            trial.set_user_attr("c", x + 0.3 * y + 0.05 * n - 0.9)
            cost = (x - 0.6) ** 2 + (y - 0.5) ** 2 + 0.01 * n
            return cost * (2 if mode == "b" else 1)

        sampler = safegp.optuna.SafeSampler(
            self.server.url, seeds=[{"x": 0.1, "y": 0.2, "n": 2, "mode": "a"}],
            constraints_func=constraints, horizon=30)
        study = optuna.create_study(sampler=sampler, direction="minimize", study_name="mixed")
        study.optimize(mixed, n_trials=12)
        self.assertEqual(len(study.trials), 12)
        for t in study.trials:
            self.assertEqual(t.state, optuna.trial.TrialState.COMPLETE)
            self.assertIsInstance(t.params["n"], int)
            self.assertLessEqual(t.user_attrs["c"], 0, t.params)
        self.assertLess(study.best_value, study.trials[0].value)

    def test_refusals(self):
        with self.assertRaises(ValueError):
            safegp.optuna.SafeSampler(self.server.url, seeds=[], constraints_func=constraints)
        with self.assertRaises(ValueError):
            safegp.optuna.SafeSampler(self.server.url, seeds=SEEDS)  # no constraints_func
        study = optuna.create_study(sampler=self.sampler(), directions=["minimize", "minimize"])
        with self.assertRaises(ValueError):
            study.optimize(lambda t: (problem(t), 0.0), n_trials=1)


    def test_steps(self):
        """Every distribution Optuna has (issue 42): a float and an int
        with a step are suggested on their grids."""
        def stepped(trial):
            x = trial.suggest_float("x", 0.0, 1.0, step=0.1)
            n = trial.suggest_int("n", 2, 10, step=2)
            trial.set_user_attr("c", x + 0.02 * n - 0.9)
            return (x - 0.6) ** 2 + 0.01 * n

        s = optuna.create_study(sampler=safegp.optuna.SafeSampler(
            self.server.url, seeds=[{"x": 0.2, "n": 4}], constraints_func=constraints, horizon=20),
            direction="minimize")
        s.optimize(stepped, n_trials=8)
        for t in s.trials:
            self.assertEqual(t.state, optuna.trial.TrialState.COMPLETE)
            self.assertAlmostEqual(t.params["x"] * 10, round(t.params["x"] * 10), places=9)
            self.assertEqual(t.params["n"] % 2, 0)
            self.assertLessEqual(t.user_attrs["c"], 0, t.params)


if __name__ == "__main__":
    unittest.main()
