// The program samples/local/matmul.pam and stencil.pam model: a blocked matrix multiply
// and a 2-D five-point stencil, each split by rows over T std::threads, and the two
// microbenchmarks of their machine model (spawn.pam, stream.pam). It times itself (steady
// clock, the kernel only: allocation and initialisation are outside) and prints one line
// per repeat, so scripts/local_measure.py can take the median, with the CPU time the
// process used meanwhile (all threads): CPU / wall is the number of cores it obtained.
//
//   local_kernel matmul N T REPEATS          C = A B, N x N doubles, blocks of 64
//   local_kernel stencil N T STEPS REPEATS   Jacobi sweeps of an (N + 2)^2 grid
//   local_kernel spawn T REPEATS             start and join T threads that do nothing
//   local_kernel stream N T REPEATS          copy one (N + 2)^2 grid of doubles into
//                                            another, rows split over T threads: the
//                                            stencil's memory traffic without its arithmetic
//
// Output, one line per repeat: `KIND [N] T [STEPS] SECONDS CPU_SECONDS`. One warm-up run
// is not printed.
#include <algorithm>
#include <barrier>
#include <ctime>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr long kBlock = 64;  // 64 x 64 doubles of B (32 KiB) stay in the L1/L2 cache

// Rows [first, last) of thread t of T: the same split local.pam's rows(t) describes.
long first_row(long n, long t, long threads) { return n * t / threads; }

// CPU seconds of the whole process (every thread) so far.
double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// The timed region of a run: wall seconds and the process's CPU seconds meanwhile.
struct Timing {
    double wall = 0, cpu = 0;
};

class Stopwatch {
  public:
    Stopwatch() : start_(std::chrono::steady_clock::now()), cpu0_(cpu_seconds()) {}
    Timing read() const {
        return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
                cpu_seconds() - cpu0_};
    }

  private:
    std::chrono::steady_clock::time_point start_;
    double cpu0_;
};

void report(const std::string& prefix, Timing t) {
    std::printf("%s %.9g %.9g\n", prefix.c_str(), t.wall, t.cpu);
}

void matmul_rows(const std::vector<double>& a, const std::vector<double>& b,
                 std::vector<double>& c, long n, long first, long last) {
    for (long kk = 0; kk < n; kk += kBlock) {
        const long k_end = std::min(n, kk + kBlock);
        for (long jj = 0; jj < n; jj += kBlock) {
            const long j_end = std::min(n, jj + kBlock);
            for (long i = first; i < last; ++i) {
                double* ci = &c[i * n];
                for (long k = kk; k < k_end; ++k) {
                    const double aik = a[i * n + k];
                    const double* bk = &b[k * n];
                    for (long j = jj; j < j_end; ++j) ci[j] += aik * bk[j];
                }
            }
        }
    }
}

Timing run_matmul(long n, long threads) {
    std::vector<double> a(n * n), b(n * n), c(n * n, 0.0);
    for (long i = 0; i < n * n; ++i) {
        a[i] = 1.0 + (i % 7) * 0.125;
        b[i] = 2.0 - (i % 5) * 0.25;
    }
    const Stopwatch watch;
    std::vector<std::thread> pool;
    for (long t = 0; t < threads; ++t)
        pool.emplace_back(matmul_rows, std::cref(a), std::cref(b), std::ref(c), n,
                          first_row(n, t, threads), first_row(n, t + 1, threads));
    for (auto& th : pool) th.join();
    const Timing s = watch.read();
    if (c[n * n / 2] == 12345.678) std::puts("");  // keep the result alive
    return s;
}

Timing run_stencil(long n, long threads, long steps) {
    const long w = n + 2;  // one boundary row and column on each side
    std::vector<double> u(w * w, 0.0), v(w * w, 0.0);
    for (long j = 0; j < w; ++j) u[j] = v[j] = 1.0;  // a hot top edge
    std::barrier sync(threads);
    auto worker = [&](long first, long last) {
        double* from = u.data();
        double* to = v.data();
        for (long s = 0; s < steps; ++s) {
            for (long i = first + 1; i < last + 1; ++i)
                for (long j = 1; j <= n; ++j)
                    to[i * w + j] = 0.25 * (from[(i - 1) * w + j] + from[(i + 1) * w + j] +
                                            from[i * w + j - 1] + from[i * w + j + 1]);
            std::swap(from, to);
            sync.arrive_and_wait();  // every row of this sweep is written before the next reads
        }
    };
    const Stopwatch watch;
    std::vector<std::thread> pool;
    for (long t = 0; t < threads; ++t)
        pool.emplace_back(worker, first_row(n, t, threads), first_row(n, t + 1, threads));
    for (auto& th : pool) th.join();
    const Timing s = watch.read();
    if (u[w * w / 2] == 12345.678) std::puts("");
    return s;
}

// The memory-bandwidth microbenchmark: the stencil's two streams (read one grid, write
// the other, 16 bytes a point) with no arithmetic, so its time is the memory's.
Timing run_stream(long n, long threads) {
    const long w = n + 2;
    std::vector<double> u(w * w, 1.0), v(w * w, 0.0);
    auto worker = [&](long first, long last) {
        for (long i = first * w; i < last * w; ++i) v[i] = u[i];
    };
    const Stopwatch watch;
    std::vector<std::thread> pool;
    for (long t = 0; t < threads; ++t)
        pool.emplace_back(worker, first_row(w, t, threads), first_row(w, t + 1, threads));
    for (auto& th : pool) th.join();
    const Timing s = watch.read();
    if (v[w * w / 2] == 12345.678) std::puts("");
    return s;
}

Timing run_spawn(long threads) {
    const Stopwatch watch;
    std::vector<std::thread> pool;
    for (long t = 0; t < threads; ++t) pool.emplace_back([] {});
    for (auto& th : pool) th.join();
    return watch.read();
}

long positive(const char* text, const char* what) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || value < 1) {
        std::fprintf(stderr, "local_kernel: error: %s must be a positive integer, not '%s'\n",
                     what, text);
        std::exit(2);
    }
    return value;
}

int usage() {
    std::fprintf(stderr,
                 "usage: local_kernel matmul N THREADS REPEATS\n"
                 "       local_kernel stencil N THREADS STEPS REPEATS\n"
                 "       local_kernel stream N THREADS REPEATS\n"
                 "       local_kernel spawn THREADS REPEATS\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage();
    const std::string kind = argv[1];
    if (kind == "matmul" && argc == 5) {
        const long n = positive(argv[2], "N"), t = positive(argv[3], "THREADS");
        const long repeats = positive(argv[4], "REPEATS");
        run_matmul(n, t);  // warm-up: pages faulted in, clocks up
        const std::string prefix = "matmul " + std::to_string(n) + " " + std::to_string(t);
        for (long r = 0; r < repeats; ++r) report(prefix, run_matmul(n, t));
        return 0;
    }
    if (kind == "stencil" && argc == 6) {
        const long n = positive(argv[2], "N"), t = positive(argv[3], "THREADS");
        const long steps = positive(argv[4], "STEPS"), repeats = positive(argv[5], "REPEATS");
        run_stencil(n, t, steps);
        const std::string prefix =
            "stencil " + std::to_string(n) + " " + std::to_string(t) + " " + std::to_string(steps);
        for (long r = 0; r < repeats; ++r) report(prefix, run_stencil(n, t, steps));
        return 0;
    }
    if (kind == "stream" && argc == 5) {
        const long n = positive(argv[2], "N"), t = positive(argv[3], "THREADS");
        const long repeats = positive(argv[4], "REPEATS");
        run_stream(n, t);
        const std::string prefix = "stream " + std::to_string(n) + " " + std::to_string(t);
        for (long r = 0; r < repeats; ++r) report(prefix, run_stream(n, t));
        return 0;
    }
    if (kind == "spawn" && argc == 4) {
        const long t = positive(argv[2], "THREADS"), repeats = positive(argv[3], "REPEATS");
        run_spawn(t);
        const std::string prefix = "spawn " + std::to_string(t);
        for (long r = 0; r < repeats; ++r) report(prefix, run_spawn(t));
        return 0;
    }
    return usage();
}
