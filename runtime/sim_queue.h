// Internal to the simulator: the pending events, in (time, sequence number) order.
//
// Most durations of a deterministic model are constants of the model text (`delay(t_l)`,
// `use(s, t_s)`). Every event of one constant duration d is scheduled at now + d, and now
// never decreases, so those events arrive already sorted: each constant duration gets a
// FIFO lane, and an event costs a push at the back and a pop at the front.
// Durations known only at run time (random ones, ones that read a loop index) go into a
// binary heap. The next event is the least of the lanes' heads and the heap's top, compared
// by (time, sequence number): the order is the same as one heap of every event, so the
// lanes change the speed and never a simulated value. Nothing is allocated per event: a
// lane is a chain of blocks of 1024 events taken from and given back to a free list (32
// bytes an event, no copy as it grows), the heap grows geometrically; both are reused run
// after run.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace pamc::sim {

template <class Target>
class EventQueue {
 public:
  struct Event {
    double time;
    std::uint64_t seq;
    Target* target;
    std::int32_t res;  // >= 0: a use completes at this resource; -1: a delay
  };
  // Lanes beyond this many constant durations go to the heap: the next event is found by
  // looking at every lane's head, which must stay a handful of compares.
  static constexpr int kMaxLanes = 8;

  // The lane of a constant duration (made on first use), or -1: the heap.
  int lane_for(double duration) {
    for (int k = 0; k < nlanes_; ++k)
      if (lanes_[k].duration == duration) return k;
    if (nlanes_ >= kMaxLanes) return -1;
    lanes_[nlanes_].duration = duration;
    return nlanes_++;
  }

  void clear() {
    heap_.clear();
    hole_ = false;
    for (Lane& l : lanes_) {
      while (l.head) l.head = recycle(l.head);
      l = Lane{l.duration};
    }
    size_ = 0;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // Whether a push would have to grow a container (the caller's budget is checked first).
  bool full(int lane) const {
    if (lane >= 0) {
      const Lane& l = lanes_[lane];
      return (!l.tail || l.tail_pos == kBlock) && !free_;
    }
    return !hole_ && heap_.size() == heap_.capacity();
  }

  [[gnu::always_inline]] void push(const Event& e, int lane) {
    ++size_;
    if (lane >= 0) {
      Lane& l = lanes_[lane];
      if (!l.tail || l.tail_pos == kBlock) add_block(l);
      l.tail->ev[l.tail_pos++] = e;
      ++l.count;
      return;
    }
    push_heap(e);
  }

  // Removes the next event and returns it. An event from the heap stays at its top (a
  // hole) until the first push replaces it or settle() pops it: one sift instead of two.
  [[gnu::always_inline]] Event take() {
    --size_;
    const Event* best = heap_.empty() ? nullptr : heap_.data();
    int from = -1;
    for (int k = 0; k < nlanes_; ++k) {
      const Lane& l = lanes_[k];
      if (l.count && (!best || before(l.head->ev[l.head_pos], *best))) {
        best = &l.head->ev[l.head_pos];
        from = k;
      }
    }
    if (from >= 0) {
      Lane& l = lanes_[from];
      Event e = *best;
      --l.count;
      if (++l.head_pos == kBlock) {
        l.head = recycle(l.head);
        l.head_pos = 0;
        if (!l.head) l.tail = nullptr;
      }
      return e;
    }
    hole_ = true;
    return heap_[0];
  }
  // After the event taken last has been processed: pops it if no push replaced it.
  void settle() {
    if (!hole_) return;
    hole_ = false;
    Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
  }

 private:
  void push_heap(const Event& e) {
    if (hole_) {  // the event being processed is still at the top: replace it
      hole_ = false;
      sift_down(e);
      return;
    }
    heap_.push_back(e);
    std::size_t i = heap_.size() - 1;
    while (i > 0) {
      std::size_t p = (i - 1) / 2;
      if (!before(e, heap_[p])) break;
      heap_[i] = heap_[p];
      i = p;
    }
    heap_[i] = e;
  }

  static constexpr std::size_t kBlock = 1024;
  struct Block {
    Event ev[kBlock];
    Block* next;
  };
  struct Lane {
    double duration = 0;
    Block* head = nullptr;  // events head->ev[head_pos] ... tail->ev[tail_pos - 1]
    Block* tail = nullptr;
    std::size_t head_pos = 0, tail_pos = 0, count = 0;
  };

  static bool before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }
  void add_block(Lane& l) {
    Block* b = free_;
    if (b) {
      free_ = b->next;
    } else {
      blocks_.push_back(std::make_unique<Block>());
      b = blocks_.back().get();
    }
    b->next = nullptr;
    if (l.tail) l.tail->next = b;
    else l.head = b;
    l.tail = b;
    l.tail_pos = 0;
  }
  Block* recycle(Block* b) {  // gives b back; returns the block after it
    Block* next = b->next;
    b->next = free_;
    free_ = b;
    return next;
  }
  void sift_down(const Event& e) {  // places e at the root and restores the heap
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    for (;;) {
      std::size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && before(heap_[c + 1], heap_[c])) ++c;
      if (!before(heap_[c], e)) break;
      heap_[i] = heap_[c];
      i = c;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  bool hole_ = false;
  Lane lanes_[kMaxLanes];
  int nlanes_ = 0;
  std::vector<std::unique_ptr<Block>> blocks_;  // every block, owned here
  Block* free_ = nullptr;
  std::size_t size_ = 0;  // events pending (the hole is not one)
};

}  // namespace pamc::sim
