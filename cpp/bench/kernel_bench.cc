// Native timing of every registered kernel (the wasm SIMD kernel runs through SIMDe here, so
// absolute numbers say little about wasm; the ratios between kernels and widths are the point).
// The browser and Node benchmarks against the peers live in web/bench/.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "layernorm/layernorm.h"

namespace {

void BM_LayerNorm(benchmark::State& state, const layernorm::Kernel* kernel, bool bias) {
  const std::size_t rows = static_cast<std::size_t>(state.range(0));
  const std::size_t d = static_cast<std::size_t>(state.range(1));
  std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  std::vector<float> x(rows * d), y(rows * d), gamma(d), beta(d);
  for (float& v : x) v = normal(rng);
  for (float& v : gamma) v = 1.0f + 0.1f * normal(rng);
  for (float& v : beta) v = 0.1f * normal(rng);
  for (auto _ : state) {
    layernorm::LayerNorm(x.data(), y.data(), rows, d, gamma.data(), bias ? beta.data() : nullptr,
                         1e-5, kernel);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * rows * d * 8));
}

const int kRegistered = [] {
  for (std::size_t i = 0; i < layernorm::KernelCount(); ++i) {
    const layernorm::Kernel* k = &layernorm::Kernels()[i];
    for (bool bias : {true, false}) {
      benchmark::RegisterBenchmark((std::string(k->name) + (bias ? "/gain+bias" : "/gain")).c_str(),
                                   BM_LayerNorm, k, bias)
          ->Args({1, 768})
          ->Args({1024, 768})
          ->Args({1024, 1600})
          ->Args({1024, 4096});
    }
  }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
