// pamc fit: least-squares calibration of a model's unknown constants from a CSV of
// measurements (docs/cli.md, "fit"). The fitting itself is compiler/analysis/fit.h.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "compiler/check/check.h"

namespace pamc {

struct FitCommand {
  std::string file;
  LoadOptions load;
  std::map<std::string, std::string> bindings;  // -D: fixed for every row
  std::vector<std::string> targets;             // at most one
  std::string data;                             // --data CSV
  std::vector<std::string> fit;                 // --fit names
  std::map<std::string, std::string> start;     // --start NAME=VALUE
  std::string measured;                         // --measured COLUMN
  bool relative = false;
  int max_iterations = 200;
  bool json = false;
  std::string output;  // -o: the cost model with the fitted values as defaults
};

int cmd_fit(const FitCommand& c);

}  // namespace pamc
