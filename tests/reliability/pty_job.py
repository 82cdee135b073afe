#!/usr/bin/env python3
"""pty_job.py CASE STEPSCOPE REL_PROG REL_CHECK WORKDIR

`stepscope record` at a terminal: a pseudo-terminal (Python's pty module) with a shell in it,
typed to as a user would. rel_prog.c is the program; every case checks that the trace is
closed afterwards.

  ctrl_c      interactive bash: Ctrl-C while rel_prog's SIGINT handler waits, first without
              stepscope, then under record: the handler runs once both times, same output,
              same exit status (5)
  ctrl_z      interactive bash: the program reading the terminal holds the foreground (no
              SIGTTIN); Ctrl-Z stops it and record (the shell says 148, both are stopped); `fg`
              gives it the terminal back; the line typed then is the one it reads; exit 0
  pipeline    interactive bash: `record ... | cat`: Ctrl-Z stops the program, record and cat
              (the whole job, as the terminal would); `fg`, then Ctrl-C: the handler runs once,
              record exits 5
  background  interactive bash: `record ... &` of a program that reads the terminal: stopped
              by SIGTTIN as it would be alone (the shell reports the job stopped); `fg` lets
              it read; exit 0
  restore     a shell without job control (sh -c) that reads the terminal after record: the
              terminal's foreground is back with the shell's group when record has ended

Prints "ok: CASE" and exits 0, "FAIL [CASE]: ..." and exits 1, or "skipped: ..." and exits 0
where the machine has no pseudo-terminals or no bash.
"""
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import time

TIMEOUT = 20.0
STARTED = []  # the programs (and records) these tests started: killed if a case fails


class Fail(Exception):
    pass


class Term:
    """A shell on the slave side of a pty; reads everything it prints."""

    def __init__(self, argv):
        env = dict(os.environ, TERM="dumb", PS1="PROMPT> ", HISTFILE="/dev/null")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child: session leader with the pty as controlling terminal
            try:
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        self.out = b""

    def send(self, data):
        os.write(self.fd, data.encode() if isinstance(data, str) else data)

    def read_some(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return
        try:
            self.out += os.read(self.fd, 4096)
        except OSError:  # EIO: every process of the terminal has closed it
            time.sleep(timeout)

    def expect(self, pattern, what):
        """Waits for pattern in the output after what was already matched; returns the match."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            m = re.search(pattern.encode(), self.out)
            if m:
                self.out = self.out[m.end():]
                return m
            left = deadline - time.monotonic()
            if left <= 0:
                raise Fail(f"timed out waiting for {what}; the terminal showed: {self.out[-600:]!r}")
            self.read_some(min(left, 0.2))

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def bash():
    return Term(["bash", "--norc", "--noprofile", "--noediting", "-i"])


def wait_file(path):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            pid = int(open(path).read())
            STARTED.extend([pid, stat(pid)[1]])  # the program and its parent (record or a shell)
            return pid
        time.sleep(0.05)
    raise Fail(f"timed out waiting for {path}")


def stat(pid):
    """(state, ppid, pgrp, tpgid) of a process, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return fields[0], int(fields[1]), int(fields[2]), int(fields[5])


def wait_state(pid, states, what):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if stat(pid)[0] in states:
            return
        time.sleep(0.05)
    raise Fail(f"{what}: process {pid} is in state {stat(pid)[0]}")


def holds_terminal(pid, what):
    _, _, pgrp, tpgid = stat(pid)
    if pgrp != tpgid:
        raise Fail(f"{what}: the terminal's foreground group is {tpgid}, the program's {pgrp}")


def trace_closed(check, out):
    facts = subprocess.run([check, out], capture_output=True, text=True).stdout
    if " closed=1 " not in facts:
        raise Fail(f"trace not closed: {facts.strip()!r}")


def record_cmd(a, mode, ready):
    return f"'{a.bin}' record -o '{a.out}' --no-report -- '{a.prog}' {mode} '{ready}'"


def case_ctrl_c(a, t):
    results = []
    for name, cmd in (("plain", f"'{a.prog}' sigint '{a.w}/ready.plain'"),
                      ("record", record_cmd(a, "sigint", f"{a.w}/ready"))):
        t.send(f'{cmd}; echo "rc=$?"\n')
        prog = wait_file(f"{a.w}/ready" if name == "record" else f"{a.w}/ready.plain")
        holds_terminal(prog, f"{name}: before Ctrl-C")
        t.send(b"\x03")
        handled = t.expect(r"sigint handled: (\d+)", f"{name}: the handler's line").group(1)
        rc = t.expect(r"rc=(\d+)", f"{name}: the exit status").group(1)
        results.append((handled, rc))
    if results[1] != results[0] or results[0] != (b"1", b"5"):
        raise Fail(f"(handled, exit) alone {results[0]}, under record {results[1]}, expected (1, 5)")


def case_ctrl_z(a, t):
    t.send(f'{record_cmd(a, "readline", f"{a.w}/ready")}; echo "rc=$?"\n')
    prog = wait_file(f"{a.w}/ready")
    rec = stat(prog)[1]
    wait_state(prog, "S", "reading the terminal")
    holds_terminal(prog, "reading the terminal")
    t.send(b"\x1a")
    t.expect(r"rc=148", "the shell to see the job stopped by SIGTSTP (rc=148)")
    wait_state(prog, "T", "the program after Ctrl-Z")
    wait_state(rec, "T", "record after Ctrl-Z")
    t.send("fg\n")
    wait_state(rec, "SR", "record after fg")
    wait_state(prog, "S", "the program after fg")
    holds_terminal(prog, "after fg")
    t.send("hello\n")
    t.expect(r"read: hello", "the program to read the line typed after fg")
    t.send('echo "fgrc=$?"\n')
    t.expect(r"fgrc=0", "exit status 0")


def case_pipeline(a, t):
    t.send("set -o pipefail\n")  # fg's status: record's, not cat's
    t.send(f"{record_cmd(a, 'sigint', f'{a.w}/ready')} | cat\n")
    prog = wait_file(f"{a.w}/ready")
    rec = stat(prog)[1]
    cat = [p for p in map(int, filter(str.isdigit, os.listdir("/proc")))
           if p != rec and stat_or_none(p) and stat_or_none(p)[2] == stat(rec)[2]]
    STARTED.extend(cat)
    if len(cat) != 1:
        raise Fail(f"expected one other process (cat) in record's group, found {cat}")
    t.send(b"\x1a")
    for pid, what in ((prog, "the program"), (rec, "record"), (cat[0], "cat")):
        wait_state(pid, "T", f"{what} after Ctrl-Z")
    t.send("fg\n")
    wait_state(prog, "RS", "the program after fg")
    holds_terminal(prog, "after fg")
    t.send(b"\x03")
    t.expect(r"sigint handled: 1\r?\n", "the handler's line, once, through cat")
    t.send('echo "fgrc=$?"\n')
    t.expect(r"fgrc=5", "record's exit status 5 (the program's)")


def stat_or_none(pid):
    try:
        return stat(pid)
    except OSError:
        return None


def case_background(a, t):
    t.send(f"{record_cmd(a, 'readline', f'{a.w}/ready')} &\n")
    prog = wait_file(f"{a.w}/ready")
    rec = stat(prog)[1]
    wait_state(prog, "T", "a background program reading the terminal (SIGTTIN)")
    wait_state(rec, "T", "record with its program stopped")
    t.send("jobs\n")
    t.expect(r"Stopped", "the shell to list the job as stopped")
    t.send("fg\n")
    wait_state(prog, "S", "the program after fg")
    holds_terminal(prog, "after fg")
    t.send("world\n")
    t.expect(r"read: world", "the program to read the line typed after fg")
    t.send('echo "fgrc=$?"\n')
    t.expect(r"fgrc=0", "exit status 0")


def case_restore(a, _):
    script = f'{record_cmd(a, "readline", f"{a.w}/ready")}; echo "rc=$?"; read x; echo "after: $x"'
    t = Term(["sh", "-c", script])
    try:
        prog = wait_file(f"{a.w}/ready")
        wait_state(prog, "S", "reading the terminal")
        holds_terminal(prog, "reading the terminal")
        t.send("one\n")
        t.expect(r"read: one", "the program to read its line")
        t.expect(r"rc=0", "record's exit status")
        t.send("two\n")
        t.expect(r"after: two", "the shell to read the terminal after record (foreground back)")
    finally:
        t.close()


CASES = {"ctrl_c": case_ctrl_c, "ctrl_z": case_ctrl_z, "pipeline": case_pipeline,
         "background": case_background, "restore": case_restore}


class Args:
    def __init__(self, argv):
        self.case, self.bin, self.prog, self.check, self.w = argv[1:6]
        self.out = os.path.join(self.w, "out")


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in CASES:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    a = Args(sys.argv)
    if not shutil.which("bash"):
        print("skipped: no bash for the terminal tests")
        return 0
    try:
        for fd in os.openpty():
            os.close(fd)
    except OSError as e:
        print(f"skipped: cannot open a pseudo-terminal ({e})")
        return 0
    shutil.rmtree(a.w, ignore_errors=True)
    os.makedirs(a.w)
    t = None if a.case == "restore" else bash()
    try:
        if t:
            t.send("set +o history\n")
        CASES[a.case](a, t)
        trace_closed(a.check, a.out)
    except Fail as e:
        print(f"FAIL [{a.case}]: {e}")
        for pid in STARTED:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        return 1
    finally:
        if t:
            t.close()
    print(f"ok: {a.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
