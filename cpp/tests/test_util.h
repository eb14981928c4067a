// Shared helpers for the C++ tests: seeded generators for sweeps, and the error metric the
// contract is stated in. The hard cases themselves come from tests/data/ (hard_cases.h).
#ifndef LAYERNORM_TESTS_TEST_UTIL_H_
#define LAYERNORM_TESTS_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "layernorm/layernorm.h"

namespace layernorm {

// The float32 LayerNorm's statistics and stages in the one-line form the tests use.
inline Status LayerNormStats(const float* x, std::size_t rows, std::size_t d, double eps,
                             RowStats* stats, const Kernel* kernel = nullptr) {
  NormCall c;
  c.rows = rows;
  c.d = d;
  c.x = x;
  c.eps = eps;
  return Statistics(c, stats, kernel);
}

struct LayerNormRowStages {
  float* centered;
  float* normalized;
  float* scaled;
  float* output;
};

inline Status LayerNormStages(const float* x, std::size_t d, const float* gamma, const float* beta,
                              double eps, RowStats* stats, const LayerNormRowStages& out) {
  NormCall c;
  c.rows = 1;
  c.d = d;
  c.x = x;
  c.gamma = gamma;
  c.beta = beta;
  c.eps = eps;
  std::vector<float> input(d);
  return Stages(c, stats,
                {input.data(), nullptr, out.centered, out.normalized, out.scaled, out.output});
}

}  // namespace layernorm

namespace layernorm::testing {

struct Case {
  std::string name;
  std::size_t rows;
  std::size_t d;
  double eps;
  std::vector<float> x;
  std::vector<float> gamma;  // empty: none
  std::vector<float> beta;   // empty: none
};

// The float32 contract in scaled ULP (ScaledUlpError), as web/docs/numerics.md derives it: the
// fast path's roundings, each up to 2^-24 of gamma * x^ and so up to a whole unit where
// max(|gamma * x^|, |beta|) sits just under a power of two, add up to 6 + 2^-7 units (6.26 for
// d > 2^25).
constexpr double kContractScaledUlp = 6.5;

// The float32 spacing at magnitude s: 2^(floor(log2 s) - 23), at least 2^-149.
inline double Ulp32(double s) {
  if (!(s >= 0x1p-126)) return 0x1p-149;
  int e;
  std::frexp(s, &e);  // s = m * 2^e, m in [0.5, 1)
  return std::ldexp(1.0, e - 1 - 23);
}

// Error of y against the reference in units of the float32 spacing of the larger of |gamma*xhat|
// and |beta| (so outputs near zero are judged fairly). NaN/Inf agreement is checked separately.
inline double ScaledUlpError(float y, float ref, float beta) {
  const double b = beta;
  const double s = std::max(std::fabs(static_cast<double>(ref) - b), std::fabs(b));
  return std::fabs(static_cast<double>(y) - ref) / Ulp32(s);
}

inline std::vector<float> Gaussian(std::mt19937_64& rng, std::size_t n, double mean,
                                   double stddev) {
  std::normal_distribution<double> dist(mean, stddev);
  std::vector<float> v(n);
  for (float& f : v) f = static_cast<float>(dist(rng));
  return v;
}

inline std::vector<float> Params(std::mt19937_64& rng, std::size_t d, double mean, double spread) {
  return Gaussian(rng, d, mean, spread);
}

// GPT-2-like residual activations: N(0,1) with a few massive channels.
inline std::vector<float> Gpt2Like(std::mt19937_64& rng, std::size_t rows, std::size_t d) {
  std::vector<float> x = Gaussian(rng, rows * d, 0.0, 1.0);
  std::uniform_real_distribution<double> big(100.0, 3000.0), neg(-1000.0, -100.0);
  for (std::size_t r = 0; r < rows; ++r) {
    if (d > 447) x[r * d + 447] = static_cast<float>(big(rng));
    if (d > 138) x[r * d + 138] = static_cast<float>(neg(rng));
    if (d > 378) x[r * d + 378] = static_cast<float>(neg(rng));
  }
  return x;
}

inline const float* OrNull(const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); }

inline bool SameBits(float a, float b) {
  std::uint32_t ua, ub;
  std::memcpy(&ua, &a, 4);
  std::memcpy(&ub, &b, 4);
  return ua == ub;
}

}  // namespace layernorm::testing

#endif  // LAYERNORM_TESTS_TEST_UTIL_H_
