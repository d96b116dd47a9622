// pamc hybrid: seed 001's hybrid statistical/empirical study from a CSV of measured cpi,
// cpi_pipeline and memory hits (docs/cli.md, "hybrid"; the method is
// compiler/analysis/predictability.h, docs/predictability.md).
#pragma once
#include <cmath>
#include <string>

namespace pamc {

struct HybridCommand {
  std::string data;       // the CSV
  double alpha = 0.05;    // significance level of every test
  double min_size = -HUGE_VAL;  // level 2 leaves out smaller problem sizes (steady state)
  bool json = false;
};

int cmd_hybrid(const HybridCommand& c);

}  // namespace pamc
