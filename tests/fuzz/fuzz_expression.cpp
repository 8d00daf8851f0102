// libFuzzer target for the calculator's expression language: any input must evaluate or raise
// ExpressionError / AlgebraError. Any other exception, a crash, a sanitizer report, a leak or
// a hang is a bug (tests/fuzz/run_fuzz.sh runs it under ASan and UBSan).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "expression.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tessel::rt::Value v = tessel::rt::evaluate(text);
    const std::string s = tessel::rt::to_string(v);
    // Evaluate a few offsets too: the layout function must not overflow silently or trap.
    if (const auto* l = std::get_if<tessel::rt::Layout>(&v)) {
      const int64_t n = l->size();
      for (int64_t i = 0; i < n && i < 64; ++i) (void)(*l)(i);
      (void)l->cosize();
    } else if (const auto* sl = std::get_if<tessel::rt::SwizzledLayout>(&v)) {
      const int64_t n = sl->size();
      for (int64_t i = 0; i < n && i < 64; ++i) (void)(*sl)(i);
      if (n <= 4096) (void)sl->cosize();
    }
  } catch (const tessel::rt::ExpressionError&) {
  } catch (const tessel::rt::AlgebraError&) {
  }
  return 0;
}
