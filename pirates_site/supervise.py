"""Keep one long-running process alive: start it, and start it again whenever it exits.

    python pirates_site/supervise.py --name worker -- celery -A pirates_site worker ...

(Run by path, so the supervisor imports neither Django nor the Celery app: only its child does.)

The Celery worker can die under us (kombu's Redis transport has been seen to raise out of the
worker while restoring unacknowledged messages as Redis stopped; the kernel's OOM killer; a
stray SIGKILL). Docker restarts a container whose main process exits, but natively (CI, a VM
without systemd) nothing would, and a restart in place is quicker than a new container anyway.
So ``docker/commands/worker`` and ``beat`` run their Celery process under this supervisor:

- the child runs in the foreground with our stdout/stderr, and its exit is logged with its
  status and how long it ran;
- it is started again after a pause that doubles from ``--min-delay`` (1 s) up to
  ``--max-delay`` (30 s) while it keeps dying young, and starts from the minimum again once a
  run lasted ``--healthy-after`` seconds (60), so a crash loop does not spin;
- SIGTERM, SIGINT and SIGQUIT are passed on to the child and end supervision; we exit with the
  child's status. SIGHUP is passed on without ending it.

A process can also hang alive: a Celery worker whose broker went away has been seen blocked
for ever in a socket read, consuming nothing, and an exit-only supervisor never noticed. With
``--liveness-file PATH --liveness-max-age SECONDS`` the child must also show that it works:
it touches PATH (the worker does for every task it starts from its queue, and beat sends it a
heartbeat task every few seconds, see pirates_site/lanes.py). A child whose file has not been
touched for more than max-age seconds is stopped (SIGTERM, then SIGKILL for it and the
processes it started if it is still there ``--stop-timeout`` seconds later, 20 by default)
and started again like a child that exited. A new child has ``--liveness-grace`` seconds
(by default max-age, and at least 60 s: starting takes a while on a busy machine) to touch the
file for the first time: a file older than the child, left by its predecessor, does not count.

The standard library only: no supervisor daemon to install and configure in the image.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

log = logging.getLogger("supervise")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT)


@dataclass
class Supervisor:
    name: str
    command: list[str]
    min_delay: float = 1.0
    max_delay: float = 30.0
    healthy_after: float = 60.0
    max_restarts: int | None = None  # None: for ever (a bound for tests)
    liveness_file: Path | None = None
    liveness_max_age: float = 120.0
    liveness_grace: float | None = None  # None: max-age, at least 60 s
    stop_timeout: float = 20.0
    check_every: float = 1.0
    child: subprocess.Popen[bytes] | None = None
    stopping: bool = False
    restarts: int = 0
    liveness_stops: int = 0
    delays: list[float] = field(default_factory=list)

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        if signum in STOP_SIGNALS:
            self.stopping = True
        if self.child is not None and self.child.poll() is None:
            self.child.send_signal(signum)

    def install_handlers(self) -> None:
        for signum in (*STOP_SIGNALS, signal.SIGHUP):
            signal.signal(signum, self.on_signal)

    def run(self) -> int:
        delay = self.min_delay
        while not self.stopping:
            started = time.monotonic()
            self.child = subprocess.Popen(self.command)
            log.info("supervise[%s]: started pid %s: %s", self.name, self.child.pid, " ".join(self.command))
            code = self._wait(self.child, time.time())
            ran = time.monotonic() - started
            if self.stopping:
                log.info("supervise[%s]: stopped (exit status %s)", self.name, code)
                return 128 - code if code < 0 else code  # killed by a signal: as a shell says it
            if self.max_restarts is not None and self.restarts >= self.max_restarts:
                log.error("supervise[%s]: exited with status %s; no restarts left", self.name, code)
                return code if code else 1
            if ran >= self.healthy_after:
                delay = self.min_delay
            log.warning("supervise[%s]: exited with status %s after %.1fs; restarting in %.0fs",
                        self.name, code, ran, delay)
            self.delays.append(delay)
            if not self._pause(delay):
                return code
            self.restarts += 1
            delay = min(delay * 2, self.max_delay)
        return 0

    def _wait(self, child: subprocess.Popen[bytes], started: float) -> int:
        """The child's exit status, once it exits or has been stopped for want of a heartbeat."""
        while True:
            try:
                return child.wait(timeout=None if self.liveness_file is None else self.check_every)
            except subprocess.TimeoutExpired:
                pass
            if self.stopping:
                continue  # the signal was passed on: wait for the child to act on it
            silence = self.silence(started)
            if silence is not None:
                return self._stop_silent(child, silence)

    def silence(self, started: float, now: float | None = None) -> float | None:
        """Seconds the child has gone without touching the liveness file, when that is too
        long (more than max-age since its last touch, or more than the grace since its start
        when it has not touched it yet); None while it is alive (or not watched).
        ``started`` and ``now`` are wall-clock times, as the file's mtime is."""
        if self.liveness_file is None:
            return None
        now = time.time() if now is None else now
        try:
            touched: float | None = self.liveness_file.stat().st_mtime
        except OSError:
            touched = None  # never written
        if touched is not None and touched >= started:
            silence, limit = now - touched, self.liveness_max_age
        else:  # not yet by this child: what is there is its predecessor's
            grace = max(self.liveness_max_age, 60.0) if self.liveness_grace is None else self.liveness_grace
            silence, limit = now - started, grace
        return silence if silence > limit else None

    def _stop_silent(self, child: subprocess.Popen[bytes], silence: float) -> int:
        log.error(
            "supervise[%s]: no sign of life in %s for %.0fs (more than %.0fs): stopping pid %s "
            "(SIGTERM, then SIGKILL after %.0fs)",
            self.name, self.liveness_file, silence, self.liveness_max_age, child.pid, self.stop_timeout,
        )
        self.liveness_stops += 1
        child.send_signal(signal.SIGTERM)
        try:
            return child.wait(timeout=self.stop_timeout)
        except subprocess.TimeoutExpired:
            pass
        # Its pool processes too: a hung worker's children may not notice it is gone.
        family = [child.pid, *descendants(child.pid)]
        log.error("supervise[%s]: pid %s still running after %.0fs: SIGKILL to %s",
                  self.name, child.pid, self.stop_timeout, " ".join(map(str, family)))
        for pid in family:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return child.wait()

    def _pause(self, seconds: float) -> bool:
        """Wait ``seconds`` unless told to stop meanwhile; whether to go on."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self.stopping:
                return False
            time.sleep(min(0.1, max(end - time.monotonic(), 0)))
        return not self.stopping


def descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, and theirs (Linux /proc; none found elsewhere)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*/children"):
            try:
                children = [int(word) for word in task.read_text().split()]
            except (OSError, ValueError):
                continue
            found.extend(children)
            todo.extend(children)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--name", default="process")
    parser.add_argument("--min-delay", type=float, default=1.0)
    parser.add_argument("--max-delay", type=float, default=30.0)
    parser.add_argument("--healthy-after", type=float, default=60.0)
    parser.add_argument("--liveness-file", type=Path, metavar="PATH",
                        help="restart the child when it stops touching this file")
    parser.add_argument("--liveness-max-age", type=float, metavar="SECONDS",
                        help="how long the file may go untouched (with --liveness-file)")
    parser.add_argument("--liveness-grace", type=float, metavar="SECONDS",
                        help="how long a new child has to touch it first (default: max-age, 60 at least)")
    parser.add_argument("--stop-timeout", type=float, default=20.0, metavar="SECONDS",
                        help="from SIGTERM to SIGKILL when a silent child is stopped (default 20)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to supervise after --")
    if (args.liveness_file is None) != (args.liveness_max_age is None):
        parser.error("--liveness-file and --liveness-max-age go together")
    limits = {"--liveness-max-age": args.liveness_max_age, "--liveness-grace": args.liveness_grace,
              "--stop-timeout": args.stop_timeout}
    for option, value in limits.items():
        if value is not None and not value > 0:
            parser.error(f"{option} must be a positive number of seconds (got {value})")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    supervisor = Supervisor(
        args.name, command,
        min_delay=args.min_delay, max_delay=args.max_delay, healthy_after=args.healthy_after,
        liveness_file=args.liveness_file, liveness_max_age=args.liveness_max_age or 0.0,
        liveness_grace=args.liveness_grace, stop_timeout=args.stop_timeout,
    )
    supervisor.install_handlers()
    return supervisor.run()


if __name__ == "__main__":
    sys.exit(main())
