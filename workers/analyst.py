"""An analyst: a process of its own that computes decision analyses at the lowest CPU priority, and its handle.

An analysis is a minute of pure Python on one core.  As a thread of a ``red7 worker`` it held the process's GIL for
most of that minute, and the AI turns the process's other threads were to play waited for it: with a flood of
analyses, the largest gap between two moves of an all-AI game went from 21 ms to 178 ms (issue 34).  So it is computed
in a child process, which shares no GIL, and which takes only CPU that nothing else wants:

- it asks the kernel for the lowest priority there is, ``SCHED_IDLE`` on Linux (a task of that class runs only on a
  core no other task wants, and is preempted as soon as one does), ``nice`` 19 elsewhere;
- and it steps aside itself while the host has no CPU to spare (:func:`pace`): every few milliseconds of its own CPU
  it looks at how many tasks are runnable (``procs_running`` in ``/proc/stat``), and while they would leave fewer
  than ``RED7_ANALYSIS_SPARE_CPUS`` (1) of the CPUs it may use idle, it sleeps.  The priority alone was not enough:
  two analysts at ``SCHED_IDLE`` on a 2-core host busy with all-AI games made the median of the games' largest gaps
  between two moves 1.1 to 3.5 times longer (a core the analyst holds is not idle: a game's thread that wakes must
  preempt it and finds the caches full of the analysis, and the kernel pulls no waiting task to it), and stepping
  aside only when every core was wanted, 1.1 to 1.5 times, with fewer games; stepping aside so that a core stays idle
  for the games' bursts, they were as they were without: 0.92 to 1.07 times (``bench/analysis_flood_bench.py``).

The AI turns, the deadlines and the API's requests then never wait for an analysis; an analysis waits for them, and
runs at full speed on cores left idle.  On a host that is never idle, analyses wait: give them workers of their own
(``red7 worker --kind analyses``, with ``RED7_ANALYSIS_SPARE_CPUS=0`` on a host of analyses alone; README,
"Decision analyses' capacity").

The child knows nothing of Redis or the service: its parent (:class:`Analyst`, in an analyst's thread of a
``red7 worker`` or of the embedded server, whose in-memory store no other process can reach) reads the replay, writes
it to the child's stdin as one line of JSON, and reads back lines of JSON: ``{"progress": [done, total]}`` after each
decision, then ``{"result": …}`` or ``{"error": "…"}``.  The child lives as long as its parent's analyst (one analysis
at a time, started again if it dies), and ends with its parent: on Linux the kernel kills it when the parent thread
that started it ends (``PR_SET_PDEATHSIG``), and everywhere it ends when its parent's end closes its stdin, or when it
finds itself another's child.

    python -m workers.analyst [--spare N | --unpaced]     # what Analyst starts; reads tasks from stdin
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

log = logging.getLogger("red7.analysts")

#: The most CPU one analysis may take in its process (seconds): past it the analysis fails (an analysis of the
#: longest games takes about a minute: bench/analysis_bench.py).
CPU_SECONDS = 600.0

#: The most wall time one analysis may take (seconds): at the lowest priority on a host busy with games an analysis
#: waits for idle CPU, so this is far above :data:`CPU_SECONDS`; past it the child is killed and the analysis fails.
WALL_SECONDS = 6 * 3600.0

#: How often the parent looks whether it should stop (seconds), between two of the child's lines.
LOOK_EVERY = 0.5

#: How often the child looks whether the host has CPU to spare (seconds of its own CPU), how long it steps aside when
#: not (seconds), and the longest it steps aside before it looks at its own work again (seconds).
PACE_EVERY = 0.004
STEP_ASIDE = 0.003
STEP_ASIDE_MOST = 1.0


class Interrupted(Exception):
    """The analysis was stopped before its end, not failed: its parent stops, or its lease went to another analyst."""


class AnalysisFailed(Exception):
    """The child could not analyse the replay, or died, or went past its time."""


def lower_priority() -> str:
    """Ask the kernel for the CPU only when nothing else wants it; what was granted, to log."""
    if hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE"):
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
            return "SCHED_IDLE"
        except OSError:
            pass
    if hasattr(os, "nice"):
        try:
            os.nice(19 - os.nice(0))
            return "nice 19"
        except OSError:
            pass
    return "normal priority (this system offers no lower one)"


def runnable_besides_me(stat: str = "/proc/stat") -> int | None:
    """How many tasks on the host are runnable now besides this one (Linux's ``procs_running``); ``None``: unknown."""
    try:
        with open(stat, "rb") as lines:
            for line in lines:
                if line.startswith(b"procs_running "):
                    return int(line.split()[1]) - 1
    except (OSError, ValueError):
        return None
    return None


def cpus_usable() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def busy_at(cpus: int, spare: int) -> int:
    """How many other runnable tasks leave too few of ``cpus`` CPUs idle: all but ``spare`` of them taken (with this
    process on one), and never fewer than one (a host of one CPU lends it while nothing else wants it)."""
    return max(1, cpus - spare)


def step_aside(others: Callable[[], int | None], busy: int, sleep: Callable[[float], None] = time.sleep) -> float:
    """Sleep while ``others()`` (runnable tasks besides this one) is ``busy`` or more, at most :data:`STEP_ASIDE_MOST`;
    how long it slept."""
    slept = 0.0
    while slept < STEP_ASIDE_MOST and (others() or 0) >= busy:
        sleep(STEP_ASIDE)
        slept += STEP_ASIDE
    return slept


def pace(spare: int) -> bool:
    """Step aside while the host has no CPU to spare, ``spare`` of them left idle (see the module): a look every
    :data:`PACE_EVERY` seconds of this process's CPU (``SIGPROF``: no wake-up while it waits for a task); whether it is
    paced (Linux only)."""
    if runnable_besides_me() is None or not hasattr(signal, "setitimer"):
        return False
    busy = busy_at(cpus_usable(), spare)
    signal.signal(signal.SIGPROF, Pacer(runnable_besides_me, busy))
    signal.setitimer(signal.ITIMER_PROF, PACE_EVERY, PACE_EVERY)
    return True


class Pacer:
    """The ``SIGPROF`` handler: :func:`step_aside`, never inside itself.

    Looking at the host (reading ``/proc/stat``) costs CPU too, so on a host that stays busy the profiling timer fires
    again while the handler still looks, and Python runs a handler between any two bytecodes, its own included: each
    firing started another look inside the last, until the stack overflowed (``RecursionError`` in CI, whose host is
    busy for minutes on end).  A firing while a look is under way is passed over; the look under way goes on.
    """

    def __init__(self, others: Callable[[], int | None], busy: int, sleep: Callable[[float], None] = time.sleep) -> None:
        self.others, self.busy, self.sleep = others, busy, sleep
        self.looking = False

    def __call__(self, number: int = signal.SIGPROF, frame: object = None) -> None:
        if self.looking:
            return
        self.looking = True
        try:
            step_aside(self.others, self.busy, self.sleep)
        finally:
            self.looking = False


def die_with_parent() -> None:
    """On Linux, be killed when the parent thread that started this process ends (``kill -9`` of the worker too)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _orphan_watch(parent: int) -> None:
    """Everywhere else: leave when this process is no longer its parent's (the parent died)."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(1)


def child_main(stdin: IO[bytes], stdout: IO[bytes], *, paced: bool = True, spare: int = 1, lowest: bool = True) -> int:
    """The child: analyse each task read from ``stdin`` and say its progress and result on ``stdout``."""
    said = lower_priority() if lowest else "normal priority (as asked)"  # first: even its imports take only spare CPU
    die_with_parent()
    threading.Thread(target=_orphan_watch, args=(os.getppid(),), name="red7-orphan-watch", daemon=True).start()
    from replays.analysis import analyse_document  # here: the parent's side imports no engine

    timed = paced and pace(spare)
    if timed:
        said += f", stepping aside while fewer than {spare} CPU(s) would be left idle"
    sys.stderr.write(f"red7 analyst {os.getpid()}: at {said}\n")
    sys.stderr.flush()

    def say(message: dict[str, Any]) -> None:
        stdout.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        stdout.flush()

    try:
        for line in stdin:
            analyse_one(json.loads(line), analyse_document, say)
    finally:
        if timed:  # else its signal, its handler gone at the interpreter's end, would end the process with it
            signal.setitimer(signal.ITIMER_PROF, 0)
    return 0


def analyse_one(task: dict[str, Any], analyse: Callable[..., dict[str, Any]], say: Callable[[dict[str, Any]], None]) -> None:
    """One task: its progress after each decision, then its result or its error, said with ``say``."""
    started = time.process_time()
    budget = float(task.get("cpu_seconds", CPU_SECONDS))

    def progress(done: int, total: int) -> None:
        if time.process_time() - started > budget:
            raise TimeoutError(f"past its {budget:.0f} s of CPU")
        say({"progress": [done, total]})

    try:
        result = analyse(task["document"], progress=progress)
    except Exception as error:
        say({"error": f"{type(error).__name__}: {error}"})
        return
    say({"result": result})


class Analyst:
    """One child process (see the module), started when first needed and again after it dies; one analysis at a time."""

    def __init__(
        self,
        name: str,
        *,
        cpu_seconds: float = CPU_SECONDS,
        wall_seconds: float = WALL_SECONDS,
        paced: bool = True,
        spare: int = 1,
        lowest: bool = True,
    ) -> None:
        self.name, self.cpu_seconds, self.wall_seconds = name, cpu_seconds, wall_seconds
        self.paced, self.spare, self.lowest = paced, spare, lowest
        self.process: subprocess.Popen[bytes] | None = None
        self._child_output: queue.Queue[bytes | None] = queue.Queue()

    def _child(self) -> subprocess.Popen[bytes]:
        if self.process is not None and self.process.poll() is None:
            return self.process
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "workers.analyst",
                *(["--spare", str(self.spare)] if self.paced else ["--unpaced"]),
                *([] if self.lowest else ["--normal-priority"]),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # its few words go where this process's go
            close_fds=True,
        )
        self._child_output = queue.Queue()
        assert self.process.stdout is not None
        reader = threading.Thread(target=self._read, args=(self.process.stdout, self._child_output), name=f"{self.name}-reader")
        reader.daemon = True
        reader.start()
        return self.process

    @staticmethod
    def _write(stream: IO[bytes], task: bytes) -> None:
        with contextlib.suppress(OSError, ValueError):  # the child died, or was closed: its reader says so
            stream.write(task)
            stream.flush()

    @staticmethod
    def _read(stream: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
        """The child's lines, as they come (a thread: the analyst's own waits with a timeout, to look at its stop)."""
        for line in stream:
            lines.put(line)
        lines.put(None)  # the child ended

    def analyse(
        self,
        document: dict[str, Any],
        progress: Callable[[int, int], None],
        *,
        keep_going: Callable[[], bool] = lambda: True,
    ) -> dict[str, Any]:
        """The analysis of ``document``, computed by the child; ``progress`` told after each decision.

        ``keep_going`` is asked every :data:`LOOK_EVERY` seconds while the child computes: ``False`` kills the child
        and raises :class:`Interrupted` (a stopping worker, a lease lost).  The child's failure, death or overtime
        raises :class:`AnalysisFailed`.
        """
        child = self._child()
        assert child.stdin is not None
        task = json.dumps({"document": document, "cpu_seconds": self.cpu_seconds}, separators=(",", ":")).encode() + b"\n"
        # Written by a thread of its own: a replay larger than the pipe's buffer waits for the child to read it, and
        # the child, at its priority, may wait for the CPU meanwhile; this thread keeps looking at its stop.
        threading.Thread(target=self._write, args=(child.stdin, task), name=f"{self.name}-writer", daemon=True).start()
        deadline = time.monotonic() + self.wall_seconds
        looked = time.monotonic()
        while True:
            try:
                line: bytes | None = self._child_output.get(timeout=LOOK_EVERY)
            except queue.Empty:
                line = b""
            now = time.monotonic()
            if now - looked >= LOOK_EVERY:  # between two lines, however often they come
                looked = now
                if not keep_going():
                    self.close()
                    raise Interrupted("stopped before the analysis ended")
                if now > deadline:
                    self.close()
                    raise AnalysisFailed(f"no result within {self.wall_seconds:.0f} s")
            if line == b"":
                continue
            if line is None:
                code = child.wait()
                self.process = None
                raise AnalysisFailed(f"the analyst's process ended (exit status {code}) before its result")
            message = json.loads(line)
            if "progress" in message:
                progress(*message["progress"])
            elif "result" in message:
                return dict(message["result"])
            else:
                raise AnalysisFailed(str(message.get("error", message)))

    def close(self) -> None:
        """End the child (it is started again for the next analysis)."""
        child, self.process = self.process, None
        if child is None:
            return
        with contextlib.suppress(OSError):
            if child.stdin is not None:
                child.stdin.close()
        if child.poll() is None:
            child.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(5)


def _main(argv: list[str]) -> int:
    options = argparse.ArgumentParser(prog="python -m workers.analyst", description="a red7 analyst's child process")
    options.add_argument("--unpaced", action="store_true", help="never step aside (the priority alone)")
    options.add_argument("--spare", type=int, default=1, help="CPUs left idle for everything else (default 1)")
    options.add_argument("--normal-priority", action="store_true", help="keep the priority it was started with")
    args = options.parse_args(argv)
    paced, lowest = not args.unpaced, not args.normal_priority
    return child_main(sys.stdin.buffer, sys.stdout.buffer, paced=paced, spare=max(0, args.spare), lowest=lowest)


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
