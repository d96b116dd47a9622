// pamela_eval: evaluates models through the embedding library's compiled evaluator, for
// scripts (tests/crosscheck). Reads a job file (or stdin with "-"):
//   model<TAB>PATH[<TAB>INCLUDE_DIR]   (tabs, so paths may hold spaces)
//   point V1 V2 ...          (every parameter, in declaration order)
//   ...
// and prints one JSON object per model and line:
//   {"model": PATH, "equations": ["T_main", ...], "values": [[v, ...], ...], "valid": [true, ...]}
// (a row per point, a value per top-level scalar equation; null where the model has no value
// (NaN), "inf" or "-inf" for an infinity, so that a script tells the two apart; valid: the
// closed form's assumptions hold at that point), or
//   {"model": PATH, "error": "rendered diagnostics"}
#include <pamela/pamela.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "compiler/support/json.h"

namespace {

using pamc::Json;

// A string for a line of its own: control characters other than newline become spaces.
Json one_line(std::string s) {
  for (char& c : s)
    if (c != '\n' && static_cast<unsigned char>(c) < 0x20) c = ' ';
  return s;
}

// Every digit a double has (scripts compare them); NaN is null, an infinity a string.
Json number(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return pamc::json_number_text(buf);
}

struct Job {
  std::string path, include;
  std::vector<std::vector<double>> points;
};

void run(const Job& job) {
  Json doc = {{"model", one_line(job.path)}};
  try {
    pamela::Options opts;
    if (!job.include.empty()) opts.include_dirs.push_back(job.include);
    pamela::Model model = pamela::Model::from_file(job.path, opts);
    std::vector<pamela::CostFunction> fs;
    Json equations = Json::array(), values = Json::array(), valid = Json::array();
    for (const std::string& n : model.top_level_equations()) {
      equations.push_back(one_line(n));
      fs.push_back(model.function(n));
    }
    for (const std::vector<double>& point : job.points) {
      Json row = Json::array();
      for (const pamela::CostFunction& f : fs) {
        try {
          row.push_back(number(f(point)));
        } catch (const pamela::WorkLimit&) {  // refused, not computed: no value to compare
          row.push_back(Json("work-limit"));
        }
      }
      values.push_back(std::move(row));
    }
    for (const std::vector<double>& point : job.points)  // null for a point that leaves defaults out
      valid.push_back(point.size() == model.parameters().size() ? Json(model.violated_assumptions(point).empty())
                                                                 : Json(nullptr));
    doc["equations"] = std::move(equations);
    doc["values"] = std::move(values);
    doc["valid"] = std::move(valid);
  } catch (const std::exception& e) {  // pamela::Error included: a line of its own, valid JSON
    doc = {{"model", one_line(job.path)}, {"error", one_line(e.what())}};
  }
  std::cout << pamc::json_text(doc) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: pamela_eval JOBFILE|-\n";
    return 2;
  }
  std::ifstream file;
  std::istream* in = &std::cin;
  if (std::string(argv[1]) != "-") {
    file.open(argv[1]);
    if (!file) {
      std::cerr << "pamela_eval: cannot read " << argv[1] << "\n";
      return 2;
    }
    in = &file;
  }
  Job job;
  bool have = false;
  std::string line;
  while (std::getline(*in, line)) {
    std::istringstream ls(line);
    std::string word;
    ls >> word;
    if (word == "model") {
      if (have) run(job);
      job = Job{};
      have = true;
      std::string rest = line.size() > 6 ? line.substr(6) : "";
      auto tab = rest.find('\t');
      job.path = rest.substr(0, tab);
      if (tab != std::string::npos) job.include = rest.substr(tab + 1);
    } else if (word == "point") {
      std::vector<double> p;
      double v;
      while (ls >> v) p.push_back(v);
      job.points.push_back(p);
    }
  }
  if (have) run(job);
  return 0;
}
