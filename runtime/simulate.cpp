// The simulation engine (see simulate.h and docs/simulation.md).
//
// A normalized process body is compiled once to a tree of PNodes (sequences and
// parallel compositions flattened into lists, constant conditions folded). At run time a
// composite node that is active is a Task: a pointer to its PNode, its parent, its
// environment (the chain of loop-index Frames), a small state (list position, loop index,
// join counter) and, for loops, its own Frame. Leaves (delay, use) have no Task: they are
// an event in the heap, or a request in a resource's queue, that names the parent to
// resume. Memory is proportional to the live tasks; there is no stack per process.
//
// Events are ordered by (time, sequence number) in the EventQueue (sim_queue.h: a FIFO lane
// per constant duration, a heap for the others); the sequence number makes ties FIFO and the
// whole run deterministic for a given seed.
//
// Budgets come before the memory they guard: after compilation, lower bounds of the
// processes a body starts at once and of the events it needs are checked against
// --max-processes and --max-events; while running, the processes held are counted before
// any container grows.
#include "runtime/simulate.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <unordered_map>

#include "runtime/sim_expr.h"
#include "runtime/sim_process.h"
#include "runtime/sim_queue.h"

namespace pamc {
namespace sim {
namespace {

// ---- random numbers: xoshiro256** seeded by splitmix64 (same stream on every platform)
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  void seed(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ULL);
    for (auto& w : s_) w = splitmix64(x);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  // Exp(1) by Marsaglia and Tsang's ziggurat (256 levels): one table lookup and one
  // multiplication ~98.9% of the time, exact inversion in the tail.
  double exponential(double mean) {
    const Zig& z = zig();
    for (;;) {
      std::uint64_t r = next();
      unsigned iz = static_cast<unsigned>(r & 255);
      std::uint64_t jz = r >> 32;
      double x = static_cast<double>(jz) * z.w[iz];
      if (jz < z.k[iz]) return mean * x;
      if (iz == 0) return mean * (Zig::kR - std::log1p(-uniform()));
      if (z.f[iz] + uniform() * (z.f[iz - 1] - z.f[iz]) < std::exp(-x)) return mean * x;
    }
  }

 private:
  struct Zig {
    static constexpr double kR = 7.697117470131487;  // start of the tail
    std::uint64_t k[256];
    double w[256], f[256];
    Zig() {
      const double m = 4294967296.0, v = 3.949659822581572e-3;
      double de = kR, te = kR;
      const double q = v / std::exp(-de);
      k[0] = static_cast<std::uint64_t>((de / q) * m);
      k[1] = 0;
      w[0] = q / m;
      w[255] = de / m;
      f[0] = 1.0;
      f[255] = std::exp(-de);
      for (int i = 254; i >= 1; --i) {
        de = -std::log(v / de + std::exp(-de));
        k[i + 1] = static_cast<std::uint64_t>((de / te) * m);
        te = de;
        f[i] = std::exp(-de);
        w[i] = de / m;
      }
    }
  };
  static const Zig& zig() {
    static const Zig z;
    return z;
  }

  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4] = {1, 2, 3, 4};
};

// ---- compiled processes: PNode (sim_process.h)
enum class TK : std::uint8_t { Root, SeqList, ParList, SeqLoop, ParLoop, Branch };

struct Task {
  const PNode* node;
  Task* parent;       // also the free-list link
  const Frame* env;   // environment of the children (SeqLoop, Branch: &frame)
  Frame frame;
  std::int64_t i;     // SeqList position, SeqLoop index
  union {
    std::int64_t ub;       // SeqLoop upper bound
    std::int64_t pending;  // ParList, ParLoop: children still running
  };
  TK kind;
  bool record;        // top-level par: record its branches' finish times
  std::uint32_t pos;  // SeqLoop over a list (body_list): position in the body's list
};

using Queue = EventQueue<Task>;
using Event = Queue::Event;

struct Request {
  Task* target;
  double service;
  double arrival;
  std::int32_t lane;  // of its completion event
};

struct Resource {
  std::int64_t index = 0;
  std::int64_t servers = 1;
  std::int64_t busy = 0;
  std::vector<Request> ring;  // FIFO queue, power-of-two ring buffer
  std::size_t head = 0, count = 0;
  // this run
  double busy_time = 0, wait_sum = 0;
  std::uint64_t requests = 0;
  // all runs
  double util_sum = 0, wait_total = 0;
  std::uint64_t requests_total = 0;
  Loc loc;
  Loc def;  // the fcfs(...) call that first reached it

  bool full() const { return count == ring.size(); }
  void enqueue(const Request& r) {
    if (count == ring.size()) {
      std::vector<Request> bigger(ring.empty() ? 16 : ring.size() * 2);
      for (std::size_t k = 0; k < count; ++k) bigger[k] = ring[(head + k) & (ring.size() - 1)];
      ring.swap(bigger);
      head = 0;
    }
    ring[(head + count) & (ring.size() - 1)] = r;
    ++count;
  }
  Request dequeue() {
    Request r = ring[head];
    head = (head + 1) & (ring.size() - 1);
    --count;
    return r;
  }
};

class Engine {
 public:
  Engine(const std::map<std::string, double>& params, const SimOptions& opts)
      : ec_(params), opts_(opts) {
    // One evaluation of an expression may take a hundredth of --max-events loop steps
    // (10^7 by default, 0.2 s at 10-20 ns a step). A loop whose iterations cost the same is
    // refused ahead; one whose iterations differ (a triangle, sum (i = 1, N) { sum (j = 1,
    // i) { ... } }) only when its steps are spent, and nothing seen so far bounds what its
    // later iterations take: a tenth (10^8 steps) took 1.8 s to say so.
    ec_.set_max_loop_steps(opts.max_events ? std::max<std::uint64_t>(1, opts.max_events / 100) : 0);
  }

  // Compiles the body and checks the budgets that can be known before running.
  const PNode* compile(const ast::NodeP& e) {
    const PNode* p = cproc(e);
    check_budgets(p, opts_);
    for (double d : lanes_) queue_.lane_for(d);
    return p;
  }

  // One run; returns the makespan.
  double run(const PNode* body, int run_index);

  std::uint64_t events_total = 0;
  double finish_sum = 0;
  std::uint64_t finish_count = 0;
  std::vector<Resource> resources;

 private:
  // ---- compilation
  PNode* node(PK k, const Loc& loc) {
    nodes_.push_back(std::make_unique<PNode>());
    nodes_.back()->kind = k;
    nodes_.back()->loc = loc;
    return nodes_.back().get();
  }
  const PNode* nothing() {
    if (!nothing_) nothing_ = node(PK::Nothing, Loc{});
    return nothing_;
  }
  // The items of a chain of `;` (or `||`): the parser joins a ; b ; c into one node, and
  // groups and substituted equations nest more. A `||` chain is flattened whole (a
  // top-level par's branches are what mean_finish averages); a `;` chain only while a
  // nested one is short, so that a chain which doubles per definition stays shared.
  void flatten(const ast::NodeP& e, ast::Kind k, std::vector<const PNode*>& out) {
    if (e->kind == ast::Kind::Group && e->kids.at(0)->kind == k) return flatten(e->kids[0], k, out);
    if (e->kind == k && (k == ast::Kind::Par || items(e, k) <= kInlineSeq)) {
      for (const ast::NodeP& kid : e->kids) flatten(kid, k, out);
      return;
    }
    const PNode* p = cproc(e);
    if (p->kind != PK::Nothing) out.push_back(p);
  }
  // How many items flatten() would give a chain (counted on the shared AST, memoized).
  double items(const ast::NodeP& e, ast::Kind k) {
    if (e->kind == ast::Kind::Group && e->kids.at(0)->kind == k) return items(e->kids[0], k);
    if (e->kind != k) return 1;
    auto it = items_.find(e.get());
    if (it != items_.end()) return it->second;
    double n = 0;
    for (const ast::NodeP& kid : e->kids) n += items(kid, k);
    items_.emplace(e.get(), n);
    return n;
  }
  static constexpr double kInlineSeq = 64;
  // Compiled once per AST node and loop indices in scope: the normalized body shares the
  // subtrees of equations used several times, and so does the graph.
  const PNode* cproc(const ast::NodeP& e) {
    auto key = std::make_pair(e.get(), scope_);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    const PNode* p = cproc_node(e);
    memo_.emplace(std::move(key), p);
    return p;
  }
  const PNode* cproc_node(const ast::NodeP& e);
  std::int32_t resource_slot(std::int64_t index, std::int64_t servers, const Loc& loc, const Loc& def);
  // The event lane of a constant duration (deterministic runs only), or -1: the heap.
  std::int32_t lane(const Scalar& t) {
    if (opts_.dist != SimDist::Det || !t.is_const()) return -1;
    for (std::size_t k = 0; k < lanes_.size(); ++k)
      if (lanes_[k] == t.k) return static_cast<std::int32_t>(k);
    if (lanes_.size() >= static_cast<std::size_t>(Queue::kMaxLanes)) return -1;
    lanes_.push_back(t.k);
    return static_cast<std::int32_t>(lanes_.size() - 1);
  }

  // ---- running
  Task* alloc(const Loc& loc) {
    ++tasks_;
    if (!free_) {
      check_held(loc);
      chunks_.push_back(std::make_unique<Task[]>(kChunk));
      Task* c = chunks_.back().get();
      for (std::size_t k = 0; k < kChunk; ++k) {
        c[k].parent = free_;
        free_ = &c[k];
      }
    }
    Task* t = free_;
    free_ = t->parent;
    return t;
  }
  void release(Task* t) {
    --tasks_;
    t->parent = free_;
    free_ = t;
  }

  [[gnu::always_inline]] void push(double time, Task* target, std::int32_t res, std::int32_t lane, const Loc& loc) {
    if (queue_.full(lane)) check_held(loc);
    queue_.push(Event{time, seq_++, target, res}, lane);
  }
  // Before a container grows: the processes held now must stay within --max-processes.
  void check_held(const Loc& loc) {
    const std::uint64_t held = tasks_ + queue_.size() + queued_;
    if (opts_.max_processes && held >= opts_.max_processes)
      fail(loc, DiagKind::WorkLimit,
           "the simulation holds " + std::to_string(held) + " processes at time " + fmt_num(now_) +
               " (pending events, queued requests and processes in progress), the --max-processes limit (" +
               std::to_string(opts_.max_processes) + "); raise it or simulate a smaller case");
  }

  double duration(double mean, const Loc& loc, const char* what) {
    if (!(mean >= 0) || !std::isfinite(mean))
      fail(loc, DiagKind::NegativeTime,
           std::string(what) + " is " + fmt_num(mean) + " (durations must be finite and >= 0)");
    if (opts_.dist == SimDist::Exp && mean > 0) return rng_.exponential(mean);
    return mean;
  }
  void acquire(std::int32_t r, Task* target, double service, std::int32_t lane, const Loc& loc) {
    Resource& res = resources[static_cast<std::size_t>(r)];
    ++res.requests;
    if (res.busy < res.servers) {
      ++res.busy;
      res.busy_time += service;
      push(now_ + service, target, r, lane, loc);
    } else {
      if (res.full()) check_held(loc);
      ++queued_;
      res.enqueue(Request{target, service, now_, lane});
    }
  }
  void release_server(std::int32_t r) {
    Resource& res = resources[static_cast<std::size_t>(r)];
    if (res.count) {
      Request q = res.dequeue();
      --queued_;
      res.wait_sum += now_ - q.arrival;
      res.busy_time += q.service;
      push(now_ + q.service, q.target, r, q.lane, res.loc);
    } else {
      --res.busy;
    }
  }
  std::int32_t dynamic_resource(const PNode* n, const Frame* env);
  void dry_check(const PNode* n, const Frame* env, bool values);

  bool start(const PNode* n, Task* parent, const Frame* env);
  bool run_seqlist(Task* t);
  bool run_seqloop(Task* t);
  void child_done(Task* t);
  // Loop iterations that schedule no event (empty or zero-work bodies) still cost time:
  // they count against the same per-run limit as events, separately.
  void count_empty_iteration(const Loc& loc) {
    if (++empty_iterations_ > opts_.max_events && opts_.max_events)
      fail(loc, DiagKind::WorkLimit,
           "simulation stopped after " + std::to_string(empty_iterations_ - 1) +
               " loop iterations that scheduled no event, at time " + fmt_num(now_) +
               " (the --max-events limit counts them as it counts events; raise it to simulate further)");
  }
  void note_finish() {
    finish_sum += now_;
    ++finish_count;
  }

  ExprCompiler ec_;
  SimOptions opts_;
  std::vector<std::unique_ptr<PNode>> nodes_;
  const PNode* nothing_ = nullptr;
  std::unordered_map<std::int64_t, std::int32_t> by_index_;
  std::vector<std::string> scope_;  // loop indices in scope, as ec_ has them
  std::map<std::pair<const ast::Node*, std::vector<std::string>>, const PNode*> memo_;
  std::unordered_map<const ast::Node*, double> items_;
  std::vector<double> lanes_;  // the constant durations with an event lane, by lane

  static constexpr std::size_t kChunk = 1024;
  std::vector<std::unique_ptr<Task[]>> chunks_;
  Task* free_ = nullptr;

  HeldCount held_count_;  // what a par holds, counted before it starts (sim_process.h)
  int counting_ = 0;      // pars being started inside a counted one
  std::uint64_t tasks_ = 0;   // composite processes in progress
  std::uint64_t queued_ = 0;  // requests waiting for a server, all resources

  Queue queue_;
  std::uint64_t seq_ = 0;
  double now_ = 0;
  Rng rng_;
  std::uint64_t empty_iterations_ = 0;
  bool root_done_ = false;
  double root_time_ = 0;
};

std::int32_t Engine::resource_slot(std::int64_t index, std::int64_t servers, const Loc& loc, const Loc& def) {
  auto it = by_index_.find(index);
  if (it != by_index_.end()) {
    Resource& r = resources[static_cast<std::size_t>(it->second)];
    if (r.servers != servers)
      fail(loc, DiagKind::ResourceConflict,
           "resource fcfs(" + std::to_string(index) + ") used with multiplicity " + std::to_string(servers) +
               " and " + std::to_string(r.servers));
    return it->second;
  }
  if (resources.size() >= 0x7fffffff) fail(loc, DiagKind::WorkLimit, "too many resources");
  Resource r;
  r.index = index;
  r.servers = servers;
  r.loc = loc;
  r.def = def;
  resources.push_back(std::move(r));
  auto slot = static_cast<std::int32_t>(resources.size() - 1);
  by_index_.emplace(index, slot);
  return slot;
}

// Whether v is an integer as integer_bound() takes it (which fails where this is false).
bool whole(double v, std::int64_t& out) {
  if (!std::isfinite(v)) return false;
  const double r = std::nearbyint(v);
  if (std::fabs(v - r) > 1e-9 * std::max(1.0, std::fabs(v)) || std::fabs(r) > 9.0e18) return false;
  out = static_cast<std::int64_t>(r);
  return true;
}

// A resource's position (its fcfs index) is a nonnegative integer, as in every evaluator: a
// use of fcfs(-1, 1) has no value (docs/semantics.md).
std::int64_t resource_index(double v, const Loc& loc) {
  std::int64_t i = integer_bound(v, loc, "the resource index");
  if (i < 0)
    fail(loc, DiagKind::NonIntegerBound, "resource position " + std::to_string(i) + " is not a nonnegative integer");
  return i;
}
std::int64_t resource_servers(double v, const Loc& loc) {
  std::int64_t b = integer_bound(v, loc, "the resource multiplicity");
  if (b < 1) fail(loc, DiagKind::InvalidMultiplicity, "resource multiplicity " + std::to_string(b) + " is not >= 1");
  return b;
}

std::int32_t Engine::dynamic_resource(const PNode* n, const Frame* env) {
  std::int64_t index = resource_index(n->res_id(env), n->loc);
  std::int64_t servers = resource_servers(n->res_mult(env), n->loc);
  return resource_slot(index, servers, n->loc, n->res_loc);
}

const PNode* Engine::cproc_node(const ast::NodeP& e) {
  using ast::Kind;
  switch (e->kind) {
    case Kind::Group:
      return cproc(e->kids.at(0));
    case Kind::Delay: {
      PNode* n = node(PK::Delay, e->loc);
      n->t = ec_.scalar(e->kids.at(0), "a delay time");
      n->lane = lane(n->t);
      n->has_values = !n->t.is_const();
      return n;
    }
    case Kind::Use: {
      PNode* n = node(PK::Use, e->loc);
      ast::NodeP r = e->kids.at(0);
      while (r->kind == Kind::Group) r = r->kids.at(0);
      if (r->kind != Kind::Call || r->name != "fcfs" || r->kids.size() != 2)
        fail(r->loc, DiagKind::TypeMismatch, "use needs a resource fcfs(index, multiplicity) (the model must be normalized)");
      n->res_id = ec_.scalar(r->kids[0], "a resource index");
      n->res_mult = ec_.scalar(r->kids[1], "a resource multiplicity");
      n->t = ec_.scalar(e->kids.at(1), "a service time");
      n->lane = lane(n->t);
      n->res_loc = r->loc;
      // A constant resource is resolved now where it is valid; a position below 0 or a
      // multiplicity that clashes fails only when the use is reached (it may never be).
      std::int64_t index = 0, servers = 0;
      if (n->res_id.is_const() && n->res_mult.is_const() && whole(n->res_id.k, index) && index >= 0 &&
          whole(n->res_mult.k, servers) && servers >= 1) {
        auto it = by_index_.find(index);
        if (it == by_index_.end() || resources[static_cast<std::size_t>(it->second)].servers == servers)
          n->res_slot = resource_slot(index, servers, r->loc, r->loc);
      }
      n->has_values = !n->t.is_const() || n->res_slot < 0;
      return n;
    }
    case Kind::Seq:
    case Kind::Par: {
      if (e->kind == Kind::Par && opts_.max_processes && items(e, Kind::Par) > static_cast<double>(opts_.max_processes))
        fail(e->loc, DiagKind::WorkLimit,
             "this process starts " + fmt_num(items(e, Kind::Par)) +
                 " branches at once, more than the --max-processes limit (" + std::to_string(opts_.max_processes) +
                 "); each waiting process takes memory (about 40 bytes): raise the limit or simulate a smaller case");
      std::vector<const PNode*> kids;
      for (const ast::NodeP& kid : e->kids) flatten(kid, e->kind, kids);
      if (kids.empty()) return nothing();
      if (kids.size() == 1) return kids[0];
      PNode* n = node(e->kind == Kind::Seq ? PK::SeqList : PK::ParList, e->loc);
      n->kids = std::move(kids);
      for (const PNode* k : n->kids) {
        n->has_bounds = n->has_bounds || k->has_bounds;
        n->has_values = n->has_values || k->has_values;
      }
      return n;
    }
    case Kind::SeqLoop:
    case Kind::ParLoop: {
      PNode* n = node(e->kind == Kind::SeqLoop ? PK::SeqLoop : PK::ParLoop, e->loc);
      n->lb = ec_.scalar(e->kids.at(0), "a loop bound");
      n->ub = ec_.scalar(e->kids.at(1), "a loop bound");
      ec_.push_index(e->name);
      scope_.push_back(e->name);
      n->body = cproc(e->kids.at(2));
      scope_.pop_back();
      ec_.pop_index();
      // Bounds are checked when the loop is reached, not here: a loop inside one that is
      // never entered has no bounds to check (docs/semantics.md, "Ranges").
      std::int64_t l = 0, u = 0;
      const bool fixed = n->lb.is_const() && n->ub.is_const() && whole(n->lb.k, l) && whole(n->ub.k, u);
      if (fixed && l > u) return nothing();
      if (n->body->kind == PK::Nothing) {
        if (fixed) return nothing();
        PNode* b = node(PK::Bounds, e->loc);  // a body that does nothing: still check the bounds
        b->lb = n->lb;
        b->ub = n->ub;
        b->has_bounds = true;
        return b;
      }
      n->has_bounds = !fixed || n->body->has_bounds;
      n->has_values = n->body->has_values;
      n->body_leaf = is_leaf(n->body);
      n->body_list = n->body->kind == PK::SeqList && n->body->kids.size() < 0xffffffffu;
      return n;
    }
    case Kind::IfProc: {
      PNode* n = node(PK::If, e->loc);
      n->cond = ec_.scalar(e->kids.at(0), "a condition");
      n->a = cproc(e->kids.at(1));
      n->b = e->kids.size() > 2 ? cproc(e->kids[2]) : nothing();
      if (n->a->kind == PK::Nothing) n->a = nullptr;
      if (n->b->kind == PK::Nothing) n->b = nullptr;
      if (!n->a && !n->b) return nothing();
      n->has_bounds = (n->a && n->a->has_bounds) || (n->b && n->b->has_bounds);
      n->has_values = !n->cond.is_const() || (n->a && n->a->has_values) || (n->b && n->b->has_values);
      // A constant condition picks its branch now, unless the other one has loop bounds
      // to check each time it is reached (a condition outside [0, 1] fails when reached).
      if (n->cond.is_const()) {
        double c = n->cond.k;
        if (c == 1 && !(n->b && n->b->has_bounds)) return n->a ? n->a : nothing();
        if (c == 0 && !(n->a && n->a->has_bounds)) return n->b ? n->b : nothing();
      }
      return n;
    }
    default:
      fail(e->loc, DiagKind::TypeMismatch, "a numeric expression where a process is needed");
  }
}

bool Engine::start(const PNode* n, Task* parent, const Frame* env) {
  for (;;) {
    switch (n->kind) {
      case PK::Nothing:
        return true;
      case PK::Bounds:
        integer_bound(n->lb(env), n->loc, "the loop's lower bound");
        integer_bound(n->ub(env), n->loc, "the loop's upper bound");
        return true;
      case PK::Delay:
        push(now_ + duration(n->t(env), n->loc, "the delay time"), parent, -1, n->lane, n->loc);
        return false;
      case PK::Use: {
        std::int32_t r = n->res_slot >= 0 ? n->res_slot : dynamic_resource(n, env);
        acquire(r, parent, duration(n->t(env), n->loc, "the service time"), n->lane, n->loc);
        return false;
      }
      case PK::If: {
        double c = n->cond(env);
        if (!(c >= 0 && c <= 1))
          fail(n->loc, DiagKind::InvalidCondition, "condition is " + fmt_num(c) + ", not a truth value in [0, 1]");
        bool pick = c == 1 || (c > 0 && rng_.uniform() < c);
        // The branch not run is checked as the evaluators weigh it (its weight c or 1 - c).
        const PNode* other = pick ? n->b : n->a;
        if (other && (other->has_bounds || other->has_values)) dry_check(other, env, pick ? c < 1 : c > 0);
        n = pick ? n->a : n->b;
        if (!n) return true;
        continue;
      }
      case PK::SeqList: {
        Task* t = alloc(n->loc);
        *t = Task{n, parent, env, Frame{0, nullptr}, 0, {0}, TK::SeqList, false, 0};
        if (run_seqlist(t)) {
          release(t);
          return true;
        }
        return false;
      }
      case PK::SeqLoop: {
        std::int64_t l = integer_bound(n->lb(env), n->loc, "the loop's lower bound");
        std::int64_t u = integer_bound(n->ub(env), n->loc, "the loop's upper bound");
        if (l > u) return true;
        Task* t = alloc(n->loc);
        *t = Task{n, parent, nullptr, Frame{static_cast<double>(l), env}, l, {u}, TK::SeqLoop, false, 0};
        t->env = &t->frame;
        if (run_seqloop(t)) {
          release(t);
          return true;
        }
        return false;
      }
      case PK::ParList: {
        // A par nested in a top-level par is part of its flattened list of branches.
        const bool record = parent->kind == TK::Root;
        Task* t = alloc(n->loc);
        *t = Task{n, parent, env, Frame{0, nullptr}, 0, {0}, TK::ParList, record, 0};
        std::int64_t pending = 0;
        for (const PNode* k : n->kids) {
          if (!start(k, t, env)) ++pending;
          else if (t->record) note_finish();
        }
        if (pending == 0) {
          release(t);
          return true;
        }
        t->pending = pending;
        return false;
      }
      case PK::ParLoop: {
        std::int64_t l = integer_bound(n->lb(env), n->loc, "the loop's lower bound");
        std::int64_t u = integer_bound(n->ub(env), n->loc, "the loop's upper bound");
        if (l > u) return true;
        // All branches start at once and each holds memory until it ends: refuse a par wider
        // than the limits before allocating any of them.
        {
          const double width = static_cast<double>(u) - static_cast<double>(l) + 1;
          const double held = static_cast<double>(tasks_ + queue_.size() + queued_);
          if (opts_.max_processes && held + width > static_cast<double>(opts_.max_processes))
            fail(n->loc, DiagKind::WorkLimit,
                 "this par starts " + fmt_num(width) + " branches at once" +
                     (held > 0 ? " (with " + fmt_num(held) + " processes held already)" : std::string()) +
                     ", more than the --max-processes limit (" + std::to_string(opts_.max_processes) +
                     "); raise it or simulate a smaller case");
          // Branches that start more processes (pars in a par, loops whose bounds are known
          // only now): what the whole par holds, counted before it allocates any. The pars
          // it starts are inside that count and skip their own.
          if (opts_.max_processes && !n->body_leaf && counting_ == 0) {
            const double need = held_count_.held(n, env);
            if (held + need > static_cast<double>(opts_.max_processes))
              fail(n->loc, DiagKind::WorkLimit,
                   "this par would hold " + fmt_num(need) +
                       " processes at once (its branches, the loops and sequences they start, and the events "
                       "and requests they wait for)" +
                       (held > 0 ? " with " + fmt_num(held) + " held already" : std::string()) +
                       ", more than the --max-processes limit (" + std::to_string(opts_.max_processes) +
                       "); raise it or simulate a smaller case");
          }
        }
        struct Counted {  // this par's branches start inside its count
          int& depth;
          explicit Counted(int& d) : depth(d) { ++depth; }
          ~Counted() { --depth; }
        } counted(counting_);
        Task* t = alloc(n->loc);
        *t = Task{n, parent, env, Frame{0, nullptr}, 0, {0}, TK::ParLoop, parent->kind == TK::Root, 0};
        std::int64_t pending = 0;
        for (std::int64_t i = l; i <= u; ++i) {
          bool done;
          if (n->body_leaf) {
            Frame f{static_cast<double>(i), env};
            done = start(n->body, t, &f);
          } else {
            Task* b = alloc(n->loc);
            *b = Task{n->body, t, nullptr, Frame{static_cast<double>(i), env}, 0, {0}, TK::Branch, false, 0};
            b->env = &b->frame;
            done = start(n->body, b, b->env);
            if (done) release(b);
          }
          if (!done) {
            ++pending;
          } else {
            count_empty_iteration(n->loc);
            if (t->record) note_finish();
          }
        }
        if (pending == 0) {
          release(t);
          return true;
        }
        t->pending = pending;
        return false;
      }
    }
  }
}

// A branch of an `if` that is not run still counts, as in the evaluators, where a branch
// is weighted by its condition (docs/semantics.md, "Conditions"): a loop bound that is not
// an integer is an error whatever the weight; with a weight above 0 (a drawn `if`), so is
// every value the branch has none of (a division by zero, a resource position below 0).
// Nothing runs and no time passes; the loops are walked to reach their bodies' values.
void Engine::dry_check(const PNode* n, const Frame* env, bool values) {
  if (!n || !(n->has_bounds || (values && n->has_values))) return;
  switch (n->kind) {
    case PK::Nothing:
      return;
    case PK::Delay:
      n->t(env);
      return;
    case PK::Use:
      if (n->res_slot < 0) {
        resource_index(n->res_id(env), n->loc);
        resource_servers(n->res_mult(env), n->loc);
      }
      n->t(env);
      return;
    case PK::SeqList:
    case PK::ParList:
      for (const PNode* k : n->kids) dry_check(k, env, values);
      return;
    case PK::If: {
      if (!values) {
        dry_check(n->a, env, false);
        dry_check(n->b, env, false);
        return;
      }
      const double c = n->cond(env);
      if (!(c >= 0 && c <= 1))
        fail(n->loc, DiagKind::InvalidCondition, "condition is " + fmt_num(c) + ", not a truth value in [0, 1]");
      dry_check(n->a, env, c > 0);
      dry_check(n->b, env, c < 1);
      return;
    }
    case PK::Bounds:
    case PK::SeqLoop:
    case PK::ParLoop: {
      // In a branch with weight 0 a bound without a value (log2(0), a division by zero) is
      // covered as any value there is; a bound with a value that is not an integer is not.
      double lbv = 0, ubv = 0;
      try {
        lbv = n->lb(env);
        ubv = n->ub(env);
      } catch (const SimError& e) {
        if (values || e.diag.kind == DiagKind::NonIntegerBound) throw;
        return;
      }
      if (!values && (!std::isfinite(lbv) || !std::isfinite(ubv))) return;
      const std::int64_t l = integer_bound(lbv, n->loc, "the loop's lower bound");
      const std::int64_t u = integer_bound(ubv, n->loc, "the loop's upper bound");
      if (n->kind == PK::Bounds) return;
      for (std::int64_t i = l; i <= u; ++i) {
        count_empty_iteration(n->loc);
        const Frame f{static_cast<double>(i), env};
        dry_check(n->body, &f, values);
      }
      return;
    }
  }
}

bool Engine::run_seqlist(Task* t) {
  const auto& kids = t->node->kids;
  const auto n = static_cast<std::int64_t>(kids.size());
  while (t->i < n) {
    if (!start(kids[static_cast<std::size_t>(t->i)], t, t->env)) return false;
    ++t->i;
  }
  return true;
}

// The loop's task runs its iterations; where the body is a `;` list, it also keeps the
// position in the list (one task per loop, not one per iteration).
bool Engine::run_seqloop(Task* t) {
  const PNode* body = t->node->body;
  if (t->node->body_list) {
    const auto& kids = body->kids;
    const auto n = static_cast<std::uint32_t>(kids.size());
    for (;;) {
      const bool fresh = t->pos == 0;  // the iteration starts here (not resumed by an event)
      while (t->pos < n) {
        if (!start(kids[t->pos], t, &t->frame)) return false;
        ++t->pos;
      }
      if (fresh) count_empty_iteration(t->node->loc);
      t->pos = 0;
      if (++t->i > t->ub) return true;
      t->frame.value = static_cast<double>(t->i);
    }
  }
  while (t->i <= t->ub) {
    t->frame.value = static_cast<double>(t->i);
    if (!start(body, t, &t->frame)) return false;
    count_empty_iteration(t->node->loc);
    ++t->i;
  }
  return true;
}

// A child of t has finished (at now_): advance t, and its ancestors as they finish.
void Engine::child_done(Task* t) {
  for (;;) {
    switch (t->kind) {
      case TK::Root:
        root_done_ = true;
        root_time_ = now_;
        return;
      case TK::SeqList:
        ++t->i;
        if (!run_seqlist(t)) return;
        break;
      case TK::SeqLoop:
        if (t->node->body_list) ++t->pos;
        else ++t->i;
        if (!run_seqloop(t)) return;
        break;
      case TK::ParList:
      case TK::ParLoop:
        if (t->record) note_finish();
        if (--t->pending > 0) return;
        break;
      case TK::Branch:
        break;
    }
    Task* p = t->parent;
    release(t);
    t = p;
  }
}

double Engine::run(const PNode* body, int run_index) {
  rng_.seed(opts_.seed, static_cast<std::uint64_t>(run_index));
  now_ = 0;
  seq_ = 0;
  queue_.clear();
  tasks_ = queued_ = 0;
  root_done_ = false;
  empty_iterations_ = 0;
  finish_sum = 0;
  finish_count = 0;
  for (auto& r : resources) {
    r.busy = 0;
    r.head = r.count = 0;
    r.busy_time = r.wait_sum = 0;
    r.requests = 0;
  }
  Task root{nullptr, nullptr, nullptr, Frame{0, nullptr}, 0, {0}, TK::Root, false, 0};
  if (start(body, &root, nullptr)) return 0;
  std::uint64_t events = 0;
  const std::uint64_t limit = opts_.max_events;
  while (!queue_.empty()) {
    if (limit && events >= limit) {
      events_total += events;
      fail(Loc{}, DiagKind::WorkLimit,
           "simulation stopped after " + std::to_string(events) + " events at time " + fmt_num(now_) +
               " (the --max-events limit; raise it to simulate further)");
    }
    ++events;
    if ((events & 0xFFFFF) == 0 && opts_.on_tick) opts_.on_tick(events);
    const Event ev = queue_.take();
    now_ = ev.time;
    if (ev.res >= 0) release_server(ev.res);
    child_done(ev.target);
    queue_.settle();
  }
  events_total += events;
  return root_done_ ? root_time_ : now_;
}

SimStat stats(const std::vector<double>& xs) {
  SimStat s;
  if (xs.empty()) return s;
  double sum = 0;
  s.min = s.max = xs[0];
  for (double x : xs) {
    sum += x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
  }
  s.mean = sum / static_cast<double>(xs.size());
  if (xs.size() > 1) {
    double ss = 0;
    for (double x : xs) ss += (x - s.mean) * (x - s.mean);
    s.std = std::sqrt(ss / static_cast<double>(xs.size() - 1));
  }
  return s;
}

}  // namespace
}  // namespace sim

SimResult simulate_body(const ast::NodeP& body, const std::map<std::string, double>& params,
                        const SimOptions& opts) {
  using namespace sim;
  if (opts.runs < 1) fail(Loc{}, DiagKind::UsageError, "the number of runs must be >= 1");
  Engine eng(params, opts);
  const PNode* p = eng.compile(body);
  SimResult res;
  res.runs = opts.runs;
  bool is_par = p->kind == PK::ParList || p->kind == PK::ParLoop;
  for (int k = 0; k < opts.runs; ++k) {
    double T = eng.run(p, k);
    res.T.push_back(T);
    if (is_par && eng.finish_count > 0)
      res.mean_finish_runs.push_back(eng.finish_sum / static_cast<double>(eng.finish_count));
    for (auto& r : eng.resources) {
      r.util_sum += T > 0 ? r.busy_time / (static_cast<double>(r.servers) * T) : 0.0;
      r.wait_total += r.wait_sum;
      r.requests_total += r.requests;
    }
  }
  res.makespan = stats(res.T);
  res.has_mean_finish = !res.mean_finish_runs.empty();
  if (res.has_mean_finish) res.mean_finish = stats(res.mean_finish_runs);
  for (auto& r : eng.resources) {
    if (r.requests_total == 0) continue;
    SimResourceStats s;
    s.index = r.index;
    s.multiplicity = r.servers;
    s.utilization = r.util_sum / opts.runs;
    s.mean_wait = r.wait_total / static_cast<double>(r.requests_total);
    s.requests = static_cast<double>(r.requests_total) / opts.runs;
    s.def = r.def;
    res.resources.push_back(s);
  }
  std::sort(res.resources.begin(), res.resources.end(),
            [](const SimResourceStats& a, const SimResourceStats& b) { return a.index < b.index; });
  res.events = eng.events_total;
  return res;
}

}  // namespace pamc
