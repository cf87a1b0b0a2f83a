#!/usr/bin/env bash
# beside-mock.sh RUN LAUNCHER: starts the mock model API on a free loopback port (requests
# recorded in RUN/dump), runs LAUNCHER with MOCK_PORT set, then stops the mock (by its PID).
# In a new network namespace (VIEW_NEW_NETNS=1) the loopback interface starts down: bring it up.
set -u
RUN=$1
LAUNCHER=$2
LIB=$(cd "$(dirname "$0")" && pwd)
if [ "${VIEW_NEW_NETNS:-}" = 1 ] && ! ip link set lo up 2>/dev/null; then
  # Without iproute2: the same through the SIOCGIFFLAGS / SIOCSIFFLAGS ioctls.
  python3 -c '
import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH", b"lo", 0)))[1]
fcntl.ioctl(s, 0x8914, struct.pack("16sH", b"lo", flags | 1))
' 2>/dev/null || echo "beside-mock: cannot bring the loopback interface up" >&2
fi
python3 "$LIB/realclient.py" mock "$RUN/dump" "$RUN/port" "${MOCK_REPLY:-ok}" 2> "$RUN/mock.log" &
MOCK=$!
for _ in $(seq 200); do
  [ -s "$RUN/port" ] && break
  sleep 0.05
done
if [ ! -s "$RUN/port" ]; then
  echo "beside-mock: the mock did not start (see $RUN/mock.log)" >&2
  kill "$MOCK" 2>/dev/null
  exit 90
fi
MOCK_PORT=$(cat "$RUN/port")
export MOCK_PORT
bash "$LAUNCHER"
status=$?
kill "$MOCK" 2>/dev/null
wait "$MOCK" 2>/dev/null
exit $status
