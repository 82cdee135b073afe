/*
 * test_pyread.c — the GIL-free frame reader (src/collect/ssc_pyread.c) against a fabricated
 * memory image: location tables of every entry form, the walk through a thread state (direct
 * and indirect), shim frames left out, a torn read refused, truncation, str and bytes objects.
 * No Python needed: the layout is chosen here, as the learning would have found it.
 */
#include "collect/ssc_pyread.h"

#include "ss_test.h"

/* ---- a fake address space: regions at made-up addresses --------------------------------- */

#define REGIONS 32
static struct {
    uint64_t addr;
    uint8_t data[2048];
} g_mem[REGIONS];
static int g_n;

static uint8_t *region(uint64_t addr)
{
    REQUIRE(g_n < REGIONS);
    g_mem[g_n].addr = addr;
    memset(g_mem[g_n].data, 0, sizeof g_mem[g_n].data);
    return g_mem[g_n++].data;
}

/* The bytes of the region that starts at addr. */
static uint8_t *at(uint64_t addr)
{
    for (int i = 0; i < g_n; i++)
        if (g_mem[i].addr == addr) return g_mem[i].data;
    REQUIRE(!"a region at that address");
    return NULL;
}

static int g_reads; /* successful reads, for the window's test */

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
    (void)ctx;
    for (int i = 0; i < g_n; i++)
        if (addr >= g_mem[i].addr && addr + n <= g_mem[i].addr + sizeof g_mem[i].data) {
            memcpy(buf, g_mem[i].data + (addr - g_mem[i].addr), n);
            g_reads++;
            return 0;
        }
    return -1; /* EFAULT */
}

static const struct ssc_pyr_mem k_mem = {fake_read, NULL};

static void put64(uint8_t *p, uint32_t off, uint64_t v)
{
    memcpy(p + off, &v, 8);
}

/* ---- location tables ------------------------------------------------------------------------ */

/* Entries (first byte 1 CCCC LLL: code, length - 1 in code units), first line 10:
 *   units 0-1  code 13 (no columns), line delta +1 (svarint 2)        -> 11
 *   units 2-4  code 0 (short form), one column byte                    -> 11
 *   unit  5    code 11 (one-line form, delta 1), two column bytes      -> 12
 *   unit  6    code 14 (long form), delta -3 (svarint 7), end 0, cols  -> 9
 *   unit  7    code 15 (no location)                                   -> -1
 *   unit  8    code 13, delta +40 (svarint 80: two 6-bit groups)       -> 49 */
static const uint8_t k_table[] = {0xE9, 0x02, 0x82, 0x05, 0xD8, 0x01, 0x04,
                                  0xF0, 0x07, 0x00, 0x01, 0x01, 0xF8, 0xE8, 0x50, 0x01};

static void test_line_table(void)
{
    const int want[] = {11, 11, 11, 11, 11, 12, 9, -1, 49};
    for (int unit = 0; unit < 9; unit++)
        CHECK_EQ(ssc_pyr_line(k_table, sizeof k_table, 10, unit * 2), want[unit]);
    CHECK_EQ(ssc_pyr_line(k_table, sizeof k_table, 10, 9 * 2), -1);  /* past the end */
    CHECK_EQ(ssc_pyr_line(k_table + 1, sizeof k_table - 1, 10, 0), -1); /* not an entry start */
    CHECK_EQ(ssc_pyr_line(k_table, 1, 10, 0), 10);                    /* cut inside a varint */
}

/* ---- objects and frames ---------------------------------------------------------------------- */

enum { CODE_TYPE = 0x7000, STR_TYPE = 0x7100 };
static const struct ssc_pyr_layout k_layout = {
    .ts_frame = 56, .ts_frame_sub = 8, .ts_frame_indirect = 1, .ts_next = 8, .ts_native_tid = 144,
    .interp_threads_head = 72, .if_code = 0, .if_previous = 8, .if_instr = 56,
    .code_tag_mask = 7, .instr_delta = 0, .co_filename = 112, .co_qualname = 128,
    .co_firstlineno = 68, .co_linetable = 136, .co_code_start = 192, .code_type = CODE_TYPE,
    .skip_code = {0x60000}, .str_ascii_data = 40, .str_compact_data = 56, .bytes_data = 32};

static void make_str(uint64_t addr, const char *ascii)
{
    uint8_t *s = region(addr);
    put64(s, 8, STR_TYPE);
    put64(s, 16, strlen(ascii));
    uint32_t state = 1u << 2 | 1u << 5 | 1u << 6; /* kind 1, compact, ascii */
    memcpy(s + 32, &state, 4);
    memcpy(s + 40, ascii, strlen(ascii));
}

/* A code object at addr named name, first line 10, its location table k_table. */
static void make_code(uint64_t addr, uint64_t name, uint64_t table)
{
    uint8_t *c = region(addr);
    put64(c, 8, CODE_TYPE);
    put64(c, 16, 9); /* 9 code units */
    put64(c, 112, 0x90000);
    put64(c, 128, name);
    put64(c, 136, table);
    int32_t first = 10;
    memcpy(c + 68, &first, 4);
}

/* An interpreter frame at addr running code at unit, its caller previous. */
static void make_frame(uint64_t addr, uint64_t code, int unit, uint64_t previous)
{
    uint8_t *f = region(addr);
    put64(f, 0, code | 1); /* a tag bit, as 3.14's stack references carry */
    put64(f, 8, previous);
    put64(f, 56, code + 192 + (uint64_t)unit * 2);
}

static void build_image(void)
{
    g_n = 0;
    make_str(0x90000, "train.py");
    make_str(0x91000, "step");
    make_str(0x92000, "main");
    uint8_t *b = region(0x93000);
    put64(b, 16, sizeof k_table);
    memcpy(b + 32, k_table, sizeof k_table);
    make_code(0x50000, 0x91000, 0x93000);
    make_code(0x51000, 0x92000, 0x93000);
    uint8_t *shim = region(0x60000); /* 3.12's trampoline: a code object, left out */
    put64(shim, 8, CODE_TYPE);
    put64(shim, 16, 4);
    uint8_t *none = region(0x61000); /* 3.13's shim runs None: not code, left out */
    put64(none, 8, 0x7200);
    make_frame(0x10000, 0x50000, 5, 0x11000);  /* step, line 12 */
    make_frame(0x11000, 0x60000, 0, 0x12000);  /* trampoline */
    make_frame(0x12000, 0x61000, 0, 0x13000);  /* None shim */
    make_frame(0x13000, 0x51000, 8, 0);        /* main, line 49 */
    uint8_t *cframe = region(0x20000);
    put64(cframe, 8, 0x10000);
    uint8_t *ts = region(0x30000);
    put64(ts, 56, 0x20000);
    put64(ts, 144, 4242);
}

static void test_walk(void)
{
    build_image();
    uint64_t cur = ssc_pyr_current_frame(&k_layout, &k_mem, 0x30000);
    CHECK_EQ_U64(cur, 0x10000);
    struct ssc_pyr_frame f[8];
    int truncated = -1, n = ssc_pyr_walk(&k_layout, &k_mem, cur, f, 8, &truncated);
    REQUIRE(n == 2);
    CHECK_EQ_U64(f[0].code, 0x50000);
    CHECK_EQ(f[0].lasti, 10);
    CHECK_EQ_U64(f[1].code, 0x51000);
    CHECK_EQ(f[1].lasti, 16);
    CHECK_EQ(truncated, 0);
    n = ssc_pyr_walk(&k_layout, &k_mem, cur, f, 1, &truncated);
    CHECK(n == 1 && truncated == 1);
}

/* The chain's key: every frame counts, the outermost too; frames in separate regions are read
 * one by one (the window below each is unreadable here), frames side by side through one copy. */
static void test_chain_key(void)
{
    build_image();
    struct ssc_pyr_key a, b;
    CHECK_EQ(ssc_pyr_chain_key(&k_layout, &k_mem, 0x10000, &a), 0);
    CHECK(a.leaf == 0x10000 && a.depth == 4);
    put64(at(0x13000), 56, 0x51000 + 192 + 2 * 3); /* main at another line: another key */
    CHECK_EQ(ssc_pyr_chain_key(&k_layout, &k_mem, 0x10000, &b), 0);
    CHECK(b.depth == 4 && b.hash != a.hash);
    put64(at(0x10000), 8, 0xdead0000); /* a link that leads nowhere */
    CHECK_EQ(ssc_pyr_chain_key(&k_layout, &k_mem, 0x10000, &b), -1);
    /* three frames in one region, each below its callee, then the separate main frame */
    build_image();
    uint8_t *stack = region(0x70000);
    const uint32_t o0 = 1300, o1 = 1100, o2 = 900;
    const uint64_t f0 = 0x70000 + o0, f1 = 0x70000 + o1, f2 = 0x70000 + o2;
    put64(stack, o0, 0x50000), put64(stack, o0 + 8, f1), put64(stack, o0 + 56, 0x50000 + 194);
    put64(stack, o1, 0x50000), put64(stack, o1 + 8, f2), put64(stack, o1 + 56, 0x50000 + 196);
    put64(stack, o2, 0x51000), put64(stack, o2 + 8, 0x13000), put64(stack, o2 + 56, 0x51000 + 192);
    g_reads = 0;
    CHECK_EQ(ssc_pyr_chain_key(&k_layout, &k_mem, f0, &a), 0);
    CHECK(a.depth == 4 && a.leaf == f0);
    CHECK_EQ(g_reads, 2); /* the small window below f0 serves f0-f2; main is read alone */
    put64(stack, o2 + 56, 0x51000 + 194); /* the outermost of the three moved on */
    CHECK_EQ(ssc_pyr_chain_key(&k_layout, &k_mem, f0, &b), 0);
    CHECK(b.hash != a.hash);
}

static void test_torn(void)
{
    build_image();
    struct ssc_pyr_frame f[8];
    int truncated;
    /* the caller's frame popped and its memory reused: the link points nowhere */
    put64(at(0x10000), 8, 0xdead0000); /* step's frame: its caller unreadable */
    CHECK_EQ(ssc_pyr_walk(&k_layout, &k_mem, 0x10000, f, 8, &truncated), -1);
    build_image();
    put64(at(0x10000), 56, 0x50000 + 192 + 400); /* an instruction past the code's end */
    CHECK_EQ(ssc_pyr_walk(&k_layout, &k_mem, 0x10000, f, 8, &truncated), -1);
    build_image();
    put64(at(0x11000), 8, 0x11000); /* a loop of shim frames: no frame kept, hops bounded */
    CHECK_EQ(ssc_pyr_walk(&k_layout, &k_mem, 0x10000, f, 8, &truncated), -1);
}

static void test_code_and_text(void)
{
    build_image();
    struct ssc_pyr_code c;
    REQUIRE(ssc_pyr_code(&k_layout, &k_mem, 0x50000, &c) == 0);
    CHECK(c.filename == 0x90000 && c.qualname == 0x91000 && c.linetable == 0x93000);
    CHECK(c.first_line == 10 && c.units == 9);
    CHECK_EQ(ssc_pyr_code(&k_layout, &k_mem, 0x61000, &c), -1); /* not a code object */
    char buf[64];
    size_t n = ssc_pyr_str(&k_layout, &k_mem, 0x91000, buf, sizeof buf);
    CHECK(n == 4 && memcmp(buf, "step", 4) == 0);
    uint8_t t[64];
    CHECK_EQ(ssc_pyr_bytes(&k_layout, &k_mem, 0x93000, t, sizeof t), (int64_t)sizeof k_table);
    CHECK(memcmp(t, k_table, sizeof k_table) == 0);
    /* a UCS-2 str: e-acute, a lone surrogate (an undecodable byte of a file name), a euro */
    uint8_t *s = region(0x94000);
    put64(s, 16, 3);
    uint32_t state = 2u << 2 | 1u << 5; /* kind 2, compact, not ascii */
    memcpy(s + 32, &state, 4);
    const uint16_t chars[] = {0x00e9, 0xdcff, 0x20ac};
    memcpy(s + 56, chars, sizeof chars);
    n = ssc_pyr_str(&k_layout, &k_mem, 0x94000, buf, sizeof buf);
    CHECK(n == 2 + 6 + 3 && memcmp(buf, "\xc3\xa9\\udcff\xe2\x82\xac", n) == 0);
    state = 1u << 2; /* not compact (a legacy str): not read */
    memcpy(s + 32, &state, 4);
    CHECK_EQ(ssc_pyr_str(&k_layout, &k_mem, 0x94000, buf, sizeof buf), 0);
}

int main(void)
{
    test_line_table();
    test_walk();
    test_chain_key();
    test_torn();
    test_code_and_text();
    return ss_test_result();
}
