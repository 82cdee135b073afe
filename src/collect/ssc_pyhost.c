/*
 * ssc_pyhost.c — the collector's door for the Python shim's stack sampler.
 *
 * The sampler (python/stepscope/_pysampler.py) runs as a thread of the training program. It
 * finds this library already loaded in the process (dlopen RTLD_NOLOAD on the path in
 * NVTX_INJECTION64_PATH / CUDA_INJECTION64_PATH), calls stepscope_host_api_v1() through ctypes
 * and asks it for the builtin function stepscope_sample. At each tick it hands that function
 * the dict of sys._current_frames(): sample_frames walks every thread's frames here, interns
 * frames by (code object, instruction offset) and stacks by their frame ids, and writes
 * PY_FRAME, PY_STACK and PY_SAMPLE records into the calling thread's buffer
 * (docs/trace-format.md).
 *
 * Why the walk is in C: the sampler holds the GIL while it walks, and the training thread waits
 * for it. Run once every 10 ms, with caches cold from the training step, the same walk in
 * Python cost tens of times what it costs in C (docs/performance.md, "Figures behind the
 * collector's choices"). It uses only CPython's public C API, looked up with dlsym in the
 * process (the collector links no libpython) and through functions only, never struct fields,
 * so one build serves CPython 3.10-3.13. Code objects in
 * the tables are referenced (so their addresses cannot be reused by another code object) and
 * released when the tables are cleared at their cap.
 *
 * The table is versioned: `version` says which functions exist and `size` how large the
 * table is, so a later version appends functions and an older shim still finds its own. The
 * functions but sync_wait (version 2: the sampler's wait for a synchronising call,
 * ssc_syncsite.c, which must not hold the GIL the blocked thread may need) are called with the
 * GIL held (ctypes PYFUNCTYPE, and the builtin): each is short,
 * takes no lock on its hot path (samples of known stacks) and never blocks. They only write
 * while the collector records in this process: none of them starts it (a fork()ed child that
 * was never recorded stays without a trace). A frame or stack whose record could not be
 * written (memory cap) is not interned, so it is defined again the next time it is seen.
 */

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>
#include <time.h>

#include "collect/ssc_core.h"
#include "collect/ssc_pylearn.h"
#include "collect/ssc_pynative.h"
#include "collect/ssc_syncsite.h"
#include "util/ss_error.h"

#define EXPORT __attribute__((visibility("default")))
#define API_VERSION 3u /* 2: sync_wait, stepscope_sample's PY_CALL form; 3: the native reader */
#define SAMPLER_THREAD_NAME "ss-pysampler" /* the analysis knows the sampler by it */
#define MAX_NOTICES 16                      /* NOTICE records the sampler may write */
#define MAX_TEXT 4096                       /* longest function, file or thread name kept */
#define MAX_DEPTH 128        /* frames kept per stack, leaf first; deeper ones are cut */
#define MIN_SLOTS 1024u      /* tables start small (a tick touches less memory) and double */
#define POS_CAP 20000u       /* positions before the frame tables are cleared */
#define STACK_CAP 16384u     /* stacks before the stack table is cleared */
#define STACK_POOL (1u << 20)     /* frame ids stored for all interned stacks (4 MiB) */

/* The exported table. Mirrored field by field in python/stepscope/_collector.py. */
struct stepscope_host_api_v1 {
    uint32_t version; /* API_VERSION */
    uint32_t size;    /* sizeof this struct */
    int (*recording)(void);
    uint64_t (*now_ns)(void);
    int (*begin)(uint32_t hz, const char *python, uint32_t python_len);
    int (*capture)(uint32_t on, uint32_t reason);
    void *(*sampler)(void); /* new reference to the builtin stepscope_sample, or NULL */
    int (*thread_name)(uint32_t tid, const char *name, uint32_t len);
    int (*notice)(uint32_t level, const char *msg, uint32_t len);
    /* version 2; called WITHOUT the GIL (ctypes CFUNCTYPE): ssc_syncsite_wait */
    int (*sync_wait)(uint64_t timeout_ns, uint64_t min_block_ns, uint32_t *tid,
                     uint32_t *correlation);
    /* version 3: the native reader (ssc_pynative.c). learner: new reference to the builtin
     * stepscope_learn, or NULL; native_start/stop: its sampler thread (0 or an ss_error) */
    void *(*learner)(void);
    int (*native_start)(uint32_t hz, uint32_t skip_tid);
    int (*native_stop)(void);
    /* starts the collector in this process (the one `record` ran, loaded by the shim itself
     * because it calls neither CUDA nor NVTX): 1 when it records */
    int (*start)(void);
};

static _Atomic int g_notices;

/* 1 while the collector accepts records in this process; never starts it. */
static int api_recording(void)
{
    return atomic_load_explicit(&ssc_g_state, memory_order_acquire) == SSC_RUNNING;
}

static uint64_t api_now_ns(void)
{
    return sst_now_ns();
}

/* A record of the given type, or NULL (counted as dropped by ssc_rec_reserve) when the
 * collector does not record here: the check keeps the sampler from starting a collector. */
static void *reserve(uint16_t type, size_t size)
{
    return api_recording() ? ssc_rec_reserve(type, size) : NULL;
}

static uint32_t intern_text(const char *s, size_t len)
{
    if (!s) return SST_NO_STRING;
    return ssc_intern(s, len < MAX_TEXT ? len : MAX_TEXT);
}

/* ---- CPython's C API, found in the process ------------------------------------------------ */

typedef void pyobj; /* PyObject, only ever passed back to CPython's own functions */
struct cpython {
    int (*dict_next)(pyobj *dict, ssize_t *pos, pyobj **key, pyobj **value);
    pyobj *(*frame_back)(pyobj *frame);  /* new reference or NULL */
    pyobj *(*frame_code)(pyobj *frame);  /* new reference */
    int (*frame_line)(pyobj *frame);
    int (*frame_lasti)(pyobj *frame);    /* 3.11+; NULL before: f_lasti attribute */
    void (*incref)(pyobj *o);
    void (*decref)(pyobj *o);
    pyobj *(*getattr)(pyobj *o, const char *name);
    unsigned long (*as_ulong)(pyobj *o);
    long (*as_long)(pyobj *o);
    pyobj *(*err_occurred)(void);
    void (*err_clear)(void);
    pyobj *(*encode)(pyobj *unicode, const char *encoding, const char *errors);
    int (*bytes_view)(pyobj *bytes, char **buf, ssize_t *len);
    unsigned long long (*as_ull)(pyobj *o);
    pyobj *(*from_long)(long v);
    pyobj *(*new_function)(void *method_def, pyobj *self, pyobj *module);
    /* for the native reader only (bind_learning; absent before 3.11: no learning) */
    void *(*ts_get)(void);                  /* PyThreadState_Get */
    void *(*interp_get)(void);              /* PyInterpreterState_Get */
    void *(*interp_head)(void *interp);     /* PyInterpreterState_ThreadHead */
    void *(*ts_next)(void *ts);             /* PyThreadState_Next */
    void *(*this_ts)(void);                 /* PyGILState_GetThisThreadState */
    const char *(*utf8)(pyobj *s, ssize_t *n); /* PyUnicode_AsUTF8AndSize */
    pyobj *(*str_new)(const char *s);       /* PyUnicode_FromString */
};
static struct cpython g_py;
static int g_py_bound; /* 1 bound, -1 missing symbols */

#define BIND(field, name)                                                                          \
    do {                                                                                           \
        *(void **)&g_py.field = dlsym(RTLD_DEFAULT, name);                                       \
        if (!g_py.field) return -1;                                                                \
    } while (0)

static int bind_symbols(void)
{
    BIND(dict_next, "PyDict_Next");
    BIND(frame_back, "PyFrame_GetBack");
    BIND(frame_code, "PyFrame_GetCode");
    BIND(frame_line, "PyFrame_GetLineNumber");
    BIND(incref, "Py_IncRef");
    BIND(decref, "Py_DecRef");
    BIND(getattr, "PyObject_GetAttrString");
    BIND(as_ulong, "PyLong_AsUnsignedLong");
    BIND(as_long, "PyLong_AsLong");
    BIND(err_occurred, "PyErr_Occurred");
    BIND(err_clear, "PyErr_Clear");
    BIND(encode, "PyUnicode_AsEncodedString");
    BIND(bytes_view, "PyBytes_AsStringAndSize");
    BIND(as_ull, "PyLong_AsUnsignedLongLong");
    BIND(from_long, "PyLong_FromLong");
    BIND(new_function, "PyCFunction_NewEx");
    *(void **)&g_py.frame_lasti = dlsym(RTLD_DEFAULT, "PyFrame_GetLasti"); /* may be absent */
    return 0;
}

/* The functions only the learning needs; 0 when all are there. */
static int bind_learning(void)
{
    BIND(ts_get, "PyThreadState_Get");
    BIND(interp_get, "PyInterpreterState_Get");
    BIND(interp_head, "PyInterpreterState_ThreadHead");
    BIND(ts_next, "PyThreadState_Next");
    BIND(this_ts, "PyGILState_GetThisThreadState");
    BIND(utf8, "PyUnicode_AsUTF8AndSize");
    BIND(str_new, "PyUnicode_FromString");
    return g_py.frame_lasti ? 0 : -1;
}

/* Called with the GIL held, so never concurrently. */
static int cpython_bind(void)
{
    if (!g_py_bound) g_py_bound = bind_symbols() == 0 ? 1 : -1;
    return g_py_bound;
}

static long attr_long(pyobj *o, const char *name)
{
    pyobj *v = g_py.getattr(o, name);
    long n = v ? g_py.as_long(v) : -1;
    if (v) g_py.decref(v);
    if (g_py.err_occurred()) g_py.err_clear();
    return n;
}

static int frame_offset(pyobj *frame)
{
    return g_py.frame_lasti ? g_py.frame_lasti(frame) : (int)attr_long(frame, "f_lasti");
}

/* The UTF-8 bytes of the str attribute `name` of o into buf (cut at cap); a file name with
 * undecodable bytes (lone surrogates) gets \udcXX escapes. Returns the length, 0 if none. */
static size_t attr_utf8(pyobj *o, const char *name, char *buf, size_t cap)
{
    size_t n = 0;
    pyobj *s = g_py.getattr(o, name), *b = s ? g_py.encode(s, "utf-8", "backslashreplace") : NULL;
    char *p;
    ssize_t len;
    if (b && g_py.bytes_view(b, &p, &len) == 0 && len > 0) {
        n = (size_t)len < cap ? (size_t)len : cap;
        memcpy(buf, p, n);
    }
    if (b) g_py.decref(b);
    if (s) g_py.decref(s);
    if (g_py.err_occurred()) g_py.err_clear();
    return n;
}

/* ---- interning ---------------------------------------------------------------------------- */

/* (code object, int) -> id, open addressing, at most half full. The positions table holds
 * one reference per slot to its code object; the lines table shares those (it is cleared with
 * it). */
struct slot {
    pyobj *code;
    int64_t sub; /* instruction offset, or line */
    uint32_t id; /* 0: empty */
};
struct table {
    struct slot *slots;
    uint32_t mask; /* slots - 1 */
    uint32_t used;
};
static struct table g_pos, g_lines;
static uint32_t g_next_frame = 1, g_next_stack = 1; /* under g_tab_mu */
/* Frame ids and the stack table are shared with the native reader (ssc_pynative.c), whose
 * sampler and call sites run without the GIL: one lock, never held across a CPython call. */
static pthread_mutex_t g_tab_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_cleared_said;

static uint32_t slot_hash(const pyobj *code, int64_t sub)
{
    uint64_t h = ((uint64_t)(uintptr_t)code >> 4) * 0x9E3779B97F4A7C15ull ^ (uint64_t)sub;
    h *= 0xBF58476D1CE4E5B9ull;
    return (uint32_t)(h >> 32);
}

static struct slot *probe(struct slot *slots, uint32_t mask, const pyobj *code, int64_t sub)
{
    for (uint32_t i = slot_hash(code, sub);; i++) {
        struct slot *s = &slots[i & mask];
        if (!s->id || (s->code == code && s->sub == sub)) return s;
    }
}

/* Room for one more entry: allocates or doubles the table. 0 when out of memory. */
static int table_room(struct table *t)
{
    if (t->slots && (t->used + 1) * 2 <= t->mask + 1) return 1;
    uint32_t n = t->slots ? (t->mask + 1) * 2 : MIN_SLOTS;
    struct slot *slots = calloc(n, sizeof *slots);
    if (!slots) return 0;
    for (uint32_t i = 0; t->slots && i <= t->mask; i++)
        if (t->slots[i].id) *probe(slots, n - 1, t->slots[i].code, t->slots[i].sub) = t->slots[i];
    free(t->slots);
    t->slots = slots;
    t->mask = n - 1;
    return 1;
}

/* The slot of (code, sub), or the empty slot where it belongs (with room to fill it); NULL
 * when out of memory. */
static struct slot *table_find(struct table *t, const pyobj *code, int64_t sub)
{
    if (t->slots) {
        struct slot *s = probe(t->slots, t->mask, code, sub);
        if (s->id) return s;
    }
    return table_room(t) ? probe(t->slots, t->mask, code, sub) : NULL;
}

void ssc_pyh_say_cleared(const char *what)
{
    if (g_cleared_said++) return;
    char msg[200];
    snprintf(msg, sizeof msg, "host samples: too many distinct %s: tables cleared, definitions "
             "repeat from here (memory stays bounded)", what);
    ssc_notice(SST_NOTICE_OTHER, SST_NOTE_WARN, msg);
}

/* Forgets every frame (ids stay defined in the file) and releases the code objects. */
static void frames_clear(void)
{
    for (uint32_t i = 0; g_pos.slots && i <= g_pos.mask; i++)
        if (g_pos.slots[i].id) g_py.decref(g_pos.slots[i].code);
    free(g_pos.slots);
    free(g_lines.slots);
    g_pos = g_lines = (struct table){0};
}

static uint32_t next_id(uint32_t *counter)
{
    uint32_t id = (*counter)++;
    if (*counter == 0) *counter = 1; /* after 2^32 definitions: later ones replace earlier */
    return id;
}

uint32_t ssc_pyh_frame_record(const char *func, size_t fn, const char *file, size_t fl, long line,
                              long first)
{
    /* strings first: their STRING records must precede the frame that uses them */
    uint32_t fid_s = intern_text(func, fn), file_s = intern_text(file, fl);
    struct sst_rec_py_frame *r = reserve(SST_REC_PY_FRAME, sizeof *r);
    if (!r) return 0;
    pthread_mutex_lock(&g_tab_mu);
    r->id = next_id(&g_next_frame);
    pthread_mutex_unlock(&g_tab_mu);
    r->function = fid_s;
    r->file = file_s;
    r->line = line > 0 ? (uint32_t)line : 0;
    r->first_line = first > 0 ? (uint32_t)first : 0;
    ssc_rec_commit(r);
    return r->id;
}

/* Writes a PY_FRAME record for code at line; the frame id, or 0 when it was not written. */
static uint32_t frame_define(pyobj *code, int line)
{
    char func[MAX_TEXT], file[MAX_TEXT];
    size_t fn = attr_utf8(code, "co_qualname", func, sizeof func);
    if (fn == 0) fn = attr_utf8(code, "co_name", func, sizeof func); /* 3.10 */
    size_t fl = attr_utf8(code, "co_filename", file, sizeof file);
    return ssc_pyh_frame_record(func, fn, file, fl, line, attr_long(code, "co_firstlineno"));
}

/* The frame id of (code, line), defining it when new; 0 when it could not be written. */
static uint32_t frame_at_line(pyobj *code, int line)
{
    struct slot *s = table_find(&g_lines, code, line);
    if (!s) return 0;
    if (s->id) return s->id;
    uint32_t id = frame_define(code, line);
    if (!id) return 0;
    *s = (struct slot){code, line, id};
    g_lines.used++;
    return id;
}

/* The frame id of a frame object: a look-up by (code, offset) after the first time. */
static uint32_t frame_id(pyobj *frame)
{
    pyobj *code = g_py.frame_code(frame);
    uint32_t id = 0;
    int64_t at = frame_offset(frame);
    if (g_pos.used >= POS_CAP) {
        ssc_pyh_say_cleared("frames");
        frames_clear();
    }
    struct slot *s = code ? table_find(&g_pos, code, at) : NULL;
    if (s && s->id) {
        id = s->id;
    } else if (s && (id = frame_at_line(code, g_py.frame_line(frame))) != 0) {
        *s = (struct slot){code, at, id};
        g_pos.used++;
        code = NULL; /* the slot keeps the reference */
    }
    if (code) g_py.decref(code);
    return id;
}

/* ---- stacks ------------------------------------------------------------------------------ */

struct stack_slot {
    uint64_t hash;
    uint32_t id;  /* 0: empty */
    uint32_t off; /* first frame id in g_pool */
    uint16_t depth;
    uint16_t flags;
};
static struct stack_slot *g_stacks;
static uint32_t g_stacks_mask, g_stacks_used;
static uint32_t *g_pool; /* the frame ids of every interned stack, back to back */
static uint32_t g_pool_cap, g_pool_used;

static uint64_t stack_hash(const uint32_t *fids, uint32_t depth, uint16_t flags)
{
    uint64_t h = 1469598103934665603ull ^ flags;
    for (uint32_t i = 0; i < depth; i++)
        h = (h ^ fids[i]) * 1099511628211ull;
    return h ? h : 1;
}

/* The slot holding this stack, or the empty slot where it belongs. */
static struct stack_slot *stack_probe(struct stack_slot *slots, uint32_t mask, uint64_t h,
                                      const uint32_t *fids, uint32_t depth, uint16_t flags)
{
    for (uint32_t i = (uint32_t)(h >> 32);; i++) {
        struct stack_slot *s = &slots[i & mask];
        if (!s->id) return s;
        if (s->hash == h && s->depth == depth && s->flags == flags &&
            (!fids || memcmp(g_pool + s->off, fids, (size_t)depth * 4) == 0))
            return s;
    }
}

static void stacks_clear(void)
{
    ssc_pyh_say_cleared("stacks");
    free(g_stacks);
    free(g_pool);
    g_stacks = NULL;
    g_pool = NULL;
    g_stacks_mask = g_stacks_used = g_pool_cap = g_pool_used = 0;
}

/* Room for one more stack of depth frames: clears at the caps, grows the table and the pool.
 * 0 when out of memory. */
static int stacks_room(uint32_t depth)
{
    if (g_stacks_used >= STACK_CAP || g_pool_used + depth > STACK_POOL) stacks_clear();
    if (g_pool_used + depth > g_pool_cap) {
        uint32_t cap = g_pool_cap ? g_pool_cap * 2 : 16384;
        while (cap < g_pool_used + depth) cap *= 2;
        uint32_t *pool = realloc(g_pool, (size_t)cap * sizeof *pool);
        if (!pool) return 0;
        g_pool = pool;
        g_pool_cap = cap;
    }
    if (g_stacks && (g_stacks_used + 1) * 2 <= g_stacks_mask + 1) return 1;
    uint32_t n = g_stacks ? (g_stacks_mask + 1) * 2 : MIN_SLOTS;
    struct stack_slot *slots = calloc(n, sizeof *slots);
    if (!slots) return 0;
    for (uint32_t i = 0; g_stacks && i <= g_stacks_mask; i++)
        if (g_stacks[i].id) *stack_probe(slots, n - 1, g_stacks[i].hash, NULL, 0, 0) = g_stacks[i];
    free(g_stacks);
    g_stacks = slots;
    g_stacks_mask = n - 1;
    return 1;
}

/* Writes a PY_STACK record; its id, or 0 when it was not written. */
static uint32_t stack_define(const uint32_t *fids, uint32_t depth, uint16_t flags)
{
    struct sst_rec_py_stack *r = reserve(SST_REC_PY_STACK, sizeof *r + (size_t)depth * 4);
    if (!r) return 0;
    r->id = next_id(&g_next_stack);
    r->depth = (uint16_t)depth;
    r->flags = flags;
    memcpy(r + 1, fids, (size_t)depth * 4);
    ssc_rec_commit(r);
    return r->id;
}

/* The stack id of fids (leaf first), defining it when new; 0 when it could not be. Under
 * g_tab_mu. */
static uint32_t stack_id_locked(const uint32_t *fids, uint32_t depth, uint16_t flags)
{
    uint64_t h = stack_hash(fids, depth, flags);
    struct stack_slot *s = g_stacks ? stack_probe(g_stacks, g_stacks_mask, h, fids, depth, flags)
                                    : NULL;
    if (s && s->id) return s->id;
    if (!stacks_room(depth)) return 0;
    s = stack_probe(g_stacks, g_stacks_mask, h, fids, depth, flags);
    uint32_t id = stack_define(fids, depth, flags);
    if (!id) return 0;
    memcpy(g_pool + g_pool_used, fids, (size_t)depth * 4);
    *s = (struct stack_slot){h, id, g_pool_used, (uint16_t)depth, flags};
    g_pool_used += depth;
    g_stacks_used++;
    return id;
}

uint32_t ssc_pyh_stack_id(const uint32_t *fids, uint32_t depth, uint16_t flags)
{
    pthread_mutex_lock(&g_tab_mu);
    uint32_t id = stack_id_locked(fids, depth, flags);
    pthread_mutex_unlock(&g_tab_mu);
    return id;
}

/* ---- samples ------------------------------------------------------------------------------ */

/* Kernel thread id of a live pthread: glibc and musl encode it in the thread's CPU-time
 * clock id (the kernel's CPUCLOCK_PID). Live: its thread state is in the snapshot and we hold
 * the GIL, without which no thread can drop its thread state and exit. 0 when unknown. */
static uint32_t tid_of(unsigned long ident)
{
    clockid_t clk;
    if (ident == 0 || pthread_getcpuclockid((pthread_t)ident, &clk) != 0) return 0;
    return (uint32_t)(pid_t) ~(clk >> 3);
}

/* The stack id of one thread's frames, leaf first. */
static uint32_t walk(pyobj *top)
{
    uint32_t fids[MAX_DEPTH];
    uint32_t depth = 0;
    pyobj *f = top;
    g_py.incref(f); /* every frame below is a new reference: release them alike */
    while (f && depth < MAX_DEPTH) {
        uint32_t id = frame_id(f);
        pyobj *back = id ? g_py.frame_back(f) : NULL;
        g_py.decref(f);
        if (!id) return 0;
        fids[depth++] = id;
        f = back;
    }
    uint16_t flags = f ? SST_PYSTACK_TRUNCATED : 0;
    if (f) g_py.decref(f);
    return ssc_pyh_stack_id(fids, depth, flags);
}

#define MAX_THREADS 256 /* threads sampled per tick; more are left out */

struct thread_snap {
    pyobj *frame; /* a reference of ours */
    uint32_t tid;
};

static void sample_thread(const struct thread_snap *t, uint64_t ts_ns, uint32_t lag_us, int *n)
{
    uint32_t stack = walk(t->frame);
    if (!stack) return;
    struct sst_rec_py_sample *r = reserve(SST_REC_PY_SAMPLE, sizeof *r);
    if (!r) return;
    r->tid = t->tid;
    r->ts_ns = ts_ns;
    r->stack = stack;
    r->lag_us = lag_us;
    ssc_rec_commit(r);
    (*n)++;
}

/* The PY_CALL of thread t, blocked in the call with this correlation id. */
static void call_site(const struct thread_snap *t, uint64_t ts_ns, uint32_t correlation, int *n)
{
    uint32_t stack = walk(t->frame);
    if (!stack) return;
    struct sst_rec_py_call *r = reserve(SST_REC_PY_CALL, sizeof *r);
    if (!r) return;
    r->tid = t->tid;
    r->ts_ns = ts_ns;
    r->stack = stack;
    r->correlation = correlation;
    ssc_rec_commit(r);
    (*n)++;
}

/* Thread ids and top frames of the snapshot, before anything else: the walks release frame
 * references, which may run a finaliser that lets other threads run and exit, and tid_of must
 * only ever see live threads. */
static int snapshot(pyobj *frames, unsigned long skip, struct thread_snap *out)
{
    ssize_t pos = 0;
    pyobj *key, *frame;
    int k = 0;
    while (k < MAX_THREADS && g_py.dict_next(frames, &pos, &key, &frame)) {
        unsigned long ident = g_py.as_ulong(key);
        if (g_py.err_occurred()) {
            g_py.err_clear();
            continue;
        }
        if (ident == skip || !frame) continue;
        g_py.incref(frame);
        out[k++] = (struct thread_snap){frame, tid_of(ident)};
    }
    return k;
}

/* frames: the dict sys._current_frames() returned (thread ident -> top frame), borrowed; the
 * thread skip_ident (the sampler) is left out. Returns the samples written, or an ss_error. */
static int sample_frames(pyobj *frames, uint64_t skip_ident, uint64_t ts_ns, uint32_t lag_us)
{
    if (!frames || !api_recording()) return SS_EINVAL;
    struct thread_snap threads[MAX_THREADS];
    int k = snapshot(frames, (unsigned long)skip_ident, threads), n = 0;
    for (int i = 0; i < k; i++)
        sample_thread(&threads[i], ts_ns, lag_us, &n);
    for (int i = 0; i < k; i++)
        g_py.decref(threads[i].frame);
    return n;
}

/* The same snapshot, for thread tid alone: its PY_CALL in the call `correlation`. Returns 1
 * when written, 0 when the thread has no Python frame (or it could not be), or an ss_error. */
static int call_frames(pyobj *frames, uint64_t skip_ident, uint64_t ts_ns, uint32_t tid,
                       uint32_t correlation)
{
    if (!frames || !api_recording()) return SS_EINVAL;
    struct thread_snap threads[MAX_THREADS];
    int k = snapshot(frames, (unsigned long)skip_ident, threads), n = 0;
    for (int i = 0; i < k; i++)
        if (threads[i].tid == tid && !n) call_site(&threads[i], ts_ns, correlation, &n);
    for (int i = 0; i < k; i++)
        g_py.decref(threads[i].frame);
    return n;
}

/* ---- the sampler's call, without ctypes ------------------------------------------------ */

/* A ctypes call costs more than the walk when the caches are cold (the sampler runs once every
 * 10 ms; docs/performance.md, "Figures behind the collector's choices"). So the tick calls a
 * builtin function instead, made here from a static PyMethodDef (stable ABI: four fields,
 * METH_FASTCALL since 3.10):
 *     stepscope_sample(frames, skip_ident, due_ns) -> samples written, or a negative ss_error
 * It takes the timestamp itself and the lateness from due_ns. It never raises. */
struct py_method_def {
    const char *name;
    void *meth;
    int flags;
    const char *doc;
};
#define PY_METH_FASTCALL 0x0080

/* The integer arguments args[1..nargs), into v; 0 when one is not an integer. */
static int int_args(pyobj *const *args, ssize_t nargs, unsigned long long *v)
{
    for (ssize_t i = 1; i < nargs; i++)
        v[i - 1] = g_py.as_ull(args[i]);
    if (!g_py.err_occurred()) return 1;
    g_py.err_clear();
    return 0;
}

static pyobj *fast_sample(pyobj *self, pyobj *const *args, ssize_t nargs)
{
    (void)self; /* only api_sampler makes this function, after binding g_py */
    uint64_t ts = sst_now_ns();
    unsigned long long v[4]; /* skip_ident, due_ns[, tid, correlation] */
    long n = SS_EINVAL;
    if ((nargs == 3 || nargs == 5) && int_args(args, nargs, v)) {
        uint64_t late_us = ts > v[1] ? (ts - v[1]) / 1000 : 0;
        if (nargs == 3)
            n = sample_frames(args[0], v[0], ts,
                              late_us > UINT32_MAX ? UINT32_MAX : (uint32_t)late_us);
        else
            n = call_frames(args[0], v[0], ts, (uint32_t)v[2], (uint32_t)v[3]);
    }
    return g_py.from_long(n);
}

static struct py_method_def k_sample_def = {
    "stepscope_sample", (void *)fast_sample, PY_METH_FASTCALL,
    "stepscope_sample(frames, skip_ident, due_ns[, tid, correlation]): samples written (with "
    "tid: the PY_CALL of that thread), or a negative error"};

static void *api_sampler(void)
{
    if (cpython_bind() < 0) return NULL;
    return g_py.new_function(&k_sample_def, NULL, NULL);
}

/* ---- learning the frame layout (the native reader) ---------------------------------------- */

/* stepscope_learn(frame, ascii, latin1, ucs2, bytes), called twice by the shim from frames one
 * level apart, with the GIL: what CPython's public API says about the calling thread's frames
 * and about four sample objects goes to ssc_pylearn.c. Returns 1 after the first call, 0 once
 * the layout is learned and checked (the native reader is then ready), or a str: why not. */

static void env_record(const char *key, const char *value, size_t value_len);

#define HOLD_MAX (SSC_PYL_FRAMES * 5 + 4) /* per frame: code, 3 attributes, the next frame */
struct hold { /* the references the anchors' addresses stay valid through */
    pyobj *o[HOLD_MAX];
    int n;
};

static pyobj *held(struct hold *h, pyobj *o)
{
    if (o && h->n < HOLD_MAX) h->o[h->n++] = o;
    else if (o) g_py.decref(o), o = NULL;
    if (g_py.err_occurred()) g_py.err_clear();
    return o;
}

static uint64_t type_basicsize(pyobj *o, struct hold *h, uint64_t *type)
{
    pyobj *cls = held(h, g_py.getattr(o, "__class__"));
    *type = (uint64_t)(uintptr_t)cls;
    return cls ? (uint64_t)attr_long(cls, "__basicsize__") : 0;
}

static int gather_frame(pyobj *f, struct ssc_pyl_frame *out, struct hold *h)
{
    pyobj *code = held(h, g_py.frame_code(f));
    if (!code) return -1;
    out->frame_obj = (uint64_t)(uintptr_t)f;
    out->code = (uint64_t)(uintptr_t)code;
    out->filename = (uint64_t)(uintptr_t)held(h, g_py.getattr(code, "co_filename"));
    out->qualname = (uint64_t)(uintptr_t)held(h, g_py.getattr(code, "co_qualname"));
    out->linetable = (uint64_t)(uintptr_t)held(h, g_py.getattr(code, "co_linetable"));
    out->first_line = (int32_t)attr_long(code, "co_firstlineno");
    out->lasti = g_py.frame_lasti(f);
    out->line = g_py.frame_line(f);
    return 0;
}

static const char *text_of(pyobj *s)
{
    ssize_t n = 0;
    const char *t = s ? g_py.utf8(s, &n) : NULL;
    if (g_py.err_occurred()) g_py.err_clear();
    return t;
}

static void gather_objects(pyobj *const *args, struct ssc_pyl_anchors *a)
{
    char *b = NULL;
    ssize_t n = 0;
    a->ascii = (uint64_t)(uintptr_t)args[1], a->ascii_text = text_of(args[1]);
    a->ascii_len = a->ascii_text ? strlen(a->ascii_text) : 0;
    a->latin1 = (uint64_t)(uintptr_t)args[2], a->latin1_utf8 = text_of(args[2]);
    a->ucs2 = (uint64_t)(uintptr_t)args[3], a->ucs2_utf8 = text_of(args[3]);
    a->bytes = (uint64_t)(uintptr_t)args[4];
    if (g_py.bytes_view(args[4], &b, &n) != 0) g_py.err_clear(), n = 0;
    a->bytes_data = (const uint8_t *)b, a->bytes_len = (size_t)n;
}

/* Fills a from the calling thread (frame: its leaf, the caller of stepscope_learn). */
static int gather(pyobj *const *args, struct ssc_pyl_anchors *a, struct hold *h)
{
    pyobj *f = args[0];
    memset(a, 0, sizeof *a);
    for (int i = 0; f && i < SSC_PYL_FRAMES; i++, a->n_frames++) {
        if (gather_frame(f, &a->frames[i], h) != 0) return -1;
        f = held(h, g_py.frame_back(f));
    }
    a->frame_obj_size = type_basicsize(args[0], h, &(uint64_t){0});
    a->code_basicsize = type_basicsize((pyobj *)(uintptr_t)a->frames[0].code, h, &a->code_type);
    a->ts = (uint64_t)(uintptr_t)g_py.ts_get();
    a->interp = (uint64_t)(uintptr_t)g_py.interp_get();
    a->head = (uint64_t)(uintptr_t)g_py.interp_head((void *)(uintptr_t)a->interp);
    a->head_next = (uint64_t)(uintptr_t)g_py.ts_next((void *)(uintptr_t)a->head);
    a->tid = ssc_gettid();
    gather_objects(args, a);
    return a->ascii_text && a->latin1_utf8 && a->ucs2_utf8 && a->bytes_data ? 0 : -1;
}

static struct ssc_pyl_state g_learn;

/* Both ways to a layout; 0 with *source set, 1 after a first call, -1 with *why. */
static int learn_layout(const struct ssc_pyl_anchors *a, struct ssc_pyr_layout *l,
                        const char **source, const char **why)
{
    const struct ssc_pyr_mem m = {ssc_pyn_read_self, NULL};
    uint64_t runtime = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "_PyRuntime");
    if (g_learn.calls > 0 && ssc_pyl_from_debug_offsets(runtime, a, &m, l, why) == 0)
        return *source = "_Py_DebugOffsets", 0;
    int rc = ssc_pyl_learn(a, &m, &g_learn, l, why);
    if (rc == 0) *source = "learned from the interpreter";
    return rc;
}

static pyobj *learn_result(int rc, const char *source, const char *why)
{
    char msg[160];
    if (rc >= 0) {
        if (rc == 0) {
            snprintf(msg, sizeof msg, "native (%s)", source);
            env_record("python.frames", msg, strlen(msg));
        }
        return g_py.from_long(rc);
    }
    return g_py.str_new(why);
}

static pyobj *fast_learn(pyobj *self, pyobj *const *args, ssize_t nargs)
{
    (void)self;
    struct ssc_pyl_anchors a;
    struct ssc_pyr_layout l;
    struct hold h = {.n = 0};
    const char *why = "stepscope_learn(frame, ascii, latin1, ucs2, bytes) takes five arguments",
               *source = NULL;
    int rc = -1;
    if (nargs == 5 && !ssc_pyn_ready()) {
        why = "the interpreter could not be described";
        if (gather(args, &a, &h) == 0) rc = learn_layout(&a, &l, &source, &why);
        if (rc == 0) ssc_pyn_set_layout(&l, a.interp, g_py.this_ts, source);
    }
    for (int i = 0; i < h.n; i++)
        g_py.decref(h.o[i]);
    return learn_result(rc, source, why);
}

static struct py_method_def k_learn_def = {
    "stepscope_learn", (void *)fast_learn, PY_METH_FASTCALL,
    "stepscope_learn(frame, ascii, latin1, ucs2, bytes): 1 (call again one frame deeper), 0 "
    "(the native reader is ready) or why not"};

static void *api_learner(void)
{
    static int learning = -1;
    if (cpython_bind() < 0) return NULL;
    if (learning < 0) learning = bind_learning() == 0;
    return learning ? g_py.new_function(&k_learn_def, NULL, NULL) : NULL;
}

static int api_native_start(uint32_t hz, uint32_t skip_tid)
{
    return api_recording() ? ssc_pyn_start(hz, skip_tid) : SS_EINVAL;
}

static int api_native_stop(void)
{
    ssc_pyn_stop();
    return 0;
}

static int api_start(void)
{
    return ssc_top.start();
}

/* ---- the sampler's life ---------------------------------------------------------------- */

/* Only while the collector records: the shim never starts it. */
static void env_record(const char *key, const char *value, size_t value_len)
{
    if (api_recording()) ssc_env_record(key, value, value_len);
}

static int api_begin(uint32_t hz, const char *python, uint32_t python_len)
{
    if (!api_recording()) return SS_EINVAL;
    /* before this thread's first record, whose THREAD record reads the name */
    prctl(PR_SET_NAME, SAMPLER_THREAD_NAME, 0, 0, 0);
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%u", hz);
    env_record("pyshim.host_samples_hz", buf, (size_t)n);
    if (python) env_record("python.version", python, python_len < 256 ? python_len : 256);
    ssc_capture_record(1, SST_CAP_START, SST_CAPTURE_PY_STACKS);
    return 0;
}

/* PY_STACKS switched on or off (reason: enum sst_capture_reason), e.g. at exit, on an error,
 * or around a benchmark's pause. */
static int api_capture(uint32_t on, uint32_t reason)
{
    if (on > 1 || reason < SST_CAP_START || reason > SST_CAP_ERROR) return SS_EINVAL;
    if (!api_recording()) return SS_EINVAL;
    ssc_capture_record((int)on, (uint8_t)reason, SST_CAPTURE_PY_STACKS);
    return 0;
}

/* Python's name for a thread (threading.Thread.name). The kernel's name (comm) is written
 * first if this process has not named the thread yet, so the Python name is the later one. */
static int api_thread_name(uint32_t tid, const char *name, uint32_t len)
{
    if (tid == 0 || !name) return SS_EINVAL;
    if (!api_recording()) return SS_ENOMEM;
    ssc_name_thread_once(tid);
    uint32_t id = intern_text(name, len);
    struct sst_rec_thread *r = reserve(SST_REC_THREAD, sizeof *r);
    if (!r) return SS_ENOMEM;
    r->tid = tid;
    r->name = id;
    r->ts_ns = sst_now_ns();
    ssc_rec_commit(r);
    return 0;
}

/* A NOTICE record (code other) only: the shim says its own lines on stderr, once each. */
static int api_notice(uint32_t level, const char *msg, uint32_t len)
{
    if (!msg || level < SST_NOTE_INFO || level > SST_NOTE_ERROR) return SS_EINVAL;
    if (atomic_fetch_add(&g_notices, 1) >= MAX_NOTICES) return SS_ENOMEM;
    uint32_t id = intern_text(msg, len);
    struct sst_rec_notice *r = reserve(SST_REC_NOTICE, sizeof *r);
    if (!r) return SS_ENOMEM;
    r->level = (uint8_t)level;
    r->code = SST_NOTICE_OTHER;
    r->ts_ns = sst_now_ns();
    r->message = id;
    ssc_rec_commit(r);
    return 0;
}

/* ENV pyshim.sync_calls, written when what the sampler can have changes (CUDA starts after the
 * sampler; auto mode switches the callbacks on mid-run): the last one says how the run ended.
 * The sampler's thread only. */
static int g_sync_said = -1;

static void say_sync_calls(int on)
{
    if (g_sync_said == on) return;
    g_sync_said = on;
    const char *v = on ? "on"
                       : "off: API calls are not seen as they start (CUDA not started yet, or "
                         "recorded from CUPTI's activity records, the default: "
                         "STEPSCOPE_API=callbacks records the lines of synchronising calls)";
    env_record("pyshim.sync_calls", v, strlen(v));
}

/* Without the GIL: ssc_syncsite_wait, and the ENV saying whether it can work. */
static int api_sync_wait(uint64_t timeout_ns, uint64_t min_block_ns, uint32_t *tid,
                         uint32_t *correlation)
{
    if (!tid || !correlation || !api_recording()) return SS_EINVAL;
    int rc = ssc_syncsite_wait(timeout_ns, min_block_ns, tid, correlation);
    say_sync_calls(rc != SS_ENOTSUP);
    return rc;
}

static const struct stepscope_host_api_v1 k_api = {
    .version = API_VERSION,
    .size = sizeof(struct stepscope_host_api_v1),
    .recording = api_recording,
    .now_ns = api_now_ns,
    .begin = api_begin,
    .capture = api_capture,
    .sampler = api_sampler,
    .thread_name = api_thread_name,
    .notice = api_notice,
    .sync_wait = api_sync_wait,
    .learner = api_learner,
    .native_start = api_native_start,
    .native_stop = api_native_stop,
    .start = api_start,
};

/* The one entry point besides the two injection functions (stepscope.map). */
EXPORT const struct stepscope_host_api_v1 *stepscope_host_api_v1(void);

const struct stepscope_host_api_v1 *stepscope_host_api_v1(void)
{
    return &k_api;
}
