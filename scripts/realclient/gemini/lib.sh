# Sourced by the Gemini CLI scripts: where the client is, the scratch home it runs in, and how it is
# run offline (a network namespace with only a loopback interface, the mock.py beside it).
# Expects NAME (the script's name for messages).

GEMINI_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GEMINI_ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}/gemini
GEMINI_JS=$GEMINI_ROOT/node_modules/@google/gemini-cli/bundle/gemini.js

fail() {  # CODE MESSAGE
  echo "$NAME: $2" >&2
  exit "$1"
}

need_client() {
  [ -f "$GEMINI_JS" ] || fail 2 "the Gemini CLI is not installed under $GEMINI_ROOT (run scripts/realclient/gemini/install.sh)"
  command -v node >/dev/null || fail 2 "node is needed"
  command -v python3 >/dev/null || fail 2 "python3 is needed"
}

# Makes HOME_DIR a home the client runs in with nothing of the user's: API-key auth (the key is
# never checked: the mock answers), no telemetry, update check or usage statistics, and the
# compression threshold THRESHOLD (a fraction of the context window; default the client's).
scratch_home() {  # HOME_DIR [THRESHOLD]
  mkdir -p "$1/.gemini"
  python3 - "$1/.gemini/settings.json" "${2:-}" <<'PY'
import json, sys
path, threshold = sys.argv[1], sys.argv[2]
settings = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True, "checkpointing": {"enabled": False}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "ui": {"hideTips": True, "hideBanner": True},
}
if threshold:
    settings["model"] = {"compressionThreshold": float(threshold)}
json.dump(settings, open(path, "w"), indent=1)
PY
}

# Runs the client with ARGS in WORK, home HOME_DIR, against a fresh mock that writes every request
# into DUMP; inside a loopback-only network namespace when one can be made. The client's stdout and
# stderr go to DUMP/client.out and DUMP/client.err; its exit status is returned. GEMINI_FAKETIME
# (`YYYY-MM-DD HH:MM:SS`, UTC) runs it at that time through libfaketime. MOCK_TOKENS is passed on.
run_client() {  # HOME_DIR WORK DUMP ARGS...
  local home=$1 work=$2 dump=$3 how=
  shift 3
  mkdir -p "$dump"
  if [ "${VIEW_NETNS:-1}" = 1 ]; then
    if unshare -n true 2>/dev/null; then how="unshare -n"
    elif unshare -rn true 2>/dev/null; then how="unshare -rn"
    else echo "$NAME: warning: no network namespace; the client runs with the host's network" >&2
    fi
  fi
  local preload=""
  if [ -n "${GEMINI_FAKETIME:-}" ]; then
    preload=$(ls /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1 2>/dev/null | head -n 1)
    [ -n "$preload" ] || fail 2 "GEMINI_FAKETIME needs libfaketime (apt-get install faketime)"
  fi
  __HOME=$home __WORK=$work __DUMP=$dump __MOCK=$GEMINI_HERE/mock.py __JS=$GEMINI_JS __PRELOAD=$preload \
  __LIMIT=${VIEW_TIMEOUT:-120} $how bash -c '
    ip link set lo up 2>/dev/null
    rm -f "$__DUMP/port"
    python3 "$__MOCK" "$__DUMP" "$__DUMP/port" "${MOCK_REPLY:-ok}" 2>"$__DUMP/mock.log" &
    mock=$!
    for _ in $(seq 200); do [ -s "$__DUMP/port" ] && break; sleep 0.05; done
    cd "$__WORK" || exit 90
    env -i PATH="$PATH" HOME="$__HOME" TERM=dumb TZ=UTC LANG=C.UTF-8 \
      GEMINI_API_KEY=mock-key GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$(cat "$__DUMP/port")" \
      GEMINI_CLI_TRUST_WORKSPACE=true GEMINI_CLI_NO_RELAUNCH=true NO_BROWSER=true CI=1 \
      ${__PRELOAD:+LD_PRELOAD=$__PRELOAD FAKETIME="@$GEMINI_FAKETIME" FAKETIME_DISABLE_SHM=1} \
      timeout -k 5 "$__LIMIT" node "$__JS" "$@" > "$__DUMP/client.out" 2> "$__DUMP/client.err" < /dev/null
    rc=$?
    kill $mock 2>/dev/null
    wait $mock 2>/dev/null
    exit $rc
  ' bash "$@"
}
