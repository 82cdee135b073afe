/*
 * ssc_pyread.h — reading CPython's frames without the GIL (issue #28), prefix ssc_pyr_.
 *
 * The stack sampler used to take sys._current_frames() under the GIL: a thread that held the
 * GIL in a long C call (collate's torch ops, torch.cuda.empty_cache()) was sampled only after
 * the call, one line late. This reader walks a thread's interpreter frames from another thread
 * (or from inside a CUDA call on the thread itself) the way py-spy and Austin read them from
 * outside: thread state -> current _PyInterpreterFrame -> previous ..., each frame's code
 * object and instruction pointer, the line from the code's location table.
 *
 * The struct offsets are never written down here. They come from the interpreter itself:
 * CPython 3.13+ publishes them (_Py_DebugOffsets at the start of _PyRuntime), and on 3.11 and
 * 3.12 they are learned once at start from the interpreter's own public API (ssc_pylearn.c:
 * the addresses the public functions return, found in the structs' memory, then a walk
 * checked against the frames the API reports). Python 3.10 and older, free-threaded builds
 * and anything that fails the check keep the GIL sampler.
 *
 * Every read goes through a caller-given function (process_vm_readv on our own pid in the
 * collector: a racing, freed or wrong address gives EFAULT, never SIGSEGV), so this file is
 * pure and is tested against fabricated memory images (tests/collect/test_pyread.c).
 */
#ifndef SSC_PYREAD_H
#define SSC_PYREAD_H

#include <stddef.h>
#include <stdint.h>

#define SSC_PYR_MAX_SKIP 4 /* shim code objects (3.12's interpreter trampoline) left out */

/* Where things are, in bytes from the start of each struct. */
struct ssc_pyr_layout {
    /* PyThreadState: the current frame is *(ts + ts_frame), or with ts_frame_indirect
     * *(*(ts + ts_frame) + ts_frame_sub) (3.11/3.12: tstate->cframe->current_frame) */
    uint32_t ts_frame, ts_frame_sub, ts_frame_indirect;
    uint32_t ts_next, ts_native_tid; /* the interpreter's thread list; the kernel tid */
    uint32_t interp_threads_head;    /* PyInterpreterState: the first thread state */
    /* _PyInterpreterFrame */
    uint32_t if_code, if_previous, if_instr;
    uint64_t code_tag_mask; /* bits of if_code that are tags (3.14's stack references) */
    int64_t instr_delta;    /* instr - code start - delta = the frame's f_lasti in bytes */
    /* PyCodeObject */
    uint32_t co_filename, co_qualname, co_firstlineno, co_linetable, co_code_start;
    uint64_t code_type; /* &PyCode_Type: a frame's code is checked against it */
    uint64_t skip_code[SSC_PYR_MAX_SKIP];
    /* str and bytes: where a compact ASCII / compact non-ASCII str's characters and a bytes
     * object's start (PyASCIIObject and PyBytesObject are public, stable ABI headers) */
    uint32_t str_ascii_data, str_compact_data, bytes_data;
};

/* Reads n bytes at addr into buf; 0 or -1 (unreadable). */
typedef int (*ssc_pyr_read_fn)(void *ctx, uint64_t addr, void *buf, size_t n);

struct ssc_pyr_mem {
    ssc_pyr_read_fn read;
    void *ctx;
};

/* One frame of a walk: its code object and f_lasti (bytes into the code). */
struct ssc_pyr_frame {
    uint64_t code;
    int32_t lasti;
};

/* The frame a thread state runs now (0: none, or unreadable). */
uint64_t ssc_pyr_current_frame(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m,
                               uint64_t ts);

/* A fingerprint of where a thread is: every frame's address and instruction pointer from
 * `frame` outwards (up to SSC_PYR_KEY_HOPS), hashed, so that two stacks that differ in any
 * frame differ here. Read through a local copy of the memory below each frame (the frames of
 * nested calls lie next to each other on the thread's data stack), so a chain costs a read or
 * two, not one a frame; only for a chain that cannot change meanwhile (the calling thread's
 * own, inside a call). 0, or -1 when unreadable. */
#define SSC_PYR_KEY_HOPS 512
struct ssc_pyr_key {
    uint64_t hash, leaf;
    uint32_t depth;
};
int ssc_pyr_chain_key(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m, uint64_t frame,
                      struct ssc_pyr_key *key);

/* Walks from the interpreter frame `frame` outwards, leaf first, into out[max]. Frames whose
 * code is not a code object (C-stack shims) are left out. Returns the frames written, -1 when
 * a link was unreadable or a code object implausible (a torn read of a running thread: the
 * caller drops the sample); *truncated is set when max frames were not enough. */
int ssc_pyr_walk(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m, uint64_t frame,
                 struct ssc_pyr_frame *out, int max, int *truncated);

/* The line of the instruction at byte offset lasti of a code object whose first line is
 * first_line, from its location table (CPython 3.11+ format, Objects/locations.md); -1 when
 * the instruction has no line or the table ends before it. */
int ssc_pyr_line(const uint8_t *table, size_t n, int first_line, int32_t lasti);

/* The UTF-8 text of the str object at addr into buf (cap bytes, cut at a character); 0 when
 * it is no compact str. Returns the length. */
size_t ssc_pyr_str(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m, uint64_t addr,
                   char *buf, size_t cap);

/* A code object's fields at once. */
struct ssc_pyr_code {
    uint64_t filename, qualname, linetable; /* object addresses */
    int32_t first_line;
    int64_t units; /* its length in code units (ob_size) */
};
/* 0 when addr holds a code object (type checked), -1 otherwise. */
int ssc_pyr_code(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m, uint64_t addr,
                 struct ssc_pyr_code *out);

/* A bytes object's content (at most cap bytes) into buf; its full length, or -1. */
int64_t ssc_pyr_bytes(const struct ssc_pyr_layout *l, const struct ssc_pyr_mem *m, uint64_t addr,
                      uint8_t *buf, size_t cap);

#endif
