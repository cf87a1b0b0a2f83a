#!/usr/bin/env bash
# install.sh: installs the real clients the view scripts run, at the versions cctool
# emulates, under ${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}:
#   cc/       @anthropic-ai/claude-code 2.1.332
#   codex/    @openai/codex 0.171.0
#   copilot/  @github/copilot 1.0.102, optional: proprietary, installed for local checks only
#             (nothing of it is ever committed or redistributed); a failure to install it is
#             said and the other two stay installed
#   opencode/ opencode-ai 1.18.33, optional (MIT; a native binary); a failure to install it is
#             said and the others stay installed
#   runs/     the view scripts' run directories
# Needs Linux, npm with access to its registry (only when something is missing), python3 and
# unshare. Runs again without touching the network when the clients already answer --version
# with their pinned version; CCTOOL_REINSTALL=1 reinstalls, CCTOOL_NO_COPILOT=1 leaves Copilot
# CLI out, CCTOOL_NO_OPENCODE=1 opencode. Prints the binaries.
set -u
CC_VERSION=2.1.332
CODEX_VERSION=0.171.0
COPILOT_VERSION=1.0.102
OPENCODE_VERSION=1.18.33
ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}

say() { echo "install.sh: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ "$(uname -s)" = Linux ] || die "Linux only: the view scripts isolate the clients with network namespaces"
mkdir -p "$ROOT/cc" "$ROOT/codex" "$ROOT/runs" || die "cannot create $ROOT"
ROOT=$(cd "$ROOT" && pwd)
for tool in python3 unshare; do
  command -v $tool >/dev/null || say "warning: $tool not found; the view scripts need it"
done
case $(uname -m) in
  x86_64 | amd64) ARCH=x64 ;;
  aarch64 | arm64) ARCH=arm64 ;;
  *) ARCH=$(uname -m) ;;
esac
CC_EXE=$ROOT/cc/node_modules/@anthropic-ai/claude-code/bin/claude.exe

# The first line a binary prints for --version, run with an empty environment and throw-away
# home folders so that it reads no configuration and writes nothing that stays.
version() {  # BINARY
  local scratch first
  scratch=$(mktemp -d "$ROOT/runs/version.XXXXXX") || return 1
  mkdir -p "$scratch/home" "$scratch/codex"
  first=$(cd "$scratch" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$scratch/home" \
    CODEX_HOME="$scratch/codex" LANG=C.UTF-8 TERM=dumb DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 timeout 60 "$1" --version 2>/dev/null </dev/null | head -n 1)
  rm -rf "$scratch"
  [ -n "$first" ] && printf '%s\n' "$first"
}

npm_add() {  # PREFIX PACKAGE@VERSION
  command -v npm >/dev/null || die "npm is needed to install $2"
  say "npm install --prefix $1 $2"
  # The binaries are optional dependencies (an npmrc that omits those would skip them), and
  # Claude Code declares a newer Node than it needs to install: npm only warns about it.
  npm install --prefix "$1" --no-audit --no-fund --save-exact --include=optional \
    --engine-strict=false "$2" >&2 || die "npm could not install $2"
}

# Claude Code's native binary comes in a platform package; its postinstall script puts it at
# bin/claude.exe. Where that script did not run (ignore-scripts), put it there here.
place_claude() {
  local native= d
  for d in "$ROOT/cc/node_modules/@anthropic-ai/claude-code-linux-$ARCH" \
    "$ROOT/cc/node_modules/@anthropic-ai/claude-code-linux-$ARCH-musl" \
    "$ROOT"/cc/node_modules/@anthropic-ai/claude-code-linux-*; do
    if [ -f "$d/claude" ]; then native=$d/claude; break; fi
  done
  [ -n "$native" ] || return 1
  if [ -e "$CC_EXE" ] && cmp -s "$CC_EXE" "$native"; then return 0; fi
  say "placing $native at $CC_EXE"
  mkdir -p "$(dirname "$CC_EXE")" && rm -f "$CC_EXE"
  ln "$native" "$CC_EXE" 2>/dev/null || cp "$native" "$CC_EXE" || return 1
  chmod 755 "$CC_EXE"
}

codex_exe() {
  ls "$ROOT"/codex/node_modules/@openai/codex-linux-"$ARCH"/vendor/*/bin/codex \
    "$ROOT"/codex/node_modules/@openai/codex-linux-*/vendor/*/bin/codex 2>/dev/null | head -n 1
}

claude_ok() { place_claude 2>/dev/null && version "$CC_EXE" | grep -q "^$CC_VERSION\b"; }
codex_ok() { local b; b=$(codex_exe); [ -n "$b" ] && version "$b" | grep -q "codex-cli $CODEX_VERSION\$"; }

if [ "${CCTOOL_REINSTALL:-0}" != 1 ] && claude_ok; then
  say "Claude Code $CC_VERSION is installed"
else
  # Always the exact version: on an older Node, npm would otherwise pick an older release.
  npm_add "$ROOT/cc" "@anthropic-ai/claude-code@$CC_VERSION"
  place_claude || die "no native Claude Code package for linux-$ARCH under $ROOT/cc/node_modules"
fi
CC_SAYS=$(version "$CC_EXE") || die "$CC_EXE does not run"
case $CC_SAYS in "$CC_VERSION"*) ;; *) die "$CC_EXE says '$CC_SAYS', not $CC_VERSION" ;; esac

if [ "${CCTOOL_REINSTALL:-0}" != 1 ] && codex_ok; then
  say "Codex $CODEX_VERSION is installed"
else
  npm_add "$ROOT/codex" "@openai/codex@$CODEX_VERSION"
fi
CODEX_EXE=$(codex_exe)
[ -n "$CODEX_EXE" ] || die "no native Codex binary for linux-$ARCH under $ROOT/codex/node_modules"
CODEX_SAYS=$(version "$CODEX_EXE") || die "$CODEX_EXE does not run"
[ "$CODEX_SAYS" = "codex-cli $CODEX_VERSION" ] || die "$CODEX_EXE says '$CODEX_SAYS', not codex-cli $CODEX_VERSION"

# Copilot CLI: its native binary comes in a platform package beside the npm loader.
copilot_exe() {
  ls "$ROOT"/copilot/node_modules/@github/copilot-linux-"$ARCH"/copilot \
    "$ROOT"/copilot/node_modules/@github/copilot-linux-*/copilot 2>/dev/null | head -n 1
}
copilot_ok() { local b; b=$(copilot_exe); [ -n "$b" ] && version "$b" | grep -q "CLI $COPILOT_VERSION\.\?\$"; }

# Optional, so every failure here is a warning: the two clients above stay usable.
COPILOT_LINE="copilot: not installed (optional; the Copilot CLI view scripts and tests skip)"
if [ "${CCTOOL_NO_COPILOT:-0}" = 1 ]; then
  say "Copilot CLI left out (CCTOOL_NO_COPILOT=1)"
elif [ "${CCTOOL_REINSTALL:-0}" != 1 ] && copilot_ok; then
  say "Copilot CLI $COPILOT_VERSION is installed (proprietary: for local checks only, never commit or redistribute it)"
  COPILOT_LINE="copilot: $(copilot_exe) ($(version "$(copilot_exe)"))"
else
  say "installing Copilot CLI $COPILOT_VERSION: proprietary (GitHub's licence), installed for local checks only; commit and redistribute nothing of it"
  mkdir -p "$ROOT/copilot"
  if (npm_add "$ROOT/copilot" "@github/copilot@$COPILOT_VERSION") && copilot_ok; then
    COPILOT_LINE="copilot: $(copilot_exe) ($(version "$(copilot_exe)"))"
  else
    say "warning: Copilot CLI $COPILOT_VERSION could not be installed; Claude Code and Codex are installed"
  fi
fi

# opencode: its native binary comes in a platform package beside the npm loader
# (opencode-linux-x64, and a baseline build for older CPUs).
opencode_exe() {
  ls "$ROOT"/opencode/node_modules/opencode-linux-"$ARCH"/bin/opencode \
    "$ROOT"/opencode/node_modules/opencode-linux-*/bin/opencode 2>/dev/null | head -n 1
}
opencode_ok() { local b; b=$(opencode_exe); [ -n "$b" ] && version "$b" | grep -q "^$OPENCODE_VERSION\$"; }

# Optional, so every failure here is a warning.
OPENCODE_LINE="opencode: not installed (optional; the opencode view scripts and tests skip)"
if [ "${CCTOOL_NO_OPENCODE:-0}" = 1 ]; then
  say "opencode left out (CCTOOL_NO_OPENCODE=1)"
elif [ "${CCTOOL_REINSTALL:-0}" != 1 ] && opencode_ok; then
  say "opencode $OPENCODE_VERSION is installed"
  OPENCODE_LINE="opencode: $(opencode_exe) ($(version "$(opencode_exe)"))"
else
  mkdir -p "$ROOT/opencode"
  if (npm_add "$ROOT/opencode" "opencode-ai@$OPENCODE_VERSION") && opencode_ok; then
    OPENCODE_LINE="opencode: $(opencode_exe) ($(version "$(opencode_exe)"))"
  else
    say "warning: opencode $OPENCODE_VERSION could not be installed; the other clients are installed"
  fi
fi

echo "claude:  $CC_EXE ($CC_SAYS)"
echo "codex:   $CODEX_EXE ($CODEX_SAYS)"
echo "$COPILOT_LINE"
echo "$OPENCODE_LINE"
echo "runs:    $ROOT/runs"
