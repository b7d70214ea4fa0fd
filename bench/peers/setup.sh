#!/bin/sh
# Installs the peers' pinned packages (package-lock.json) for `giro bench peers`. Needs node >= 20.
set -eu
cd "$(dirname "$0")"
exec npm ci --no-audit --no-fund --loglevel=error
