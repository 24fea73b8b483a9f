"""Client for the safegp HTTP service (``safegp serve``).

safegp runs safe Gaussian-process bandit optimization as durable ask/tell
studies. This package talks to its HTTP service with the Python standard
library only (``urllib`` and ``json``)::

    import safegp

    client = safegp.Client("http://127.0.0.1:8080", token=None)
    study = client.create_study("gains", spec)   # spec: the JSON form of a study spec
    for _ in range(15):
        a = study.ask()                          # Ask(id=1, x=[1.0], index=10)
        f, g = run_experiment(a.x)
        study.tell(a, f, [g])
    print(study.summary())

A study stated in parameters (``parameters``, ``objective``,
``constraints``, ``seeds``) asks with named settings in raw units and is
told the outcomes by name::

    a = study.ask()                          # a.params == {"kp": 0.3, "mode": "pi"}, a.trial == 0
    study.tell(a, values={"settle_time": 4.1, "overshoot": 0.012})
    study.best()                             # {"trial": ..., "params": {...}, "values": {...}}

A study whose spec has a ``context`` block (variables measured before each
ask, such as a temperature) asks with their values, and answers in that
context; the seed set is assumed safe in every context::

    a = study.ask(context={"temperature": 21.5, "load": 0.3})
    study.tell(a, f, [g])                 # the ask's context

Parallel workers take batches of asks, each leased so that no other worker
gets it while the lease runs::

    for a in study.ask_batch(4, lease_seconds=600):
        ...                                      # measure a.x, heartbeat if slow
        study.heartbeat(a, 600)                  # Conflict if the ask went to another worker
        study.tell(a, f, [g])

Every error the server answers is raised as :class:`SafegpError` (or one of
its subclasses) carrying the server's message and the HTTP status. Numbers
that are not finite (NaN, ±inf) are refused by the client with
:class:`ValueError` before anything is sent.
"""

from __future__ import annotations

import http.client
import json
import math
import operator
import random
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

__all__ = [
    "Ask",
    "flatten_trials",
    "Client",
    "Conflict",
    "NotFound",
    "SafegpError",
    "Study",
    "Unauthorized",
    "Unavailable",
    "Unreachable",
    "__version__",
]

__version__ = "0.1.0"

JSON = Dict[str, Any]


MAX_ANSWER = 256 << 20
"""The most bytes an answer may hold by default (:class:`Client`'s
``max_answer``)."""


class SafegpError(Exception):
    """An error answered by the server, or no answer (:class:`Unreachable`).

    Attributes:
        status: the HTTP status code (400 bad input, 401 missing or wrong
            token, 403 non-loopback Host without a token, 404 unknown study,
            ask, observation or route, 409 conflict, 413 body too large,
            415 wrong content type, 503 database busy); 0 for no answer.
        message: the server's message (the ``error`` field of its answer).
    """

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"safegp: {status}: {message}")
        self.status = status
        self.message = message


class Unauthorized(SafegpError):
    """401: a missing or wrong bearer token."""


class NotFound(SafegpError):
    """404: an unknown study, ask, observation or route."""


class Conflict(SafegpError):
    """409: a study that exists, an ask already told or withdrawn, an
    observation already retracted, a study at its horizon, no ask available
    (every pending ask leased), a heartbeat whose lease token is no longer
    the ask's (it went to another caller), asks pending in 4 other contexts
    already, or a write to the database by another process."""


class Unavailable(SafegpError):
    """503: another process holds the database; retry after
    :attr:`retry_after` seconds (None when the server did not say)."""

    def __init__(self, status: int, message: str, retry_after: Optional[float] = None) -> None:
        super().__init__(status, message)
        self.retry_after = retry_after


class Unreachable(SafegpError, urllib.error.URLError):
    """No answer: the server could not be reached, the connection broke
    or the request timed out. A broken or timed-out request may have been
    applied all the same (a tell whose answer was lost): look at the study
    before sending it again. Also a :class:`urllib.error.URLError`, as
    before."""

    def __init__(self, message: str) -> None:
        SafegpError.__init__(self, 0, message)
        self.reason = message

    def __str__(self) -> str:  # not URLError's "<urlopen error …>"
        return f"safegp: {self.message}"


_CLASSES = {401: Unauthorized, 404: NotFound, 409: Conflict}


def _check_finite(value: Any, path: str = "body") -> None:
    """Raise ValueError if value contains a float that is NaN or infinite."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"safegp: {path} is {value!r}; numbers must be finite")
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_finite(v, f"{path}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_finite(v, f"{path}[{i}]")


@dataclass(frozen=True)
class Ask:
    """An action the study asks to be measured.

    Attributes:
        id: the ask's id, passed back to :meth:`Study.tell`.
        x: the point to measure (None for a study stated in parameters,
            whose asks give ``params``).
        index: the action's index in a finite decision set (None for a box,
            and for a study stated in parameters).
        context: the context the ask was made in, by variable name (None for
            a study without a context).
        lease_until: the end of the ask's lease, RFC 3339 in UTC (e.g.
            ``"2026-03-01T12:00:30.000Z"``), when it was asked with
            ``lease_seconds``; None otherwise.
        lease_token: the lease's token (the answer's ``"lease"``), new at
            every leased hand-out; :meth:`Study.heartbeat` sends it, so that
            a heartbeat after the ask went to another worker fails instead of
            taking it back. None without a lease.
        trial: a study stated in parameters: the trial number, 0, 1, 2, …
            in the order asked (None otherwise).
        params: a study stated in parameters: the setting to try, by
            parameter name, in raw units (integers as ints, choices as
            strings); None otherwise.
        best: a study stated in parameters: the best safe trial so far,
            ``{"trial", "params", "values"}``, or None before one.
        notes: why the study may not be making progress, or why a batch is
            shorter than asked for (empty when there is nothing to say).
    """

    id: int
    x: Optional[List[float]] = None
    index: Optional[int] = None
    context: Optional[Dict[str, float]] = None
    lease_until: Optional[str] = None
    lease_token: Optional[str] = None
    trial: Optional[int] = None
    params: Optional[Dict[str, Any]] = None
    best: Optional[JSON] = None
    notes: List[str] = field(default_factory=list)

    @staticmethod
    def _from(r: JSON, notes: Optional[List[str]] = None) -> "Ask":
        c = r.get("context")
        return Ask(
            id=int(r["ask"]),
            x=[float(v) for v in r["x"]] if "x" in r else None,
            index=r.get("index"),
            context={k: float(v) for k, v in c.items()} if c is not None else None,
            lease_until=r.get("lease_until"),
            lease_token=r.get("lease"),
            trial=r.get("trial"),
            params=r.get("params"),
            best=r.get("best"),
            notes=list(r.get("notes") or notes or []),
        )


class Client:
    """A connection to ``safegp serve``.

    Args:
        url: the server's base URL, e.g. ``"http://127.0.0.1:8080"``.
        token: the bearer token (the contents of the server's
            ``--token-file``), or None for a server without one.
        timeout: seconds a request may take, all of it: connecting,
            sending, and the whole answer (a server that sends its answer a
            byte at a time is cut off there, not waited for byte by byte).
        max_answer: the most bytes an answer may hold (256 MiB): a larger
            one is refused with a SafegpError, not read whole.
        retries: how many times a request is sent again after an answer
            that says nothing was done and to try again: 503 (the database
            busy, or the server's memory full; after its ``Retry-After``)
            and 409 "stale study" (another process wrote to the study
            between the server's read and its write). The waits double from
            0.25 s, with jitter, up to 8 s. 0: never.
    """

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 30.0, retries: int = 4,
                 max_answer: int = MAX_ANSWER) -> None:
        self.url = url.rstrip("/")
        self.token = token.strip() if token is not None else None
        self.timeout = timeout
        self.max_answer = _integer(max_answer, "max_answer")
        if self.max_answer < 1:
            raise ValueError(f"safegp: max_answer must be at least 1, got {max_answer}")
        self.retries = _integer(retries, "retries")
        if self.retries < 0:
            raise ValueError(f"safegp: retries must be at least 0, got {retries}")
        self._sleep: Callable[[float], None] = time.sleep

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """Send one request and return the decoded JSON answer, sending it
        again up to ``retries`` times after a 503 or a 409 "stale study"
        (answers that say the request changed nothing).

        Raises:
            ValueError: body holds a non-finite number.
            SafegpError: the server answered with an error status (the last
                answer, once the retries are spent).
            Unreachable: no answer — the server could not be reached, the
                connection broke or timed out (never retried: the request
                may have been applied). It is a SafegpError and a
                urllib.error.URLError.
        """
        attempt = 0
        while True:
            try:
                return self._request(method, path, body)
            except (Unavailable, Conflict) as e:
                wait = _retry_wait(e, attempt)
                if wait is None or attempt >= self.retries:
                    raise
            self._sleep(wait)
            attempt += 1

    def _request(self, method: str, path: str, body: Any = None) -> Any:
        """One request, no retries."""
        headers = {"Accept": "application/json"}
        data: Optional[bytes] = None
        if method == "POST" or (body is not None and method != "GET"):
            _check_finite(body)
            data = json.dumps({} if body is None else body, allow_nan=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        req = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        # One deadline for the whole call: a socket's timeout bounds each
        # read, and a server that trickles its answer a byte at a time
        # held a timeout=5 client for 99 s. The watchdog shuts the
        # connection down at the deadline, whatever it is waiting for.
        watch = _Watchdog(self.timeout)
        status = 0
        try:
            with watch, _opener(watch).open(req, timeout=self.timeout) as resp:
                status = resp.status
                raw = _read_bounded(resp, self.max_answer, method, path)
                if watch.stop():  # the shutdown ended the read as if at its end
                    raise OSError("cut off")
        except urllib.error.HTTPError as e:
            raise _error(e, self.max_answer) from None
        except (urllib.error.URLError, http.client.HTTPException, OSError) as e:
            # A refused connection (URLError), one the server dropped
            # (RemoteDisconnected), a timeout: no answer, one error type.
            reason = getattr(e, "reason", None) or e
            if watch.fired:
                reason = f"no complete answer within the client's timeout of {self.timeout} s"
            raise Unreachable(f"{method} {self.url}{path}: no answer: {reason}") from e
        return _decode(raw, status, method, path)

    def health(self) -> JSON:
        """GET /healthz: ``{"status": "ok"}`` when the server is up."""
        return self.request("GET", "/healthz")

    def create_study(self, name: str, spec: JSON) -> "Study":
        """Create a study (POST /v1/studies) and return it.

        Args:
            name: the study's name.
            spec: the JSON form of a study spec (see docs/quickstart.md,
                "The study specification"), e.g. with ``decision_set``, ``thresholds``,
                ``model``, ``algorithm``, ``horizon`` and ``seed``.

        Each of the server's ``notes`` on the spec (a parameter whose
        linear scale is too coarse near its seeds, an int or a choice
        whose other values the study will rarely try) is issued as a
        :class:`UserWarning`: the study is created all the same.

        Raises:
            Conflict: a study of that name exists.
            SafegpError: the spec is refused (400) or another error.
        """
        r = self.request("POST", "/v1/studies", {"name": name, "spec": spec})
        for note in (r or {}).get("notes") or []:
            warnings.warn(f"study {name!r}: {note}", UserWarning, stacklevel=2)
        return Study(self, name)

    def study(self, name: str) -> "Study":
        """Return a handle on an existing study (no request is sent)."""
        return Study(self, name)

    def studies(self) -> List[JSON]:
        """Every study on the server with its counts (GET /v1/studies):
        ``study``, ``algorithm``, ``rounds``, ``violations``, ``pending``, …"""
        r = self.request("GET", "/v1/studies")
        return _shaped(r, lambda r: list(r["studies"]), "GET /v1/studies")

    def delete_study(self, name: str, force: bool = False) -> JSON:
        """Delete a study and everything recorded of it
        (DELETE /v1/studies/{name}).

        Args:
            force: delete even while some of its asks are leased to workers
                (without it the server refuses with :class:`Conflict`).

        Returns:
            ``{"deleted": name, "events": n, "pending": [...], "leased": [...]}``.

        Raises:
            NotFound: no such study.
            Conflict: asks are leased and force is False.
        """
        path = "/v1/studies/" + urllib.parse.quote(name, safe="")
        if force:
            path += "?force=true"
        return self.request("DELETE", path)

    def rename_study(self, name: str, new_name: str) -> "Study":
        """Give a study a new name (POST /v1/studies/{name}/rename) and
        return it under that name.

        Raises:
            Conflict: a study of the new name exists.
        """
        self.request("POST", "/v1/studies/" + urllib.parse.quote(name, safe="") + "/rename", {"name": str(new_name)})
        return Study(self, new_name)


class Study:
    """A study on the server; obtain one from :meth:`Client.create_study`
    or :meth:`Client.study`."""

    def __init__(self, client: Client, name: str) -> None:
        self.client = client
        self.name = name
        self._path = "/v1/studies/" + urllib.parse.quote(name, safe="")

    def __repr__(self) -> str:
        return f"Study({self.name!r})"

    def ask(self, lease_seconds: Optional[float] = None, context: Optional[Mapping[str, float]] = None) -> Ask:
        """Ask for the next action to measure (POST …/ask).

        Without a lease, asking again before telling returns the same ask.

        Args:
            lease_seconds: lease the ask for that long (at most a week): no
                other ask call gets it until the lease ends or it is told;
                renew it with :meth:`heartbeat`. None or 0: no lease.
            context: for a study with a context, the value of every context
                variable measured now, e.g. ``{"temperature": 21.5}``; the
                action is chosen for that context (the seed set is assumed
                safe in every context). None for a study without one.

        Raises:
            ValueError: a context value is not finite.
            Conflict: the study is at its horizon, every pending ask is
                leased and no other can be handed out, or asks are pending
                in 4 other contexts already (tell some first).
            SafegpError: 400 for a context missing a variable, naming one
                the study does not have, or given to a study without one.
        """
        body: JSON = {}
        if lease_seconds is not None:
            body["lease_seconds"] = float(lease_seconds)
        if context is not None:
            body["context"] = _context(context)
        return _shaped(self.client.request("POST", self._path + "/ask", body), Ask._from, "POST " + self._path + "/ask")

    def ask_batch(
        self, count: int, lease_seconds: Optional[float] = None, context: Optional[Mapping[str, float]] = None
    ) -> List[Ask]:
        """Ask for up to ``count`` actions to measure in parallel
        (POST …/ask with ``"count"``).

        The pending asks not leased to another caller come first, oldest
        first, then new ones: every one in the safe set of the observations
        so far, spread apart (the policy conditions its variance on the
        pending asks). The batch is shorter when the horizon or the safe set
        leaves no room for more.

        Args:
            count: the most asks to return, an integer 1 … 64 (a float
                only when integral, such as 2.0).
            lease_seconds: lease every ask returned for that long, as for
                :meth:`ask`, so that parallel workers each get their own.
                None or 0: no lease.
            context: the context measured now, as for :meth:`ask`: the whole
                batch is for that context.

        Raises:
            ValueError: count is not an integer (2.5, True, "2"), before
                anything is sent.
            Conflict: the study is at its horizon, or nothing can be handed
                out (every pending ask is leased).
        """
        body: JSON = {"count": _integer(count, "count")}
        if lease_seconds is not None:
            body["lease_seconds"] = float(lease_seconds)
        if context is not None:
            body["context"] = _context(context)
        r = self.client.request("POST", self._path + "/ask", body)
        return _shaped(r, lambda r: [Ask._from(a, r.get("notes")) for a in r["asks"]], "POST " + self._path + "/ask")

    def heartbeat(self, ask: Union[Ask, int], lease_seconds: float, lease_token: Optional[str] = None) -> JSON:
        """Renew the lease of a pending ask: it then ends ``lease_seconds``
        from now (> 0, at most a week; POST …/heartbeat).

        Args:
            ask: the :class:`Ask`, whose lease token is sent (unless
                ``lease_token`` is given), or its id, which sends none.
            lease_seconds: the lease's new length.
            lease_token: the ask's lease token (``Ask.lease_token``, or the
                ``"lease"`` of an earlier heartbeat's answer). With a token
                the heartbeat renews the lease only while the ask is still
                the caller's: once its lease ended and the ask was handed to
                another caller, it raises :class:`Conflict`. Without one
                (an id and no token) it cannot tell holders apart, and
                renews the lease whoever holds it.

        Returns:
            the server's answer, ``{"ask": id, "lease_until": "…",
            "lease": token}``.

        Raises:
            NotFound: an unknown ask.
            Conflict: the ask was already told or withdrawn, or (with a
                token) it was handed to another caller after the lease
                ended: do not measure it, or tell it if it was measured
                already (the first tell wins).
        """
        body: JSON = {"ask": ask.id if isinstance(ask, Ask) else _integer(ask, "ask"), "lease_seconds": float(lease_seconds)}
        if lease_token is None and isinstance(ask, Ask):
            lease_token = ask.lease_token
        if lease_token is not None:
            body["lease"] = str(lease_token)
        return self.client.request("POST", self._path + "/heartbeat", body)

    def tell(
        self,
        ask: Union[Ask, int],
        f: Optional[float] = None,
        g: Sequence[float] = (),
        noise_std: Optional[float] = None,
        values: Optional[Mapping[str, float]] = None,
        failed: bool = False,
    ) -> JSON:
        """Report the measurement of an ask (POST …/tell).

        Args:
            ask: the :class:`Ask` or its id.
            f: the measured objective.
            g: the measured constraints, one per threshold (empty for a
                study without constraints).
            noise_std: this measurement's noise standard deviation, if it
                differs from the model's.
            values: a study stated in parameters: every outcome's measured
                value by name, in raw units, instead of f and g, e.g.
                ``{"settle_time": 4.1, "overshoot": 0.012}``.
            failed: the trial produced no values (a crash, a tripped
                interlock, a lost measurement): give no f, g or values. The
                setting is never asked again and counts against every limit
                (docs/safety.md, "Failed trials").

        Returns:
            the server's answer: ``observation``, ``index``, ``violation``,
            ``rounds`` and possibly ``warnings``.

        Raises:
            ValueError: f, g or noise_std is not finite.
            NotFound: an unknown ask.
            Conflict: the ask was already told or withdrawn.
        """
        body: JSON = {"ask": ask.id if isinstance(ask, Ask) else _integer(ask, "ask")}
        if failed:
            if f is not None or g or noise_std is not None or values is not None:
                raise ValueError("a failed trial has no values: give failed=True alone")
            body["failed"] = True
            return self.client.request("POST", self._path + "/tell", body)
        if values is not None:
            if f is not None or g or noise_std is not None:
                raise ValueError("values replaces f, g and noise_std: give values alone")
            body["values"] = _values(values)
            return self.client.request("POST", self._path + "/tell", body)
        if f is None:
            raise ValueError("give f (and g), or values for a study stated in parameters")
        return self._tell(body, f, g, noise_std)

    def tell_params(self, params: Mapping[str, Any], values: Optional[Mapping[str, float]] = None, failed: bool = False) -> JSON:
        """Report a measurement made outside the ask/tell loop of a study
        stated in parameters: at setting ``params`` (every parameter by
        name, raw units), the outcomes ``values`` by name (POST …/tell);
        ``failed=True`` instead of values: a trial there produced none."""
        p: JSON = {}
        for k, v in params.items():
            if isinstance(v, bool) or not isinstance(v, (int, float, str)):
                raise ValueError(f"params[{k!r}] must be a number or a string, got {type(v).__name__}")
            p[str(k)] = v
        if failed:
            if values is not None:
                raise ValueError("a failed trial has no values: give failed=True alone")
            return self.client.request("POST", self._path + "/tell", {"params": p, "failed": True})
        if values is None:
            raise ValueError("give values, or failed=True")
        return self.client.request("POST", self._path + "/tell", {"params": p, "values": _values(values)})

    def best(self) -> Optional[JSON]:
        """The best safe trial so far of a study stated in parameters,
        ``{"trial", "params", "values"}`` in raw units (the summary's
        ``best``; another study's best safe action), or None before one."""
        return self.summary().get("best")

    def tell_at(
        self,
        x: Union[Sequence[float], float],
        f: float,
        g: Sequence[float] = (),
        noise_std: Optional[float] = None,
        context: Optional[Mapping[str, float]] = None,
    ) -> JSON:
        """Report a measurement outside the ask/tell loop, at point ``x``
        (a number for a 1-D study), POST …/tell with ``"x"``; ``context``:
        the context it was made in, for a study with a context."""
        xs = [float(x)] if isinstance(x, (int, float)) else [float(v) for v in x]
        return self._tell({"x": xs}, f, g, noise_std, context)

    def tell_index(
        self,
        index: int,
        f: float,
        g: Sequence[float] = (),
        noise_std: Optional[float] = None,
        context: Optional[Mapping[str, float]] = None,
    ) -> JSON:
        """Report a measurement of action ``index`` of a finite decision set
        outside the ask/tell loop (POST …/tell with ``"index"``); ``context``:
        the context it was made in, for a study with a context."""
        return self._tell({"index": _integer(index, "index")}, f, g, noise_std, context)

    def _tell(
        self,
        body: JSON,
        f: float,
        g: Sequence[float],
        noise_std: Optional[float],
        context: Optional[Mapping[str, float]] = None,
    ) -> JSON:
        body["f"] = float(f)
        body["g"] = [float(v) for v in g]
        if noise_std is not None:
            body["noise_std"] = float(noise_std)
        if context is not None:
            body["context"] = _context(context)
        return self.client.request("POST", self._path + "/tell", body)

    def retract(self, observation: Optional[int] = None, trial: Optional[int] = None) -> JSON:
        """Withdraw observation number ``observation``, or a study stated
        in parameters' trial ``trial`` (POST …/retract): one of the two.

        Returns:
            the server's answer: ``retraction``, ``observation``, ``index``,
            ``rounds``, and ``withdrawn_asks``, every ask that was pending
            (all withdrawn, since they were chosen with the retracted value;
            ``withdrawn_ask`` is the first of them).
        """
        if (observation is None) == (trial is None):
            raise ValueError("give one of observation and trial")
        if trial is not None:
            return self.client.request("POST", self._path + "/retract", {"trial": _integer(trial, "trial")})
        return self.client.request("POST", self._path + "/retract", {"observation": _integer(observation, "observation")})

    def extend(self, horizon: int) -> JSON:
        """Raise the study's horizon to ``horizon`` (POST …/extend), with no
        ask pending: a finished study goes on, its record kept.

        Returns:
            the server's answer: ``extension``, ``horizon``, ``rounds``.

        Raises:
            Conflict: not above the current horizon, or asks are pending.
        """
        return self.client.request("POST", self._path + "/extend", {"horizon": _integer(horizon, "horizon")})

    def import_observations(self, rows: Sequence[JSON]) -> JSON:
        """Import earlier measurements, all or none (POST …/import): each row
        ``{"x": [...] or "index": I, "f": V, "g": [...], "noise_std"?: S}``,
        with ``"context": {...}`` for a study with a context."""
        return self.client.request("POST", self._path + "/import", list(rows))

    def posterior(
        self, points: Sequence[Sequence[float]], context: Optional[Mapping[str, float]] = None
    ) -> JSON:
        """Posterior mean, standard deviation and confidence bounds of f and
        each g at ``points`` (POST …/posterior), taken in ``context`` for a
        study with a context."""
        body: JSON = {"points": [[float(v) for v in p] for p in points]}
        if context is not None:
            body["context"] = _context(context)
        return self.client.request("POST", self._path + "/posterior", body)

    def observations(self) -> Any:
        """Every tell of the study, retracted ones flagged (GET …/observations)."""
        return self.client.request("GET", self._path + "/observations")

    def summary(self) -> JSON:
        """The study's summary, as ``safegp study show`` prints it
        (GET /v1/studies/{name}): rounds, safe set, best safe action, …"""
        return self.client.request("GET", self._path)

    def optimize(
        self,
        objective: Callable[[Any], Any],
        n_trials: int,
        lease_seconds: Optional[float] = None,
        callback: Optional[Callable[["Study", Ask, JSON], None]] = None,
    ) -> List[JSON]:
        """Run ``n_trials`` rounds of ask → ``objective`` → tell.

        For a study stated in parameters ``objective`` gets the ask's
        ``params`` (by name, raw units) and returns every outcome's value
        by name, e.g. ``{"settle_time": 4.1, "overshoot": 0.012}``; for
        another study it gets the point ``x`` and returns ``(f, g)``, g a
        sequence of constraint values (or one number, or ``()`` for a study
        without constraints), or ``{"f": f, "g": [...]}``.

        It stops early, without an error, when the study reaches its
        horizon. If ``objective`` raises, the ask stays pending (the next
        ask hands it out again, unless leased) and the exception goes to
        the caller. ``callback(study, ask, answer)`` runs after each tell.

        Returns:
            the tell answers, one per trial run (``observation``,
            ``violation``, ``rounds``, ``trial`` and ``best`` for a study
            stated in parameters, ``warnings`` when the value looked wrong).
        """
        n = _integer(n_trials, "n_trials")
        answers: List[JSON] = []
        for _ in range(n):
            try:
                a = self.ask(lease_seconds=lease_seconds)
            except Conflict as e:
                if "horizon" in e.message:
                    break
                raise
            if a.params is not None:
                out = objective(dict(a.params))
                if not isinstance(out, Mapping):
                    raise TypeError(f"safegp: objective must return the outcomes by name (a dict) for a study stated in parameters, got {type(out).__name__}")
                answer = self.tell(a, values=out)
            else:
                f, g = _fg(objective(list(a.x or [])))
                answer = self.tell(a, f, g)
            answers.append(answer)
            if callback is not None:
                callback(self, a, answer)
        return answers

    def trials(self, retracted: bool = True) -> List[JSON]:
        """Every measurement told, in order, as plain records (GET
        …/observations). A study stated in parameters gives ``trial``,
        ``params`` and ``values`` (raw units); another ``observation``,
        ``index``, ``x``, ``f`` and ``g``. Both give ``violation``,
        ``retracted`` and ``created`` (RFC 3339). ``retracted=False`` leaves
        the retracted ones out."""
        def read(obs: Any) -> List[JSON]:
            out = []
            for o in obs:
                r = dict(o)
                if "trial" not in r:
                    r["observation"] = r.pop("seq")
                if retracted or not r.get("retracted"):
                    out.append(r)
            return out

        return _shaped(self.observations(), read, "GET " + self._path + "/observations")

    def trials_dataframe(self, retracted: bool = True) -> Any:
        """:meth:`trials` as a pandas DataFrame, one row a trial, with the
        nested fields as columns ``params_NAME`` and ``values_NAME`` (as
        Optuna names them), or ``x1`` … ``xd`` and ``g1`` … ``gm``.

        Raises:
            ImportError: pandas is not installed (the client itself needs
                only the standard library).
        """
        try:
            import pandas  # type: ignore[import-not-found]
        except ImportError as e:
            raise ImportError("safegp: trials_dataframe needs pandas; trials() gives the same records without it") from e
        return pandas.DataFrame(flatten_trials(self.trials(retracted)))


def flatten_trials(trials: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """Records of :meth:`Study.trials` with their nested fields as flat
    keys: ``params_NAME``, ``values_NAME``, ``context_NAME``, ``x1`` …,
    ``g1`` …, in the order of the records' fields."""
    out = []
    for t in trials:
        r: Dict[str, Any] = {}
        for k, v in t.items():
            if isinstance(v, Mapping):
                for name, w in v.items():
                    r[f"{k}_{name}"] = w
            elif k in ("x", "g") and isinstance(v, (list, tuple)):
                for i, w in enumerate(v):
                    r[f"{k}{i + 1}"] = w
            else:
                r[k] = v
        out.append(r)
    return out


def _fg(out: Any) -> Tuple[float, List[float]]:
    """An objective's answer for a study not stated in parameters: (f, g),
    (f, one number), f alone, or {"f": f, "g": [...]}."""
    if isinstance(out, Mapping):
        if "f" not in out:
            raise TypeError("safegp: objective returned a dict without \"f\"")
        g = out.get("g", ())
    elif isinstance(out, (tuple, list)) and len(out) == 2:
        out, g = {"f": out[0]}, out[1]
    elif isinstance(out, (int, float)) and not isinstance(out, bool):
        out, g = {"f": out}, ()
    else:
        raise TypeError(f"safegp: objective must return (f, g), f, or {{\"f\": f, \"g\": [...]}}, got {out!r}")
    gs = [float(g)] if isinstance(g, (int, float)) and not isinstance(g, bool) else [float(v) for v in g]
    return float(out["f"]), gs


def _retry_wait(e: SafegpError, attempt: int) -> Optional[float]:
    """Seconds to wait before sending a request again after error e, or
    None when it is not to be sent again. 503 and 409 "stale study" say
    the request changed nothing; the wait doubles from 0.25 s up to 8 s,
    with jitter (half to all of it) so that workers refused together do
    not come back together, and is at least the server's Retry-After
    (up to a minute)."""
    if isinstance(e, Conflict) and "stale study" not in e.message:
        return None
    if not isinstance(e, (Unavailable, Conflict)):
        return None
    wait = min(8.0, 0.25 * 2**attempt) * (0.5 + 0.5 * random.random())
    if isinstance(e, Unavailable) and e.retry_after is not None:
        wait = max(wait, min(float(e.retry_after), 60.0))
    return wait


def _integer(value: Any, name: str) -> int:
    """An integer argument: an int, or a float that is integral (2.0); a
    bool, a fraction or anything else raises ValueError, so that a count of
    2.5 is never sent as 2."""
    if isinstance(value, bool):
        raise ValueError(f"safegp: {name} must be an integer, got {value!r}")
    try:
        return operator.index(value)  # int, and numpy's integers
    except TypeError:
        pass
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ValueError(f"safegp: {name} must be an integer, got {value!r}")


def _values(values: Mapping[str, float]) -> Dict[str, float]:
    out: Dict[str, float] = {}
    for k, v in values.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"values[{k!r}] must be a number, got {type(v).__name__}")
        out[str(k)] = float(v)
    return out


def _context(context: Mapping[str, float]) -> Dict[str, float]:
    """A context as the server takes it: names to floats (refused by the
    client with ValueError when not finite, before anything is sent)."""
    out = {str(k): float(v) for k, v in context.items()}
    _check_finite(out, "context")
    return out


def _error(e: urllib.error.HTTPError, limit: int = 64 << 10) -> SafegpError:
    """Turn an HTTP error answer into a SafegpError carrying its message."""
    try:
        raw = e.read(min(limit, 64 << 10) + 1)  # an error's message, not a document
    except Exception:  # pragma: no cover - a broken connection
        raw = b""
    message = _prefix(raw) or (e.reason or "")
    try:
        decoded = json.loads(raw)
        if isinstance(decoded, dict) and isinstance(decoded.get("error"), str):
            message = decoded["error"]
    except (ValueError, RecursionError):
        pass
    status = int(e.code)
    if status == 503:
        retry: Optional[float] = None
        try:
            ra = e.headers.get("Retry-After") if e.headers else None
            retry = float(ra) if ra is not None else None
        except ValueError:
            retry = None
        return Unavailable(status, str(message), retry)
    return _CLASSES.get(status, SafegpError)(status, str(message))



def _prefix(raw: Any, n: int = 200) -> str:
    """The start of an answer, for an error message."""
    if isinstance(raw, (bytes, bytearray)):
        text = bytes(raw[: n * 4]).decode("utf-8", "replace")
    else:
        text = repr(raw)
    text = text.strip()
    return text if len(text) <= n else text[:n] + "…"


def _decode(raw: bytes, status: int, method: str, path: str) -> Any:
    """An answer's JSON, or a SafegpError naming the status when it is not
    JSON (a proxy's HTML page, a truncated or nested-too-deep document)."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as e:
        kind = "nested too deep" if isinstance(e, RecursionError) else "not JSON"
        raise SafegpError(status, f"{method} {path}: the answer is {kind}: {_prefix(raw)}") from None


def _shaped(answer: Any, read: Callable[[Any], Any], what: str) -> Any:
    """read(answer), or a SafegpError when the answer lacks what safegp
    serve puts there (another server, a proxy): never a bare KeyError."""
    try:
        return read(answer)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
        raise SafegpError(200, f"{what}: the answer is not what safegp serve answers ({type(e).__name__}: {e}): {_prefix(json.dumps(answer)[:1000])}") from None


def _read_bounded(resp: Any, limit: int, method: str, path: str) -> bytes:
    """The answer's body, refused past limit bytes before it is held."""
    length = resp.headers.get("Content-Length") if resp.headers else None
    if length is not None and length.isdigit() and int(length) > limit:
        raise SafegpError(resp.status, f"{method} {path}: the answer has {int(length)} bytes, more than the client's max_answer of {limit}")
    # In pieces: HTTPResponse.read(n) makes an n-byte buffer first (Python
    # 3.9), which for n = max_answer cost 256 MiB a call.
    buf = bytearray()
    while True:
        piece = resp.read(min(1 << 20, limit + 1 - len(buf)))
        if not piece:
            return bytes(buf)
        buf += piece
        if len(buf) > limit:
            raise SafegpError(resp.status, f"{method} {path}: the answer is larger than the client's max_answer of {limit} bytes")


class _Watchdog:
    """Shuts a request's connection down once its deadline has passed, so
    that no read waits past it (used as a context manager around the
    request; the connection is handed to it by _opener)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.fired = False
        self._stopped = False
        self._sock: Optional[socket.socket] = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def __enter__(self) -> "_Watchdog":
        self._timer.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._timer.cancel()

    def connected(self, sock: socket.socket) -> None:
        with self._lock:
            self._sock = sock
            if self.fired:
                self._shut()

    def stop(self) -> bool:
        """Stop watching; whether the deadline had passed before."""
        with self._lock:
            self._stopped = True
            return self.fired

    def _fire(self) -> None:
        with self._lock:
            if self._stopped:
                return
            self.fired = True
            self._shut()

    def _shut(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _NoTokenAcrossOrigins(urllib.request.HTTPRedirectHandler):
    """Follows a redirect, dropping the bearer token when it leads to
    another scheme, host or port (as ``requests`` does): the token opens
    every study, and a redirect must not hand it to another server."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _origin(req.full_url) != _origin(new.full_url):
            for k in list(new.headers):
                if k.lower() == "authorization":
                    del new.headers[k]
            new.unredirected_hdrs.pop("Authorization", None)
        return new


def _origin(url: str) -> Tuple[str, str, Optional[int]]:
    u = urllib.parse.urlsplit(url)
    port = u.port or {"http": 80, "https": 443}.get(u.scheme)
    return u.scheme, (u.hostname or "").lower(), port


def _opener(watch: _Watchdog) -> urllib.request.OpenerDirector:
    """An opener whose connections report to watch, and whose redirects
    keep the token to the server it was meant for."""

    class Conn(http.client.HTTPConnection):
        def connect(self) -> None:
            super().connect()
            watch.connected(self.sock)

    class Conns(http.client.HTTPSConnection):
        def connect(self) -> None:
            super().connect()
            watch.connected(self.sock)

    class Plain(urllib.request.HTTPHandler):
        def http_open(self, req):  # type: ignore[no-untyped-def]
            return self.do_open(Conn, req)

    class Secure(urllib.request.HTTPSHandler):
        def https_open(self, req):  # type: ignore[no-untyped-def]
            return self.do_open(Conns, req, context=self._context)

    return urllib.request.build_opener(Plain, Secure, _NoTokenAcrossOrigins)
