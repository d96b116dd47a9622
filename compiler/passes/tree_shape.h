// The shape of a normalized tree, for lowering an equation once per shape: a hash over the
// nodes' kinds, operators, names and literal texts (not their source positions), and a
// node-for-node comparison that pairs each node of one tree with its place in the other.
#pragma once

#include "compiler/ast/ast.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace pamc {

// Equations kept per shape hash to compare a later one with: a few, so that equations of
// one shape that cannot be replayed do not make every later one compare with all.
constexpr std::size_t kShapesPerHash = 4;
constexpr long kShapeNodes = 10'000;  // nodes of a tree hashed or compared, at most

using Partners = std::vector<std::pair<const ast::Node*, const ast::Node*>>;

// Hashed as a tree, at most `budget` nodes (a DAG of shared definitions whose paths
// outnumber that is lowered as it is).
std::size_t shape_hash(const ast::Node* n, long& budget);
// Are the trees a and b of one shape, node for node (at most `budget` nodes)? `partner`
// gets each node of a with the node of b in its place.
bool same_shape(const ast::Node* a, const ast::Node* b, Partners& partner, long& budget);
// Sorts `partner` by a's node; whether each node of a stands in one place of b (a shared
// subtree of a may stand for two of b, whose records would then need two places).
bool one_partner_each(Partners& partner);
// The node of b in a's place, or nullptr.
const ast::Node* partner_of(const Partners& partner, const ast::Node* a);

}  // namespace pamc
