#!/usr/bin/env bash
# install.sh: installs the pinned Gemini CLI (@google/gemini-cli) under
# ${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}/gemini, outside the repository, because the
# client is only run to record what it writes and sends, never shipped. Runs again without the network
# when the installed client answers with its pinned version; CCTOOL_REINSTALL=1 reinstalls. Prints the
# package folder.
set -u
GEMINI_VERSION=0.61.0
ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}/gemini
PKG=$ROOT/node_modules/@google/gemini-cli

say() { echo "install.sh (gemini): $*" >&2; }
die() { say "error: $*"; exit 1; }

ok() {
  [ -f "$PKG/package.json" ] || return 1
  command -v node >/dev/null || return 1
  node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' || return 1
  [ "$(node -p "require('$PKG/package.json').version")" = "$GEMINI_VERSION" ]
}

if [ "${CCTOOL_REINSTALL:-0}" != 1 ] && ok; then
  say "gemini-cli $GEMINI_VERSION is installed"
else
  command -v npm >/dev/null || die "npm is needed to install the Gemini CLI"
  mkdir -p "$ROOT" || die "cannot create $ROOT"
  say "npm install --prefix $ROOT @google/gemini-cli@$GEMINI_VERSION"
  npm install --prefix "$ROOT" --no-audit --no-fund --save-exact \
    "@google/gemini-cli@$GEMINI_VERSION" >&2 || die "npm could not install the Gemini CLI"
  ok || die "gemini-cli $GEMINI_VERSION with Node >= 20 did not install"
fi
printf '%s\n' "$PKG"
