"""A worker bootstep that runs ``tick(worker)`` every second from the worker's event loop."""

from __future__ import annotations

from typing import Any

from celery import bootsteps


class EverySecond(bootsteps.StartStopStep):
    """Runs ``tick`` every second from the worker's event loop, so a worker whose main thread
    is blocked runs none. Only where the loop runs: not the solo pool, whose task blocks it."""

    requires: tuple[str, ...] = ("celery.worker.components:Hub",)

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.timer: Any = None

    def include_if(self, w: Any) -> bool:
        return bool(w.use_eventloop)

    def start(self, w: Any) -> None:
        self.timer = w.hub.call_repeatedly(1.0, self.tick, w)

    def stop(self, w: Any) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    @staticmethod
    def tick(w: Any) -> None:
        raise NotImplementedError
