/*
 * train_cabi.c — a planted-bottleneck training program in plain C11 on libtorch's C ABI.
 *
 * Trains a two-layer MLP (x @ W1 -> relu -> @ W2, mse loss against a fixed linear teacher) with
 * SGD. Forward and backward are written out by hand: autograd is not reachable through the C ABI.
 * Aten ops go through torch_call_dispatcher; ops that take a Scalar go through the device-generic
 * generated shims (aoti_torch_aten_*) that take a double. Steps and data loading are marked with
 * the stepscope markers (include/stepscope/stepscope.h).
 *
 * Planted causes, each with its fixed twin (see README.md):
 *   --data inline|thread|ahead   costly per-sample transform in the step | in producer threads
 *                                (--workers N, batch k made by thread k mod N) | all batches
 *                                prepared before the loop
 *   --copy pageable|pinned       H2D copy from malloc'd memory (blocking) | pinned, non_blocking
 *   --sync-every N               read the loss back to the host every N steps (1 = planted)
 *   --dtype fp32|bf16            GEMMs in fp32 | in bf16 with fp32 master weights
 *
 * Every libtorch call is checked; a failure prints file:line and the call, then exits 2.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stepscope/stepscope.h"
#include "torch_cabi.h"

/* ---------------------------------------------------------------- error checking */

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("train_cabi: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* libtorch has already printed the C++ exception on stderr; say where and which call. */
static void torch_check(AOTITorchError rc, const char *call, const char *file, int line)
{
    if (rc != AOTI_TORCH_SUCCESS)
        die("%s:%d: libtorch call failed (AOTITorchError %d): %s", file, line, (int)rc, call);
}
#define TC(call) torch_check((call), #call, __FILE__, __LINE__)

/* ---------------------------------------------------------------- dispatcher helpers */

/* A fresh reference for a dispatcher stack slot (the dispatcher takes ownership of it). */
static StableIValue arg_tensor(AtenTensorHandle t, const char *file, int line)
{
    AtenTensorHandle ref = NULL;
    torch_check(aoti_torch_new_tensor_handle(t, &ref), "aoti_torch_new_tensor_handle", file,
                line);
    return (StableIValue)(uintptr_t)ref;
}

static void dispatch(const char *op, const char *overload, StableIValue *stack, const char *file,
                     int line)
{
    AOTITorchError rc = torch_call_dispatcher(op, overload, stack, TORCH_CABI_VERSION_2_11_0);
    if (rc != AOTI_TORCH_SUCCESS)
        die("%s:%d: libtorch call failed (AOTITorchError %d): torch_call_dispatcher(\"%s\", "
            "\"%s\")",
            file, line, (int)rc, op, overload);
}

static AtenTensorHandle ret_tensor(const StableIValue *stack)
{
    return (AtenTensorHandle)(uintptr_t)stack[0];
}

#define T(x) arg_tensor((x), __FILE__, __LINE__)
#define OP(op, overload, ...)                                                                  \
    op_call((op), (overload), (StableIValue[]){__VA_ARGS__},                                   \
            sizeof((StableIValue[]){__VA_ARGS__}) / sizeof(StableIValue), __FILE__, __LINE__)

/* Runs one aten op whose first return is a tensor; returns that tensor (new reference). */
static AtenTensorHandle op_call(const char *op, const char *overload, const StableIValue *args,
                                size_t nargs, const char *file, int line)
{
    StableIValue stack[8] = {0};
    if (nargs > 8) die("%s:%d: too many arguments for %s", file, line, op);
    memcpy(stack, args, nargs * sizeof *args);
    dispatch(op, overload, stack, file, line);
    return ret_tensor(stack);
}

static void drop(AtenTensorHandle *t)
{
    if (*t) TC(aoti_torch_delete_tensor_object(*t));
    *t = NULL;
}

/* aten::to.dtype(Tensor self, ScalarType dtype, bool non_blocking, bool copy, MemoryFormat?) */
static AtenTensorHandle to_dtype(AtenTensorHandle x, int32_t dtype)
{
    return OP("aten::to", "dtype", T(x), (StableIValue)(uint32_t)dtype, 0, 0, 0);
}

static AtenTensorHandle mm(AtenTensorHandle a, AtenTensorHandle b)
{
    return OP("aten::mm", "", T(a), T(b));
}

/* a.T @ b and a @ b.T: aten::t returns a view, aten::mm reads it as strided. */
static AtenTensorHandle mm_tn(AtenTensorHandle a, AtenTensorHandle b)
{
    AtenTensorHandle at = OP("aten::t", "", T(a));
    AtenTensorHandle r = mm(at, b);
    drop(&at);
    return r;
}

static AtenTensorHandle mm_nt(AtenTensorHandle a, AtenTensorHandle b)
{
    AtenTensorHandle bt = OP("aten::t", "", T(b));
    AtenTensorHandle r = mm(a, bt);
    drop(&bt);
    return r;
}

/* ---------------------------------------------------------------- configuration */

enum data_mode { DATA_INLINE, DATA_THREAD, DATA_AHEAD };

typedef struct config {
    int cuda;
    int64_t batch, in, hidden, out;
    long steps, warmup, sync_every, ahead_batches, workers;
    int transform_iters;
    enum data_mode data;
    int pinned;
    int bf16;
    double lr;
    int print_loss;
} config;

static void usage(FILE *f)
{
    fputs("usage: train_cabi [--device cpu|cuda] [--steps N] [--warmup N] [--batch B]\n"
          "         [--in D] [--hidden H] [--out O] [--lr X] [--data inline|thread|ahead]\n"
          "         [--ahead-batches N] [--workers N] [--transform-iters K]\n"
          "         [--copy pageable|pinned]\n"
          "         [--sync-every N] [--dtype fp32|bf16] [--print-loss]\n",
          f);
}

static long parse_long(const char *flag, const char *s, long min)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !end || *end || v < min) die("%s: expected an integer >= %ld, got '%s'", flag, min, s);
    return v;
}

static int parse_choice(const char *flag, const char *s, const char *a, const char *b,
                        const char *c)
{
    if (!strcmp(s, a)) return 0;
    if (!strcmp(s, b)) return 1;
    if (c && !strcmp(s, c)) return 2;
    die("%s: unknown value '%s'", flag, s);
    return -1;
}

static void config_defaults(config *c)
{
    *c = (config){.cuda = 0, .batch = 256, .in = 256, .hidden = 512, .out = 16, .steps = 100,
                  .warmup = 5, .sync_every = 1, .ahead_batches = 8, .workers = 1, .transform_iters = 8,
                  .data = DATA_INLINE, .pinned = 0, .bf16 = 0, .lr = 0, .print_loss = 0};
}

/* The stable SGD step of this two-layer net shrinks as the hidden layer widens (W2's gradient
 * sums over hidden units): 0.05 up to 512 units, then 0.05 * 512 / hidden (a 65536-wide layer
 * diverged within 9 steps at 0.05 on the H200). --lr overrides it. */
static void config_resolve(config *c)
{
    if (c->lr == 0) c->lr = c->hidden <= 512 ? 0.05 : 0.05 * 512.0 / (double)c->hidden;
}

static void config_check(const config *c)
{
    if (c->pinned && !c->cuda) die("--copy pinned needs --device cuda");
    if (c->warmup >= c->steps) die("--warmup (%ld) must be below --steps (%ld)", c->warmup, c->steps);
    if (!(c->lr > 0)) die("--lr must be positive");
}

static void parse_args(int argc, char **argv, config *c)
{
    config_defaults(c);
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        if (!strcmp(f, "--help") || !strcmp(f, "-h")) { usage(stdout); exit(0); }
        if (!strcmp(f, "--print-loss")) { c->print_loss = 1; continue; }
        if (i + 1 >= argc) { usage(stderr); die("%s: missing value", f); }
        const char *v = argv[++i];
        if (!strcmp(f, "--device")) c->cuda = parse_choice(f, v, "cpu", "cuda", NULL);
        else if (!strcmp(f, "--steps")) c->steps = parse_long(f, v, 1);
        else if (!strcmp(f, "--warmup")) c->warmup = parse_long(f, v, 0);
        else if (!strcmp(f, "--batch")) c->batch = parse_long(f, v, 1);
        else if (!strcmp(f, "--in")) c->in = parse_long(f, v, 1);
        else if (!strcmp(f, "--hidden")) c->hidden = parse_long(f, v, 1);
        else if (!strcmp(f, "--out")) c->out = parse_long(f, v, 1);
        else if (!strcmp(f, "--lr")) {
            c->lr = strtod(v, NULL);
            if (!(c->lr > 0)) die("--lr must be positive");
        }
        else if (!strcmp(f, "--data")) c->data = (enum data_mode)parse_choice(f, v, "inline", "thread", "ahead");
        else if (!strcmp(f, "--ahead-batches")) c->ahead_batches = parse_long(f, v, 1);
        else if (!strcmp(f, "--workers")) c->workers = parse_long(f, v, 1);
        else if (!strcmp(f, "--transform-iters")) c->transform_iters = (int)parse_long(f, v, 0);
        else if (!strcmp(f, "--copy")) c->pinned = parse_choice(f, v, "pageable", "pinned", NULL);
        else if (!strcmp(f, "--sync-every")) c->sync_every = parse_long(f, v, 1);
        else if (!strcmp(f, "--dtype")) c->bf16 = parse_choice(f, v, "fp32", "bf16", NULL);
        else { usage(stderr); die("unknown option '%s'", f); }
    }
    config_resolve(c);
    config_check(c);
}

/* ---------------------------------------------------------------- host data */

/* splitmix64: batch k's data depends only on k, so inline, thread and ahead see the same data. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float rng_uniform(uint64_t *s) /* [-1, 1) */
{
    return (float)(rng_next(s) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

typedef struct batch {
    AtenTensorHandle x, t; /* host tensors [batch, in] and [batch, out], fp32 */
    void *blob;            /* malloc'd storage behind x and t when pageable, else NULL */
} batch;

/* The "costly per-sample transform": a few rounds of a smooth contraction per feature (an
 * augmentation stand-in). Values stay in [-1, 1]. */
static void transform_sample(float *x, int64_t n, int iters)
{
    for (int64_t j = 0; j < n; j++) {
        float raw = x[j], v = raw;
        for (int k = 0; k < iters; k++) v = 0.5f * v + 0.5f * sinf(v + raw);
        x[j] = v;
    }
}

/* The teacher: t = x @ teacher, with teacher [in, out] fixed. */
static void teach_sample(const config *c, const float *teacher, const float *x, float *t)
{
    for (int64_t o = 0; o < c->out; o++) t[o] = 0.0f;
    for (int64_t i = 0; i < c->in; i++)
        for (int64_t o = 0; o < c->out; o++) t[o] += x[i] * teacher[i * c->out + o];
}

static AtenTensorHandle host_tensor(const config *c, int64_t rows, int64_t cols, float *blob)
{
    int64_t sizes[2] = {rows, cols}, strides[2] = {cols, 1};
    AtenTensorHandle h = NULL;
    if (blob)
        TC(aoti_torch_create_tensor_from_blob(blob, 2, sizes, strides, 0, aoti_torch_dtype_float32(),
                                              aoti_torch_device_type_cpu(), 0, &h));
    else
        TC(aoti_torch_empty_strided_pinned(2, sizes, strides, aoti_torch_dtype_float32(),
                                           aoti_torch_device_type_cpu(), 0, &h));
    (void)c;
    return h;
}

static float *tensor_floats(AtenTensorHandle h)
{
    void *p = NULL;
    TC(aoti_torch_get_data_ptr(h, &p));
    return p;
}

/* Makes batch number k (host memory: pinned when c->pinned, else malloc'd). Thread-safe. */
static void make_batch(const config *c, const float *teacher, long k, batch *b)
{
    size_t nx = (size_t)(c->batch * c->in), nt = (size_t)(c->batch * c->out);
    b->blob = NULL;
    if (!c->pinned) {
        b->blob = malloc((nx + nt) * sizeof(float));
        if (!b->blob) die("out of memory for a batch");
    }
    b->x = host_tensor(c, c->batch, c->in, b->blob ? b->blob : NULL);
    b->t = host_tensor(c, c->batch, c->out, b->blob ? (float *)b->blob + nx : NULL);
    float *x = tensor_floats(b->x), *t = tensor_floats(b->t);
    uint64_t s = 0x5EED0000ull + (uint64_t)k;
    for (int64_t r = 0; r < c->batch; r++) {
        float *xr = x + r * c->in;
        for (int64_t j = 0; j < c->in; j++) xr[j] = rng_uniform(&s);
        transform_sample(xr, c->in, c->transform_iters);
        teach_sample(c, teacher, xr, t + r * c->out);
    }
}

static void free_batch(batch *b)
{
    drop(&b->x);
    drop(&b->t);
    free(b->blob);
    b->blob = NULL;
}

/* ---------------------------------------------------------------- producer thread */

#define QUEUE_DEPTH 4

typedef struct producer {
    const config *c;
    const float *teacher;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    batch slots[QUEUE_DEPTH];
    long produced, consumed, total, first, stride; /* makes batches first, first + stride, ... */
    int stop;
} producer;

static void *producer_main(void *arg)
{
    producer *p = arg;
    for (long k = p->first; k < p->total; k += p->stride) {
        batch b;
        make_batch(p->c, p->teacher, k, &b);
        pthread_mutex_lock(&p->mu);
        while (p->produced - p->consumed == QUEUE_DEPTH && !p->stop) pthread_cond_wait(&p->cv, &p->mu);
        int stop = p->stop;
        if (!stop) p->slots[p->produced++ % QUEUE_DEPTH] = b;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (stop) { free_batch(&b); break; }
    }
    return NULL;
}

static void producer_start(producer *p, const config *c, const float *teacher, long first)
{
    memset(p, 0, sizeof *p);
    p->c = c;
    p->teacher = teacher;
    p->total = c->steps;
    p->first = first, p->stride = c->workers;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (pthread_create(&p->thread, NULL, producer_main, p)) die("pthread_create failed");
}

static batch producer_take(producer *p)
{
    pthread_mutex_lock(&p->mu);
    while (p->produced == p->consumed) pthread_cond_wait(&p->cv, &p->mu);
    batch b = p->slots[p->consumed++ % QUEUE_DEPTH];
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return b;
}

static void producer_stop(producer *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    while (p->consumed < p->produced) free_batch(&p->slots[p->consumed++ % QUEUE_DEPTH]);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
}

/* ---------------------------------------------------------------- the model */

typedef struct model {
    AtenTensorHandle w1, w2; /* fp32 master weights [in, hidden], [hidden, out] */
    AtenTensorHandle one;    /* 0-dim fp32 1.0: the loss's gradient */
} model;

static int32_t device_type(const config *c)
{
    return c->cuda ? aoti_torch_device_type_cuda() : aoti_torch_device_type_cpu();
}

static AtenTensorHandle device_empty(const config *c, int64_t ndim, const int64_t *sizes,
                                     const int64_t *strides, int32_t dtype)
{
    AtenTensorHandle h = NULL;
    TC(aoti_torch_empty_strided(ndim, sizes, strides, dtype, device_type(c), 0, &h));
    return h;
}

/* Uniform(-bound, bound) weights made on the host and copied to the device. */
static AtenTensorHandle init_weight(const config *c, int64_t rows, int64_t cols, double bound,
                                    uint64_t seed)
{
    float *w = malloc((size_t)(rows * cols) * sizeof(float));
    if (!w) die("out of memory for weights");
    for (int64_t i = 0; i < rows * cols; i++) w[i] = (float)bound * rng_uniform(&seed);
    AtenTensorHandle host = host_tensor(c, rows, cols, w);
    int64_t sizes[2] = {rows, cols}, strides[2] = {cols, 1};
    AtenTensorHandle dev = device_empty(c, 2, sizes, strides, aoti_torch_dtype_float32());
    TC(aoti_torch_copy_(dev, host, 0));
    drop(&host);
    free(w);
    return dev;
}

static void model_init(const config *c, model *m)
{
    m->w1 = init_weight(c, c->in, c->hidden, sqrt(6.0 / (double)c->in), 1);
    m->w2 = init_weight(c, c->hidden, c->out, sqrt(3.0 / (double)c->hidden), 2);
    m->one = device_empty(c, 0, NULL, NULL, aoti_torch_dtype_float32());
    TC(aoti_torch_aten_fill__Scalar(m->one, 1.0));
}

static void model_free(model *m)
{
    drop(&m->w1);
    drop(&m->w2);
    drop(&m->one);
}

/* w <- w - lr * g (g cast to fp32 first when it is bf16). */
static void sgd_update(const config *c, AtenTensorHandle *w, AtenTensorHandle g)
{
    AtenTensorHandle g32 = c->bf16 ? to_dtype(g, aoti_torch_dtype_float32()) : NULL;
    AtenTensorHandle next = NULL;
    TC(aoti_torch_aten_subtract_Tensor(*w, g32 ? g32 : g, c->lr, &next));
    drop(&g32);
    drop(w);
    *w = next;
}

/* Weights in the compute dtype: a bf16 copy of the master weights, or new references. */
static void compute_weights(const config *c, const model *m, AtenTensorHandle *w1,
                            AtenTensorHandle *w2)
{
    if (c->bf16) {
        *w1 = to_dtype(m->w1, aoti_torch_dtype_bfloat16());
        *w2 = to_dtype(m->w2, aoti_torch_dtype_bfloat16());
    } else {
        TC(aoti_torch_new_tensor_handle(m->w1, w1));
        TC(aoti_torch_new_tensor_handle(m->w2, w2));
    }
}

/* One forward + backward + SGD update; returns the loss (0-dim fp32 device tensor). */
static AtenTensorHandle train_step(const config *c, model *m, AtenTensorHandle x32,
                                   AtenTensorHandle t)
{
    AtenTensorHandle w1, w2;
    compute_weights(c, m, &w1, &w2);
    AtenTensorHandle x = c->bf16 ? to_dtype(x32, aoti_torch_dtype_bfloat16()) : NULL;
    AtenTensorHandle xin = x ? x : x32;
    AtenTensorHandle z1 = mm(xin, w1);
    AtenTensorHandle h = OP("aten::relu", "", T(z1));
    AtenTensorHandle y = mm(h, w2);
    AtenTensorHandle y32 = c->bf16 ? to_dtype(y, aoti_torch_dtype_float32()) : NULL;
    AtenTensorHandle yl = y32 ? y32 : y;
    AtenTensorHandle loss = OP("aten::mse_loss", "", T(yl), T(t), 1 /* mean */);
    AtenTensorHandle gy32 = OP("aten::mse_loss_backward", "", T(m->one), T(yl), T(t), 1);
    AtenTensorHandle gy = c->bf16 ? to_dtype(gy32, aoti_torch_dtype_bfloat16()) : NULL;
    AtenTensorHandle gyc = gy ? gy : gy32;
    AtenTensorHandle gw2 = mm_tn(h, gyc);
    AtenTensorHandle gh = mm_nt(gyc, w2);
    AtenTensorHandle mask = OP("aten::sign", "", T(h)); /* relu'(z1) as 0/1, from h >= 0 */
    AtenTensorHandle gz1 = OP("aten::mul", "Tensor", T(gh), T(mask));
    AtenTensorHandle gw1 = mm_tn(xin, gz1);
    sgd_update(c, &m->w1, gw1);
    sgd_update(c, &m->w2, gw2);
    AtenTensorHandle tmp[] = {w1, w2, x, z1, h, y, y32, gy32, gy, gw2, gh, mask, gz1, gw1};
    for (size_t i = 0; i < sizeof tmp / sizeof *tmp; i++) drop(&tmp[i]);
    return loss;
}

/* ---------------------------------------------------------------- the loop */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct feeder {
    const config *c;
    const float *teacher;
    producer *prod; /* c->workers of them: batch k comes from prod[k % workers] */
    batch *ahead;
    AtenTensorHandle xd, td; /* device copies of the batch (cuda) */
} feeder;

static void feeder_start(feeder *f, const config *c, const float *teacher)
{
    memset(f, 0, sizeof *f);
    f->c = c;
    f->teacher = teacher;
    if (c->data == DATA_THREAD) {
        f->prod = calloc((size_t)c->workers, sizeof *f->prod);
        if (!f->prod) die("out of memory");
        for (long w = 0; w < c->workers; w++) producer_start(&f->prod[w], c, teacher, w);
    }
    if (c->data == DATA_AHEAD) {
        f->ahead = calloc((size_t)c->ahead_batches, sizeof *f->ahead);
        if (!f->ahead) die("out of memory");
        for (long k = 0; k < c->ahead_batches; k++) make_batch(c, teacher, k, &f->ahead[k]);
    }
    if (c->cuda) {
        int64_t sx[2] = {c->batch, c->in}, stx[2] = {c->in, 1};
        int64_t st[2] = {c->batch, c->out}, stt[2] = {c->out, 1};
        f->xd = device_empty(c, 2, sx, stx, aoti_torch_dtype_float32());
        f->td = device_empty(c, 2, st, stt, aoti_torch_dtype_float32());
    }
}

/* Batch k on the device. *hold receives the host batch to free after the step (or NULL). */
static void feeder_next(feeder *f, long k, AtenTensorHandle *x, AtenTensorHandle *t, batch *hold)
{
    const config *c = f->c;
    batch b;
    memset(hold, 0, sizeof *hold);
    if (c->data == DATA_AHEAD) b = f->ahead[k % c->ahead_batches];
    else if (c->data == DATA_THREAD) b = producer_take(&f->prod[k % c->workers]);
    else make_batch(c, f->teacher, k, &b);
    if (c->data != DATA_AHEAD) *hold = b;
    if (!c->cuda) {
        TC(aoti_torch_new_tensor_handle(b.x, x));
        TC(aoti_torch_new_tensor_handle(b.t, t));
        return;
    }
    /* Pageable: a blocking copy (the host waits for it). Pinned: async, the caching host
     * allocator keeps the pinned block until the copy is done. */
    TC(aoti_torch_copy_(f->xd, b.x, c->pinned));
    TC(aoti_torch_copy_(f->td, b.t, c->pinned));
    TC(aoti_torch_new_tensor_handle(f->xd, x));
    TC(aoti_torch_new_tensor_handle(f->td, t));
}

static void feeder_stop(feeder *f)
{
    for (long w = 0; f->prod && w < f->c->workers; w++) producer_stop(&f->prod[w]);
    free(f->prod);
    for (long k = 0; f->ahead && k < f->c->ahead_batches; k++) free_batch(&f->ahead[k]);
    free(f->ahead);
    drop(&f->xd);
    drop(&f->td);
}

/* The step whose loss was read last: a second read of the same loss is not printed again. */
static long last_read_step = -1;

static float read_loss(const config *c, AtenTensorHandle loss, long step)
{
    float v = 0.0f;
    int again = step == last_read_step;
    last_read_step = step;
    TC(aoti_torch_item_float32(loss, &v)); /* a device-to-host copy: waits for the GPU */
    if (c->print_loss && !again) printf("loss step=%ld value=%.6f\n", step, (double)v);
    if (!isfinite(v)) die("loss is %f at step %ld", (double)v, step);
    return v;
}

static float *make_teacher(const config *c)
{
    float *w = malloc((size_t)(c->in * c->out) * sizeof(float));
    if (!w) die("out of memory for the teacher");
    uint64_t s = 0x7EAC4E5ull;
    for (int64_t i = 0; i < c->in * c->out; i++) w[i] = rng_uniform(&s) * (float)sqrt(3.0 / (double)c->in);
    return w;
}

static void print_config(const config *c)
{
    static const char *data[] = {"inline", "thread", "ahead"};
    printf("config device=%s batch=%lld in=%lld hidden=%lld out=%lld steps=%ld warmup=%ld "
           "data=%s workers=%ld transform_iters=%d copy=%s sync_every=%ld dtype=%s lr=%g\n",
           c->cuda ? "cuda" : "cpu", (long long)c->batch, (long long)c->in, (long long)c->hidden,
           (long long)c->out, c->steps, c->warmup, data[c->data],
           c->data == DATA_THREAD ? c->workers : 0, c->transform_iters,
           c->pinned ? "pinned" : "pageable", c->sync_every, c->bf16 ? "bf16" : "fp32", c->lr);
}

int main(int argc, char **argv)
{
    config c;
    parse_args(argc, argv, &c);
    print_config(&c);
    float *teacher = make_teacher(&c);
    model m;
    model_init(&c, &m);
    feeder f;
    feeder_start(&f, &c, teacher);
    double t0 = 0, data_s = 0;
    float first = NAN, last = NAN;
    AtenTensorHandle loss = NULL;
    for (long k = 0; k < c.steps; k++) {
        if (k == c.warmup) { if (loss) read_loss(&c, loss, k - 1); t0 = now_s(); data_s = 0; }
        stepscope_step_begin((uint64_t)k);
        double d0 = now_s();
        stepscope_data_begin();
        AtenTensorHandle x, t;
        batch hold;
        feeder_next(&f, k, &x, &t, &hold);
        stepscope_data_end();
        data_s += now_s() - d0;
        drop(&loss);
        loss = train_step(&c, &m, x, t);
        drop(&x);
        drop(&t);
        free_batch(&hold);
        if ((k + 1) % c.sync_every == 0 || k == 0) {
            last = read_loss(&c, loss, k);
            if (k == 0) first = last;
        }
        stepscope_step_end();
    }
    last = read_loss(&c, loss, c.steps - 1); /* waits for the device: the timing is complete */
    double timed = (double)(c.steps - c.warmup);
    printf("result ms_per_step=%.3f data_ms_per_step=%.3f first_loss=%.6f last_loss=%.6f\n",
           1e3 * (now_s() - t0) / timed, 1e3 * data_s / timed, (double)first, (double)last);
    drop(&loss);
    feeder_stop(&f);
    model_free(&m);
    free(teacher);
    return 0;
}
