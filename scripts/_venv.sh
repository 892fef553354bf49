# Sourced by scripts/dev and scripts/test: makes .venv and installs the pinned requirements
# when they changed since the last install. Needs python3.11 on PATH (python3 if it is 3.11).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"
PY="${PYTHON:-$(command -v python3.11 || command -v python3)}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "» Creating the virtual environment in $VENV"
  "$PY" -m venv "$VENV"
fi
stamp="$VENV/.requirements.sha256"
want="$(cat "$ROOT/requirements.txt" "$ROOT/requirements-dev.txt" | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "» Installing the pinned requirements (first run takes a minute)"
  "$VENV/bin/python" -m pip install --disable-pip-version-check -q -r "$ROOT/requirements-dev.txt" 2>&1 \
    | grep -v "^WARNING: Location" || true
  "$VENV/bin/python" -c "import django, celery, rest_framework, pytest" \
    || { echo "Installing the requirements failed; see the messages above." >&2; exit 1; }
  echo "$want" > "$stamp"
fi
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
