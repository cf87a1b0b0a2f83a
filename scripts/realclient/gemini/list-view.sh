#!/usr/bin/env bash
# list-view.sh HOME_DIR WORKDIR
#
# Runs the real Gemini CLI (install.sh's 0.61.0) offline from WORKDIR with HOME_DIR as its home,
# on the store laid out there (HOME_DIR/.gemini: projects.json, tmp/<project>/chats/), with
# `--list-sessions`, and prints what it lists: the chats of the project `projects.json` names for
# WORKDIR. The home is used in place, settings.json written into it, and the listing may sweep
# the chats folder (the client deletes stub twins when it lists): give it a scratch home.
#
# Exit status: 0 the listing is printed; 1 the client failed (its stderr is shown); 2 bad
# arguments or the client is not installed. Knobs: VIEW_TIMEOUT, VIEW_NETNS=0, CCTOOL_REALCLIENTS.
set -u
NAME=list-view
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
need_client
[ $# -ge 2 ] && [ -d "$1" ] && [ -d "$2" ] || fail 2 "usage: list-view.sh HOME_DIR WORKDIR"
HOME_DIR=$(cd "$1" && pwd)
WORK=$(cd "$2" && pwd)
DUMP=$(mktemp -d "${TMPDIR:-/tmp}/gemini-list.XXXXXX")
trap 'rm -rf "$DUMP"' EXIT
scratch_home "$HOME_DIR"
run_client "$HOME_DIR" "$WORK" "$DUMP" --list-sessions
status=$?
[ "$status" = 0 ] || { echo "$NAME: the client exited with $status" >&2; tail -c 3000 "$DUMP/client.err" >&2; exit 1; }
cat "$DUMP/client.out"
