// The pamc executable's operator new and delete: blocks of up to 512 bytes come from
// per-thread free lists, one per 16-byte size class, carved out of 1 MiB chunks; larger
// blocks go to malloc.
//
// Why: building a closed form makes and drops millions of small GiNaC nodes (most of them
// 32-128 bytes). glibc's malloc spent about a fifth of `pamc compile`'s instructions on
// them (tests/bench/compile_bench.py, callgrind), most of it in _int_free once its
// per-thread cache of seven blocks a size overflows. Here a new or a delete of a small
// block is a few instructions on a thread-local list.
//
// What it keeps:
// - A freed block goes to the freeing thread's list and is reused; chunks are never
//   returned to the system, so the process holds its peak, as it did under malloc.
// - A chunk serves one size class. A two-level map from chunk number to size class tells
//   delete which blocks are ours and how big they are; every other pointer goes to free().
// - When a thread ends (the language server's and the parser's guarded threads come and
//   go), its lists and the unused rest of its chunks go to a shared depot, which the next
//   thread that needs blocks of that size takes from first.
//
// Not built into sanitizer builds, where AddressSanitizer's own new and delete find the
// errors this would hide (CMakeLists.txt).
#include <pthread.h>
#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>

namespace {

constexpr std::size_t kGrain = 16;                    // size classes step by 16 bytes
constexpr std::size_t kLargestSmall = 512;            // larger blocks go to malloc
constexpr std::size_t kClasses = kLargestSmall / kGrain + 1;  // class c holds c * 16 bytes
constexpr unsigned kChunkBits = 20;                   // 1 MiB chunks, one size class each
constexpr std::size_t kChunk = std::size_t{1} << kChunkBits;
constexpr std::size_t kChunksPerRegion = 16;          // chunks are reserved 16 at a time

// Chunk number -> size class (0: not ours). 48-bit addresses give 2^28 chunk numbers,
// split 2^14 x 2^14 so the map costs nothing until a chunk is made in a range.
constexpr unsigned kLeafBits = 14;
constexpr std::size_t kLeaves = std::size_t{1} << (48 - kChunkBits - kLeafBits);
std::atomic<std::uint8_t*> chunk_class_map[kLeaves];

struct Block {
  Block* next;
};

// A thread's lists. Plain data with no constructor, so the fast paths read it with no
// thread-local guard.
struct ThreadLists {
  Block* free[kClasses];
  char* bump[kClasses];  // the unused rest of this thread's current chunk of each class
  char* end[kClasses];
  bool registered;  // the flush at thread exit is armed
  bool exited;      // flushed: frees go to the depot from now on
};
thread_local ThreadLists lists;

// The shared depot, under one mutex: taken only on a thread's slow path.
struct Depot {
  std::mutex lock;
  Block* free[kClasses] = {};
  struct Rest {
    char* bump;
    char* end;
  };
  Rest rest[kClasses][8] = {};  // unused ends of chunks whose thread exited
  char* region = nullptr;       // reserved chunks not yet given out
  std::size_t region_left = 0;
};
Depot& depot();

Depot* make_depot() {
  void* m = std::malloc(sizeof(Depot));
  if (!m) std::abort();  // at the first allocation of a thread: nothing can go on
  Depot* d = new (m) Depot;
  // A fork while another thread holds the lock would leave the child's depot locked for
  // ever (the language server forks its analyses): the lock is taken across the fork.
  pthread_atfork([] { depot().lock.lock(); }, [] { depot().lock.unlock(); }, [] { depot().lock.unlock(); });
  return d;
}
Depot& depot() {
  static Depot* d = make_depot();  // never destroyed: frees may come late
  return *d;
}

std::size_t class_of_size(std::size_t n) { return n == 0 ? 1 : (n + kGrain - 1) / kGrain; }

std::size_t class_of_pointer(const void* p) {
  std::uintptr_t chunk = reinterpret_cast<std::uintptr_t>(p) >> kChunkBits;
  std::uintptr_t leaf = chunk >> kLeafBits;
  if (leaf >= kLeaves) return 0;
  const std::uint8_t* m = chunk_class_map[leaf].load(std::memory_order_acquire);
  return m ? m[chunk & ((std::size_t{1} << kLeafBits) - 1)] : 0;
}

// A fresh chunk for size class c (depot lock held), or null when the system has no memory.
char* new_chunk(Depot& d, std::size_t c) {
  if (d.region_left == 0) {
    std::size_t bytes = (kChunksPerRegion + 1) * kChunk;  // one extra to align to a chunk
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return nullptr;
    std::uintptr_t start = reinterpret_cast<std::uintptr_t>(m);
    std::uintptr_t aligned = (start + kChunk - 1) & ~(kChunk - 1);
    if (aligned > start) munmap(m, aligned - start);
    std::uintptr_t tail = aligned + kChunksPerRegion * kChunk, stop = start + bytes;
    if (stop > tail) munmap(reinterpret_cast<void*>(tail), stop - tail);
    d.region = reinterpret_cast<char*>(aligned);
    d.region_left = kChunksPerRegion;
  }
  char* chunk = d.region;
  std::uintptr_t number = reinterpret_cast<std::uintptr_t>(chunk) >> kChunkBits;
  std::uintptr_t leaf = number >> kLeafBits;
  if (leaf >= kLeaves) return nullptr;
  std::uint8_t* m = chunk_class_map[leaf].load(std::memory_order_relaxed);
  if (!m) {
    m = static_cast<std::uint8_t*>(std::calloc(std::size_t{1} << kLeafBits, 1));
    if (!m) return nullptr;
    chunk_class_map[leaf].store(m, std::memory_order_release);
  }
  m[number & ((std::size_t{1} << kLeafBits) - 1)] = static_cast<std::uint8_t>(c);
  d.region += kChunk;
  --d.region_left;
  return chunk;
}

void flush_thread_lists();

struct FlushAtExit {
  ~FlushAtExit() { flush_thread_lists(); }
};

// Blocks for size class c when the thread's list is empty: the depot's, then the rest of
// the thread's chunk, then a new chunk. Null when the system has no memory.
[[gnu::noinline]] void* allocate_slow(std::size_t c) {
  ThreadLists& t = lists;
  Depot& d = depot();
  if (!t.registered && !t.exited) {
    t.registered = true;
    static thread_local FlushAtExit flush;  // its destructor runs when this thread ends
    (void)&flush;
  }
  std::size_t size = c * kGrain;
  if (t.bump[c] && t.bump[c] + size <= t.end[c]) {
    void* p = t.bump[c];
    t.bump[c] += size;
    return p;
  }
  std::lock_guard<std::mutex> hold(d.lock);
  if (d.free[c]) {
    Block* b = d.free[c];
    t.free[c] = b->next;  // the thread takes the whole list
    d.free[c] = nullptr;
    return b;
  }
  for (Depot::Rest& r : d.rest[c])
    if (r.bump) {
      t.bump[c] = r.bump;
      t.end[c] = r.end;
      r = {};
      void* p = t.bump[c];
      t.bump[c] += size;
      return p;
    }
  char* chunk = new_chunk(d, c);
  if (!chunk) return nullptr;
  t.bump[c] = chunk + size;
  t.end[c] = chunk + kChunk;
  return chunk;
}

void flush_thread_lists() {
  ThreadLists& t = lists;
  Depot& d = depot();
  std::lock_guard<std::mutex> hold(d.lock);
  for (std::size_t c = 1; c < kClasses; ++c) {
    while (Block* b = t.free[c]) {
      t.free[c] = b->next;
      b->next = d.free[c];
      d.free[c] = b;
    }
    std::size_t size = c * kGrain;
    if (t.bump[c] && t.bump[c] + size <= t.end[c]) {
      bool kept = false;
      for (Depot::Rest& r : d.rest[c])
        if (!r.bump) {
          r = {t.bump[c], t.end[c]};
          kept = true;
          break;
        }
      for (; !kept && t.bump[c] + size <= t.end[c]; t.bump[c] += size) {  // no room: as blocks
        Block* b = reinterpret_cast<Block*>(t.bump[c]);
        b->next = d.free[c];
        d.free[c] = b;
      }
    }
    t.bump[c] = t.end[c] = nullptr;
  }
  t.exited = true;
}

inline void* allocate(std::size_t n) {
  if (n <= kLargestSmall) {
    std::size_t c = class_of_size(n);
    ThreadLists& t = lists;
    if (Block* b = t.free[c]) {
      t.free[c] = b->next;
      return b;
    }
    char* p = t.bump[c];  // the rest of the thread's chunk (both null: none)
    if (static_cast<std::size_t>(t.end[c] - p) >= c * kGrain) {
      t.bump[c] = p + c * kGrain;
      return p;
    }
    if (!t.exited)
      if (void* p = allocate_slow(c)) return p;
    // After the thread's flush, or with no chunk to be had: malloc's block is freed by free().
  }
  return std::malloc(n ? n : 1);
}

// A block freed after its thread's flush (a thread_local destroyed late).
[[gnu::noinline]] void release_to_depot(Block* b, std::size_t c) noexcept {
  Depot& d = depot();
  std::lock_guard<std::mutex> hold(d.lock);
  b->next = d.free[c];
  d.free[c] = b;
}

inline void release(void* p) noexcept {
  if (!p) return;
  std::size_t c = class_of_pointer(p);
  if (c == 0) {
    std::free(p);
    return;
  }
  ThreadLists& t = lists;
  Block* b = static_cast<Block*>(p);
  if (!t.exited) {
    b->next = t.free[c];
    t.free[c] = b;
    return;
  }
  release_to_depot(b, c);
}

}  // namespace

void* operator new(std::size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
