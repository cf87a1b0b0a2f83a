# Sourced by cc-resume-view.sh and codex-resume-view.sh: the parts both clients share.
# Expects NAME (the script's name for messages) to be set by the caller.

LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=$LIB/realclient.py

fail() {  # CODE MESSAGE
  echo "$NAME: $2" >&2
  exit "$1"
}

# Reads FILE [PROMPT], checks them, makes the run directory RUN under the install root and
# arranges for its removal (VIEW_KEEP=1 keeps it).
setup() {  # FILE [PROMPT]
  [ $# -ge 1 ] && [ -n "$1" ] || fail 2 "usage: $NAME FILE.jsonl [PROMPT]"
  command -v python3 >/dev/null || fail 2 "python3 is needed"
  INPUT=$1
  PROMPT=${2:-${VIEW_PROMPT:-say ok}}
  [ -f "$INPUT" ] && [ -r "$INPUT" ] || fail 2 "cannot read $INPUT"
  INPUT=$(cd "$(dirname "$INPUT")" && pwd)/$(basename "$INPUT")
  LIMIT=${VIEW_TIMEOUT:-120}
  ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}
  mkdir -p "$ROOT/runs" 2>/dev/null || fail 2 "cannot create $ROOT/runs"
  ROOT=$(cd "$ROOT" && pwd)
}

# Sets PRELOAD to the environment that runs a client at DATE (UTC; a bare date means noon)
# through libfaketime preloaded into it (the `faketime` wrapper does not work with the
# clients' native binaries), or leaves it empty when DATE is empty.
faketime_env() {  # DATE
  local lib when
  PRELOAD=()
  [ -n "$1" ] || return 0
  lib=$(ls /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1 2>/dev/null | head -n 1)
  [ -n "$lib" ] || fail 2 "VIEW_DATE needs libfaketime (apt-get install faketime)"
  case $1 in
    *:*) when=$1 ;;
    *) when="$1 12:00:00" ;;
  esac
  PRELOAD=("LD_PRELOAD=$lib" "FAKETIME=@$when" "FAKETIME_DISABLE_SHM=1")
}

new_run() {  # PREFIX
  RUN=$(mktemp -d "$ROOT/runs/$1.XXXXXX") || fail 2 "cannot create a run directory under $ROOT/runs"
  trap 'finish' EXIT
  mkdir -p "$RUN/home" "$RUN/work" "$RUN/dump" "$RUN/tmp"
}

finish() {
  if [ "${VIEW_KEEP:-0}" = 1 ]; then
    echo "$NAME: run directory kept: $RUN" >&2
  else
    rm -rf "$RUN"
  fi
}

# Writes RUN/go.sh, which runs PREPARE, starts the client in the background under `timeout`,
# waits for it, clears what is left of its process group and stores its exit status.
# CLIENT_CMD and PREPARE are command lines quoted for bash; the mock's port is known only
# inside the namespace, so they refer to it as \$MOCK_PORT.
write_launcher() {  # CLIENT_CMD [PREPARE]
  cat > "$RUN/go.sh" <<EOF
cd "$RUN/work" || exit 90
${2:-}
timeout -k 5 $LIMIT $1 > "$RUN/client.out" 2> "$RUN/client.err" < /dev/null &
pid=\$!
wait \$pid
echo \$? > "$RUN/client.status"
kill -- -\$pid 2>/dev/null
exit 0
EOF
}

# Prints the command prefix that runs a process in a network namespace with nothing but a
# loopback interface (`unshare -n` as root, `unshare -rn` otherwise), or nothing, with a
# warning, where neither works or VIEW_NETNS=0.
netns() {
  [ "${VIEW_NETNS:-1}" = 1 ] || return 0
  if unshare -n true 2>/dev/null; then echo "unshare -n"
  elif unshare -rn true 2>/dev/null; then echo "unshare -rn"
  else echo "$NAME: warning: no network namespace (unshare -n failed); the client runs with the host's network" >&2
  fi
}

# Runs RUN/go.sh beside the mock model API, inside a network namespace that has only a
# loopback interface when one can be made (`unshare -n` as root, `unshare -rn` otherwise), so
# nothing the client tries can leave the machine.
run_isolated() {
  local how
  how=$(netns)
  VIEW_NEW_NETNS=${how:+1} $how bash "$LIB/beside-mock.sh" "$RUN" "$RUN/go.sh"
}

# Prints the request the client sent (or the whole body with VIEW_BODY=1; normalised with
# VIEW_NORMALISE=1), or explains on stderr and exits 1 when it sent none.
print_request() {  # claude|codex WHAT
  local status body=
  status=$(cat "$RUN/client.status" 2>/dev/null || echo "?")
  [ "${VIEW_BODY:-0}" = 1 ] && body=--body
  if ! python3 "$PY" pick "$1" "$RUN/dump" "$PROMPT" $body > "$RUN/request.json"; then
    {
      echo "$NAME: the client sent no $2 request (its exit status: $status)"
      echo "--- end of the client's stdout"
      tail -c 2000 "$RUN/client.out" 2>/dev/null
      echo "--- end of the client's stderr"
      grep -v 'could not create PATH aliases' "$RUN/client.err" 2>/dev/null | tail -c 3000
    } >&2
    exit 1
  fi
  if [ "${VIEW_NORMALISE:-0}" = 1 ]; then
    python3 "$PY" normalise "$1" "$RUN/request.json" || exit 1
  else
    cat "$RUN/request.json"
  fi
  [ "$status" = 0 ] || echo "$NAME: note: the client exited with status $status" >&2
  exit 0
}

# For the *-store-view scripts: reads STORE WORKDIR WHICH [PROMPT] (usage: USAGE), sets STORE
# and WORK (absolute), WHICH, PROMPT, LIMIT and ROOT.
setup_store() {  # USAGE STORE WORKDIR WHICH [PROMPT]
  local usage=$1
  shift
  [ $# -ge 3 ] || fail 2 "usage: $NAME $usage"
  [ -d "$1" ] || fail 2 "no folder $1"
  [ -d "$2" ] || fail 2 "no folder $2"
  command -v python3 >/dev/null || fail 2 "python3 is needed"
  STORE=$(cd "$1" && pwd)
  WORK=$(cd "$2" && pwd)
  WHICH=$3
  PROMPT=${4:-${VIEW_PROMPT:-say ok}}
  LIMIT=${VIEW_TIMEOUT:-120}
  ROOT=${CCTOOL_REALCLIENTS:-$HOME/.cache/cctool-realclients}
  mkdir -p "$ROOT/runs" 2>/dev/null || fail 2 "cannot create $ROOT/runs"
  ROOT=$(cd "$ROOT" && pwd)
}

# Makes RUN/go.sh start the client in WORK instead of the run's own work folder.
run_in_work() {
  { printf 'cd %q || exit 90\n' "$WORK"; tail -n +2 "$RUN/go.sh"; } > "$RUN/go.sh.new"
  mv "$RUN/go.sh.new" "$RUN/go.sh"
}

# Writes Codex's offline configuration to FILE: the model and provider, update checks,
# analytics, feedback, history, plugins and apps off (each would try the network or write
# outside the run), auto-compaction out of reach. For the built-in `openai` provider the base
# URL is the mock's; @PORT@ is replaced by its port once it is known.
codex_config() {  # FILE PROVIDER MODEL
  {
    printf 'model = "%s"\nmodel_provider = "%s"\n' "$3" "$2"
    [ "$2" = openai ] && printf 'openai_base_url = "http://127.0.0.1:@PORT@/v1"\n'
    cat <<'TOML'
check_for_update_on_startup = false
TOML
    printf 'model_auto_compact_token_limit = %s\n' "${CODEX_AUTO_COMPACT_LIMIT:-9000000000000}"
    cat <<'TOML'

[analytics]
enabled = false

[feedback]
enabled = false

[history]
persistence = "none"

[features]
plugins = false
remote_plugin = false
apps = false
TOML
  } > "$1"
}
