"""Container health check for the web process: exits 0 only when /healthz answers 200.

Standard library only (the slim image has no curl). It asks the local gunicorn on the port
from BIND (default 8000) and sends a Host header taken from ALLOWED_HOSTS, because Django
rejects requests for hosts it does not serve (127.0.0.1 is usually not in ALLOWED_HOSTS).
/healthz is exempt from the HTTPS redirect, so plain HTTP is fine.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def _port() -> str:
    bind = os.environ.get("BIND", "0.0.0.0:8000")
    return bind.rsplit(":", 1)[1] if ":" in bind else "8000"


def _host() -> str:
    for host in os.environ.get("ALLOWED_HOSTS", "").split(","):
        host = host.strip().lstrip(".")
        if host and "*" not in host:
            return host
    return "localhost"


def main() -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{_port()}/healthz", headers={"Host": _host()})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return 0 if response.status == 200 else 1
    except (urllib.error.URLError, OSError) as exc:
        sys.stderr.write(f"healthz failed: {exc}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
