// The per-node table of lowering and the nesting check (compiler/passes/node_table.h): every
// key inserted is found with its value after the table has grown many times, keys never
// inserted are not found, whether they fall among the inserted ones or far away.
#include <doctest/doctest.h>

#include "compiler/passes/node_table.h"

#include <memory>
#include <string>
#include <vector>

TEST_CASE("node table: what was stored is found after growing, nothing else is") {
  // Keys as the passes have them: addresses of heap objects, allocated one after another.
  std::vector<std::unique_ptr<std::string>> nodes;
  for (int k = 0; k < 20000; ++k) nodes.push_back(std::make_unique<std::string>(std::to_string(k)));
  pamc::NodeTable<int> table;
  CHECK(table.find(nodes[0].get()) == nullptr);  // empty
  for (int k = 0; k < 20000; k += 2) table.insert(nodes[k].get(), k);
  for (int k = 0; k < 20000; ++k) {
    const int* v = table.find(nodes[k].get());
    if (k % 2 == 0) {
      REQUIRE(v != nullptr);
      CHECK(*v == k);
    } else {
      CHECK(v == nullptr);
    }
  }
  int elsewhere = 0;
  CHECK(table.find(&elsewhere) == nullptr);
}

TEST_CASE("node table: a value is stored whole and can be changed through find") {
  int a = 0, b = 0;
  pamc::NodeTable<std::vector<std::string>> table;
  table.insert(&a, {"i", "j"});
  table.insert(&b, {});
  REQUIRE(table.find(&a) != nullptr);
  CHECK(*table.find(&a) == std::vector<std::string>{"i", "j"});
  CHECK(table.find(&b)->empty());
  table.find(&b)->push_back("k");
  CHECK(*table.find(&b) == std::vector<std::string>{"k"});
}
