#!/usr/bin/env python3
"""pty-screen.py [--then-type TEXT] SECONDS UNTIL CMD...: runs CMD on a pseudo-terminal of 50
rows and 200 columns, answers the terminal queries a full-screen client waits for (cursor
position, colours, device attributes, keyboard modes), and prints the text it drew, escape
sequences removed, once UNTIL appears in it or after SECONDS. The client is then killed: this
is for looking at a screen such as a picker, never for running a turn. With --then-type, once
UNTIL appears TEXT is typed with Enter (again every 20 seconds, three times at most) and the
client is left to exit by itself (a command that ends the session, such as `/quit`), within
SECONDS.

Exit status 0 when UNTIL appeared (with --then-type: and the client then exited), 1 otherwise
(the text is printed either way).
"""
import os
import pty
import re
import select
import signal
import struct
import sys
import time

ANSWERS = [
    (b"\x1b[6n", b"\x1b[1;1R"),
    (b"\x1b]10;?", b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\"),
    (b"\x1b]11;?", b"\x1b]11;rgb:0000/0000/0000\x1b\\"),
    (b"\x1b[?u", b"\x1b[?0u"),
    (b"\x1b[c", b"\x1b[?62;22c"),
    (b"\x1b[0c", b"\x1b[?62;22c"),
]
ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=!]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


def text_of(raw):
    return ESCAPES.sub(b" ", raw).decode("utf-8", "replace")


def main(argv):
    then_type = None
    if len(argv) > 2 and argv[1] == "--then-type":
        then_type, argv = argv[2].encode() + b"\r", argv[:1] + argv[3:]
    if len(argv) < 4:
        print("usage: pty-screen.py [--then-type TEXT] SECONDS UNTIL CMD...", file=sys.stderr)
        return 2
    seconds, until, cmd = float(argv[1]), argv[2], argv[3:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    import fcntl
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    raw = b""
    end = time.time() + seconds
    found = False
    # With --then-type: when TEXT was typed, and how often.
    typed, times = 0.0, 0
    while time.time() < end and (not found or then_type):
        if found and then_type and times < 3 and time.time() - typed > 20:
            os.write(fd, then_type)
            typed, times = time.time(), times + 1
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        raw += chunk
        for query, answer in ANSWERS:
            if query in chunk:
                os.write(fd, answer)
        if not found and until in text_of(raw):
            found = True
            if then_type:
                # A moment for the input box the text is typed into to take keys.
                time.sleep(0.5)
    if found and then_type:
        sys.stdout.write(text_of(raw))
        return 0 if exited(pid, 10) else 1
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass
    sys.stdout.write(text_of(raw))
    return 0 if found else 1


def exited(pid, seconds):
    """Whether the client exits within `seconds`; it is killed if it does not."""
    end = time.time() + seconds
    while time.time() < end:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return True
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return False


if __name__ == "__main__":
    sys.exit(main(sys.argv))
