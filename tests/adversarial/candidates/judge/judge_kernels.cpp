// Kernels shared by the judge-integrity candidates (one build for all of them).
// mm_ok is an honest (naive) float32 matrix product; the rest are the attacks'
// tools. Nothing here trips the static rules: the point of these candidates is
// that the runtime defences, not the source scan, must catch them.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <pybind11/pybind11.h>
#include <sched.h>
#include <signal.h>
#include <thread>
#include <time.h>
#include <torch/extension.h>
#include <unistd.h>

namespace py = pybind11;

static void rows(const float* a, const float* b, float* c, int64_t K, int64_t N, int64_t r0,
                 int64_t r1) {
    for (int64_t i = r0; i < r1; ++i) {
        float* ci = c + i * N;
        for (int64_t j = 0; j < N; ++j)
            ci[j] = 0.f;
        const float* ai = a + i * K;
        for (int64_t k = 0; k < K; ++k) {
            const float av = ai[k];
            const float* bk = b + k * N;
            for (int64_t j = 0; j < N; ++j)
                ci[j] += av * bk[j];
        }
    }
}

static torch::Tensor out_for(const torch::Tensor& a, const torch::Tensor& b) {
    return torch::empty({a.size(0), b.size(1)}, a.options());
}

// The honest kernel.
torch::Tensor mm_ok(torch::Tensor a, torch::Tensor b) {
    a = a.contiguous();
    b = b.contiguous();
    auto c = out_for(a, b);
    {
        py::gil_scoped_release nogil;
        rows(a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), a.size(1), b.size(1), 0,
             a.size(0));
    }
    return c;
}

// Rows [r0, r1) of a @ b into c (GIL released: a Python thread can run it beside forward).
void mm_rows(torch::Tensor a, torch::Tensor b, torch::Tensor c, int64_t r0, int64_t r1) {
    py::gil_scoped_release nogil;
    rows(a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), a.size(1), b.size(1), r0,
         r1);
}

// Only the sum of the output's chunks (chunk_rows rows each): chunk 0 holds the sum,
// the other chunks are zero. Costs 1/k of the product for k chunks.
torch::Tensor mm_fold(torch::Tensor a, torch::Tensor b, int64_t chunk_rows) {
    a = a.contiguous();
    b = b.contiguous();
    const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
    auto c = out_for(a, b);
    auto s = torch::zeros({chunk_rows, K}, a.options());
    float* sp = s.data_ptr<float>();
    const float* ap = a.data_ptr<float>();
    for (int64_t r = 0; r < M; ++r) {
        float* d = sp + (r % chunk_rows) * K;
        const float* x = ap + r * K;
        for (int64_t k = 0; k < K; ++k)
            d[k] += x[k];
    }
    float* cp = c.data_ptr<float>();
    rows(sp, b.data_ptr<float>(), cp, K, N, 0, chunk_rows);
    std::memset(cp + chunk_rows * N, 0, sizeof(float) * (M - chunk_rows) * N);
    return c;
}

// The product on inputs whose mantissas are rounded to 10 bits (TF32-like), float32 sums.
static inline float tf32(float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    u = (u + 0x1000u) & 0xFFFFE000u;
    std::memcpy(&x, &u, 4);
    return x;
}

torch::Tensor mm_tf32(torch::Tensor a, torch::Tensor b) {
    a = a.contiguous().clone();
    b = b.contiguous().clone();
    float* ap = a.data_ptr<float>();
    float* bp = b.data_ptr<float>();
    for (int64_t i = 0; i < a.numel(); ++i)
        ap[i] = tf32(ap[i]);
    for (int64_t i = 0; i < b.numel(); ++i)
        bp[i] = tf32(bp[i]);
    auto c = out_for(a, b);
    rows(ap, bp, c.data_ptr<float>(), a.size(1), b.size(1), 0, a.size(0));
    return c;
}

// --- helpers made with clone(CLONE_VM) without CLONE_THREAD --------------------------
struct Job {
    const float* a;
    const float* b;
    float* c;
    int64_t K, N, r0, r1;
    std::atomic<int> go;
    std::atomic<int> done;
    int quit_after; // transient helper: exit after one job
};

static Job g_job;
static char* g_stack = nullptr;
static const size_t STACK = 1 << 20;

static void spread() {
    // leave the CPU the worker was pinned to: run wherever there is a free core
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int i = 0; i < 64; ++i)
        CPU_SET(i, &all);
    sched_setaffinity(0, sizeof(all), &all);
}

static int helper_main(void* p) {
    Job* j = static_cast<Job*>(p);
    spread();
    for (;;) {
        while (!j->go.load()) {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, nullptr);
        }
        j->go.store(0);
        rows(j->a, j->b, j->c, j->K, j->N, j->r0, j->r1);
        j->done.store(1);
        if (j->quit_after)
            return 0;
    }
}

static void start_helper(bool transient) {
    if (!g_stack)
        g_stack = static_cast<char*>(std::malloc(STACK));
    g_job.quit_after = transient ? 1 : 0;
    clone(helper_main, g_stack + STACK, CLONE_VM | SIGCHLD, &g_job);
}

static bool g_persistent = false;

// Half of the rows done by a helper process that shares the worker's memory.
// persistent: one helper for the whole evaluation (alive across calls);
// otherwise: a fresh helper per call that exits before the call returns.
torch::Tensor mm_helper(torch::Tensor a, torch::Tensor b, bool persistent) {
    a = a.contiguous();
    b = b.contiguous();
    auto c = out_for(a, b);
    const int64_t M = a.size(0), half = M / 2;
    g_job.a = a.data_ptr<float>();
    g_job.b = b.data_ptr<float>();
    g_job.c = c.data_ptr<float>();
    g_job.K = a.size(1);
    g_job.N = b.size(1);
    g_job.r0 = half;
    g_job.r1 = M;
    g_job.done.store(0);
    if (persistent) {
        if (!g_persistent) {
            start_helper(false);
            g_persistent = true;
        }
    } else {
        start_helper(true);
    }
    g_job.go.store(1);
    rows(g_job.a, g_job.b, g_job.c, g_job.K, g_job.N, 0, half);
    while (!g_job.done.load())
        sched_yield();
    return c;
}

// Exited children are reaped by the kernel at once: their CPU time is added to no one.
void forget_children() {
    signal(SIGCHLD, SIG_IGN);
}

// --- the harness, reached from native code ----------------------------------------------
py::object module(const std::string& name) {
    return py::module_::import("sys").attr("modules")[py::str(name)];
}

void set_attr(py::object target, const std::string& name, py::object value) {
    target.attr(name.c_str()) = value;
}

// A counter bumped by every SIGCONT: the judge sends one at the start of each of the
// candidate's blocks (and it cannot be told from a stop the worker did not notice).
static std::atomic<long> g_conts{0};
static void on_cont(int) {
    g_conts.fetch_add(1);
}
void watch_cont() {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_cont;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGCONT, &sa, nullptr);
}
long conts() {
    return g_conts.load();
}

// --- work outside the calls: a native thread (not a Python one) -------------------------
static const uint32_t kMark = 0x7fc5a5a5u; // a NaN no product makes

static void pause_us(long us) {
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, nullptr);
}

// Rows [r0, r1) finished after the reply: the helper waits until the worker's copy of the
// returned output into the judge's slot has reached its last element (marked), then writes
// the missing rows straight into the slot.
struct Late {
    const float* a;
    const float* b;
    float* slot;
    int64_t K, N, r0, r1;
};
static Late g_late;
static std::atomic<int> g_late_go{0};
static bool g_late_started = false;

static void late_main() {
    for (;;) {
        if (!g_late_go.load(std::memory_order_acquire)) {
            pause_us(10);
            continue;
        }
        volatile uint32_t* last =
            reinterpret_cast<volatile uint32_t*>(g_late.slot + g_late.r1 * g_late.N - 1);
        for (long waited = 0; *last != kMark && waited < 2000000; waited += 5)
            pause_us(5);
        rows(g_late.a, g_late.b, g_late.slot, g_late.K, g_late.N, g_late.r0, g_late.r1);
        g_late_go.store(0, std::memory_order_release);
    }
}

torch::Tensor mm_late(torch::Tensor a, torch::Tensor b, torch::Tensor slot, int64_t tail_rows) {
    while (g_late_go.load(std::memory_order_acquire))
        pause_us(5); // the previous call's rows are written
    auto c = out_for(a, b);
    const int64_t M = a.size(0), N = b.size(1), r0 = M - tail_rows;
    rows(a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), a.size(1), N, 0, r0);
    uint32_t* tail = reinterpret_cast<uint32_t*>(c.data_ptr<float>() + r0 * N);
    for (int64_t i = 0; i < tail_rows * N; ++i)
        tail[i] = kMark;
    g_late =
        Late{a.data_ptr<float>(), b.data_ptr<float>(), slot.data_ptr<float>(), a.size(1), N, r0, M};
    g_late_go.store(1, std::memory_order_release);
    if (!g_late_started) {
        std::thread(late_main).detach();
        g_late_started = true;
    }
    return c;
}

// A watcher of the judge's input slots between calls: after each call it remembers the
// first value of the first input and the last value of the last one; it counts the times
// it finds the first changed while the last is not -- the judge caught half-way through
// writing the next call's inputs, i.e. the candidate running while the judge prepares.
static const float* g_wa = nullptr;
static const float* g_wb_last = nullptr;
static float g_snap_a = 0.f, g_snap_b = 0.f;
static std::atomic<int> g_armed{0};
static std::atomic<long> g_torn{0}, g_polls{0};
static bool g_watch_started = false;

static void watch_main() {
    for (;;) {
        if (g_armed.load(std::memory_order_acquire)) {
            const float first = *reinterpret_cast<volatile const float*>(g_wa);
            const float last = *reinterpret_cast<volatile const float*>(g_wb_last);
            g_polls.fetch_add(1);
            if (first != g_snap_a && last == g_snap_b) {
                g_torn.fetch_add(1);
                g_armed.store(0);
            }
        }
        pause_us(2);
    }
}

void watch_inputs(torch::Tensor a_slot, torch::Tensor b_slot) {
    g_armed.store(0);
    g_wa = a_slot.data_ptr<float>();
    g_wb_last = b_slot.data_ptr<float>() + b_slot.numel() - 1;
    g_snap_a = *g_wa;
    g_snap_b = *g_wb_last;
    g_armed.store(1, std::memory_order_release);
    if (!g_watch_started) {
        std::thread(watch_main).detach();
        g_watch_started = true;
    }
}

std::vector<long> watched() {
    return {g_polls.load(), g_torn.load()};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("mm_ok", &mm_ok);
    m.def("mm_rows", &mm_rows);
    m.def("mm_fold", &mm_fold);
    m.def("mm_tf32", &mm_tf32);
    m.def("mm_helper", &mm_helper);
    m.def("forget_children", &forget_children);
    m.def("module", &module);
    m.def("set_attr", &set_attr);
    m.def("watch_cont", &watch_cont);
    m.def("conts", &conts);
    m.def("mm_late", &mm_late);
    m.def("watch_inputs", &watch_inputs);
    m.def("watched", &watched);
}
