# Sourced by scripts/dev, scripts/test and .ci/run: makes .venv and installs the locked
# development requirements (requirements-dev.lock: exact versions with hashes, generated from
# pyproject.toml by uv) whenever the lock changed since the last install. Needs python3.11 on
# PATH (python3 if it is 3.11).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"
PY="${PYTHON:-$(command -v python3.11 || command -v python3)}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "» Creating the virtual environment in $VENV"
  "$PY" -m venv "$VENV"
fi
stamp="$VENV/.requirements.sha256"
want="$(sha256sum < "$ROOT/requirements-dev.lock" | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "» Installing the locked requirements"
  log="$VENV/.pip-install.log"
  # uv installs the lock in seconds where pip takes over a minute; uv itself comes from the same
  # lock (its pinned version and hashes), through pip. Should uv fail, pip installs the lock.
  uv_pin="$VENV/.uv-requirement.txt"
  awk '/^uv==/{on=1} on{print; if ($0 !~ /\\$/) exit}' "$ROOT/requirements-dev.lock" >"$uv_pin"
  if ! { [ -s "$uv_pin" ] \
         && "$VENV/bin/python" -m pip install --disable-pip-version-check -q --require-hashes \
              --no-deps -r "$uv_pin" \
         && "$VENV/bin/uv" pip install -q --python "$VENV/bin/python" --require-hashes \
              -r "$ROOT/requirements-dev.lock"; } >"$log" 2>&1; then
    echo "» uv could not install them (see $log); pip installs them (takes a minute or two)"
    if ! "$VENV/bin/python" -m pip install --disable-pip-version-check -q --require-hashes \
        -r "$ROOT/requirements-dev.lock" >"$log" 2>&1; then
      grep -v "^WARNING: Location" "$log" >&2 || true
      echo "Installing the locked requirements failed; see the messages above." >&2
      exit 1
    fi
  fi
  grep -v "^WARNING: Location" "$log" || true
  echo "$want" > "$stamp"
fi
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
