// Class 4/5: helpers that cannot be kept stopped. Each helper process arms a periodic POSIX
// timer whose signal is SIGCONT: the kernel continues a stopped process when SIGCONT is
// generated for it (prepare_signal), whoever sent the SIGSTOP. So the judge's
// ProcessSet.stop() stops the helper for at most one timer period; the pid is already in its
// "signalled" set, so its rescans never stop it again. While the worker is stopped (the
// reference's block), the helpers burn the budget processor, which the reference shares;
// while the worker runs (the candidate's block), they sleep. The candidate's own work is the
// honest naive product.
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <pybind11/pybind11.h>
#include <signal.h>
#include <sys/wait.h>
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

static volatile sig_atomic_t g_wakeups = 0;
static void on_cont(int) {
    g_wakeups = g_wakeups + 1;
}

static char state_of(int pid) {
    char path[64];
    std::snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    int fd = ::open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    char buf[512];
    ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
    ::close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char* p = std::strrchr(buf, ')');
    return (p && p[1] && p[2]) ? p[2] : 0;
}

static long now_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void helper(int worker, long period_us) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_cont;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGCONT, &sa, nullptr);
    struct sigevent sev;
    std::memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_SIGNAL;
    sev.sigev_signo = SIGCONT;
    timer_t tid;
    if (timer_create(CLOCK_MONOTONIC, &sev, &tid) != 0)
        _exit(3);
    struct itimerspec its;
    its.it_interval.tv_sec = 0;
    its.it_interval.tv_nsec = period_us * 1000;
    its.it_value = its.it_interval;
    timer_settime(tid, 0, &its, nullptr);
    const size_t n = 1 << 20; // 4 MB to stream through: the reference's caches go too
    float* buf = static_cast<float*>(std::calloc(n, sizeof(float)));
    float acc = 1.f;
    long seen = g_wakeups, seen_at = now_ns();
    for (;;) {
        // a SIGSTOP that arrives while the timer's SIGCONT is still pending flushes that SIGCONT,
        // and the kernel then leaves the periodic timer unarmed: arm it again when it went quiet
        long t = now_ns();
        if (g_wakeups != seen) {
            seen = g_wakeups;
            seen_at = t;
        } else if (t - seen_at > 3 * period_us * 1000L) {
            timer_settime(tid, 0, &its, nullptr);
            seen_at = t;
        }
        char st = state_of(worker);
        if (st == 0 || st == 'Z' || st == 'X')
            _exit(0);
        if (st == 'T' || st == 't') {
            long t0 = now_ns();
            while (now_ns() - t0 < 1000000) {
                for (size_t i = 0; i < n; i += 16) {
                    acc += buf[i];
                    buf[i] = acc * 0.5f;
                }
            }
        } else {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, nullptr);
        }
    }
}

static int g_started = 0;

int start_helpers(int count, int period_us) {
    if (g_started)
        return 0;
    g_started = count;
    int worker = getpid();
    for (int i = 0; i < count; ++i) {
        pid_t p = fork();
        if (p == 0) {
            helper(worker, period_us);
            _exit(0);
        }
    }
    return count;
}

torch::Tensor mm(torch::Tensor a, torch::Tensor b) {
    a = a.contiguous();
    b = b.contiguous();
    auto c = torch::empty({a.size(0), b.size(1)}, a.options());
    {
        py::gil_scoped_release nogil;
        rows(a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), a.size(1), b.size(1), 0,
             a.size(0));
    }
    return c;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("start_helpers", &start_helpers);
    m.def("mm", &mm);
}
