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
