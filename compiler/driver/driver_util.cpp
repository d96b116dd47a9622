#include "compiler/driver/driver_util.h"

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

}  // namespace pamc
