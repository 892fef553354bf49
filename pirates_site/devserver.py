"""The development web server (Procfile.dev's ``web``): Django's runserver on this machine only.

    python -m pirates_site.devserver          # runserver 127.0.0.1:$PIRATES_PORT (8000)
    python -m pirates_site.devserver --print  # the command line it would run, and nothing else

It listens on 127.0.0.1 unless PIRATES_HOST names another address (``0.0.0.0`` for every
interface, to try the site from a phone on the same network). The development server and its
outbox page (everyone's log-in links and reply boxes) are not for other machines; the outbox
refuses them anyway (games/views/site.py).
"""

from __future__ import annotations

import ipaddress
import os
import shlex
import sys
from collections.abc import Mapping

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


class DevServerError(ValueError):
    """PIRATES_HOST or PIRATES_PORT is not usable; the message says which and why."""


def address(env: Mapping[str, str]) -> str:
    """``host:port`` for runserver from PIRATES_HOST and PIRATES_PORT (IPv6 in brackets)."""
    host = (env.get("PIRATES_HOST") or DEFAULT_HOST).strip()
    if host.lower() == "localhost":
        host = DEFAULT_HOST
    port_text = (env.get("PIRATES_PORT") or str(DEFAULT_PORT)).strip()
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise DevServerError(f"PIRATES_PORT={port_text!r} is not a port number (1-65535)")
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        raise DevServerError(
            f"PIRATES_HOST={host!r} is not an IP address: use 127.0.0.1 (the default), ::1 or 0.0.0.0"
        ) from None
    shown = f"[{ip}]" if ip.version == 6 else str(ip)
    return f"{shown}:{int(port_text)}"


def command(env: Mapping[str, str]) -> list[str]:
    return [sys.executable, "manage.py", "runserver", address(env)]


def main(args: list[str]) -> int:
    try:
        argv = command(os.environ)
    except DevServerError as exc:
        sys.stderr.write(f"Configuration error: {exc}\n")
        return 2
    if args == ["--print"]:
        print(shlex.join(argv))
        return 0
    if args:
        sys.stderr.write("usage: python -m pirates_site.devserver [--print]\n")
        return 2
    os.execv(argv[0], argv)
    return 0  # not reached: execv replaces this process


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
