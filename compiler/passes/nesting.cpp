// The limit on loop nesting: see nesting.h.
#include "compiler/passes/nesting.h"
#include "compiler/passes/node_table.h"

#include <string>
#include <unordered_map>

namespace pamc {
namespace {

using ast::Kind;
using ast::NodeP;

bool is_loop(const NodeP& n) { return n->kind == Kind::Reduce || n->kind == Kind::SeqLoop || n->kind == Kind::ParLoop; }

// Loops nested in each node, the node included, computed once per node of the DAG (an
// explicit stack: the depth of the model is what is being measured, not the C++ stack's).
class Depths {
 public:
  int of(const NodeP& root) {
    std::vector<std::pair<const ast::Node*, bool>> stack{{root.get(), false}};
    while (!stack.empty()) {
      auto [n, kids_done] = stack.back();
      stack.pop_back();
      if (depth_.find(n)) continue;
      if (!kids_done) {
        stack.push_back({n, true});
        for (const NodeP& k : n->kids)
          if (k && !depth_.find(k.get())) stack.push_back({k.get(), false});
        continue;
      }
      int d = 0;
      for (const NodeP& k : n->kids)
        if (k) d = std::max(d, measured(k.get()));
      depth_.insert(n, d + (n->kind == Kind::Reduce || n->kind == Kind::SeqLoop || n->kind == Kind::ParLoop ? 1 : 0));
    }
    return measured(root.get());
  }

  // The loop at nesting level `level` (1: outermost) on a deepest path from n.
  const ast::Node* loop_at(const NodeP& n, int level) {
    NodeP at = n;
    for (int seen = 0;;) {
      if (is_loop(at) && ++seen == level) return at.get();
      NodeP deepest;
      for (const NodeP& k : at->kids)
        if (k && (!deepest || measured(k.get()) > measured(deepest.get()))) deepest = k;
      at = deepest;
    }
  }

 private:
  int measured(const ast::Node* n) { return *depth_.find(n); }  // of a node already measured
  NodeTable<int> depth_;
};

}  // namespace

void check_loop_nesting(const NormalModel& model) {
  Depths depths;
  auto check = [&](const NodeP& body, const std::string& name) {
    if (!body || depths.of(body) <= kMaxLoopNesting) return;
    const ast::Node* loop = depths.loop_at(body, kMaxLoopNesting + 1);
    throw CompileError{Diagnostic{Severity::Error, DiagKind::NestingTooDeep, loop->loc,
                                  name + ": loops nested more than " + std::to_string(kMaxLoopNesting) +
                                      " deep (counting the loops of the processes it calls); pamc refuses deeper nesting",
                                  {}}};
  };
  for (const NormalParameter& p : model.parameters) check(p.default_value, p.name);
  for (const NormalEquation& e : model.equations) check(e.body, e.name);
}

}  // namespace pamc
