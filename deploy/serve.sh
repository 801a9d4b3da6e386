#!/usr/bin/env bash
# Serve the app as N Streamlit processes behind nginx, with sticky sessions by cookie.
#
#   deploy/serve.sh --replicas 2 --port 8080
#
# Each replica is `SELFATTN_HOSTED=1 streamlit run app.py` on a free loopback port; nginx
# (Debian's package, run in the foreground from a generated config in a private temporary folder,
# so it works without root) listens on --bind:--port and sends each visitor to one replica for the
# whole visit (deploy/nginx.conf.template says how). A replica that dies is started again. Prints
# "ready: ..." on stdout once every replica answers /_stcore/health and the proxy does too.
# SIGTERM, SIGINT (Ctrl-C) or SIGHUP stops nginx and every replica, then exits. Every response
# carries nosniff, a referrer policy and a framing policy (--frame-ancestors); /_stcore/metrics is
# not served.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
NGINX="${NGINX:-nginx}"

# A shell cannot trap a signal that was ignored when it started (POSIX), nor receive a blocked one: started by a
# process that ignores SIGINT (`serve.sh &` in a script does; so did a test worker), Ctrl-C and `kill -INT` would
# do nothing and leave every replica running. Then start again, once, with SIGHUP, SIGINT and SIGTERM at their
# defaults and unblocked; the process id stays the same (exec).
held_signals() {
  local line mask=0
  [[ -r /proc/$$/status ]] || return 1
  while read -r line; do
    case $line in SigIgn:* | SigBlk:*) mask=$(( mask | 16#${line##*[[:space:]]} )) ;; esac
  done </proc/$$/status
  (( mask & 0x4003 ))   # SIGHUP (1), SIGINT (2), SIGTERM (15)
}
if [[ -z ${SELFATTN_SIGNALS_RESET:-} ]] && held_signals; then
  export SELFATTN_SIGNALS_RESET=1
  exec "$PYTHON" -c 'import os, signal, sys
wanted = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)
for s in wanted:
    signal.signal(s, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, wanted)
os.execvp("bash", ["bash", *sys.argv[1:]])' "${BASH_SOURCE[0]}" "$@"
fi
unset SELFATTN_SIGNALS_RESET

usage() {
  cat <<EOF
Usage: deploy/serve.sh [--replicas N] [--port P] [--bind ADDR] [--log-dir DIR]
                       [--frame-ancestors SOURCES] [--ready-timeout SECONDS] [-- STREAMLIT_ARGS...]

  --replicas N         Streamlit processes to run, 1-64 (default 2; one per core is a good start)
  --port P             public port nginx listens on (default \$PORT, else 8501)
  --bind ADDR          address nginx listens on (default 0.0.0.0; 127.0.0.1 for local only)
  --log-dir DIR        keep the replicas' logs (replica-<i>.log) in DIR (default: a temporary
                       folder removed on exit)
  --frame-ancestors S  the sites that may show the app in a frame, as CSP frame-ancestors
                       sources (default \$SELFATTN_FRAME_ANCESTORS, else 'self': only the app
                       itself). For a Hugging Face Space: "'self' https://huggingface.co"
  --ready-timeout S    give up when not every replica is healthy after S seconds (default 180)
  -- ARGS...           extra options for every \`streamlit run\`, e.g. -- --server.maxUploadSize 5

Environment: PYTHON (default python3) runs \`-m streamlit\`; NGINX (default nginx) the proxy;
SELFATTN_FRAME_ANCESTORS the default of --frame-ancestors.
EOF
}

die() { echo "serve.sh: $*" >&2; exit 2; }
bad() { echo "serve.sh: $*" >&2; echo >&2; usage >&2; exit 2; }
log() { echo "serve.sh: $*" >&2; }

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

REPLICAS=2
PORT_PUBLIC="${PORT:-8501}"
BIND=0.0.0.0
LOG_DIR=""
READY_TIMEOUT=180
FRAME_ANCESTORS="${SELFATTN_FRAME_ANCESTORS:-'self'}"
EXTRA_ARGS=()

while [[ $# -gt 0 ]]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --replicas|--port|--bind|--log-dir|--frame-ancestors|--ready-timeout)
      [[ $# -ge 2 && -n $2 ]] || bad "$1 needs a value"
      case "$1" in
        --replicas) REPLICAS=$2 ;;
        --port) PORT_PUBLIC=$2 ;;
        --bind) BIND=$2 ;;
        --log-dir) LOG_DIR=$2 ;;
        --frame-ancestors) FRAME_ANCESTORS=$2 ;;
        --ready-timeout) READY_TIMEOUT=$2 ;;
      esac
      shift 2 ;;
    --replicas=*|--port=*|--bind=*|--log-dir=*|--frame-ancestors=*|--ready-timeout=*)
      set -- "${1%%=*}" "${1#*=}" "${@:2}" ;;
    --) shift; EXTRA_ARGS=("$@"); break ;;
    *) bad "unknown argument: $1" ;;
  esac
done

in_range() { is_uint "$1" && (( 10#$1 >= $2 && 10#$1 <= $3 )); }
in_range "$REPLICAS" 1 64 || bad "--replicas must be a whole number from 1 to 64, not '$REPLICAS'"
in_range "$PORT_PUBLIC" 1 65535 || bad "--port must be a port number from 1 to 65535, not '$PORT_PUBLIC'"
in_range "$READY_TIMEOUT" 1 86400 || bad "--ready-timeout must be a whole number of seconds, not '$READY_TIMEOUT'"
[[ $BIND =~ ^[0-9A-Za-z.:_-]+$ ]] || bad "--bind must be an address such as 0.0.0.0 or 127.0.0.1, not '$BIND'"
# CSP sources: keywords in single quotes, hosts, schemes, wildcards; nothing nginx would interpret.
[[ $FRAME_ANCESTORS =~ ^[][0-9A-Za-z\'\ .:/*_-]+$ && $FRAME_ANCESTORS =~ [^\ ] ]] \
  || bad "--frame-ancestors must be CSP sources such as \"'self' https://huggingface.co\", not \"$FRAME_ANCESTORS\""
REPLICAS=$((10#$REPLICAS)); PORT_PUBLIC=$((10#$PORT_PUBLIC)); READY_TIMEOUT=$((10#$READY_TIMEOUT))

# Debian puts nginx in /usr/sbin, which is not on every user's PATH.
if ! NGINX_BIN="$(command -v "$NGINX")"; then
  if [[ $NGINX == nginx && -x /usr/sbin/nginx ]]; then
    NGINX_BIN=/usr/sbin/nginx
  else
    die "nginx not found ('$NGINX'). Install it: sudo apt-get install nginx  (Debian/Ubuntu; its system service need not run)"
  fi
fi
"$PYTHON" -c "import streamlit" 2>/dev/null \
  || die "'$PYTHON -c \"import streamlit\"' failed: install the app first (deploy/install.sh or pip install -r requirements.txt), or set PYTHON"
[[ -f $ROOT/deploy/nginx.conf.template ]] || die "missing $ROOT/deploy/nginx.conf.template"

RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/selfattn-serve.XXXXXX")"
[[ -n $LOG_DIR ]] || LOG_DIR="$RUN_DIR"
mkdir -p "$LOG_DIR"
LOG_DIR="$(cd "$LOG_DIR" && pwd)"   # the replicas start from the repository root

NGINX_PID=""
SLEEP_PID=""
declare -a RPID=() WPID=() RPORT=() RSTARTED=() RNEXT=() RDELAY=()

# ---- stopping -----------------------------------------------------------------------------------

all_pids() {
  local p
  for p in "$NGINX_PID" "${RPID[@]}" "${WPID[@]}" "$SLEEP_PID"; do
    [[ -n $p ]] && echo "$p"
  done
  return 0
}

cleanup() {
  local status=$? pids=() p deadline
  trap - EXIT INT TERM HUP
  mapfile -t pids < <(all_pids)
  if [[ ${#pids[@]} -gt 0 ]]; then
    kill -TERM "${pids[@]}" 2>/dev/null || true
    deadline=$((SECONDS + 8))   # Streamlit finishes a model load in progress first (ui/warmup.py)
    for p in "${pids[@]}"; do
      while kill -0 "$p" 2>/dev/null && (( SECONDS < deadline )); do sleep 0.1; done
      kill -KILL "$p" 2>/dev/null || true
    done
    wait 2>/dev/null || true
  fi
  [[ $LOG_DIR == "$RUN_DIR" ]] || cp -f "$RUN_DIR/nginx.conf" "$LOG_DIR/" 2>/dev/null || true
  rm -rf "$RUN_DIR"
  exit "$status"
}

on_signal() {
  log "got SIG$1, stopping nginx and ${#RPID[@]} replica(s)"
  exit 0
}

trap cleanup EXIT
trap 'on_signal TERM' TERM
trap 'on_signal INT' INT
trap 'on_signal HUP' HUP
trap '' PIPE   # a closed stdout makes echo fail (and so stop everything) instead of killing us silently

# ---- replicas -----------------------------------------------------------------------------------

free_ports() {
  "$PYTHON" - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

start_replica() {
  local i=$1
  echo "=== $(date '+%F %T') starting replica $i on 127.0.0.1:${RPORT[i]}" >>"$LOG_DIR/replica-$i.log"
  # X-Real-IP: nginx writes the visitor's address there itself (a visitor's own is replaced), so the heavy
  # pages' turns count one client per address (ui/server_limits.py)
  SELFATTN_HOSTED=1 SELFATTN_CLIENT_HEADER=X-Real-IP "$PYTHON" -m streamlit run app.py \
    --server.headless true \
    --server.address 127.0.0.1 \
    --server.port "${RPORT[i]}" \
    --server.fileWatcherType none \
    --server.runOnSave false \
    --browser.gatherUsageStats false \
    "${EXTRA_ARGS[@]}" \
    </dev/null >>"$LOG_DIR/replica-$i.log" 2>&1 &
  RPID[i]=$!
  RSTARTED[i]=$SECONDS
  RNEXT[i]=""
  echo "replica $i: pid ${RPID[i]} on 127.0.0.1:${RPORT[i]}"
  # Once it answers, one visit to its home page starts its background load (torch, the model), so a class's
  # first opens of every page find it warm (deploy/warm.py; docs/benchmarks.md, "First opens").
  "$PYTHON" deploy/warm.py --port "${RPORT[i]}" --wait "$READY_TIMEOUT" </dev/null >>"$LOG_DIR/replica-$i.log" 2>&1 &
  WPID[i]=$!
}

# Start replicas that died, after a delay that doubles while they keep dying young (1 s to 30 s).
supervise() {
  local i status
  for ((i = 0; i < REPLICAS; i++)); do
    if [[ -n ${RNEXT[i]} ]]; then
      (( SECONDS >= RNEXT[i] )) && start_replica "$i"
      continue
    fi
    kill -0 "${RPID[i]}" 2>/dev/null && continue
    status=0
    wait "${RPID[i]}" 2>/dev/null || status=$?
    (( SECONDS - RSTARTED[i] < 60 )) || RDELAY[i]=1
    log "replica $i (pid ${RPID[i]}) exited with status $status; restarting in ${RDELAY[i]} s. Its log ends:"
    tail -n 5 "$LOG_DIR/replica-$i.log" | sed 's/^/    /' >&2 || true
    RNEXT[i]=$((SECONDS + RDELAY[i]))
    RDELAY[i]=$(( RDELAY[i] * 2 > 30 ? 30 : RDELAY[i] * 2 ))
  done
  if [[ -n $NGINX_PID ]] && ! kill -0 "$NGINX_PID" 2>/dev/null; then
    status=0
    wait "$NGINX_PID" 2>/dev/null || status=$?
    NGINX_PID=""
    log "nginx exited with status $status; stopping"
    exit 1
  fi
}

# True when http://HOST:PORT/_stcore/health answers 200 (plain bash, no curl needed).
healthy() {
  local fd line="" host=$1
  [[ $host == *:* ]] && host="[$host]"
  { exec {fd}<>"/dev/tcp/$1/$2"; } 2>/dev/null || return 1
  { printf 'GET /_stcore/health HTTP/1.0\r\nHost: %s:%s\r\n\r\n' "$host" "$2" >&"$fd"; } 2>/dev/null || true
  IFS= read -r -t 5 line <&"$fd" || true
  exec {fd}>&-
  [[ $line == "HTTP/1."?" 200"* ]]
}

# Seconds since $1 (an $EPOCHREALTIME), to 0.1 s.
elapsed() {
  local now=${EPOCHREALTIME/,/.}
  local ms=$(( (10#${now%.*} - 10#${1%.*}) * 1000 + 10#${now#*.} / 1000 - 10#${1#*.} / 1000 ))
  printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

# A tick of the supervisor that a signal interrupts at once.
tick() {
  sleep "$1" &
  SLEEP_PID=$!
  wait "$SLEEP_PID" 2>/dev/null || true
  SLEEP_PID=""
}

# ---- nginx config -------------------------------------------------------------------------------

read -r -a RPORT <<<"$(free_ports "$REPLICAS")"
[[ ${#RPORT[@]} -eq $REPLICAS ]] || die "could not find $REPLICAS free loopback ports"

upstreams="" pool_map="" served_map=""
all_servers=""
for ((i = 0; i < REPLICAS; i++)); do
  all_servers+="        server 127.0.0.1:${RPORT[i]} max_fails=1 fail_timeout=3s;"$'\n'
  pool_map+="        r$i selfattn_r$i;"$'\n'
  served_map+="        \"~:${RPORT[i]}\$\" r$i;"$'\n'
done
upstreams+="    upstream selfattn_new {"$'\n'"        zone selfattn_upstreams 512k;"$'\n'"$all_servers        keepalive 16;"$'\n'"    }"$'\n'
for ((i = 0; i < REPLICAS; i++)); do
  upstreams+="    upstream selfattn_r$i {"$'\n'"        zone selfattn_upstreams;"$'\n'
  upstreams+="        server 127.0.0.1:${RPORT[i]} max_fails=1 fail_timeout=3s;"$'\n'
  for ((j = 0; j < REPLICAS; j++)); do
    (( j == i )) || upstreams+="        server 127.0.0.1:${RPORT[j]} backup;"$'\n'
  done
  upstreams+="        keepalive 8;"$'\n'"    }"$'\n'
done

if [[ $BIND == *:* ]]; then listen="[$BIND]:$PORT_PUBLIC"; else listen="$BIND:$PORT_PUBLIC"; fi
case $BIND in 0.0.0.0) probe_host=127.0.0.1 ;; "::") probe_host=::1 ;; *) probe_host=$BIND ;; esac

# Raise the open-file limit as far as allowed: each visitor holds two sockets in nginx.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
nofile=$(ulimit -n)
if [[ $nofile == unlimited ]] || (( nofile > 8192 )); then worker_connections=4096; else worker_connections=$(( nofile / 2 )); fi

user_line=""
mkdir -p "$RUN_DIR"/{client_body,proxy,fastcgi,uwsgi,scgi}
if [[ $(id -u) -eq 0 ]]; then
  # nginx workers drop root; let them use the temp folders.
  worker_user=nobody; id www-data >/dev/null 2>&1 && worker_user=www-data
  user_line="user $worker_user;"
  chmod 755 "$RUN_DIR"
  chown "$worker_user" "$RUN_DIR"/{client_body,proxy,fastcgi,uwsgi,scgi}
fi

conf="$(<"$ROOT/deploy/nginx.conf.template")"
conf="${conf//@USER@/$user_line}"
conf="${conf//@RUN_DIR@/$RUN_DIR}"
conf="${conf//@WORKER_CONNECTIONS@/$worker_connections}"
conf="${conf//@POOL_MAP@/${pool_map%$'\n'}}"
conf="${conf//@SERVED_MAP@/${served_map%$'\n'}}"
conf="${conf//@UPSTREAMS@/${upstreams%$'\n'}}"
conf="${conf//@LISTEN@/$listen}"
conf="${conf//@FRAME_ANCESTORS@/$FRAME_ANCESTORS}"
printf '%s\n' "$conf" >"$RUN_DIR/nginx.conf"

nginx_cmd=("$NGINX_BIN" -p "$RUN_DIR" -e stderr -c "$RUN_DIR/nginx.conf")
"${nginx_cmd[@]}" -t -q || die "nginx rejected the generated config $RUN_DIR/nginx.conf"

# ---- start --------------------------------------------------------------------------------------

cd "$ROOT"
t0=${EPOCHREALTIME/,/.}
for ((i = 0; i < REPLICAS; i++)); do RDELAY[i]=1; start_replica "$i"; done
"${nginx_cmd[@]}" -g "daemon off;" </dev/null &
NGINX_PID=$!
echo "nginx: pid $NGINX_PID on $listen (config $RUN_DIR/nginx.conf)"

deadline=$((SECONDS + READY_TIMEOUT))
while :; do
  supervise
  ready=1
  for ((i = 0; i < REPLICAS; i++)); do
    healthy 127.0.0.1 "${RPORT[i]}" || { ready=0; break; }
  done
  (( ready )) && healthy "$probe_host" "$PORT_PUBLIC" && break
  if (( SECONDS >= deadline )); then
    log "not ready after $READY_TIMEOUT s; the replicas' logs end:"
    for ((i = 0; i < REPLICAS; i++)); do tail -n 20 "$LOG_DIR/replica-$i.log" | sed "s/^/    [$i] /" >&2 || true; done
    exit 1
  fi
  tick 0.25
done
url_host=$probe_host; [[ $url_host == *:* ]] && url_host="[$url_host]"
echo "ready: http://$url_host:$PORT_PUBLIC/ ($REPLICAS replica$( ((REPLICAS == 1)) || echo s), $(elapsed "$t0") s; logs in $LOG_DIR)"

while :; do
  supervise
  tick 1
done
