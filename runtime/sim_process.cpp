// Budgets of a compiled process graph, checked before a run allocates anything (see
// sim_process.h). Both figures are lower bounds, so a model refused here would have been
// refused while running, later and after taking the memory:
//   - width: the processes started at time 0 (each leaf one pending event or request);
//   - events: the events of one run.
// A loop with bounds known only while running, or an `if` drawn while running, counts
// what it certainly does (nothing, or the smaller branch); the run counts the rest.
#include "runtime/sim_process.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>

namespace pamc::sim {

bool is_leaf(const PNode* n) {
  if (!n) return true;
  switch (n->kind) {
    case PK::Nothing:
    case PK::Delay:
    case PK::Use:
    case PK::Bounds:
      return true;
    case PK::If:
      return is_leaf(n->a) && is_leaf(n->b);
    default:
      return false;
  }
}

namespace {

struct Need {
  double width = 0;   // processes started at time 0
  double events = 0;  // events of one run
};

class Budget {
 public:
  Need need(const PNode* n) {
    if (!n) return {};
    auto it = memo_.find(n);
    if (it != memo_.end()) return it->second;
    Need r = compute(n);
    memo_.emplace(n, r);
    return r;
  }

  // The deepest node that alone starts more than `limit` processes at once.
  const PNode* widest(const PNode* n, double limit) {
    for (;;) {
      const PNode* next = nullptr;
      for (const PNode* k : children(n))
        if (need(k).width > limit) next = k;
      if (!next) return n;
      n = next;
    }
  }

 private:
  static double trip(const PNode* n) {  // iterations of a loop whose bounds are constant; else 0
    if (!n->lb.is_const() || !n->ub.is_const()) return 0;
    double t = std::nearbyint(n->ub.k) - std::nearbyint(n->lb.k) + 1;
    return t > 0 ? t : 0;
  }
  static std::vector<const PNode*> children(const PNode* n) {
    switch (n->kind) {
      case PK::SeqList:
      case PK::ParList:
        return n->kids;
      case PK::SeqLoop:
      case PK::ParLoop:
        return {n->body};
      case PK::If:
        return {n->a, n->b};
      default:
        return {};
    }
  }
  Need compute(const PNode* n) {
    switch (n->kind) {
      case PK::Nothing:
      case PK::Bounds:
        return {};
      case PK::Delay:
      case PK::Use:
        return {1, 1};
      case PK::SeqList: {
        Need r{need(n->kids.front()).width, 0};
        for (const PNode* k : n->kids) r.events += need(k).events;
        return r;
      }
      case PK::ParList: {
        Need r;
        for (const PNode* k : n->kids) {
          Need x = need(k);
          r.width += x.width;
          r.events += x.events;
        }
        return r;
      }
      case PK::SeqLoop: {
        double t = trip(n);
        Need b = need(n->body);
        return t > 0 ? Need{b.width, t * b.events} : Need{};
      }
      case PK::ParLoop: {
        double t = trip(n);
        Need b = need(n->body);
        return {t * b.width, t * b.events};
      }
      case PK::If: {
        if (!n->a || !n->b) return {};  // may run nothing
        Need a = need(n->a), b = need(n->b);
        return {std::min(a.width, b.width), std::min(a.events, b.events)};
      }
    }
    return {};
  }

  std::unordered_map<const PNode*, Need> memo_;
};

}  // namespace

void check_budgets(const PNode* body, const SimOptions& opts) {
  Budget budget;
  Need all = budget.need(body);
  const double max_processes = static_cast<double>(opts.max_processes);
  if (opts.max_processes && all.width > max_processes) {
    const PNode* at = budget.widest(body, max_processes);
    double here = budget.need(at).width;
    fail(at->loc, DiagKind::WorkLimit,
         "this process starts " + fmt_num(here) + " processes at once" +
             (here < all.width ? " (the whole simulation " + fmt_num(all.width) + ")" : std::string()) +
             ", more than the --max-processes limit (" + fmt_num(max_processes) +
             "); each waiting process takes memory (about 40 bytes): raise the limit or simulate a smaller case");
  }
  if (opts.max_events && all.events > static_cast<double>(opts.max_events))
    fail(body->loc, DiagKind::WorkLimit,
         "one run of this process needs at least " + fmt_num(all.events) + " events, more than the --max-events limit (" +
             fmt_num(static_cast<double>(opts.max_events)) + "); raise it (0: no limit) or simulate a smaller case");
}

}  // namespace pamc::sim

namespace pamc::sim {

namespace {

// Node visits per count: about what starting a par of that many leaves costs anyway.
constexpr long long kMaxCountWork = 1 << 16;

// A loop bound or a condition here, or nullopt where it has no value (the run says why when
// it gets there).
std::optional<double> value_at(const Scalar& s, const Frame* env) {
  try {
    return s(env);
  } catch (const SimError&) {
    return std::nullopt;
  }
}

}  // namespace

double HeldCount::held(const PNode* n, const Frame* env) {
  work_ = 0;
  return count(n, env).n;
}

int HeldCount::reach(const PNode* n) {
  if (!n) return 0;
  auto it = reach_.find(n);
  if (it != reach_.end()) return it->second;
  int r = 0;
  switch (n->kind) {
    case PK::Nothing:
    case PK::Delay:
    case PK::Use:  // one process whatever its time and resource
      break;
    case PK::If:
      r = std::max({n->cond.frames, reach(n->a), reach(n->b)});
      break;
    case PK::SeqList:
    case PK::ParList:
      for (const PNode* k : n->kids) r = std::max(r, reach(k));
      break;
    case PK::SeqLoop:
    case PK::ParLoop:
      r = std::max({n->lb.frames, n->ub.frames, reach(n->body) - 1});
      break;
    case PK::Bounds:  // a loop that does nothing: its bounds' frames only
      r = std::max(n->lb.frames, n->ub.frames);
      break;
  }
  reach_.emplace(n, r);
  return r;
}

HeldCount::Count HeldCount::count(const PNode* n, const Frame* env) {
  if (++work_ > kMaxCountWork) return {0, Fin::Maybe};
  const bool shared = reach(n) == 0;
  if (shared) {
    auto it = memo_.find(n);
    if (it != memo_.end()) return it->second;
  }
  Count c = compute(n, env);
  if (shared && work_ <= kMaxCountWork) memo_.emplace(n, c);  // not a count cut short
  return c;
}

// The items of a `;` list up to the first that waits (start() runs them until one does).
HeldCount::Count HeldCount::sequence(const std::vector<const PNode*>& kids, const Frame* env) {
  for (const PNode* k : kids) {
    Count c = count(k, env);
    if (c.fin != Fin::Done) return c;  // Maybe: it or a later item waits
  }
  return {0, Fin::Done};
}

HeldCount::Count HeldCount::compute(const PNode* n, const Frame* env) {
  switch (n->kind) {
    case PK::Nothing:
    case PK::Bounds:  // checked when reached; holds no process
      return {0, Fin::Done};
    case PK::Delay:
    case PK::Use:
      return {1, Fin::Pending};  // an event, or a request in a queue
    case PK::If: {
      std::optional<double> c = value_at(n->cond, env);
      if (!c || !(*c >= 0 && *c <= 1)) return {0, Fin::Maybe};
      const Count none{0, Fin::Done};
      if (*c == 1) return n->a ? count(n->a, env) : none;
      if (*c == 0) return n->b ? count(n->b, env) : none;
      Count a = n->a ? count(n->a, env) : none, b = n->b ? count(n->b, env) : none;  // a random draw
      return {std::min(a.n, b.n), a.fin == b.fin ? a.fin : Fin::Maybe};
    }
    case PK::SeqList: {
      Count c = sequence(n->kids, env);
      if (c.fin == Fin::Pending) c.n += 1;  // its task
      return c;
    }
    case PK::ParList: {
      Count r{0, Fin::Done};
      bool maybe = false;
      for (const PNode* k : n->kids) {
        Count c = count(k, env);
        r.n += c.n;
        if (c.fin == Fin::Pending) r.fin = Fin::Pending;
        maybe |= c.fin == Fin::Maybe;
      }
      if (r.fin == Fin::Pending) r.n += 1;  // its task
      else if (maybe) r.fin = Fin::Maybe;
      return r;
    }
    case PK::SeqLoop:
    case PK::ParLoop:
      return loop(n, env);
  }
  return {0, Fin::Maybe};
}

HeldCount::Count HeldCount::loop(const PNode* n, const Frame* env) {
  std::optional<double> lb = value_at(n->lb, env), ub = value_at(n->ub, env);
  if (!lb || !ub) return {0, Fin::Maybe};
  std::int64_t l = 0, u = 0;
  try {
    l = integer_bound(*lb, n->loc, "the loop's lower bound");
    u = integer_bound(*ub, n->loc, "the loop's upper bound");
  } catch (const SimError&) {
    return {0, Fin::Maybe};
  }
  if (l > u) return {0, Fin::Done};
  if (n->kind == PK::SeqLoop) {
    // Its task runs the first step (and the items of a `;` body itself, without a task of
    // theirs); where that step ends at once, the next may wait or not.
    Frame f{static_cast<double>(l), env};
    Count c = n->body_list ? sequence(n->body->kids, &f) : count(n->body, &f);
    if (c.fin == Fin::Pending) return {1 + c.n, Fin::Pending};
    return {c.n, Fin::Maybe};
  }
  // A branch: its body, in a task of its own unless the body is a single leaf.
  auto branch = [&](std::int64_t i) {
    Frame f{static_cast<double>(i), env};
    Count c = count(n->body, &f);
    if (!n->body_leaf && c.fin == Fin::Pending) c.n += 1;
    return c;
  };
  Count r{0, Fin::Done};
  if (reach(n->body) == 0) {  // every branch alike
    Count c = branch(l);
    r = {(static_cast<double>(u) - static_cast<double>(l) + 1) * c.n, c.fin};
  } else {
    bool maybe = false;
    std::int64_t i = l;
    for (; i <= u && work_ <= kMaxCountWork; ++i) {
      Count c = branch(i);
      r.n += c.n;
      if (c.fin == Fin::Pending) r.fin = Fin::Pending;
      maybe |= c.fin == Fin::Maybe;
    }
    if (i <= u) maybe = true;  // the count stopped: the rest counts as nothing
    if (r.fin != Fin::Pending && maybe) r.fin = Fin::Maybe;
  }
  if (r.fin == Fin::Pending) r.n += 1;  // the par's task
  return r;
}

}  // namespace pamc::sim
