/*
 * ss_cxxname.h — C++ kernel names for people: demangled with the C++ ABI's demangler
 * (libstdc++'s __cxa_demangle, the one c++filt uses) and shortened by their structure, never
 * by cutting characters. The report (tools/report), the Perfetto and nsys exporters
 * (src/interop) show kernel names through these.
 */
#ifndef SS_CXXNAME_H
#define SS_CXXNAME_H

#include <stddef.h>

/* The demangled form of a C++ mangled name ("_Z..."; s[0..len), not NUL-terminated), malloc'ed
 * (caller frees), or NULL when the name is not mangled, cannot be demangled, or is longer than
 * SS_DEMANGLE_MAX (bounded work per name): then show it as it is. */
#define SS_DEMANGLE_MAX 8192
char *ss_demangle(const char *s, size_t len);

/* nsys's shortName: the bare function name of a demangled name, without return type, scopes,
 * template arguments and parameters ("void at::native::foo<4>(int)" -> "foo"); a name with no
 * such structure is kept whole. Writes at most cap-1 bytes and a NUL; returns the length. */
size_t ss_name_bare(const char *s, size_t len, char *out, size_t cap);

/* The shortening levels of ss_name_shorten, each keeping less structure than the one before:
 *   0 the name as it is
 *   1 without the return type           "at::native::k<4, at::F<float> >(int, at::F<float>)"
 *   2 the parameter list folded          "at::native::k<4, at::F<float> >(...)"
 *   3..5 template arguments kept to a depth of 2, 1, 0  (level 5: "at::native::k<...>(...)")
 *   6 the scopes dropped                 "k<...>(...)"
 * The function's name itself is never shortened. */
#define SS_NAME_LEVELS 7

/* s (demangled or not) at shortening level (0..SS_NAME_LEVELS-1) into out, NUL-terminated.
 * No level is longer than s (a bracket is folded only when "..." is shorter than what it
 * holds), so cap > strlen(s) always suffices; with less, out is "" and 0 is returned. Brackets
 * that do not balance ("operator<", a hostile string) stop the folding: the name is then kept
 * as the level before had it. Returns the length written. */
size_t ss_name_shorten(const char *s, int level, char *out, size_t cap);

#endif
