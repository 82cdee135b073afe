# watch.sh — sourced by the collector's test scripts: `watched LIMIT CMD...` runs CMD in the
# background (redirect at the call); after LIMIT s it prints where every process of the run
# waits (dump_tree), kills them and returns 124: a hang reports itself (on the script's fd 3,
# opened here on its stdout) instead of dying silently at ctest's time limit.

# Every thread of process $1 and its descendants: state, kernel wait channel, the syscall it
# is in (202 futex, 61 wait4, 7 poll), and gdb's backtraces where gdb exists.
tree_pids() {
    echo "$1"
    for c in $(pgrep -P "$1"); do tree_pids "$c"; done
}
dump_tree() {
    for p in $(tree_pids "$1"); do
        echo "== pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
        for t in /proc/$p/task/*; do
            echo "   tid ${t##*/} $(cut -d' ' -f3 "$t/stat" 2>/dev/null) wchan=$(cat "$t/wchan" 2>/dev/null) syscall=$(cut -d' ' -f1 "$t/syscall" 2>/dev/null)"
        done
        command -v gdb >/dev/null &&
            timeout 60 gdb -p "$p" -batch -ex "thread apply all bt 20" 2>/dev/null | grep -E '^(#|Thread)'
    done
}

watched() {
    limit=$1
    shift
    "$@" &
    pid=$!
    t=0
    while kill -0 "$pid" 2>/dev/null && [ "$t" -lt $((limit * 10)) ]; do
        sleep 0.1
        t=$((t + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "HUNG after ${limit}s: where each process waits" >&3
        dump_tree "$pid" >&3
        kill -KILL $(tree_pids "$pid") 2>/dev/null
        wait "$pid"
        return 124
    fi
    wait "$pid"
}
exec 3>&1
