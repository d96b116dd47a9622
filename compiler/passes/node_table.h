// A table keyed by a node's address (an AST node, a GiNaC node), for the per-node memos of
// the passes that walk a shared DAG once per node (lowering's closedness, the loop-nesting
// limit, the written-size check). Open addressing with linear probing in one array: a
// lookup reads one or two cache lines, where std::unordered_map's separate node per entry,
// prime-modulo bucket index and rehashing took about a fifth of compiling 10^4 generated
// equations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pamc {

template <class V>
class NodeTable {
 public:
  // The value stored for key, or null.
  V* find(const void* key) {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return &slots_[i].value;
      if (!slots_[i].key) return nullptr;
    }
  }
  // Stores value for key, which must be absent (never null). The reference is valid until
  // the next insert: a table that grows moves its values.
  V& insert(const void* key, V value) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    ++used_;
    return place(key, std::move(value));
  }

 private:
  struct Slot {
    const void* key = nullptr;
    V value{};
  };
  std::size_t slot_of(const void* key) const {
    // Nearby nodes in nearby slots (a walk meets nodes roughly in the order they were
    // allocated, so its lookups share cache lines); the address bits above the table's
    // size are folded in so that distant parts of the heap do not pile up on one run.
    std::uintptr_t a = reinterpret_cast<std::uintptr_t>(key) >> 4;
    return static_cast<std::size_t>((a ^ (a >> (64 - shift_)) ^ (a >> (2 * (64 - shift_)))) & mask_);
  }
  V& place(const void* key, V&& value) {
    std::size_t i = slot_of(key);
    while (slots_[i].key) i = (i + 1) & mask_;
    slots_[i].key = key;
    slots_[i].value = std::move(value);
    return slots_[i].value;
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    std::size_t n = old.empty() ? 64 : 2 * old.size();
    slots_.assign(n, Slot{});
    mask_ = n - 1;
    shift_ = 64;
    for (std::size_t k = n; k > 1; k >>= 1) --shift_;
    for (Slot& s : old)
      if (s.key) place(s.key, std::move(s.value));
  }

  std::vector<Slot> slots_;
  std::size_t used_ = 0, mask_ = 0;
  int shift_ = 64;
};

}  // namespace pamc
