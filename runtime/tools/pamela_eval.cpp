// pamela_eval: evaluates models through the embedding library's compiled evaluator, for
// scripts (tests/crosscheck). Reads a job file (or stdin with "-"):
//   model<TAB>PATH[<TAB>INCLUDE_DIR]   (tabs, so paths may hold spaces)
//   point V1 V2 ...          (every parameter, in declaration order)
//   ...
// and prints one JSON object per model and line:
//   {"model": PATH, "equations": ["T_main", ...], "values": [[v, ...], ...], "valid": [true, ...]}
// (a row per point, a value per top-level scalar equation; null for NaN/inf; valid: the
// closed form's assumptions hold at that point), or
//   {"model": PATH, "error": "rendered diagnostics"}
#include <pamela/pamela.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

struct Job {
  std::string path, include;
  std::vector<std::vector<double>> points;
};

void run(const Job& job) {
  std::ostringstream out;
  const std::string head = "{\"model\": " + json_string(job.path);
  out << head;
  try {
    pamela::Options opts;
    if (!job.include.empty()) opts.include_dirs.push_back(job.include);
    pamela::Model model = pamela::Model::from_file(job.path, opts);
    std::vector<pamela::CostFunction> fs;
    out << ", \"equations\": [";
    for (const std::string& n : model.top_level_equations()) {
      out << (fs.empty() ? "" : ", ") << json_string(n);
      fs.push_back(model.function(n));
    }
    out << "], \"values\": [";
    for (std::size_t p = 0; p < job.points.size(); ++p) {
      out << (p ? ", " : "") << "[";
      for (std::size_t k = 0; k < fs.size(); ++k) out << (k ? ", " : "") << json_number(fs[k](job.points[p]));
      out << "]";
    }
    out << "], \"valid\": [";
    for (std::size_t p = 0; p < job.points.size(); ++p)
      out << (p ? ", " : "") << (model.violated_assumptions(job.points[p]).empty() ? "true" : "false");
    out << "]}";
  } catch (const std::exception& e) {  // pamela::Error included: a line of its own, valid JSON
    out.str("");
    out << head << ", \"error\": " << json_string(e.what()) << "}";
  }
  std::cout << out.str() << "\n";
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
