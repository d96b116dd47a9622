// The pamc executable's operator new and delete (compiler/support/small_objects.cpp), linked
// into this test binary alone: every block keeps what was written to it while other
// threads allocate and free, blocks freed by one thread serve another, and memory freed
// is reused rather than taken anew (a long language-server session must not grow).
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

namespace {

struct Held {
  unsigned char* p;
  std::size_t n;
  unsigned char mark;
};

Held make(std::size_t n, unsigned char mark) {
  auto* p = static_cast<unsigned char*>(::operator new(n));
  std::memset(p, mark, n);
  return {p, n, mark};
}

bool intact(const Held& h) {
  for (std::size_t i = 0; i < h.n; ++i)
    if (h.p[i] != h.mark) return false;
  return true;
}

}  // namespace

TEST_CASE("small blocks: aligned, disjoint, and keep their contents, at every size up to 600 bytes") {
  std::vector<Held> held;
  for (std::size_t n = 0; n <= 600; ++n) held.push_back(make(n, static_cast<unsigned char>(n * 7 + 1)));
  std::set<std::uintptr_t> starts;
  for (const Held& h : held) {
    CHECK(reinterpret_cast<std::uintptr_t>(h.p) % alignof(std::max_align_t) == 0);
    starts.insert(reinterpret_cast<std::uintptr_t>(h.p));
  }
  CHECK(starts.size() == held.size());
  for (std::size_t k = 1; k < held.size(); ++k) {  // no two blocks overlap
    const Held& a = held[k - 1];
    const Held& b = held[k];
    auto a0 = reinterpret_cast<std::uintptr_t>(a.p), b0 = reinterpret_cast<std::uintptr_t>(b.p);
    CHECK((a0 + a.n <= b0 || b0 + b.n <= a0 || a.n == 0 || b.n == 0));
  }
  for (const Held& h : held) CHECK(intact(h));
  for (const Held& h : held) ::operator delete(h.p);
}

TEST_CASE("small blocks: a freed block is the next one of its size") {
  void* a = ::operator new(40);
  ::operator delete(a);
  void* b = ::operator new(48);  // the same 16-byte class as 40
  CHECK(a == b);
  ::operator delete(b, 48);
  int* arr = new int[3];
  delete[] arr;
  void* c = ::operator new(12);
  CHECK(c == static_cast<void*>(arr));
  ::operator delete(c);
}

TEST_CASE("small blocks: threads allocate, hand over and free, and every block stays intact") {
  constexpr int kThreads = 4, kBlocks = 20000;
  std::vector<std::vector<Held>> made(kThreads);
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([t, &made] {
      for (int k = 0; k < kBlocks; ++k)
        made[t].push_back(make(static_cast<std::size_t>((k * 37 + t * 11) % 700), static_cast<unsigned char>(t * 50 + k % 50)));
    });
  for (auto& th : ts) th.join();
  ts.clear();
  // Each thread checks and frees another's blocks, allocating its own meanwhile.
  std::vector<std::vector<Held>> fresh(kThreads);
  std::vector<int> bad(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([t, &made, &fresh, &bad] {
      for (const Held& h : made[(t + 1) % kThreads]) {
        if (!intact(h)) ++bad[t];
        ::operator delete(h.p);
        fresh[t].push_back(make(h.n, static_cast<unsigned char>(200 + t)));
      }
    });
  for (auto& th : ts) th.join();
  for (int t = 0; t < kThreads; ++t) {
    CHECK(bad[t] == 0);
    for (const Held& h : fresh[t]) CHECK(intact(h));
    for (const Held& h : fresh[t]) ::operator delete(h.p);
  }
}

TEST_CASE("small blocks: what an ended thread freed serves the next thread") {
  std::set<void*> freed;
  std::thread([&freed] {
    std::vector<void*> v;
    for (int k = 0; k < 5000; ++k) v.push_back(::operator new(64));
    for (void* p : v) {
      freed.insert(p);
      ::operator delete(p);
    }
  }).join();
  std::vector<void*> again;
  std::thread([&again] {
    for (int k = 0; k < 5000; ++k) again.push_back(::operator new(64));
  }).join();
  int reused = 0;
  for (void* p : again) reused += freed.count(p) ? 1 : 0;
  CHECK(reused == 5000);
  for (void* p : again) ::operator delete(p);
}

TEST_CASE("small blocks: a child forked while other threads allocate can allocate") {
  // The language server forks its analyses; a depot lock held by another thread at the
  // fork must not leave the child's allocator locked.
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (int t = 0; t < 2; ++t)
    busy.emplace_back([&stop] {
      while (!stop.load()) std::thread([] {
        std::vector<void*> v;
        for (int k = 0; k < 20000; ++k) v.push_back(::operator new(static_cast<std::size_t>(16 + k % 400)));
        for (void* p : v) ::operator delete(p);
      }).join();  // each ended thread hands its lists to the depot, under its lock
    });
  int children_ok = 0;
  for (int round = 0; round < 40; ++round) {
    pid_t pid = fork();
    if (pid == 0) {
      // More than any list or chunk holds: the child goes to the depot for its blocks.
      std::vector<void*> v;
      for (int k = 0; k < 40000; ++k) v.push_back(::operator new(500));
      for (void* p : v) ::operator delete(p);
      _exit(0);
    }
    int status = -1;
    for (int waited = 0; waited < 500 && waitpid(pid, &status, WNOHANG) == 0; ++waited) usleep(10000);
    if (waitpid(pid, &status, WNOHANG) == 0) kill(pid, SIGKILL), waitpid(pid, &status, 0);
    children_ok += WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 1 : 0;
  }
  stop = true;
  for (auto& th : busy) th.join();
  CHECK(children_ok == 40);
}
