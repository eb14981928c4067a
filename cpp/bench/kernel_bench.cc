// Native timing of every registered kernel (the wasm SIMD kernel runs through SIMDe here, so
// absolute numbers say little about wasm; the ratios between kernels, calls and widths are the
// point). Each kernel runs float32 LayerNorm (gain+bias, gain), LayerNorm writing mean/rstd,
// RMSNorm, the fused residual add (with sum_out) beside a separate add loop then LayerNorm, and
// float16/bfloat16 LayerNorm and RMSNorm. The browser and Node benchmarks against the peers live
// in web/bench/.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/half.h"
#include "layernorm/layernorm.h"

namespace {

using layernorm::DType;
using layernorm::Norm;

struct Setup {
  const char* name;
  Norm norm;
  DType dtype;
  bool beta;
  bool stats;     // mean (LayerNorm) and rstd written by the same pass
  bool residual;  // fused: h = x + r normalized, h written to sum_out
  bool add_loop;  // the same as two passes: h = x + r in a plain loop, then Normalize(h)
};

constexpr Setup kSetups[] = {
    {"gain+bias", Norm::kLayerNorm, DType::kFloat32, true, false, false, false},
    {"gain", Norm::kLayerNorm, DType::kFloat32, false, false, false, false},
    {"gain+bias+mean+rstd", Norm::kLayerNorm, DType::kFloat32, true, true, false, false},
    {"rmsnorm", Norm::kRmsNorm, DType::kFloat32, false, false, false, false},
    {"residual+sum_out", Norm::kLayerNorm, DType::kFloat32, true, false, true, false},
    {"add_loop+layernorm", Norm::kLayerNorm, DType::kFloat32, true, false, false, true},
    {"f16/gain+bias", Norm::kLayerNorm, DType::kFloat16, true, false, false, false},
    {"bf16/gain+bias", Norm::kLayerNorm, DType::kBFloat16, true, false, false, false},
    {"f16/rmsnorm", Norm::kRmsNorm, DType::kFloat16, false, false, false, false},
    {"bf16/rmsnorm", Norm::kRmsNorm, DType::kBFloat16, false, false, false, false},
};

// n values of the type, from N(0, 1) floats.
std::vector<unsigned char> Activations(DType t, std::size_t n, std::mt19937& rng) {
  std::normal_distribution<float> normal;
  std::vector<unsigned char> bytes(n * layernorm::ElementSize(t));
  for (std::size_t i = 0; i < n; ++i) {
    const float v = normal(rng);
    if (t == DType::kFloat32) {
      std::memcpy(&bytes[4 * i], &v, 4);
    } else {
      const std::uint16_t h =
          t == DType::kFloat16 ? layernorm::kernels::F32ToF16(v) : layernorm::kernels::F32ToBF16(v);
      std::memcpy(&bytes[2 * i], &h, 2);
    }
  }
  return bytes;
}

void BM_Call(benchmark::State& state, const layernorm::Kernel* kernel, Setup s) {
  const std::size_t rows = static_cast<std::size_t>(state.range(0));
  const std::size_t d = static_cast<std::size_t>(state.range(1));
  const std::size_t n = rows * d, esize = layernorm::ElementSize(s.dtype);
  std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  std::vector<unsigned char> x = Activations(s.dtype, n, rng), r = Activations(s.dtype, n, rng);
  std::vector<unsigned char> y(n * esize), sum(n * esize);
  std::vector<float> gamma(d), beta(d);
  std::vector<double> mean(rows), rstd(rows);
  for (float& v : gamma) v = 1.0f + 0.1f * normal(rng);
  for (float& v : beta) v = 0.1f * normal(rng);
  layernorm::NormCall c;
  c.norm = s.norm;
  c.dtype = s.dtype;
  c.rows = rows;
  c.d = d;
  c.x = x.data();
  c.y = y.data();
  c.gamma = gamma.data();
  if (s.beta) c.beta = beta.data();
  if (s.stats) {
    if (s.norm == Norm::kLayerNorm) c.mean = mean.data();
    c.rstd = rstd.data();
  }
  if (s.residual) {
    c.residual = r.data();
    c.sum_out = sum.data();
  }
  if (s.add_loop) c.x = sum.data();
  const float* xf = reinterpret_cast<const float*>(x.data());
  const float* rf = reinterpret_cast<const float*>(r.data());
  float* hf = reinterpret_cast<float*>(sum.data());
  for (auto _ : state) {
    if (s.add_loop) {
      for (std::size_t i = 0; i < n; ++i) hf[i] = xf[i] + rf[i];
    }
    if (layernorm::Normalize(c, kernel) != layernorm::Status::kOk) {
      state.SkipWithError("Normalize failed");
      break;
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  // Bytes the call moves: x and y; with the residual also r and h (written, for add_loop read
  // back too).
  const std::size_t streams = s.residual ? 4 : s.add_loop ? 5 : 2;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * esize * streams));
}

const int kRegistered = [] {
  for (std::size_t i = 0; i < layernorm::KernelCount(); ++i) {
    const layernorm::Kernel* k = &layernorm::Kernels()[i];
    for (const Setup& s : kSetups) {
      benchmark::RegisterBenchmark((std::string(k->name) + "/" + s.name).c_str(), BM_Call, k, s)
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
