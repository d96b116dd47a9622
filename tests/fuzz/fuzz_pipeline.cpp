// libFuzzer target over the whole pipeline: the input bytes are a model file's text, run
// through parse -> check -> normalize -> lower -> simplify -> eval, as `pamc eval` runs them.
// Any diagnostic is a normal outcome; what the fuzzer hunts is a crash, a sanitizer report,
// an exception other than CompileError (the CLI's "internal error", exit 3), or an input
// that runs past libFuzzer's -timeout.
//
// Work budget, so one input stays well under a second: inputs above 4 KiB are skipped,
// parameters without a default are bound to 2 (where that breaks a declared bound, the
// located error is a valid outcome), and eval unrolls at most 10^5 reduction terms
// (EvalRequest::max_terms).
// As in the CLI (compiler/driver/main.cpp), the stages run on a thread with a large stack.
// Build and run: scripts/fuzz.sh (docs/testing.md).
#include <pthread.h>

#include <cctype>
#include <cstddef>
#include <cstring>
#include <random>
#include <vector>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "compiler/evaluate/evaluate_model.h"
#include "compiler/passes/pipeline.h"

namespace {

constexpr std::size_t kMaxInput = 4096;
constexpr double kMaxTerms = 1e5;
constexpr std::size_t kStackBytes = std::size_t(256) << 20;

void run_one(const std::string& text) {
  pamc::Diagnostics diags;
  pamc::LoadOptions load;
  auto comp = pamc::compile_text("fuzz.pam", text, load, pamc::Stage::Simplified, diags);
  if (!comp) return;
  pamc::EvalRequest request;
  request.max_terms = kMaxTerms;
  for (const pamc::CostParameter& p : comp->model.parameters)
    if (!p.default_value) request.bindings[p.name] = GiNaC::numeric(2);
  try {
    pamc::evaluate_model(comp->model, request);
  } catch (const pamc::CompileError&) {
    // a located error: a valid outcome
  }
}

struct Job {
  const std::string* text;
};

extern "C" void* job_thread(void* p) {
  const Job* job = static_cast<const Job*>(p);
  try {
    run_one(*job->text);
  } catch (const pamc::CompileError&) {
  } catch (const std::bad_alloc&) {
    // the CLI's "out of memory" (exit 1); libFuzzer's -rss_limit_mb reports real runaways
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    std::abort();  // what the CLI reports as "internal error" (exit 3): a finding
  }
  return nullptr;
}

}  // namespace

// Structure-aware mutations: libFuzzer's own change bytes, which rarely build what makes a
// stage run away. One time in two, one of these edits the model text instead:
//   nesting    k loops (or k brackets) around a process body or an expression
//   doubling   a chain of definitions that each use the previous one twice
//              (c1 = c0 * c0 + c0, p1 = p0 || p0, ...), and a process that uses its end
//   literals   a long vector literal, a number of many digits
//   constants  a number replaced by one at the limits (1e400, 10 ^ 200000, 2 ^ 64, ...)
// The result is cut to MaxSize; the text stays mostly valid, so the deep stages see it.
namespace {

std::string repeat(const std::string& s, int k) {
  std::string out;
  for (int i = 0; i < k; ++i) out += s;
  return out;
}

// Positions just after `token` in text (the starts of bodies and values).
std::vector<std::size_t> after(const std::string& text, const std::string& token) {
  std::vector<std::size_t> at;
  for (std::size_t p = text.find(token); p != std::string::npos; p = text.find(token, p + 1)) at.push_back(p + token.size());
  return at;
}

std::string mutate_structure(std::string text, std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto count = [&] { return 1 << pick(11); };  // 1 .. 1024: sizes around the limits
  static const char* kHuge[] = {"1e400", "(10 ^ 200000)", "(2 ^ 64)", "1e-400", "(10 ^ 10 ^ 10)", "99999999999999999999",
                                "(3 ^ 600000)", "(1 / 3)", "0", "-1"};
  switch (pick(6)) {
    case 0: {  // loops around a process body
      auto at = after(text, "process ");
      std::size_t eq = at.empty() ? std::string::npos : text.find('=', at[pick(static_cast<int>(at.size()))]);
      if (eq == std::string::npos) return text + "process main = " + repeat("par (i = 1, 2) ", count()) + "delay(1)\n";
      const char* loops[] = {"par (i = 1, 2) ", "seq (i = 1, 2) ", "par (j = 0, N - 1) "};
      return text.insert(eq + 1, " " + repeat(loops[pick(3)], count()));
    }
    case 1: {  // brackets or a reduction around a numeric value
      auto at = after(text, "= ");
      std::size_t p = at.empty() ? text.size() : at[pick(static_cast<int>(at.size()))];
      int k = count();
      std::size_t end = text.find('\n', p);
      if (end == std::string::npos) end = text.size();
      if (pick(2)) return text.substr(0, p) + repeat("(", k) + text.substr(p, end - p) + repeat(")", k) + text.substr(end);
      return text.substr(0, p) + repeat("sum (i = 1, 2) { ", k) + text.substr(p, end - p) + repeat(" }", k) + text.substr(end);
    }
    case 2: {  // doubling numeric definitions
      int k = 1 + pick(40);
      std::string chain = "\nnumeric d0 = " + std::string(kHuge[pick(10)]) + " + 3\n";
      const char* steps[] = {"d{p} * d{p} + d{p}", "d{p} / 3 + d{p} * d{p} / 5", "sum (i = 1, d{p}) { d{p} + 1 }",
                             "d{p} mod 7 + d{p} * d{p} * d{p}", "max(d{p}, d{p} * d{p})"};
      std::string step = steps[pick(5)];
      for (int i = 1; i <= k; ++i) {
        std::string line = step;
        for (std::size_t q; (q = line.find("{p}")) != std::string::npos;) line.replace(q, 3, std::to_string(i - 1));
        chain += "numeric d" + std::to_string(i) + " = " + line + "\n";
      }
      return text + chain + "process dmain = delay(d" + std::to_string(k) + ")\n";
    }
    case 3: {  // doubling process definitions
      int k = 1 + pick(30);
      const char* ops[] = {" || ", " ; "};
      std::string op = ops[pick(2)];
      std::string chain = "\nprocess q0 = delay(1)\n";
      for (int i = 1; i <= k; ++i)
        chain += "process q" + std::to_string(i) + " = q" + std::to_string(i - 1) + op + "q" + std::to_string(i - 1) + "\n";
      return text + chain + "process qmain = q" + std::to_string(k) + "\n";
    }
    case 4: {  // long literals
      int k = count() * (1 + pick(4));
      if (pick(2)) return text + "\nnumeric lv = [" + repeat("1, ", k) + "1]\nprocess lmain = delay(max(lv))\n";
      return text + "\nnumeric ln = " + repeat("9", 1 + pick(12000)) + "\nprocess lmain = delay(ln)\n";
    }
    default: {  // a number at the limits
      std::vector<std::size_t> digits;
      for (std::size_t p = 0; p < text.size(); ++p)
        if (std::isdigit(static_cast<unsigned char>(text[p])) && (p == 0 || !std::isalnum(static_cast<unsigned char>(text[p - 1])))) digits.push_back(p);
      if (digits.empty()) return text + "\nnumeric h = " + kHuge[pick(10)] + "\n";
      std::size_t p = digits[pick(static_cast<int>(digits.size()))], e = p;
      while (e < text.size() && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '.')) ++e;
      return text.replace(p, e - p, kHuge[pick(10)]);
    }
  }
}

}  // namespace

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  std::mt19937 rng(seed);
  if (rng() % 2) return LLVMFuzzerMutate(data, size, max_size);
  std::string text = mutate_structure(std::string(reinterpret_cast<const char*>(data), size), rng);
  if (text.size() > max_size) text.resize(max_size);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > kMaxInput) return -1;  // not added to the corpus
  std::string text(reinterpret_cast<const char*>(data), size);
  Job job{&text};
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, kStackBytes) != 0 ||
      pthread_create(&thread, &attr, job_thread, &job) != 0)
    std::abort();
  pthread_attr_destroy(&attr);
  pthread_join(thread, nullptr);
  return 0;
}
