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

The standard library only: no supervisor daemon to install and configure in the image.
"""

from __future__ import annotations

import argparse
import logging
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
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
    child: subprocess.Popen[bytes] | None = None
    stopping: bool = False
    restarts: int = 0
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
            code = self.child.wait()
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

    def _pause(self, seconds: float) -> bool:
        """Wait ``seconds`` unless told to stop meanwhile; whether to go on."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self.stopping:
                return False
            time.sleep(min(0.1, max(end - time.monotonic(), 0)))
        return not self.stopping


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--name", default="process")
    parser.add_argument("--min-delay", type=float, default=1.0)
    parser.add_argument("--max-delay", type=float, default=30.0)
    parser.add_argument("--healthy-after", type=float, default=60.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to supervise after --")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    supervisor = Supervisor(
        args.name, command,
        min_delay=args.min_delay, max_delay=args.max_delay, healthy_after=args.healthy_after,
    )
    supervisor.install_handlers()
    return supervisor.run()


if __name__ == "__main__":
    sys.exit(main())
