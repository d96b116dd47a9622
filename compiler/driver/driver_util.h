// What every subcommand shares: exit statuses, reporting diagnostics, -D values.
#pragma once
#include <cstdio>
#include <map>
#include <string>

#include "compiler/symbolic/ginac_headers.h"

#include "compiler/diag/diag.h"

namespace pamc {

constexpr int kOk = 0;          // success
constexpr int kModelError = 1;  // the model (or a value it was given) is wrong
constexpr int kUsageError = 2;  // the command line is wrong

// Every message the driver prints goes through these: a Diagnostic rendered on stderr.
// report(diags): kModelError if any is an error. report(e): kUsageError for a UsageError,
// else kModelError.
int report(const Diagnostics& diags);
int report(const CompileError& e);
// A note that does not stop the command: `FILE: note: message` (`pamc: note:` without a file).
void report_note(const std::string& file, const std::string& message);

// -D NAME=VALUE texts as exact numbers; prints "not a number" for each bad one and
// returns false if there was any.
bool parse_bindings(const std::map<std::string, std::string>& raw, std::map<std::string, GiNaC::numeric>& out);

// An output file written so that an error never leaves a partial file behind:
// - a regular (or new) file: into a temporary next to it, created with a unique name and
//   O_EXCL (mkstemp: a planted symlink cannot redirect it), renamed over the target at
//   commit(), removed on failure;
// - a symlink: the same for the file it points to (written through the link, not replaced);
// - something else (/dev/null, /dev/full, a FIFO): written in place, never replaced, and a
//   write error (ENOSPC on /dev/full) is a failure.
class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();
  bool open(const std::string& path);
  std::FILE* stream() const { return f_; }
  bool commit();  // flush, close, rename into place; false on any error (nothing left behind)

 private:
  std::string target_, tmp_;
  std::FILE* f_ = nullptr;
};

// Writes `text` to `path` through an OutputFile. False if it could not.
bool write_file_atomically(const std::string& path, const std::string& text);

}  // namespace pamc
