// The shape of a normalized tree: see tree_shape.h.
#include "compiler/passes/tree_shape.h"

#include <algorithm>
#include <functional>
#include <string>

namespace pamc {

using ast::NodeP;

// The shape of a normalized tree: its nodes' kinds, operators, names and literals' texts,
// not where they stand in the source. Hashed as a tree, at most `budget` nodes (a DAG of
// shared definitions whose paths outnumber that is lowered as it is).
std::size_t shape_hash(const ast::Node* n, long& budget) {
  if (!n) return 0x51ed27u;
  if (--budget < 0) return 0;
  std::size_t h = static_cast<std::size_t>(n->kind) * 0x9e3779b97f4a7c15ULL ^ static_cast<std::size_t>(n->op) * 0xc2b2ae3dULL;
  h ^= std::hash<std::string>()(n->name) + 0x27d4eb2fULL + (h << 6) + (h >> 2);
  for (const NodeP& k : n->kids) h ^= shape_hash(k.get(), budget) + 0x9e3779b9ULL + (h << 6) + (h >> 2);
  return h;
}

// Are the trees a and b of one shape, node for node, walked as trees (at most `budget`
// nodes: a DAG whose paths outnumber that is left to lowering)? `partner` gets each node of
// a with the node of b in its place.
bool same_shape(const ast::Node* a, const ast::Node* b, Partners& partner, long& budget) {
  if (!a || !b) return a == b;
  if (--budget < 0) return false;
  if (a->kind != b->kind || a->op != b->op || a->name != b->name || a->kids.size() != b->kids.size())
    return false;
  partner.emplace_back(a, b);
  for (std::size_t k = 0; k < a->kids.size(); ++k)
    if (!same_shape(a->kids[k].get(), b->kids[k].get(), partner, budget)) return false;
  return true;
}

// Sorted by a's node; whether each node of a stands in one place of b (a shared subtree of
// a may stand for two of b, whose records would then need two places).
bool one_partner_each(Partners& partner) {
  std::sort(partner.begin(), partner.end());
  for (std::size_t k = 1; k < partner.size(); ++k)
    if (partner[k].first == partner[k - 1].first && partner[k].second != partner[k - 1].second) return false;
  return true;
}
const ast::Node* partner_of(const Partners& partner, const ast::Node* a) {
  auto it = std::lower_bound(partner.begin(), partner.end(), std::make_pair(a, static_cast<const ast::Node*>(nullptr)));
  return it != partner.end() && it->first == a ? it->second : nullptr;
}

}  // namespace pamc
