/*
 * text_esc.h — turning untrusted bytes (strings from a trace, file names) into safe text.
 *
 * A trace can come from anywhere; its strings may hold quotes, newlines, terminal escape
 * sequences or bytes that are not UTF-8. Nothing from a trace reaches the terminal raw:
 * every CLI verb prints strings through these functions (text) or json_out (JSON).
 */
#ifndef TEXT_ESC_H
#define TEXT_ESC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Decodes one UTF-8 sequence at s (n > 0 bytes available). Returns the bytes consumed
 * (1..4) and sets *cp; an invalid, overlong, surrogate or truncated sequence consumes 1
 * byte and sets *cp to UTF8_INVALID. */
#define UTF8_INVALID 0xFFFFFFFFu
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Code points that must not reach a terminal or a log line raw: C0 and C1 controls, DEL,
 * line/paragraph separators and the bidirectional overrides (which can make text display
 * differently from what it is). */
int text_cp_is_unsafe(uint32_t cp);

/* Writes s[0..n) escaped, C-style: \" \\ \n \r \t, \xNN for other control bytes and
 * bytes that are not UTF-8, \u{XXXX} for unsafe code points. quoted: surround with "". */
void text_write_escaped(FILE *f, const char *s, size_t n, int quoted);

/* As text_write_escaped into buf (always NUL-terminated, cut with "..." if too small).
 * For error messages that are formatted before printing. Returns buf. */
char *text_escape_to(char *buf, size_t cap, const char *s);

/* A path shown in at most width columns (code points): whole when it fits, else its start,
 * "..." and its end, the file name kept whole when it fits. Escaped first. Returns buf. */
char *text_elide_path(char *buf, size_t cap, const char *s, size_t width);

/* A command line in at most width columns: the program's base name (its folder dropped),
 * then its arguments from the first, cut at the end with "...". Escaped. Returns buf. */
char *text_short_command(char *buf, size_t cap, const char *cmdline, size_t width);

/* Code points in s[0..n) (UTF-8 continuation bytes do not count): the columns that escaped
 * text takes (every code point one column). */
size_t text_columns(const char *s, size_t n);

/* The byte offset where the first cols code points of the NUL-terminated s end. */
size_t text_bytes_for_columns(const char *s, size_t cols);

/* Writes s HTML-escaped (& < > " ' and control bytes); NULL writes "-". */
void html_escaped(FILE *f, const char *s);
/* The HTML entity for & < > " ' (static storage), or NULL for any other code point. */
const char *html_entity(uint32_t c);

/* Writes s for a Markdown table cell or paragraph: HTML-escaped too (Markdown renders
 * inline HTML), and | ` * _ [ ] \ backslash-escaped, newlines as spaces. NULL writes "-". */
void md_escaped(FILE *f, const char *s);

#endif
