#!/usr/bin/env python3
"""Runs a plan of GPU jobs on every GPU of the machine at once, one job per GPU (or per group of
GPUs), in the background, so that one device-tool lease does the work of several.

The device tool gives 10 minutes per command and keeps the machine only between calls, so:

    python3 bench/gpu/jobs.py start PLAN DIR     # starts the scheduler detached, returns at once
    python3 bench/gpu/jobs.py wait DIR [SECS]    # prints progress until done or SECS passed
    python3 bench/gpu/jobs.py status DIR         # one line per job
    python3 bench/gpu/jobs.py pack DIR OUTDIR    # results.tar.xz (+ parts) of what is done

PLAN is a text file, one job per line, `name | gpus | after | command` (`#` starts a comment):
gpus is how many GPUs the job takes (0: none, e.g. a build), after names a job that must have
finished first (or `-`), and command is run by bash in the repository root with
CUDA_VISIBLE_DEVICES set to the job's GPUs, JOB_OUT to its own output folder (DIR/NAME) and
JOB_BUDGET_S to the seconds left before the plan's deadline (`deadline N` line: N seconds after
start). Jobs start in plan order as GPUs free up (a ready job that waits for GPUs holds back the
jobs after it, so a two-GPU job is not starved); a job whose `after` failed is skipped. The plan
is read again every few seconds: jobs appended to it while it runs are taken too. Timings
measured inside one job are interleaved there; jobs on other GPUs run at the same time, which the
results must say.
"""
import json
import os
import signal
import subprocess
import sys
import tarfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_plan(path):
    jobs, deadline = [], None
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
            if not line:
                continue
            if line.startswith("deadline "):
                deadline = float(line.split()[1])
                continue
            parts = [p.strip() for p in line.split("|", 3)]
            if len(parts) != 4:
                sys.exit("jobs.py: bad plan line: %r" % line)
            jobs.append({"name": parts[0], "gpus": int(parts[1]),
                         "after": None if parts[2] == "-" else parts[2], "command": parts[3],
                         "state": "pending"})
    return jobs, deadline


def gpu_count():
    if os.environ.get("JOBS_GPUS"):  # for trying a plan on a machine without GPUs
        return int(os.environ["JOBS_GPUS"])
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
        return sum(1 for line in out.stdout.splitlines() if line.startswith("GPU "))
    except (OSError, subprocess.TimeoutExpired):
        return 0


def save(state_path, state):
    tmp = state_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f, indent=1)
    os.replace(tmp, state_path)


def launch(job, gpus, out_dir, budget):
    job_out = os.path.join(out_dir, job["name"])
    os.makedirs(job_out, exist_ok=True)
    env = dict(os.environ, JOB_OUT=job_out, JOB_BUDGET_S=str(int(budget)),
               CUDA_VISIBLE_DEVICES=",".join(map(str, gpus)), PYTHONUNBUFFERED="1")
    log = open(os.path.join(out_dir, job["name"] + ".log"), "wb")
    proc = subprocess.Popen(["bash", "-c", job["command"]], cwd=REPO, env=env, stdout=log,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    job.update(state="running", gpu_ids=gpus, started=time.time(), pid=proc.pid)
    return proc


def startable(job, jobs):
    if job["after"] is None:
        return "yes"
    dep = next((j for j in jobs if j["name"] == job["after"]), None)
    if dep is None or dep["state"] in ("failed", "skipped"):
        return "never"
    return "yes" if dep["state"] == "done" else "later"


def add_new_jobs(plan, jobs):
    """Jobs appended to the plan file since it was read (a broken plan is ignored)."""
    try:
        fresh, _ = parse_plan(plan)
    except (OSError, SystemExit):
        return
    known = {j["name"] for j in jobs}
    jobs.extend(j for j in fresh if j["name"] not in known)


def start_ready(jobs, free, procs, out_dir, n, left):
    """Starts pending jobs in plan order; returns the GPUs still free."""
    for job in jobs:
        if job["state"] != "pending":
            continue
        ok = startable(job, jobs)
        if ok == "never" or left < 30 or job["gpus"] > n:
            job["state"] = "skipped"
            job["why"] = "dependency" if ok == "never" else ("deadline" if left < 30
                                                               else "too few GPUs")
        elif ok == "yes" and job["gpus"] <= len(free):
            gpus, free = free[:job["gpus"]], free[job["gpus"]:]
            procs[job["name"]] = launch(job, gpus, out_dir, left)
        elif ok == "yes" and job["gpus"] > 0:
            break  # waits for GPUs: later jobs wait behind it
    return free


def schedule(plan, out_dir):
    jobs, deadline = parse_plan(plan)
    n = gpu_count()
    start = time.time()
    state = {"plan": plan, "gpus": n, "started": start, "deadline_s": deadline, "jobs": jobs}
    state_path = os.path.join(out_dir, "state.json")
    free, procs = list(range(n)), {}
    while True:
        add_new_jobs(plan, jobs)
        left = deadline - (time.time() - start) if deadline else 1e9
        free = start_ready(jobs, free, procs, out_dir, n, left)
        for name, proc in list(procs.items()):
            rc = proc.poll()
            if rc is None:
                continue
            job = next(j for j in jobs if j["name"] == name)
            job.update(state="done" if rc == 0 else "failed", rc=rc,
                       seconds=round(time.time() - job["started"], 1))
            free = sorted(free + job["gpu_ids"])
            del procs[name]
        save(state_path, state)
        if not procs and all(j["state"] != "pending" for j in jobs):
            state["finished"] = time.time()
            save(state_path, state)
            return
        time.sleep(2)


def status_lines(out_dir):
    try:
        with open(os.path.join(out_dir, "state.json")) as f:
            state = json.load(f)
    except (OSError, ValueError):
        return ["no state yet"], False
    now = time.time()
    lines = ["%d GPUs, %.0f s since start" % (state["gpus"], now - state["started"])]
    for j in state["jobs"]:
        t = j.get("seconds") or (now - j["started"] if "started" in j else 0)
        lines.append("  %-22s %-8s gpus=%s %5.0f s %s" % (j["name"], j["state"],
                                                         j.get("gpu_ids", "-"), t,
                                                         j.get("why", "")))
    return lines, "finished" in state


def cmd_start(plan, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    log = open(os.path.join(out_dir, "scheduler.log"), "ab")
    subprocess.Popen([sys.executable, os.path.abspath(__file__), "run", plan, out_dir],
                     stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                     start_new_session=True)
    print("scheduler started; state in %s/state.json" % out_dir)


def cmd_wait(out_dir, secs):
    end = time.time() + secs
    last = None
    while True:
        lines, finished = status_lines(out_dir)
        text = "\n".join(lines)
        if text != last:
            print(time.strftime("%H:%M:%S"), text, flush=True)
            last = text
        if finished or time.time() > end:
            return
        time.sleep(10)


def cmd_pack(out_dir, dest, max_part=15 << 20):
    """One results.tar.xz of out_dir (logs, JSON, traces), split in 15 MiB parts if larger."""
    os.makedirs(dest, exist_ok=True)
    path = os.path.join(dest, "results.tar.xz")
    with tarfile.open(path, "w:xz") as tar:
        tar.add(out_dir, arcname="results",
                filter=lambda ti: None if ti.name.endswith(".nsys-rep") else ti)
    size = os.path.getsize(path)
    if size > max_part:
        with open(path, "rb") as f:
            i = 0
            while chunk := f.read(max_part):
                with open("%s.part%02d" % (path, i), "wb") as p:
                    p.write(chunk)
                i += 1
        os.remove(path)
    print("packed %d KiB" % (size >> 10))


def main(argv):
    if len(argv) >= 3 and argv[0] == "run":
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        schedule(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "start":
        cmd_start(os.path.abspath(argv[1]), os.path.abspath(argv[2]))
    elif len(argv) in (2, 3) and argv[0] == "wait":
        cmd_wait(argv[1], float(argv[2]) if len(argv) == 3 else 1e9)
    elif len(argv) == 2 and argv[0] == "status":
        print("\n".join(status_lines(argv[1])[0]))
    elif len(argv) == 3 and argv[0] == "pack":
        cmd_pack(argv[1], argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
