# bash completion for stepscope (installed as share/bash-completion/completions/stepscope).
# The verbs come from `stepscope --help` and each verb's options and the values they list from
# `stepscope VERB --help` at completion time, so the completion follows the installed CLI and
# cannot drift from it.

# The options of one verb: the first column of its --help lines that start with a dash.
_stepscope_options()
{
    "$1" "$2" --help 2>/dev/null |
        sed -n 's/^ \{1,\}\(-[^ ].*\)$/\1/p' | sed 's/  .*//' |
        grep -oE -- '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9-]*' | tr -d ' ,'
}

# The formats a verb writes, from its --help ("--format a|b|c"), else text and json.
_stepscope_formats()
{
    local f
    f=$("$1" "$2" --help 2>/dev/null | grep -o -- '--format [a-z|-]*|[a-z|-]*' | head -1)
    f=${f#--format }
    echo "${f:-text|json}" | tr '|' ' '
}

# The values of a verb's option OPT that its --help lists: the line "--OPT ARG  a | b | c"
# (record's are the settings table's: src/trace/sst_settings.h), a form such as steps:A-B
# offered as "steps:", a range such as 1-1000 not at all. Nothing when the line lists none.
_stepscope_values()
{
    "$1" "$2" --help 2>/dev/null |
        sed -n "s/^ .*$3 [A-Z][A-Z_]* *\([a-z][^ ]*\( | [^ ]*\)*\)\$/\1/p" | head -1 |
        tr -d ' ' | tr '|' '\n' | sed 's/:.*/:/' | grep '^[a-z]'
}

# The options of a verb that take a value: those --help shows with an upper-case argument.
_stepscope_valued()
{
    "$1" "$2" --help 2>/dev/null | grep -oE -- '--?[A-Za-z0-9-]+ [A-Z][A-Z_]*' | sed 's/ .*//'
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
        local valued=" $(_stepscope_valued "$cmd" record | tr '\n' ' ') "
        for ((i = 2; i < COMP_CWORD; i++)); do
            case ${COMP_WORDS[i]} in
            --) COMPREPLY=($(compgen -c -- "$cur")); return ;;
            -*) [[ $valued == *" ${COMP_WORDS[i]} "* ]] && ((i++)) ;;
            *) COMPREPLY=($(compgen -f -- "$cur")); return ;;
            esac
        done
    fi
    case $prev in
    -f | --format)
        COMPREPLY=($(compgen -W "$(_stepscope_formats "$cmd" "$verb")" -- "$cur"))
        return ;;
    --samples) COMPREPLY=($(compgen -W "idle all" -- "$cur")); return ;;
    -o | --output | -d | --data)
        COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    if [[ $prev == --?* ]]; then
        local values
        values=$(_stepscope_values "$cmd" "$verb" "$prev")
        if [ -n "$values" ]; then
            COMPREPLY=($(compgen -W "$values" -- "$cur"))
            return
        fi
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_stepscope_options "$cmd" "$verb")" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -o bashdefault -F _stepscope stepscope
