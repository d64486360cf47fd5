"""Jobs' timeouts, kept by one watchdog thread per process instead of a timer thread per job (RQ's way)."""

from __future__ import annotations

import ctypes
import itertools
import threading
import time

from rq.timeouts import BaseDeathPenalty

#: How often the watchdog looks for a job past its timeout (seconds): a timeout is kept to within this.
WATCH_EVERY = 0.5


class _Watchdog:
    """One thread per process that keeps every running job's timeout, where RQ's ``TimerDeathPenalty`` started a
    ``threading.Timer`` (a thread) for each job and cancelled it after: ~75 µs of CPU a job, more than some jobs.

    A job past its timeout gets the timeout exception raised in its thread (``PyThreadState_SetAsyncExc``, as RQ's
    timer does); arming and disarming are a dict's insert and delete under a lock, and the thread wakes every
    :data:`WATCH_EVERY` seconds while any job is armed (jobs' timeouts are minutes).
    """

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._armed: dict[int, tuple[float, int, type[BaseException]]] = {}
        self._tokens = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float, exception: type[BaseException]) -> int:
        """Raise ``exception`` in the calling thread ``seconds`` from now unless disarmed first; a token to disarm."""
        with self._lock:
            token = next(self._tokens)
            self._armed[token] = (time.monotonic() + seconds, threading.get_ident(), exception)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._watch, name="red7-job-timeouts", daemon=True)
                self._thread.start()
            elif len(self._armed) == 1:
                self._lock.notify()  # it sleeps while nothing is armed
        return token

    def disarm(self, token: int) -> None:
        with self._lock:
            self._armed.pop(token, None)

    def _watch(self) -> None:
        with self._lock:
            while True:
                now = time.monotonic()
                for token, (due, thread_id, exception) in list(self._armed.items()):
                    if due <= now:
                        del self._armed[token]
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exception))
                self._lock.wait(WATCH_EVERY if self._armed else None)


_watchdog = _Watchdog()
#: Timeout exceptions that say their timeout, by the exception and the timeout (:meth:`WatchdogDeathPenalty._with_message`).
_SAYING_TIMEOUTS: dict[tuple[type[BaseException], float], type[BaseException]] = {}


class WatchdogDeathPenalty(BaseDeathPenalty):
    """RQ's job timeout kept by this process's one watchdog thread (:class:`_Watchdog`), not a timer thread a job."""

    def setup_death_penalty(self) -> None:
        self._token: int | None = None
        if self._timeout > 0:
            self._token = _watchdog.arm(self._timeout, self._with_message(self._exception, self._timeout))

    def cancel_death_penalty(self) -> None:
        if self._token is not None:
            _watchdog.disarm(self._token)
            self._token = None

    @classmethod
    def _with_message(cls, exception: type[BaseException], timeout: float) -> type[BaseException]:
        """``exception`` saying the timeout it exceeded (it is raised as a class, so the message is the class's)."""
        key = (exception, timeout)
        if key not in _SAYING_TIMEOUTS:
            text = f"Task exceeded maximum timeout value ({timeout} seconds)"

            def init(self: BaseException, *args: object) -> None:
                BaseException.__init__(self, text)

            _SAYING_TIMEOUTS[key] = type(exception.__name__, (exception,), {"__init__": init})
        return _SAYING_TIMEOUTS[key]
