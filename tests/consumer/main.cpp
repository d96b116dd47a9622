// consumer MODEL.pam NAME=VALUE...: prints every top-level equation, then evaluates the
// first one a million times through the compiled evaluator (a smoke test of speed).
#include <pamela/pamela.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: consumer MODEL.pam [NAME=VALUE]...\n";
    return 2;
  }
  try {
    pamela::Model model = pamela::Model::from_file(argv[1]);
    std::map<std::string, double> args;
    for (int i = 2; i < argc; ++i) {
      std::string a = argv[i];
      auto eq = a.find('=');
      args[a.substr(0, eq)] = std::strtod(a.c_str() + eq + 1, nullptr);
    }
    for (const auto& [name, value] : model.evaluate(args)) std::cout << name << " = " << value << "\n";
    pamela::CostFunction f = model.function(model.top_level_equations().at(0));
    std::vector<double> point;
    for (const std::string& p : f.parameters()) point.push_back(args.at(p));
    double sum = 0;
    auto start = std::chrono::steady_clock::now();
    const double first = point[0];
    for (int i = 0; i < 1000000; ++i) {
      point[0] = first + i % 64;  // integer values: P is a loop bound in most models
      sum += f(point);
    }
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / 1e6;
    std::cerr << f.name() << ": " << ns << " ns per evaluation (checksum " << sum << ")\n";
  } catch (const pamela::Error& e) {
    std::cerr << e.what() << "\n";
    for (const pamela::Diagnostic& d : e.diagnostics())
      std::cerr << "  [" << d.kind << "] " << d.file << " line " << d.line << " column " << d.column << "\n";
    return 1;
  }
  return 0;
}
