#!/usr/bin/env bash
# pi-context.sh FILE: the messages the installed pi (install.sh) loads when it resumes the pi
# session FILE and converts for the model, as one JSON array (context.mjs). Reads a copy;
# the network is not used.
set -u
[ $# -eq 1 ] || { echo "usage: pi-context.sh FILE" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}/pi
PKG=$ROOT/node_modules/@earendil-works/pi-coding-agent
NODE=$ROOT/node_modules/.bin/node
[ -x "$NODE" ] && [ -d "$PKG" ] || { echo "pi-context.sh: pi is not installed: run scripts/realclient/pi/install.sh" >&2; exit 3; }
exec env -i PATH=/usr/bin:/bin HOME="${TMPDIR:-/tmp}" PI_OFFLINE=1 PI_PACKAGE="$PKG" "$NODE" "$HERE/context.mjs" "$1"
