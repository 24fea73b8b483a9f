"""An Optuna sampler backed by a safegp study: safe trials for Optuna users.

Optuna's samplers try settings and learn afterwards which were infeasible
(``constraints_func``); a system that must never be driven unsafe cannot
afford those trials. :class:`SafeSampler` hands every trial to a safegp
study, which suggests only settings its model certifies as safe, so an
Optuna user changes one line::

    import optuna, safegp.optuna

    sampler = safegp.optuna.SafeSampler(
        "http://127.0.0.1:8080",
        seeds=[{"kp": 0.3, "mode": "pi"}],        # settings known to be safe
        constraints_func=lambda t: [t.user_attrs["overshoot"] - 0.05],
    )
    study = optuna.create_study(sampler=sampler, direction="minimize")
    study.optimize(objective, n_trials=40)

How Optuna's terms map to safegp's (docs/porting.md in the safegp
repository, https://github.com/safegp/safegp/blob/main/docs/porting.md):

- ``FloatDistribution(low, high, log, step)`` → a float parameter
  (``scale: log`` when ``log``, ``step`` when given),
  ``IntDistribution(low, high, log, step)`` → an int one,
  ``CategoricalDistribution(choices)`` → a choice (its values sent as
  strings and given back as the original choices), in any number and mix.
- The study's ``direction`` → the objective's ``goal``; a multi-objective
  study is refused.
- ``constraints_func(trial)`` → one outcome ``c0``, ``c1``, … per value,
  each with ``max: 0`` (Optuna's convention: a value ≤ 0 is feasible).
- The first trial measures the first seed (the search space is known only
  once a trial has suggested every parameter); the safegp study is created
  after it, with every seed, and told that trial.
- An enqueued trial (``study.enqueue_trial(params)``, how Optuna users
  start from a known setting) is told as a measurement made outside the
  loop. A failed trial (``TrialState.FAIL``: the objective raised, or
  returned nothing) and a pruned one are told as failed: their setting is
  never asked again and counts against every limit.
- Past the safegp study's horizon the trial fails with
  :class:`HorizonReached` (no trial is left running); an unnamed Optuna
  study gets a safegp study named ``optuna-`` and the time it was made.

The safegp study needs ``safegp serve``; it holds every trial durably, so
a sampler made again with the same ``study_name`` takes the study up where
it was.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.samplers import BaseSampler
from optuna.study import Study as OptunaStudy
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from . import Ask, Client, Conflict, Study

__all__ = ["SafeSampler", "HorizonReached"]


class HorizonReached(RuntimeError):
    """The safegp study has its horizon's worth of trials: the trial that
    asked for one more fails with this error (extend the horizon, or give
    a larger ``horizon``)."""


OBJECTIVE = "objective"


class SafeSampler(BaseSampler):
    """An Optuna sampler whose every suggestion comes from a safegp study.

    Args:
        client: a :class:`safegp.Client`, or the URL of ``safegp serve``.
        seeds: settings known to be safe, at least one, each giving every
            parameter by name (the first is the first trial).
        constraints_func: Optuna's: the trial → its constraint values, each
            feasible when ≤ 0. Required: the limits are what the study keeps.
        study_name: the safegp study's name (default ``optuna-`` and the
            Optuna study's name, or the time it was made for an unnamed
            Optuna study).
        horizon: the safegp study's horizon, its most trials.
        token: the server's bearer token, with a URL.
        lease_seconds: lease each ask for that long, so that Optuna's
            parallel trials (``n_jobs`` > 1) each get their own setting.
        spec: more keys of the safegp study's spec (``model``,
            ``algorithm``, ``seed``, …), merged over the ones made here.
    """

    def __init__(
        self,
        client: Union[Client, str],
        seeds: Sequence[Mapping[str, Any]],
        constraints_func: Optional[Callable[[FrozenTrial], Sequence[float]]] = None,
        study_name: Optional[str] = None,
        horizon: int = 100,
        token: Optional[str] = None,
        lease_seconds: Optional[float] = None,
        spec: Optional[Mapping[str, Any]] = None,
    ) -> None:
        self._client = client if isinstance(client, Client) else Client(str(client), token=token)
        self._seeds = [dict(s) for s in seeds]
        if not self._seeds:
            raise ValueError("safegp.optuna: give at least one seed, a setting known to be safe")
        if constraints_func is None:
            raise ValueError("safegp.optuna: give constraints_func (each value ≤ 0 is feasible): the limits are what keeps the trials safe")
        self._constraints_func = constraints_func
        self._name = study_name
        self._horizon = int(horizon)
        self._lease = lease_seconds
        self._extra = dict(spec or {})
        self._study: Optional[Study] = None
        self._space: Dict[str, BaseDistribution] = {}
        self._asks: Dict[int, Ask] = {}  # Optuna trial number → its safegp ask
        self._finished: Dict[int, str] = {}  # Optuna trial number → why no ask came (the horizon)
        self._default_name: Optional[str] = None
        # Optuna's parallel trials (n_jobs > 1) share the sampler: the
        # first trials all measure the first seed, and the study is
        # created once, by the first of them to end.
        self._lock = threading.Lock()

    # The sampler's three hooks.

    def infer_relative_search_space(self, study: OptunaStudy, trial: FrozenTrial) -> Dict[str, BaseDistribution]:
        self._check_single(study)
        if self._study is None and not self._space:
            self._attach(study)
        return dict(self._space)

    def sample_relative(
        self, study: OptunaStudy, trial: FrozenTrial, search_space: Dict[str, BaseDistribution]
    ) -> Dict[str, Any]:
        if self._study is None or not search_space:
            return {}
        if trial.system_attrs.get("fixed_params"):
            return {}  # enqueued: Optuna fills the fixed parameters, told outside the loop
        try:
            a = self._study.ask(lease_seconds=self._lease)
        except Conflict as e:
            if "horizon" not in e.message:
                raise
            # Raised here, the error would leave the trial RUNNING (Optuna
            # samples before the objective runs): it is raised by the
            # trial's first suggestion instead, which fails the trial.
            self._finished[trial.number] = e.message
            return {}
        self._asks[trial.number] = a
        return {k: _from_safegp(self._space[k], v) for k, v in (a.params or {}).items() if k in search_space}

    def sample_independent(
        self, study: OptunaStudy, trial: FrozenTrial, param_name: str, param_distribution: BaseDistribution
    ) -> Any:
        if trial.number in self._finished:
            raise HorizonReached(f"safegp.optuna: {self._finished[trial.number]}")
        # Before the study exists (the first trial), or a parameter of an
        # enqueued trial not fixed: the first seed's value.
        seed = self._seeds[0]
        if param_name not in seed:
            raise ValueError(f"safegp.optuna: the seeds give no value of parameter {param_name!r}: every seed must give every parameter")
        if self._study is not None and param_name not in self._space:
            raise ValueError(f"safegp.optuna: parameter {param_name!r} is not in the study's search space {sorted(self._space)}: the search space cannot change once the study exists")
        return seed[param_name]

    def after_trial(
        self, study: OptunaStudy, trial: FrozenTrial, state: TrialState, values: Optional[Sequence[float]]
    ) -> None:
        self._finished.pop(trial.number, None)
        if state != TrialState.COMPLETE or values is None:
            self._tell_failed(trial)
            return
        outcomes = self._outcomes(trial, values)
        with self._lock:
            if self._study is None:
                self._create(study, trial, len(outcomes) - 1)
        a = self._asks.pop(trial.number, None)
        if a is not None:
            self._study.tell(a, values=outcomes)  # type: ignore[union-attr]
        else:
            params = {k: _to_safegp(self._space[k], v) for k, v in trial.params.items()}
            self._study.tell_params(params, outcomes)  # type: ignore[union-attr]

    # Helpers.

    def _tell_failed(self, trial: FrozenTrial) -> None:
        """Tell a trial that ended without values (failed, pruned) as
        failed, so that its setting is never asked again."""
        a = self._asks.pop(trial.number, None)
        if self._study is None:
            return  # the first trial, at the first seed: the study is made by the next
        try:
            if a is not None:
                self._study.tell(a, failed=True)
            elif trial.params and set(trial.params) == set(self._space):
                params = {k: _to_safegp(self._space[k], v) for k, v in trial.params.items()}
                self._study.tell_params(params, failed=True)
        except Conflict:
            pass  # withdrawn meanwhile (a retraction): nothing to tell

    @property
    def safegp_study(self) -> Optional[Study]:
        """The safegp study, once the first trial has made it."""
        return self._study

    def _check_single(self, study: OptunaStudy) -> None:
        if len(study.directions) != 1:
            raise ValueError("safegp.optuna: SafeSampler takes single-objective studies only")

    def _study_name(self, study: OptunaStudy) -> str:
        if self._name:
            return self._name
        if study.study_name.startswith("no-name-"):
            # Optuna's default name is a UUID: name the safegp study by
            # when it was made instead (once per sampler).
            if self._default_name is None:
                self._default_name = "optuna-" + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            return self._default_name
        return "optuna-" + study.study_name

    def _attach(self, study: OptunaStudy) -> None:
        """Take up the safegp study of an earlier sampler, if there is one."""
        name = self._study_name(study)
        if not any(s.get("study") == name for s in self._client.studies()):
            return
        st = self._client.study(name)
        params = st.summary().get("parameters")
        if params:
            self._space = {p["name"]: _distribution(p) for p in params}
            self._study = st

    def _outcomes(self, trial: FrozenTrial, values: Sequence[float]) -> Dict[str, float]:
        out = {OBJECTIVE: float(values[0])}
        cons = list(self._constraints_func(trial))
        for i, c in enumerate(cons):
            if not math.isfinite(float(c)):
                raise ValueError(f"safegp.optuna: constraint {i} of trial {trial.number} is {c!r}: constraint values must be finite")
            out[f"c{i}"] = float(c)
        return out

    def _create(self, study: OptunaStudy, trial: FrozenTrial, ncons: int) -> None:
        self._space = dict(trial.distributions)
        params = [_param(name, d) for name, d in self._space.items()]
        goal = "maximize" if study.direction == StudyDirection.MAXIMIZE else "minimize"
        seeds = []
        for s in self._seeds:
            missing = set(self._space) - set(s)
            if missing:
                raise ValueError(f"safegp.optuna: a seed gives no value of {sorted(missing)}: every seed must give every parameter")
            seeds.append({k: _to_safegp(self._space[k], s[k]) for k in self._space})
        spec: Dict[str, Any] = {
            "parameters": params,
            "objective": {"name": OBJECTIVE, "goal": goal},
            "constraints": [{"name": f"c{i}", "max": 0} for i in range(ncons)],
            "seeds": seeds,
            "horizon": self._horizon,
        }
        if ncons == 0:
            raise ValueError("safegp.optuna: constraints_func gave no values: give at least one limit")
        spec.update(self._extra)
        name = self._study_name(study)
        try:
            self._study = self._client.create_study(name, spec)
        except Conflict as e:
            # Another process's sampler (Optuna's storage shared between
            # processes) may have made it first: take it up if it is the
            # same study.
            st = self._client.study(name)
            if not self._same_space(st.summary().get("parameters") or []):
                raise ValueError(f"safegp.optuna: safegp study {name!r} exists with another history; give another study_name, or delete it") from e
            self._study = st

    def _same_space(self, params: Sequence[Mapping[str, Any]]) -> bool:
        """Whether a study's parameters are this sampler's search space."""
        try:
            return {p["name"]: _distribution(p) for p in params} == self._space
        except (KeyError, TypeError, ValueError):
            return False


def _param(name: str, d: BaseDistribution) -> Dict[str, Any]:
    """The safegp parameter of an Optuna distribution."""
    if isinstance(d, FloatDistribution):
        p: Dict[str, Any] = {"name": name, "low": d.low, "high": d.high}
        if d.step is not None:
            p["step"] = d.step
    elif isinstance(d, IntDistribution):
        p = {"name": name, "type": "int", "low": d.low, "high": d.high}
        if d.step != 1:
            p["step"] = d.step
    elif isinstance(d, CategoricalDistribution):
        values = [_choice(c) for c in d.choices]
        if len(set(values)) != len(values):
            raise ValueError(f"safegp.optuna: {name}: choices {d.choices!r} are not distinct as strings")
        return {"name": name, "type": "choice", "values": values}
    else:
        raise ValueError(f"safegp.optuna: {name}: distribution {type(d).__name__} is not supported")
    if d.log:
        p["scale"] = "log"
    return p


def _distribution(p: Mapping[str, Any]) -> BaseDistribution:
    """The Optuna distribution of a safegp parameter (a study taken up)."""
    kind = p.get("type", "float")
    log = p.get("scale") == "log"
    if kind == "int":
        return IntDistribution(int(p["low"]), int(p["high"]), log=log, step=int(p.get("step", 1)))
    if kind == "choice":
        return CategoricalDistribution(list(p["values"]))
    step = p.get("step")
    return FloatDistribution(float(p["low"]), float(p["high"]), log=log, step=None if step is None else float(step))


def _choice(c: Any) -> str:
    return c if isinstance(c, str) else repr(c)


def _to_safegp(d: BaseDistribution, v: Any) -> Any:
    if isinstance(d, CategoricalDistribution):
        return _choice(v)
    if isinstance(d, IntDistribution):
        return int(v)
    return float(v)


def _from_safegp(d: BaseDistribution, v: Any) -> Any:
    if isinstance(d, CategoricalDistribution):
        for c in d.choices:
            if _choice(c) == v:
                return c
        raise ValueError(f"safegp.optuna: the study suggested {v!r}, not one of {d.choices!r}")
    if isinstance(d, IntDistribution):
        return int(v)
    # Within the bounds to the last bit, as Optuna checks them.
    return min(max(float(v), d.low), d.high)
