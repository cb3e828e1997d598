#!/usr/bin/env bash
# moto's S3-compatible server, which Weir's tests run checkpoint storage against, from a
# project-local venv (.weir-tools/venv, git-ignored) pinned by scripts/s3-server-requirements.txt.
#
#   scripts/s3-server.sh install     create or update the venv; a quick no-op when it is current
#   scripts/s3-server.sh run [PORT]  install if needed, then serve on 127.0.0.1:PORT (0, the default,
#                                    lets the OS pick a free port; the server prints "Running on <url>")
#
# WEIR_PYTHON picks the interpreter (default python3; moto needs Python 3.9 or later).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.weir-tools"
VENV="$TOOLS/venv"
REQUIREMENTS="$ROOT/scripts/s3-server-requirements.txt"
STAMP="$VENV/.weir-requirements.sha256"

is_current() {
  [[ -x "$VENV/bin/moto_server" && -f "$STAMP" && "$(cat "$STAMP")" == "$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)" ]]
}

install() {
  is_current && return 0
  mkdir -p "$TOOLS"
  # Several test processes may call this at once: one installs, the others wait for it. The lock
  # lives in a subshell so that the server exec'd by 'run' does not inherit it.
  (
    if command -v flock >/dev/null; then flock 9; fi
    is_current || install_locked
  ) 9>"$TOOLS/install.lock"
}

install_locked() {
  local python="${WEIR_PYTHON:-python3}"
  if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' 2>/dev/null; then
    echo "s3-server: '$python' is missing or older than Python 3.9, which moto needs; set WEIR_PYTHON to a newer interpreter" >&2
    exit 1
  fi
  echo "s3-server: installing moto into $VENV" >&2
  local started=$SECONDS
  rm -rf "$VENV"
  "$python" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$REQUIREMENTS" >&2
  sha256sum "$REQUIREMENTS" | cut -d' ' -f1 >"$STAMP"
  echo "s3-server: installed in $((SECONDS - started))s" >&2
}

case "${1:-}" in
  install)
    install
    ;;
  run)
    install
    exec "$VENV/bin/moto_server" --host 127.0.0.1 --port "${2:-0}"
    ;;
  *)
    echo "usage: scripts/s3-server.sh install | run [PORT]" >&2
    exit 2
    ;;
esac
