// The MPI program samples/mpi/jacobi.pam and transpose.pam model, and the microbenchmarks
// samples/mpi/machine.pam's constants are fitted from (samples/mpi/measure.py, docs/mpi.md).
//
//   mpi_kernels jacobi N SWEEPS REPEATS      2-D Jacobi on an (N + 2)^2 grid, rows split in
//                                            blocks over the ranks: per sweep a halo
//                                            exchange (MPI_Sendrecv of one row up, one down)
//                                            and an MPI_Allreduce of the residual
//   mpi_kernels transpose N REPEATS          N x N doubles, rows split in blocks (P divides
//                                            N): pack, MPI_Alltoall, transpose the blocks
//   mpi_kernels pingpong BYTES ITERS REPEATS ranks 0 and 1 bounce a message; one-way time
//   mpi_kernels allreduce BYTES ITERS REPEATS  MPI_Allreduce (sum of doubles) of BYTES
//   mpi_kernels alltoall BYTES ITERS REPEATS   MPI_Alltoall of BYTES to every rank
//   mpi_kernels steps WORK STEPS HALO REPEATS  STEPS supersteps: with HALO 1, one double
//                                            to each neighbouring rank (two MPI_Sendrecv);
//                                            WORK multiply-adds split over the ranks (no
//                                            memory traffic); an 8-byte MPI_Allreduce. The
//                                            time of one superstep
//   mpi_kernels check                        the kernels at tiny sizes against a serial run
//                                            on rank 0; exit 0 when they agree, else 1
//
// Each timed kernel runs once untimed (warm-up), then REPEATS times, each after a barrier;
// a repeat's time is the slowest rank's. Rank 0 prints one machine-readable line:
//   `kind=jacobi N=512 S=20 ranks=4 median=... min=... max=... repeats=7 residual=...`
// (microbenchmarks: time per operation, ITERS operations per repeat). Bad arguments: a
// message on stderr and exit 2.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

int rank_ = 0, size_ = 1;
constexpr long kTile = 32;  // rows of a transpose tile: 32 cache lines

[[noreturn]] void usage(const std::string& why) {
    if (rank_ == 0) {
        if (!why.empty()) std::fprintf(stderr, "mpi_kernels: %s\n", why.c_str());
        std::fprintf(stderr,
                     "usage: mpi_kernels jacobi N SWEEPS REPEATS | transpose N REPEATS |\n"
                     "       pingpong BYTES ITERS REPEATS | allreduce BYTES ITERS REPEATS |\n"
                     "       alltoall BYTES ITERS REPEATS | steps WORK STEPS HALO REPEATS | check\n");
    }
    MPI_Finalize();
    std::exit(2);
}

long positive(const char* name, const char* text) {
    char* end = nullptr;
    long v = std::strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < 1)
        usage(std::string(name) + " must be a positive integer, not '" + text + "'");
    return v;
}

// Rows [first, first + count) of rank r: the first N mod P ranks hold one row more.
long first_row(long n, int r) { return r * (n / size_) + std::min<long>(r, n % size_); }
long row_count(long n, int r) { return n / size_ + (r < n % size_ ? 1 : 0); }

struct Stats {
    double median, min, max;
};

Stats stats(std::vector<double> t) {
    std::sort(t.begin(), t.end());
    size_t m = t.size();
    double med = m % 2 ? t[m / 2] : 0.5 * (t[m / 2 - 1] + t[m / 2]);
    return {med, t.front(), t.back()};
}

// Runs body REPEATS + 1 times (the first untimed), each after a barrier; returns the
// slowest rank's seconds of each timed run, divided by per (operations per run).
template <class F>
std::vector<double> timed(long repeats, double per, F body) {
    std::vector<double> out;
    for (long k = 0; k <= repeats; ++k) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        body();
        double mine = MPI_Wtime() - t0, slowest = 0;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (k > 0) out.push_back(slowest / per);
    }
    return out;
}

void print(const std::string& head, const std::vector<double>& t, const std::string& tail = "") {
    if (rank_ != 0) return;
    Stats s = stats(t);
    std::printf("%s ranks=%d median=%.9g min=%.9g max=%.9g repeats=%zu%s\n", head.c_str(), size_,
                s.median, s.min, s.max, t.size(), tail.c_str());
    std::fflush(stdout);
}

// --- 2-D Jacobi ------------------------------------------------------------------------

// One rank's block: rows + 2 rows (halos) of N + 2 points. The top boundary row of the
// global grid is 1, every other boundary 0; the interior starts at 0.
struct Jacobi {
    long n, rows, first;
    std::vector<double> u, v;
    explicit Jacobi(long n_) : n(n_), rows(row_count(n_, rank_)), first(first_row(n_, rank_)) {
        u.assign((rows + 2) * (n + 2), 0.0);
        if (first == 0) std::fill(u.begin(), u.begin() + (n + 2), 1.0);
        v = u;
    }
    double* row(std::vector<double>& a, long i) { return &a[i * (n + 2)]; }

    // One sweep; returns the global residual sqrt(sum (new - old)^2).
    double sweep() {
        const int up = rank_ > 0 && rows > 0 ? rank_ - 1 : MPI_PROC_NULL;
        const int down = rank_ < size_ - 1 ? rank_ + 1 : MPI_PROC_NULL;
        const int count = static_cast<int>(n + 2);
        // my first row to the rank above, its last row into my bottom halo; then the reverse
        MPI_Sendrecv(row(u, 1), count, MPI_DOUBLE, up, 0, row(u, rows + 1), count, MPI_DOUBLE,
                     down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(row(u, rows), count, MPI_DOUBLE, down, 1, row(u, 0), count, MPI_DOUBLE, up,
                     1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double local = 0;
        for (long i = 1; i <= rows; ++i) {
            const double *a = row(u, i - 1), *b = row(u, i), *c = row(u, i + 1);
            double* out = row(v, i);
            for (long j = 1; j <= n; ++j) {
                double x = 0.25 * (a[j] + c[j] + b[j - 1] + b[j + 1]);
                double d = x - b[j];
                local += d * d;
                out[j] = x;
            }
        }
        std::swap(u, v);
        double global = 0;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        return std::sqrt(global);
    }
};

// The whole grid after `sweeps` sweeps on one process, and each sweep's residual.
std::vector<double> jacobi_serial(long n, long sweeps, std::vector<double>& residuals) {
    std::vector<double> u((n + 2) * (n + 2), 0.0), v;
    std::fill(u.begin(), u.begin() + (n + 2), 1.0);
    v = u;
    for (long s = 0; s < sweeps; ++s) {
        double r = 0;
        for (long i = 1; i <= n; ++i)
            for (long j = 1; j <= n; ++j) {
                double x = 0.25 * (u[(i - 1) * (n + 2) + j] + u[(i + 1) * (n + 2) + j] +
                                   u[i * (n + 2) + j - 1] + u[i * (n + 2) + j + 1]);
                double d = x - u[i * (n + 2) + j];
                r += d * d;
                v[i * (n + 2) + j] = x;
            }
        std::swap(u, v);
        residuals.push_back(std::sqrt(r));
    }
    return u;
}

void run_jacobi(long n, long sweeps, long repeats) {
    if (n < size_) usage("jacobi: N must be at least the number of ranks");
    double residual = 0;
    auto t = timed(repeats, 1.0, [&] {
        Jacobi g(n);  // allocation is cheap next to the sweeps; a fresh grid every run
        for (long s = 0; s < sweeps; ++s) residual = g.sweep();
    });
    char tail[64];
    std::snprintf(tail, sizeof tail, " residual=%.9g", residual);
    print("kind=jacobi N=" + std::to_string(n) + " S=" + std::to_string(sweeps), t, tail);
}

// --- transpose by all-to-all -----------------------------------------------------------

// Rank r holds rows r b .. r b + b - 1 of A (b = N / P), A[i][j] = i N + j; afterwards it
// holds the same rows of A^T.
struct Transpose {
    long n, b;
    std::vector<double> a, send, recv, t;
    explicit Transpose(long n_) : n(n_), b(n_ / size_), a(b * n_), send(b * n_), recv(b * n_), t(b * n_) {
        for (long i = 0; i < b; ++i)
            for (long j = 0; j < n; ++j) a[i * n + j] = double((rank_ * b + i) * n + j);
    }
    void run() {
        // block q (columns q b .. q b + b - 1) goes to rank q, already transposed; in
        // tiles of kTile rows, whose cache lines stay in the L1 cache across the columns,
        // so a copied element costs the same at every block size
        for (long q = 0; q < size_; ++q)
            for (long ii = 0; ii < b; ii += kTile)
                for (long j = 0; j < b; ++j)
                    for (long i = ii; i < std::min(b, ii + kTile); ++i)
                        send[q * b * b + j * b + i] = a[i * n + q * b + j];
        MPI_Alltoall(send.data(), static_cast<int>(b * b), MPI_DOUBLE, recv.data(),
                     static_cast<int>(b * b), MPI_DOUBLE, MPI_COMM_WORLD);
        // block q from rank q: my rows, columns q b .. q b + b - 1
        for (long q = 0; q < size_; ++q)
            for (long i = 0; i < b; ++i)
                std::copy_n(&recv[q * b * b + i * b], b, &t[i * n + q * b]);
    }
    bool right() const {
        for (long i = 0; i < b; ++i)
            for (long j = 0; j < n; ++j)
                if (t[i * n + j] != double(j * n + rank_ * b + i)) return false;
        return true;
    }
};

void run_transpose(long n, long repeats) {
    if (n % size_ != 0) usage("transpose: the number of ranks must divide N");
    Transpose x(n);
    auto t = timed(repeats, 1.0, [&] { x.run(); });
    print("kind=transpose N=" + std::to_string(n), t);
}

// --- microbenchmarks -------------------------------------------------------------------

void run_pingpong(long bytes, long iters, long repeats) {
    if (size_ < 2) usage("pingpong needs two ranks");
    std::vector<char> buf(bytes, 1);
    const int count = static_cast<int>(bytes);
    auto t = timed(repeats, 2.0 * iters, [&] {
        for (long k = 0; k < iters; ++k) {
            if (rank_ == 0) {
                MPI_Send(buf.data(), count, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf.data(), count, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank_ == 1) {
                MPI_Recv(buf.data(), count, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf.data(), count, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
    });
    print("kind=pingpong bytes=" + std::to_string(bytes), t);
}

void run_allreduce(long bytes, long iters, long repeats) {
    const long count = std::max(1L, bytes / 8);
    std::vector<double> in(count, 1.0), out(count);
    auto t = timed(repeats, double(iters), [&] {
        for (long k = 0; k < iters; ++k)
            MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_DOUBLE, MPI_SUM,
                          MPI_COMM_WORLD);
    });
    print("kind=allreduce bytes=" + std::to_string(count * 8), t);
}

void run_alltoall(long bytes, long iters, long repeats) {
    std::vector<char> in(bytes * size_, 1), out(bytes * size_);
    const int count = static_cast<int>(bytes);
    auto t = timed(repeats, double(iters), [&] {
        for (long k = 0; k < iters; ++k)
            MPI_Alltoall(in.data(), count, MPI_BYTE, out.data(), count, MPI_BYTE, MPI_COMM_WORLD);
    });
    print("kind=alltoall bytes=" + std::to_string(bytes), t);
}

// Supersteps of pure core work and a synchronization: what ranks sharing a core lose
// while they wait (a waiting rank polls, and yields its core only now and then).
// With neighbour exchanges, a rank waits for a neighbour on the other core, which may
// wait for its turn on that core.
void run_steps(long work, long steps, bool halo, long repeats) {
    const long mine = work / size_ + (rank_ < work % size_ ? 1 : 0);
    const int up = rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL;
    const int down = rank_ < size_ - 1 ? rank_ + 1 : MPI_PROC_NULL;
    double edge[2] = {1.0, 1.0}, halos[2] = {0, 0};
    volatile double sink = 0;
    auto t = timed(repeats, double(steps), [&] {
        for (long s = 0; s < steps; ++s) {
            if (halo) {
                MPI_Sendrecv(&edge[0], 1, MPI_DOUBLE, up, 0, &halos[1], 1, MPI_DOUBLE, down, 0,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Sendrecv(&edge[1], 1, MPI_DOUBLE, down, 1, &halos[0], 1, MPI_DOUBLE, up, 1,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            double x = 1.0 + rank_ * 1e-9 + halos[0] * 1e-12, y = 0;
            for (long k = 0; k < mine; ++k) x = x * 0.999999999 + 1e-9;  // a dependent chain
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            sink = sink + y;
        }
    });
    print(std::string(halo ? "kind=halo_steps" : "kind=steps") + " work=" + std::to_string(work), t);
}

// --- the check (the CTest test) ----------------------------------------------------------

int run_check() {
    int bad = 0;
    const long n = 13, sweeps = 25;  // 13 rows: uneven blocks for every rank count > 1
    Jacobi g(n);
    std::vector<double> residuals;
    for (long s = 0; s < sweeps; ++s) residuals.push_back(g.sweep());
    // gather every rank's rows on rank 0 and compare with one process's sweeps
    std::vector<int> counts(size_), displs(size_);
    for (int r = 0; r < size_; ++r) {
        counts[r] = static_cast<int>(row_count(n, r) * (n + 2));
        displs[r] = static_cast<int>(first_row(n, r) * (n + 2));
    }
    std::vector<double> whole(n * (n + 2));
    MPI_Gatherv(g.row(g.u, 1), counts[rank_], MPI_DOUBLE, whole.data(), counts.data(),
                displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank_ == 0) {
        std::vector<double> serial_res;
        auto serial = jacobi_serial(n, sweeps, serial_res);
        double grid_diff = 0, res_diff = 0;
        for (long i = 0; i < n; ++i)
            for (long j = 0; j < n + 2; ++j)
                grid_diff = std::max(grid_diff, std::fabs(whole[i * (n + 2) + j] - serial[(i + 1) * (n + 2) + j]));
        for (long s = 0; s < sweeps; ++s)
            res_diff = std::max(res_diff, std::fabs(residuals[s] - serial_res[s]) / serial_res[s]);
        bool decreasing = true;
        for (long s = 1; s < sweeps; ++s) decreasing = decreasing && residuals[s] < residuals[s - 1];
        std::printf("check jacobi ranks=%d N=%ld sweeps=%ld: grid vs serial max diff %.3g, residual "
                    "vs serial max rel diff %.3g, residual %.6g -> %.6g (%s)\n",
                    size_, n, sweeps, grid_diff, res_diff, residuals.front(), residuals.back(),
                    decreasing ? "decreasing" : "NOT decreasing");
        if (grid_diff != 0 || res_diff > 1e-12 || !decreasing) bad = 1;
    }
    const long tn = 6 * size_;
    Transpose x(tn);
    x.run();
    int mine = x.right() ? 0 : 1, wrong = 0;
    MPI_Allreduce(&mine, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0)
        std::printf("check transpose ranks=%d N=%ld: %s\n", size_, tn,
                    wrong ? "WRONG on some rank" : "every element right");
    bad = bad || wrong;
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return bad;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    std::string kind = argc > 1 ? argv[1] : "";
    int status = 0;
    if (kind == "jacobi" && argc == 5)
        run_jacobi(positive("N", argv[2]), positive("SWEEPS", argv[3]), positive("REPEATS", argv[4]));
    else if (kind == "transpose" && argc == 4)
        run_transpose(positive("N", argv[2]), positive("REPEATS", argv[3]));
    else if (kind == "pingpong" && argc == 5)
        run_pingpong(positive("BYTES", argv[2]), positive("ITERS", argv[3]), positive("REPEATS", argv[4]));
    else if (kind == "allreduce" && argc == 5)
        run_allreduce(positive("BYTES", argv[2]), positive("ITERS", argv[3]), positive("REPEATS", argv[4]));
    else if (kind == "alltoall" && argc == 5)
        run_alltoall(positive("BYTES", argv[2]), positive("ITERS", argv[3]), positive("REPEATS", argv[4]));
    else if (kind == "steps" && argc == 6) {
        const std::string halo = argv[4];
        if (halo != "0" && halo != "1") usage("HALO must be 0 or 1, not '" + halo + "'");
        run_steps(positive("WORK", argv[2]), positive("STEPS", argv[3]), halo == "1", positive("REPEATS", argv[5]));
    }
    else if (kind == "check" && argc == 2)
        status = run_check();
    else
        usage(kind.empty() ? "" : "unknown kind or wrong number of arguments: " + kind);
    MPI_Finalize();
    return status;
}
