#!/usr/bin/env bash
# web/scripts/setup.sh — what the web fronts' tests need, installed when missing; quick when done.
#
#   - Node ≥ 20.19 and npm (Vite 8); not installed here: the machine has them.
#   - web/node_modules from package-lock.json (`npm ci`), again only when the lock changed since
#     the last install (a stamp inside node_modules keeps its hash).
#   - Chromium for the browser tests: Debian's /usr/bin/chromium (`apt-get install chromium` as
#     root when missing). Playwright never downloads a browser. CHROMIUM_PATH names another one.
#
# Works from any directory, without a terminal (CI, as root).
set -euo pipefail
web=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "web/scripts/setup.sh: node and npm are needed (Node ≥ 20.19)" >&2
  exit 1
fi
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
  echo "web/scripts/setup.sh: Node $(node -v) is too old; Vite 8 needs ≥ 20.19" >&2
  exit 1
fi

stamp="$web/node_modules/.giro-lock-sha256"
want=$(sha256sum "$web/package-lock.json" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "web/scripts/setup.sh: npm ci" >&2
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error </dev/null) >&2
  echo "$want" >"$stamp"
fi

chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  if [ -z "${CHROMIUM_PATH:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "web/scripts/setup.sh: Chromium not found; installing Debian's chromium with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq chromium >&2
  else
    echo "web/scripts/setup.sh: $chromium not found (install the chromium package, or set CHROMIUM_PATH)" >&2
    exit 1
  fi
fi
