#!/bin/sh
# recipe.sh RECIPE_PROG SRC WORK — docs/design.md's recipe "Add a record option or a setting",
# followed: a row (recipe_row.h) and its use (recipe_prog.c) and nothing else, and every part
# that must take it does: record's --help, its check, the variable it sets; the collector's
# configuration, its ENV record and the use; the man page; the bash and zsh completion; the
# shim's rows stay as they are (the row is not the shim's). Fails on the first that does not.
set -u
prog=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAILED: $*" >&2; exit 1; }
unset STEPSCOPE_RECIPE_KNOB

"$prog" record --help >"$work/help" || fail "record --help"
grep -A2 -- '--recipe-knob N' "$work/help" >"$work/entry" || fail "--help lacks --recipe-knob"
grep -q 'low | high | 1-9' "$work/entry" && grep -q "turns its knob (default 5)" "$work/entry" ||
    fail "--recipe-knob's help: $(cat "$work/entry")"

"$prog" record --recipe-knob 12 -- true 2>"$work/err"
[ $? = 2 ] && grep -q "recipe-knob must be low, high or a number from 1 to 9, not '12'" "$work/err" ||
    fail "--recipe-knob 12 not refused: $(cat "$work/err")"
"$prog" record --recipe-knob high -- true >"$work/vars" || fail "--recipe-knob high"
grep -qx 'STEPSCOPE_RECIPE_KNOB=high' "$work/vars" || fail "variable: $(cat "$work/vars")"

"$prog" collector >"$work/env" || fail "collector"
grep -qx 'collector.recipe_knob=5' "$work/env" && grep -qx 'the knob is at 5' "$work/env" ||
    fail "collector, default: $(cat "$work/env")"
STEPSCOPE_RECIPE_KNOB=7 "$prog" collector >"$work/env" || fail "collector"
grep -qx 'collector.recipe_knob=7' "$work/env" && grep -qx 'the knob is at 7' "$work/env" ||
    fail "collector, 7: $(cat "$work/env")"
STEPSCOPE_RECIPE_KNOB=x "$prog" collector >"$work/env" 2>"$work/err" || fail "collector"
grep -q "STEPSCOPE_RECIPE_KNOB must be low, high or a number from 1 to 9, not 'x'" "$work/err" &&
    grep -qx 'collector.recipe_knob=5' "$work/env" || fail "collector, x: $(cat "$work/err")"

"$prog" gen man <"$src/docs/man/stepscope-record.1.scd" >"$work/page.scd" || fail "gen man"
sed -n '/^# OPTIONS/,/^# CAPTURE/p' "$work/page.scd" | grep -A1 -x '\*--recipe-knob\* _N_' |
    grep -q 'turns its knob (default 5)\. Sets \*STEPSCOPE\\_RECIPE\\_KNOB\*' ||
    fail "man page OPTIONS lack --recipe-knob"

comp=$(bash -c '. "$1"; COMP_WORDS=("$2" record --recipe-knob ""); COMP_CWORD=3; _stepscope
                echo "${COMPREPLY[*]}"' _ "$src/tools/install/stepscope.bash" "$prog")
[ "$comp" = "low high" ] || fail "bash completes --recipe-knob with '$comp'"
comp=$(bash -c '. "$1"; COMP_WORDS=("$2" record --recipe); COMP_CWORD=2; _stepscope
                echo "${COMPREPLY[*]}"' _ "$src/tools/install/stepscope.bash" "$prog")
[ "$comp" = "--recipe-knob" ] || fail "bash completes --recipe with '$comp'"
if command -v zsh >/dev/null; then
    comp=$(zsh -c '_values() { shift; print -r -- "$*" }; _files() {}; compadd() {}
                   _describe() {}; _normal() {}; words=("$1" record --recipe-knob "")
                   CURRENT=4; PREFIX=""; source "$2"' _ "$prog" "$src/tools/install/_stepscope")
    [ "$comp" = "low high" ] || fail "zsh completes --recipe-knob with '$comp'"
fi

"$prog" gen python "$work/rows.py" || fail "gen python"
cmp -s "$work/rows.py" "$src/python/stepscope/_settings_rows.py" ||
    fail "a row the shim does not read changed the shim's rows"
echo "passed: the recipe's row reached record, the collector, the man page and the completion"
