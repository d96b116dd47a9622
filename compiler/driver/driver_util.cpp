#include "compiler/driver/driver_util.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>
#include <iostream>

#include "compiler/evaluate/evaluate_model.h"

namespace pamc {

int report(const Diagnostics& diags) {
  diags.render(std::cerr);
  return diags.has_errors() ? kModelError : kOk;
}

int report(const CompileError& e) {
  render_diagnostic(std::cerr, e.diag);
  return e.diag.kind == DiagKind::UsageError ? kUsageError : kModelError;
}

void report_note(const std::string& file, const std::string& message) {
  render_diagnostic(std::cerr, Diagnostic{Severity::Note, DiagKind::Note, Loc{}, message, file});
}

bool parse_bindings(const std::map<std::string, std::string>& raw, std::map<std::string, GiNaC::numeric>& out) {
  bool ok = true;
  for (const auto& [name, text] : raw) {
    GiNaC::numeric v;
    if (!parse_binding_value(text, v)) {
      report(usage_error("-D " + name + "=" + text + ": not a number"));
      ok = false;
      continue;
    }
    out[name] = v;
  }
  return ok;
}

OutputFile::~OutputFile() {
  if (f_) std::fclose(f_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

bool OutputFile::open(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  target_ = path;
  // Through a symlink to the file it names (relative links resolve from the link's folder).
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    fs::path resolved = fs::weakly_canonical(fs::path(path), ec);
    if (ec) return false;
    target_ = resolved.string();
  }
  auto st = fs::status(target_, ec);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st)) {
    if (fs::is_directory(st)) return false;
    f_ = std::fopen(target_.c_str(), "wb");  // a device or FIFO: written in place
    return f_ != nullptr;
  }
  fs::path dir = fs::path(target_).parent_path();
  std::string pattern = (dir.empty() ? fs::path(".") : dir).string() + "/." +
                        fs::path(target_).filename().string() + ".pamc-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0) return false;
  tmp_ = name.data();
  // mkstemp makes 0600; an output file gets the usual 0666 less the umask.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  f_ = ::fdopen(fd, "wb");
  if (!f_) {
    ::close(fd);
    return false;
  }
  return true;
}

bool OutputFile::commit() {
  if (!f_) return false;
  bool ok = std::fflush(f_) == 0 && !std::ferror(f_);
  ok = std::fclose(f_) == 0 && ok;
  f_ = nullptr;
  if (tmp_.empty()) return ok;
  if (ok && std::rename(tmp_.c_str(), target_.c_str()) == 0) {
    tmp_.clear();
    return true;
  }
  ::unlink(tmp_.c_str());
  tmp_.clear();
  return false;
}

bool write_file_atomically(const std::string& path, const std::string& text) {
  OutputFile out;
  if (!out.open(path)) return false;
  if (std::fwrite(text.data(), 1, text.size(), out.stream()) != text.size()) return false;
  return out.commit();
}

}  // namespace pamc
