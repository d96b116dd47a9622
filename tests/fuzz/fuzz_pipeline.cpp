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

#include <cstddef>
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
