/*
 * ssc_pylearn.h — where CPython keeps what the frame reader needs (prefix ssc_pyl_).
 *
 * CPython 3.13 publishes its struct offsets (_Py_DebugOffsets, the first member of _PyRuntime,
 * cookie "xdebugpy"): ssc_pyl_from_debug_offsets reads that table. 3.11 and 3.12 publish none,
 * so ssc_pyl_learn finds each offset in the structs' memory: the caller (ssc_pyhost.c, holding
 * the GIL, inside a call from Python) hands over what CPython's public API says about the
 * running frames — their addresses, code objects, lasti and lines, the thread state and
 * thread list, a few str and bytes objects with their contents — and every field is the one
 * place in its struct that holds the known value (the current frame is checked in two calls
 * made at different depths, so a stale copy of the pointer cannot pass). Both end with the
 * same check: a walk of the calling thread must give exactly the frames the API reported, at
 * their lines. Nothing is assumed about a version: a field found twice or not at all fails
 * the learning, and the sampler stays on the GIL.
 */
#ifndef SSC_PYLEARN_H
#define SSC_PYLEARN_H

#include "collect/ssc_pyread.h"

#define SSC_PYL_FRAMES 8 /* frames of the calling thread the API describes */

/* One frame as CPython's public API describes it, leaf (the function calling in) first. */
struct ssc_pyl_frame {
    uint64_t frame_obj; /* the PyFrameObject */
    uint64_t code;
    uint64_t filename, qualname, linetable; /* the code's attributes */
    int32_t first_line;
    int32_t lasti; /* PyFrame_GetLasti: bytes (the leaf's moves: not used) */
    int32_t line;  /* PyFrame_GetLineNumber (the leaf's moves: not used) */
};

struct ssc_pyl_anchors {
    uint64_t ts;       /* PyThreadState_Get() */
    uint64_t tid;      /* this thread's kernel id */
    uint64_t interp;   /* PyInterpreterState_Get() */
    uint64_t head;     /* PyInterpreterState_ThreadHead(interp) */
    uint64_t head_next; /* PyThreadState_Next(head): another thread must exist */
    uint64_t frame_obj_size, code_basicsize; /* the types' __basicsize__ */
    uint64_t code_type;                      /* type(code) */
    struct ssc_pyl_frame frames[SSC_PYL_FRAMES];
    int n_frames;
    /* a compact ASCII str, a latin-1 str, a UCS-2 str, a bytes object, with their contents */
    uint64_t ascii, latin1, ucs2, bytes;
    const char *ascii_text, *latin1_utf8, *ucs2_utf8;
    const uint8_t *bytes_data;
    size_t ascii_len, bytes_len;
};

/* What a learning found so far: the current-frame candidates of the first call, kept for the
 * second (zeroed before the first). */
struct ssc_pyl_state {
    uint32_t cand[16][3]; /* offset, sub, indirect */
    int n_cand;
    int calls;
};

/* One learning call. The first (state->calls == 0) keeps the candidates for the current
 * frame; the second, made one frame deeper, keeps those that hold again and learns the rest.
 * Returns 0 when *out is complete and checked, 1 after a first call, or -1 with a static
 * reason in *why. */
int ssc_pyl_learn(const struct ssc_pyl_anchors *a, const struct ssc_pyr_mem *m,
                  struct ssc_pyl_state *state, struct ssc_pyr_layout *out, const char **why);

/* The offsets of CPython 3.13's _Py_DebugOffsets at runtime (the address of _PyRuntime);
 * the few values that table lacks (the code type, how f_lasti relates to the instruction
 * pointer) from the anchors, then the same check as ssc_pyl_learn. 0, or -1 with *why (not
 * 3.13, no cookie, a check failed). */
int ssc_pyl_from_debug_offsets(uint64_t runtime, const struct ssc_pyl_anchors *a,
                               const struct ssc_pyr_mem *m, struct ssc_pyr_layout *out,
                               const char **why);

#endif
