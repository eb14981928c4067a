// Shared helpers for the C++ tests: seeded case generators for the hard rows of the numerics
// contract, and the error metric the contract is stated in.
#ifndef LAYERNORM_TESTS_TEST_UTIL_H_
#define LAYERNORM_TESTS_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "layernorm/layernorm.h"

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
  const double s = std::fabs(static_cast<double>(ref) - b) + std::fabs(b);
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

// The hard rows named in the numerics contract, each with and without bias.
inline std::vector<Case> HardCases(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Case> cases;
  auto add = [&](std::string name, std::size_t rows, std::size_t d, double eps,
                 std::vector<float> x) {
    std::vector<float> gamma = Params(rng, d, 1.0, 0.2), beta = Params(rng, d, 0.0, 0.1);
    cases.push_back({name, rows, d, eps, x, gamma, beta});
    cases.push_back({name + "-nobias", rows, d, eps, x, gamma, {}});
  };
  add("gpt2-act", 16, 768, 1e-5, Gpt2Like(rng, 16, 768));
  add("offset-1e4", 8, 768, 1e-5, Gaussian(rng, 8 * 768, 1e4, 1.0));
  add("offset-1e6", 8, 768, 1e-5, Gaussian(rng, 8 * 768, 1e6, 0.5));
  add("tinyvar", 8, 768, 1e-5, Gaussian(rng, 8 * 768, 3.0, 1e-3));
  {
    std::vector<float> x(4 * 768);
    const float values[] = {1e6f, -3.5f, 0.0f, 7.25e-3f};
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = values[i / 768];
    add("constant", 4, 768, 1e-5, x);
    add("constant-eps0", 4, 768, 0.0, x);
  }
  add("huge-1e19", 4, 768, 1e-5, Gaussian(rng, 4 * 768, 0.0, 1e19));
  add("huge-1e30", 4, 768, 1e-5, Gaussian(rng, 4 * 768, 3e30, 1e30));
  add("huge-3e38", 2, 64, 1e-5, Gaussian(rng, 2 * 64, 0.0, 1e38));
  add("tiny-1e-40", 4, 768, 1e-5, Gaussian(rng, 4 * 768, 0.0, 1e-40));
  add("tiny-1e-40-eps0", 4, 768, 0.0, Gaussian(rng, 4 * 768, 2e-40, 1e-40));
  add("tiny-1e-20-eps0", 4, 768, 0.0, Gaussian(rng, 4 * 768, 0.0, 1e-20));
  add("eps-big", 4, 768, 0.1, Gaussian(rng, 4 * 768, 0.0, 0.3));
  for (std::size_t d : {1, 2, 3, 5, 7, 33, 1025}) {
    add("dim-" + std::to_string(d), 5, d, 1e-5, Gaussian(rng, 5 * d, 0.5, 2.0));
  }
  {
    std::vector<float> x = Gaussian(rng, 6 * 768, 0.0, 1.0);
    x[1 * 768 + 5] = std::numeric_limits<float>::quiet_NaN();
    x[3 * 768 + 700] = std::numeric_limits<float>::infinity();
    x[4 * 768 + 0] = -std::numeric_limits<float>::infinity();
    add("nonfinite", 6, 768, 1e-5, x);
  }
  return cases;
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
