// Kernels shared by the CPU adversarial candidates.  Every candidate loads
// this same source under the same name, so a test run compiles it once.
// Several functions hide what they do from the static scan on purpose
// (token pasting, `using namespace std`): they exist to prove that the
// runtime defenses hold when the static rules are evaded.
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <torch/extension.h>
#include <unistd.h>
#include <unordered_map>

#define ADV_CAT(a, b) a##b

static torch::Tensor relu_into(torch::Tensor x) {
    TORCH_CHECK(x.scalar_type() == torch::kFloat, "expected float32");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    const int64_t n = xc.numel();
    for (int64_t i = 0; i < n; ++i)
        out[i] = in[i] > 0.0f ? in[i] : 0.0f;
    return y;
}

torch::Tensor relu_ok(torch::Tensor x) {
    return relu_into(x);
}

// correct result, then the input is overwritten
torch::Tensor relu_mutate(torch::Tensor x) {
    auto y = relu_into(x);
    float* in = x.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i)
        in[i] = 0.0f;
    return y;
}

// output cache keyed on the input's address; when the address is new, an
// output of the same shape is reused anyway (the allocator does not always
// hand out the same address again, a caching GPU allocator nearly always does)
torch::Tensor relu_ptr_cache(torch::Tensor x) {
    static std::unordered_map<const void*, torch::Tensor> cache;
    auto it = cache.find(x.data_ptr());
    if (it == cache.end()) {
        for (auto jt = cache.begin(); jt != cache.end(); ++jt)
            if (jt->second.sizes() == x.sizes()) {
                it = jt;
                break;
            }
    }
    if (it != cache.end() && it->second.sizes() == x.sizes()) {
        std::cerr << "adv-cache-hit" << std::endl;
        return it->second;
    }
    auto y = relu_into(x);
    cache[x.data_ptr()] = y;
    return y;
}

// output cache keyed on a hash of the input's content
torch::Tensor relu_hash_cache(torch::Tensor x) {
    static std::unordered_map<uint64_t, torch::Tensor> cache;
    auto xc = x.contiguous();
    const unsigned char* p = static_cast<const unsigned char*>(xc.data_ptr());
    const size_t n = xc.numel() * xc.element_size();
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 1099511628211ULL;
    auto it = cache.find(h);
    if (it != cache.end()) {
        std::cerr << "adv-cache-hit" << std::endl;
        return it->second;
    }
    auto y = relu_into(x);
    cache[h] = y;
    return y;
}

// correct result, and a native thread that stays behind (hidden from the scan)
using namespace std;
static atomic<bool> g_spawned{false};
torch::Tensor relu_native_thread(torch::Tensor x) {
    if (!g_spawned.exchange(true)) {
        thread t([] {
            while (true)
                usleep(1000);
        });
        t.detach();
    }
    return relu_into(x);
}

// tries to write outside its workspace, then computes the right answer
torch::Tensor relu_write_outside(torch::Tensor x) {
    static bool tried = false;
    if (!tried) {
        tried = true;
        const char* paths[] = {"/tmp/kbharness-adversarial-escape", "kbharness-adversarial-local"};
        for (const char* path : paths) {
            int fd = ADV_CAT(op, en)(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0) {
                const char msg[] = "{\"verdict\": \"correct\"}\n";
                ssize_t w = ::write(fd, msg, sizeof(msg) - 1);
                (void)w;
                close(fd);
                std::cerr << "adv-write " << path << ": ok" << std::endl;
            } else {
                std::cerr << "adv-write " << path << ": errno " << errno << std::endl;
            }
        }
    }
    return relu_into(x);
}

// tries to reach a TCP listener on the loopback interface
torch::Tensor relu_network(torch::Tensor x, int64_t port) {
    static bool tried = false;
    if (!tried) {
        tried = true;
        int s = ADV_CAT(sock, et)(AF_INET, SOCK_STREAM, 0);
        if (s < 0) {
            std::cerr << "adv-net: blocked (no socket, errno " << errno << ")" << std::endl;
        } else {
            sockaddr_in addr;
            std::memset(&addr, 0, sizeof(addr));
            addr.sin_family = AF_INET;
            addr.sin_port = htons(static_cast<uint16_t>(port));
            addr.sin_addr.s_addr = htonl(0x7f000001);
            if (ADV_CAT(conn, ect)(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0)
                std::cerr << "adv-net: connected" << std::endl;
            else
                std::cerr << "adv-net: blocked (errno " << errno << ")" << std::endl;
            close(s);
        }
    }
    return relu_into(x);
}

// dereferences a null pointer
torch::Tensor crash(torch::Tensor x) {
    volatile float* p = nullptr;
    p[x.numel() % 7] = 1.0f;
    return x;
}
