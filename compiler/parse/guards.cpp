// The input guards (guards.h).
#include "compiler/parse/guards.h"

#include <pthread.h>

#include <algorithm>
#include <cstdint>
#include <exception>

#include "compiler/parse/build_ast.h"

namespace pamc::parse {

Loc loc_at_offset(const SourceFile& f, std::size_t offset) {
  auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), offset);
  std::size_t line = static_cast<std::size_t>(it - f.line_starts.begin());
  return Loc{&f, static_cast<std::uint32_t>(line),
             static_cast<std::uint32_t>(offset - f.line_starts[line - 1] + 1)};
}

std::size_t first_bad_byte(const std::string& s, std::string& why) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t n = s.size(), i = 0;
  while (i < n) {
    unsigned c = p[i];
    if (c == 0) {
      why = "NUL byte";
      return i;
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      why = "invalid UTF-8 byte";
      return i;
    }
    for (std::size_t k = 1; k < len; ++k) {
      if (i + k >= n) {
        why = "truncated UTF-8 sequence";
        return i;
      }
      unsigned b = p[i + k];
      if (b < (k == 1 ? lo : 0x80u) || b > (k == 1 ? hi : 0xBFu)) {
        why = "invalid UTF-8 sequence";
        return i;
      }
    }
    i += len;
  }
  return std::string::npos;
}

std::size_t first_too_deep(const std::string& s) {
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '"') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != '"' && s[j] != '\n' && s[j] != '\r') ++j;
      if (j < s.size() && s[j] == '"') i = j;
    } else if (c == '(' || c == '[' || c == '{') {
      if (++depth > kMaxBracketNesting) return i;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth > 0) --depth;
    }
  }
  return std::string::npos;
}

void run_with_stack(std::size_t bytes, const std::function<void()>& fn) {
  pthread_attr_t attr;
  pthread_t thread;
  bool ok = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, bytes) == 0;
  struct Ctx {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } ctx{&fn, nullptr};
  auto trampoline = [](void* arg) -> void* {
    auto* c = static_cast<Ctx*>(arg);
    try {
      (*c->fn)();
    } catch (...) {
      c->error = std::current_exception();
    }
    return nullptr;
  };
  if (ok && pthread_create(&thread, &attr, trampoline, &ctx) == 0) {
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attr);
    if (ctx.error) std::rethrow_exception(ctx.error);
    return;
  }
  if (ok) pthread_attr_destroy(&attr);
  fn();  // no thread: run here (the limits still hold, with less margin)
}

bool text_is_parseable(const SourceFile& file, Diagnostics& diags) {
  std::string why;
  std::size_t bad = first_bad_byte(file.text, why);
  if (bad != std::string::npos) {
    diags.error(loc_at_offset(file, bad), DiagKind::InvalidEncoding, "not UTF-8 text: " + why);
    return false;
  }
  std::size_t deep = first_too_deep(file.text);
  if (deep != std::string::npos) {
    diags.error(loc_at_offset(file, deep), DiagKind::NestingTooDeep,
                "brackets nested more than " + std::to_string(kMaxBracketNesting) + " deep");
    return false;
  }
  return true;
}

}  // namespace pamc::parse
