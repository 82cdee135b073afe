# bash completion for stepscope (installed as share/bash-completion/completions/stepscope).
# The verbs come from `stepscope --help` and each verb's options from `stepscope VERB --help`
# at completion time, so the completion follows the installed CLI and cannot drift from it.

# The options of one verb: the first column of its --help lines that start with a dash.
_stepscope_options()
{
    "$1" "$2" --help 2>/dev/null |
        sed -n 's/^ \{1,\}\(-[^ ].*\)$/\1/p' | sed 's/  .*//' |
        grep -oE -- '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9-]*' | tr -d ' ,'
}

_stepscope()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[0]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        local verbs
        verbs=$("$cmd" --help 2>/dev/null | sed -n '/^verbs:/,/^$/s/^  \([a-z]\{1,\}\) .*/\1/p')
        COMPREPLY=($(compgen -W "$verbs help --help --version" -- "$cur"))
        return
    fi
    local verb=${COMP_WORDS[1]} i
    if [ "$verb" = help ]; then
        COMPREPLY=($("$cmd" --help 2>/dev/null | sed -n '/^verbs:/,/^$/s/^  \([a-z]\{1,\}\) .*/\1/p' |
                     grep -- "^$cur"))
        return
    fi
    # record: after '--' or the program, the words belong to the program
    if [ "$verb" = record ]; then
        for ((i = 2; i < COMP_CWORD; i++)); do
            case ${COMP_WORDS[i]} in
            --) COMPREPLY=($(compgen -c -- "$cur")); return ;;
            -o | --output | --capture | --mode | --memory-cap | --sample-hz) ((i++)) ;;
            -*) ;;
            *) COMPREPLY=($(compgen -f -- "$cur")); return ;;
            esac
        done
    fi
    case $prev in
    -f | --format)
        local fmts
        case $verb in
        report | diff) fmts="text json md html" ;;
        export) fmts="perfetto nsys-sqlite nvtxt" ;;
        *) fmts="text json" ;;
        esac
        COMPREPLY=($(compgen -W "$fmts" -- "$cur"))
        return ;;
    --mode) COMPREPLY=($(compgen -W "full light" -- "$cur")); return ;;
    --capture) COMPREPLY=($(compgen -W "all steps: seconds:" -- "$cur")); return ;;
    -o | --output | -d | --data)
        COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_stepscope_options "$cmd" "$verb")" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -o bashdefault -F _stepscope stepscope
