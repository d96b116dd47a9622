#include "compiler/driver/driver_util.h"

#include <cstdio>
#include <fstream>
#include <iostream>

#include "compiler/passes/evaluate_model.h"

namespace pamc {

int report(const Diagnostics& diags) {
  diags.render(std::cerr);
  return diags.has_errors() ? kModelError : kOk;
}

int report(const CompileError& e) {
  render_diagnostic(std::cerr, e.diag);
  return kModelError;
}

bool parse_bindings(const std::map<std::string, std::string>& raw, std::map<std::string, GiNaC::numeric>& out) {
  bool ok = true;
  for (const auto& [name, text] : raw) {
    GiNaC::numeric v;
    if (!parse_binding_value(text, v)) {
      std::cerr << "pamc: -D " << name << "=" << text << ": not a number\n";
      ok = false;
      continue;
    }
    out[name] = v;
  }
  return ok;
}

bool write_file_atomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".pamc-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out << text;
    if (!out.flush()) {
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace pamc
