/*
 * train_cxx.cpp — the planted-bottleneck training program of bench/workloads/c/ written against
 * libtorch's C++ API (torch/torch.h) instead of its C ABI.
 *
 * Same model (x @ W1 -> relu -> @ W2, MSE against a fixed linear teacher), same synthetic data
 * (batch k depends only on k), same flags and same output lines as train_cabi, so the two run
 * side by side with one table of cases (bench/workloads/programs.py). Here autograd computes
 * the gradients and torch::optim::SGD updates the fp32 master weights. Steps and data loading
 * carry the stepscope markers (include/stepscope/stepscope.h, the C++ RAII helpers).
 *
 * Planted causes, each with its fixed twin:
 *   --data inline|thread|ahead   costly per-sample transform inside the step | in producer
 *                                threads (--workers N, batch k made by thread k mod N, queues of
 *                                4 batches) | all batches prepared before the loop
 *   --copy pageable|pinned       blocking H2D copy from pageable memory | pinned, non_blocking
 *   --sync-every N               loss read back to the host every N steps (1 = planted)
 *   --dtype fp32|bf16            GEMMs in fp32 | in bf16 (casts of weights and inputs; fp32
 *                                master weights and loss)
 *
 * Output: "config ...", "loss step=N value=V" with --print-loss, and
 * "result ms_per_step=... data_ms_per_step=... first_loss=... last_loss=...". Errors: a line
 * "train_cxx: ..." on stderr and exit status 2.
 */
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "stepscope/stepscope.h"

namespace
{

[[noreturn]] void die(const std::string &msg)
{
    std::fprintf(stderr, "train_cxx: %s\n", msg.c_str());
    std::exit(2);
}

/* ---------------------------------------------------------------- configuration */

enum class DataMode { inline_, thread, ahead };

struct Config {
    bool cuda = false;
    int64_t batch = 256, in = 256, hidden = 512, out = 16;
    long steps = 100, warmup = 5, sync_every = 1, ahead_batches = 8, workers = 1;
    int transform_iters = 8;
    DataMode data = DataMode::inline_;
    bool pinned = false, bf16 = false, print_loss = false;
    double lr = 0;
};

void usage(std::FILE *f)
{
    std::fputs("usage: train_cxx [--device cpu|cuda] [--steps N] [--warmup N] [--batch B]\n"
               "         [--in D] [--hidden H] [--out O] [--lr X] [--data inline|thread|ahead]\n"
               "         [--ahead-batches N] [--workers N] [--transform-iters K]\n"
               "         [--copy pageable|pinned] [--sync-every N] [--dtype fp32|bf16]\n"
               "         [--print-loss]\n",
               f);
}

long parse_long(const std::string &flag, const char *s, long min)
{
    char *end = nullptr;
    errno = 0;
    long v = std::strtol(s, &end, 10);
    if (errno || !end || *end || v < min)
        die(flag + ": expected an integer >= " + std::to_string(min) + ", got '" + s + "'");
    return v;
}

int parse_choice(const std::string &flag, const std::string &v,
                 const std::vector<std::string> &choices)
{
    for (size_t i = 0; i < choices.size(); i++)
        if (v == choices[i]) return static_cast<int>(i);
    die(flag + ": unknown value '" + v + "'");
}

/* The stable SGD step shrinks as the hidden layer widens (train_cabi.c says why). */
void resolve_and_check(Config &c)
{
    if (c.lr == 0) c.lr = c.hidden <= 512 ? 0.05 : 0.05 * 512.0 / static_cast<double>(c.hidden);
    if (c.pinned && !c.cuda) die("--copy pinned needs --device cuda");
    if (c.warmup >= c.steps)
        die("--warmup (" + std::to_string(c.warmup) + ") must be below --steps (" +
            std::to_string(c.steps) + ")");
    if (!(c.lr > 0)) die("--lr must be positive");
}

/* One flag and its value; false when the flag is unknown. */
bool apply_flag(Config &c, const std::string &f, const char *v)
{
    if (f == "--device") c.cuda = parse_choice(f, v, {"cpu", "cuda"}) == 1;
    else if (f == "--steps") c.steps = parse_long(f, v, 1);
    else if (f == "--warmup") c.warmup = parse_long(f, v, 0);
    else if (f == "--batch") c.batch = parse_long(f, v, 1);
    else if (f == "--in") c.in = parse_long(f, v, 1);
    else if (f == "--hidden") c.hidden = parse_long(f, v, 1);
    else if (f == "--out") c.out = parse_long(f, v, 1);
    else if (f == "--lr") {
        c.lr = std::strtod(v, nullptr);
        if (!(c.lr > 0)) die("--lr must be positive");
    }
    else if (f == "--data") c.data = static_cast<DataMode>(parse_choice(f, v, {"inline", "thread", "ahead"}));
    else if (f == "--ahead-batches") c.ahead_batches = parse_long(f, v, 1);
    else if (f == "--workers") c.workers = parse_long(f, v, 1);
    else if (f == "--transform-iters") c.transform_iters = static_cast<int>(parse_long(f, v, 0));
    else if (f == "--copy") c.pinned = parse_choice(f, v, {"pageable", "pinned"}) == 1;
    else if (f == "--sync-every") c.sync_every = parse_long(f, v, 1);
    else if (f == "--dtype") c.bf16 = parse_choice(f, v, {"fp32", "bf16"}) == 1;
    else return false;
    return true;
}

Config parse_args(int argc, char **argv)
{
    Config c;
    for (int i = 1; i < argc; i++) {
        std::string f = argv[i];
        if (f == "--help" || f == "-h") {
            usage(stdout);
            std::exit(0);
        }
        if (f == "--print-loss") {
            c.print_loss = true;
            continue;
        }
        if (i + 1 >= argc) {
            usage(stderr);
            die(f + ": missing value");
        }
        if (!apply_flag(c, f, argv[++i])) {
            usage(stderr);
            die("unknown option '" + f + "'");
        }
    }
    resolve_and_check(c);
    return c;
}

/* ---------------------------------------------------------------- host data */

/* splitmix64, as in train_cabi.c: batch k's data depends only on k. */
uint64_t rng_next(uint64_t &s)
{
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float rng_uniform(uint64_t &s) /* [-1, 1) */
{
    return static_cast<float>(rng_next(s) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

/* The "costly per-sample transform" of train_cabi.c: rounds of a smooth contraction. */
void transform_sample(float *x, int64_t n, int iters)
{
    for (int64_t j = 0; j < n; j++) {
        float raw = x[j], v = raw;
        for (int k = 0; k < iters; k++) v = 0.5f * v + 0.5f * std::sin(v + raw);
        x[j] = v;
    }
}

struct Batch {
    torch::Tensor x, t; /* host tensors [batch, in] and [batch, out], fp32 */
};

class Teacher
{
  public:
    explicit Teacher(const Config &c) : c_(c), w_(static_cast<size_t>(c.in * c.out))
    {
        uint64_t s = 0x7EAC4E5ull;
        for (auto &v : w_) v = rng_uniform(s) * static_cast<float>(std::sqrt(3.0 / c.in));
    }

    /* t = x @ teacher for one sample. */
    void teach(const float *x, float *t) const
    {
        for (int64_t o = 0; o < c_.out; o++) t[o] = 0.0f;
        for (int64_t i = 0; i < c_.in; i++)
            for (int64_t o = 0; o < c_.out; o++) t[o] += x[i] * w_[static_cast<size_t>(i * c_.out + o)];
    }

  private:
    const Config &c_;
    std::vector<float> w_;
};

/* Batch number k in host memory: pinned when --copy pinned, else pageable. Thread-safe. */
Batch make_batch(const Config &c, const Teacher &teacher, long k)
{
    auto opts = torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(c.pinned);
    Batch b{torch::empty({c.batch, c.in}, opts), torch::empty({c.batch, c.out}, opts)};
    float *x = b.x.data_ptr<float>(), *t = b.t.data_ptr<float>();
    uint64_t s = 0x5EED0000ull + static_cast<uint64_t>(k);
    for (int64_t r = 0; r < c.batch; r++) {
        float *xr = x + r * c.in;
        for (int64_t j = 0; j < c.in; j++) xr[j] = rng_uniform(s);
        transform_sample(xr, c.in, c.transform_iters);
        teacher.teach(xr, t + r * c.out);
    }
    return b;
}

/* ---------------------------------------------------------------- producer threads */

/* Makes batches first, first + stride, ... below total into a queue of kDepth batches. */
class Producer
{
  public:
    static constexpr size_t kDepth = 4;

    Producer(const Config &c, const Teacher &teacher, long first)
        : c_(c), teacher_(teacher), next_(first), thread_([this] { run(); })
    {
    }

    ~Producer()
    {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

    Batch take()
    {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !queue_.empty(); });
        Batch b = std::move(queue_.front());
        queue_.pop_front();
        cv_.notify_all();
        return b;
    }

  private:
    void run()
    {
        for (long k = next_; k < c_.steps; k += c_.workers) {
            Batch b = make_batch(c_, teacher_, k);
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait(lock, [this] { return queue_.size() < kDepth || stop_; });
            if (stop_) return;
            queue_.push_back(std::move(b));
            cv_.notify_all();
        }
    }

    const Config &c_;
    const Teacher &teacher_;
    long next_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Batch> queue_;
    bool stop_ = false;
    std::thread thread_; /* last: starts once the members above exist */
};

/* Hands out batch k on the device, from the configured source. */
class Feeder
{
  public:
    Feeder(const Config &c, const Teacher &teacher, torch::Device dev)
        : c_(c), teacher_(teacher), dev_(dev)
    {
        if (c.data == DataMode::thread)
            for (long w = 0; w < c.workers; w++)
                producers_.push_back(std::make_unique<Producer>(c, teacher, w));
        if (c.data == DataMode::ahead)
            for (long k = 0; k < c.ahead_batches; k++) ahead_.push_back(make_batch(c, teacher, k));
    }

    /* Pageable: a blocking copy (the host waits for it). Pinned: non_blocking; the caching
     * host allocator keeps the pinned block alive until the copy is done. */
    std::pair<torch::Tensor, torch::Tensor> next(long k)
    {
        Batch b = host_batch(k);
        if (!c_.cuda) return {b.x, b.t};
        return {b.x.to(dev_, c_.pinned), b.t.to(dev_, c_.pinned)};
    }

  private:
    Batch host_batch(long k)
    {
        if (c_.data == DataMode::ahead) return ahead_[static_cast<size_t>(k % c_.ahead_batches)];
        if (c_.data == DataMode::thread)
            return producers_[static_cast<size_t>(k % c_.workers)]->take();
        return make_batch(c_, teacher_, k);
    }

    const Config &c_;
    const Teacher &teacher_;
    torch::Device dev_;
    std::vector<std::unique_ptr<Producer>> producers_;
    std::vector<Batch> ahead_;
};

/* ---------------------------------------------------------------- the model */

/* Uniform(-bound, bound) fp32 weights made on the host (train_cabi.c's seeds), on the device. */
torch::Tensor init_weight(int64_t rows, int64_t cols, double bound, uint64_t seed,
                          torch::Device dev)
{
    torch::Tensor w = torch::empty({rows, cols}, torch::kFloat32);
    float *p = w.data_ptr<float>();
    for (int64_t i = 0; i < rows * cols; i++) p[i] = static_cast<float>(bound) * rng_uniform(seed);
    return w.to(dev).requires_grad_(true);
}

struct Model {
    torch::Tensor w1, w2; /* fp32 master weights [in, hidden], [hidden, out] */
};

Model make_model(const Config &c, torch::Device dev)
{
    return {init_weight(c.in, c.hidden, std::sqrt(6.0 / static_cast<double>(c.in)), 1, dev),
            init_weight(c.hidden, c.out, std::sqrt(3.0 / static_cast<double>(c.hidden)), 2, dev)};
}

/* Forward, backward (autograd through the bf16 casts) and the SGD step; returns the loss. */
torch::Tensor train_step(const Config &c, Model &m, torch::optim::SGD &opt,
                         const torch::Tensor &x32, const torch::Tensor &t)
{
    auto dt = c.bf16 ? torch::kBFloat16 : torch::kFloat32;
    opt.zero_grad();
    torch::Tensor h = torch::relu(x32.to(dt).mm(m.w1.to(dt)));
    torch::Tensor y = h.mm(m.w2.to(dt)).to(torch::kFloat32);
    torch::Tensor loss = torch::mse_loss(y, t);
    loss.backward();
    opt.step();
    return loss.detach();
}

/* ---------------------------------------------------------------- the loop */

double now_s()
{
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

/* Reads the loss to the host (waits for the device); prints it once per step. */
float read_loss(const Config &c, const torch::Tensor &loss, long step)
{
    static long last_printed = -1;
    float v = loss.item<float>();
    if (c.print_loss && step != last_printed) std::printf("loss step=%ld value=%.6f\n", step, v);
    last_printed = step;
    if (!std::isfinite(v)) die("loss is " + std::to_string(v) + " at step " + std::to_string(step));
    return v;
}

void print_config(const Config &c)
{
    static const char *data[] = {"inline", "thread", "ahead"};
    std::printf("config device=%s batch=%lld in=%lld hidden=%lld out=%lld steps=%ld warmup=%ld "
                "data=%s workers=%ld transform_iters=%d copy=%s sync_every=%ld dtype=%s lr=%g\n",
                c.cuda ? "cuda" : "cpu", static_cast<long long>(c.batch),
                static_cast<long long>(c.in), static_cast<long long>(c.hidden),
                static_cast<long long>(c.out), c.steps, c.warmup, data[static_cast<int>(c.data)],
                c.data == DataMode::thread ? c.workers : 0, c.transform_iters,
                c.pinned ? "pinned" : "pageable", c.sync_every, c.bf16 ? "bf16" : "fp32", c.lr);
}

torch::Device pick_device(const Config &c)
{
    if (!c.cuda) return torch::kCPU;
    if (!torch::cuda::is_available()) die("--device cuda: no CUDA device (or libtorch_cuda not loaded)");
    return {torch::kCUDA, 0};
}

int run(const Config &c)
{
    torch::Device dev = pick_device(c);
    Teacher teacher(c);
    Model m = make_model(c, dev);
    torch::optim::SGD opt({m.w1, m.w2}, torch::optim::SGDOptions(c.lr));
    Feeder feeder(c, teacher, dev);
    double t0 = 0, data_s = 0;
    float first = NAN, last = NAN;
    torch::Tensor loss;
    for (long k = 0; k < c.steps; k++) {
        if (k == c.warmup) {
            if (loss.defined()) read_loss(c, loss, k - 1); /* the device is idle: start timing */
            t0 = now_s();
            data_s = 0;
        }
        stepscope::step_scope step(static_cast<uint64_t>(k));
        double d0 = now_s();
        std::pair<torch::Tensor, torch::Tensor> batch;
        {
            stepscope::data_scope data;
            batch = feeder.next(k);
        }
        data_s += now_s() - d0;
        loss = train_step(c, m, opt, batch.first, batch.second);
        if ((k + 1) % c.sync_every == 0 || k == 0) {
            last = read_loss(c, loss, k);
            if (k == 0) first = last;
        }
    }
    last = read_loss(c, loss, c.steps - 1); /* waits for the device: the timing is complete */
    double timed = static_cast<double>(c.steps - c.warmup);
    std::printf("result ms_per_step=%.3f data_ms_per_step=%.3f first_loss=%.6f last_loss=%.6f\n",
                1e3 * (now_s() - t0) / timed, 1e3 * data_s / timed, static_cast<double>(first),
                static_cast<double>(last));
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    Config c = parse_args(argc, argv);
    print_config(c);
    try {
        return run(c);
    } catch (const c10::Error &e) {
        die(std::string("libtorch: ") + e.what_without_backtrace());
    }
}
