/* ss_cxxname.c — demangling and structural shortening of C++ kernel names (ss_cxxname.h). */
#include "util/ss_cxxname.h"

#include <stdlib.h>
#include <string.h>

/* The C++ ABI's demangler (libstdc++, the same one c++filt uses). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *ss_demangle(const char *s, size_t len)
{
    if (len < 3 || len > SS_DEMANGLE_MAX || s[0] != '_' || s[1] != 'Z') return NULL;
    if (memchr(s, '\0', len)) return NULL;
    char *copy = malloc(len + 1); /* the trace's strings are not NUL-terminated */
    if (!copy) return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    int status = -1;
    char *out = __cxa_demangle(copy, NULL, NULL, &status);
    free(copy);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static int opens(char c)
{
    return c == '(' || c == '<' || c == '[' || c == '{';
}

/* A closing bracket; the '>' of "->" is none. */
static int closes(const char *s, size_t i)
{
    char c = s[i];
    return c == ')' || c == ']' || c == '}' || (c == '>' && !(i > 0 && s[i - 1] == '-'));
}

/* Index of the last top-level '(' (the parameter list), or len when there is none. Brackets
 * are counted so that "(anonymous namespace)" inside scopes and "operator()" are skipped. */
static size_t params_at(const char *s, size_t len)
{
    int depth = 0;
    size_t at = len;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '(' && depth == 0) at = i;
        if (opens(s[i])) depth++;
        if (closes(s, i) && depth > 0) depth--;
    }
    /* "(anonymous namespace)::f" has its '(' at the top level too: only a list that closes
     * the name (followed by nothing but qualifiers) counts */
    if (at < len && at > 0 && s[at - 1] == ' ') return len;
    return at;
}

/* End of s[0..n) with a trailing "<...>" removed (template arguments of the function). */
static size_t strip_template(const char *s, size_t n)
{
    if (n == 0 || s[n - 1] != '>') return n;
    int depth = 0;
    for (size_t i = n; i-- > 0;) {
        if (s[i] == '>') depth++;
        if (s[i] == '<' && --depth == 0) {
            /* "operator<" / "operator<<": the '<' belongs to the name */
            if (i >= 8 && memcmp(s + i - 8, "operator", 8) == 0) return n;
            return i;
        }
    }
    return n;
}

/* Start of the last top-level component of s[0..n): after the last space (scopes too when
 * scopes is set: after the last "::"). */
static size_t last_component(const char *s, size_t n, int scopes)
{
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        if (opens(s[i])) depth++;
        if (closes(s, i) && depth > 0) depth--;
        if (depth) continue;
        if (s[i] == ' ') start = i + 1;
        if (scopes && s[i] == ':' && i + 1 < n && s[i + 1] == ':') start = i + 2;
    }
    return start;
}

size_t ss_name_bare(const char *s, size_t len, char *out, size_t cap)
{
    if (cap == 0) return 0;
    size_t end = strip_template(s, params_at(s, len));
    size_t start = end ? last_component(s, end, 1) : 0;
    if (start >= end) start = 0, end = len; /* nothing recognisable: the whole name */
    size_t n = end - start < cap - 1 ? end - start : cap - 1;
    memcpy(out, s + start, n);
    out[n] = '\0';
    return n;
}

/* The index of the bracket closing the one that opens at s[i], or len when it never closes. */
static size_t closing(const char *s, size_t len, size_t i)
{
    int depth = 0;
    for (size_t k = i; k < len; k++) {
        if (opens(s[k])) depth++;
        if (closes(s, k) && --depth == 0) return k;
    }
    return len;
}

/* "(anonymous namespace)" at s[i]: a scope's name, not a bracket to fold. */
static int is_anonymous_ns(const char *s, size_t len, size_t i)
{
    static const char anon[] = "(anonymous namespace)";
    return len - i >= sizeof anon - 1 && memcmp(s + i, anon, sizeof anon - 1) == 0;
}

/* s[0..len) with every bracket nested deeper than max_depth holding "..." instead of what it
 * held (when that is longer), written to out (room for len + 1). -1 when a bracket never
 * closes: then out is not a name. */
static int fold_depth(const char *s, size_t len, int max_depth, char *out, size_t *n)
{
    int depth = 0;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        out[o++] = s[i];
        if (closes(s, i) && depth > 0) depth--;
        if (!opens(s[i])) continue;
        if (++depth <= max_depth || is_anonymous_ns(s, len, i)) continue;
        size_t end = closing(s, len, i);
        if (end == len) return -1;
        if (end - i - 1 > 3) {
            memcpy(out + o, "...", 3), o += 3;
            out[o++] = s[end];
            i = end;
            depth--;
        }
    }
    *n = o;
    return 0;
}

/* The part of s[0..len) that level keeps before folding: from the qualified name's start
 * (level >= 1: after the return type; level 6: after the scopes) to the end. */
static size_t name_start(const char *s, size_t len, int level)
{
    if (level < 1) return 0;
    size_t end = strip_template(s, params_at(s, len));
    if (end == 0) return 0;
    return last_component(s, end, level >= 6);
}

size_t ss_name_shorten(const char *s, int level, char *out, size_t cap)
{
    size_t len = strlen(s);
    if (cap <= len) {
        if (cap) out[0] = '\0';
        return 0;
    }
    size_t start = name_start(s, len, level), n = len - start;
    const char *p = s + start;
    memcpy(out, p, n);
    out[n] = '\0';
    if (level < 2) return n;
    size_t params = params_at(p, n);
    int depth = level >= 5 ? 0 : level >= 3 ? 5 - level : 64; /* levels 3, 4, 5+: 2, 1, 0 */
    char *tmp = malloc(n + 1);
    size_t m = 0;
    if (!tmp || fold_depth(p, params, depth, tmp, &m) != 0) {
        free(tmp);
        return n; /* unbalanced: kept with its return type dropped only */
    }
    if (params < n) { /* the parameter list, always folded from level 2 on */
        size_t end = closing(p, n, params);
        size_t keep_from = end < n && end - params - 1 > 3 ? end : params + 1;
        memcpy(tmp + m, p + params, 1), m++;
        if (keep_from == end && end < n) memcpy(tmp + m, "...", 3), m += 3;
        memcpy(tmp + m, p + keep_from, n - keep_from), m += n - keep_from;
    }
    memcpy(out, tmp, m);
    out[m] = '\0';
    free(tmp);
    return m;
}
