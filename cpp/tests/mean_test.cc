// The element nearest the mean, where the mean's own rounding decides the output: rows of one L
// and pairs (L - s, L + s), with one L + s a float32 step higher. The mean is L + delta / d, every
// element but L is about s from it, and L is delta / d from it,
// far below the spacing of L: one double for the mean (off by 2^-53 of L) cost that element 706
// units at d = 100,001 on the unshifted path, and 254 on the shifted one. The answers are worked
// out here in closed form (a few units of 2^-53 from exact), independent of the kernels, for every
// path the row can take (fast unshifted and shifted, wide unshifted and shifted), the fused
// residual, the statistics, and on every kernel.
//
// And the overflow edge of every norm form: a gain whose product with x^ rounds to FLT_MAX, where
// the float32 x^ rounded up used to carry it to +Inf.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "dtype_util.h"
#include "layernorm/layernorm.h"
#include "test_util.h"

namespace layernorm {
namespace {

constexpr double kMaxScaledUlp = testing::kContractScaledUlp;

struct PairRow {
  const char* path;
  double l;  // the value nearest the mean
  double s;  // half the pairs' spread
  double a;  // the first pair's half spread (x[0] = L + a, x[4] = L - a)
};

// L +- s, L +- a and L + s + delta are float32 values, delta the spacing at L + s. The row is
// L + a, L (the element nearest the mean), L - s, L + s + delta, L - a, L + s, L - s, ...: a
// shifted row is shifted by L + a, so its mean of x - K (about -a) is rounded at a's spacing.
const PairRow kRows[] = {
    {"fast, unshifted", 1.0, 0.5, 0.5},
    {"fast, shifted", 4096.0, 0.5, 2048.0},
    {"wide, unshifted", 0x1p70, 0x1p69, 0x1p69},
    {"wide, shifted", 0x1p80, 0x1p70, 0x1p76},
};

std::vector<float> MakeRow(const PairRow& r, std::size_t d, double* delta) {
  *delta = testing::Ulp32(r.l + r.s);
  std::vector<float> x(d);
  x[0] = static_cast<float>(r.l + r.a);
  x[1] = static_cast<float>(r.l);
  for (std::size_t j = 2; j < d; ++j) x[j] = static_cast<float>(j % 2 ? r.l + r.s : r.l - r.s);
  x[3] = static_cast<float>(r.l + r.s + *delta);
  x[4] = static_cast<float>(r.l - r.a);
  return x;
}

// y[j] in double: the values centred on L are 0, +-a, -s, +s and s + delta, their mean delta / d.
std::vector<double> Expected(const PairRow& r, const std::vector<float>& x, double delta,
                             const std::vector<float>& gamma, const std::vector<float>& beta) {
  const double n = static_cast<double>(x.size());
  const double m = delta / n;
  const double squares =
      (n - 3.0) * r.s * r.s + 2.0 * r.a * r.a + 2.0 * r.s * delta + delta * delta;
  const double sigma = std::sqrt((squares - delta * m) / n);
  std::vector<double> y(x.size());
  for (std::size_t j = 0; j < x.size(); ++j) {
    const double centred = (static_cast<double>(x[j]) - r.l) - m;
    y[j] = centred / sigma * (gamma.empty() ? 1.0 : gamma[j]) + (beta.empty() ? 0.0 : beta[j]);
  }
  return y;
}

// The largest error of y in the contract's units (the spacing of max(|gamma * x^|, |beta|)).
double Worst(const std::vector<float>& y, const std::vector<double>& want,
             const std::vector<float>& beta) {
  double worst = 0.0;
  for (std::size_t j = 0; j < y.size(); ++j) {
    const double b = beta.empty() ? 0.0 : beta[j];
    const double unit = testing::Ulp32(std::max(std::fabs(want[j] - b), std::fabs(b)));
    worst = std::max(worst, std::isfinite(y[j]) ? std::fabs(y[j] - want[j]) / unit : INFINITY);
  }
  return worst;
}

class NearestTheMean : public ::testing::TestWithParam<std::size_t> {};

TEST_P(NearestTheMean, EveryPathAndKernelIsWithinTheContract) {
  const std::size_t d = GetParam();
  std::vector<float> gain(d), bias(d), none;
  for (std::size_t j = 0; j < d; ++j) {
    gain[j] = 0.75f + 0.125f * static_cast<float>(j % 4);
    bias[j] = j % 3 ? 0.0f : 0.25f;
  }
  for (const PairRow& r : kRows) {
    double delta;
    const std::vector<float> x = MakeRow(r, d, &delta);
    const std::vector<float> zeros(d, 0.0f);
    for (int params = 0; params < 2; ++params) {  // neither; gain and bias
      const std::vector<float>& g = params ? gain : none;
      const std::vector<float>& b = params ? bias : none;
      const std::vector<double> want = Expected(r, x, delta, g, b);
      for (std::size_t k = 0; k < KernelCount(); ++k) {
        for (bool fused : {false, true}) {  // x itself, or x + 0 formed by a fused call
          NormCall c;
          c.rows = 1;
          c.d = d;
          c.x = x.data();
          c.eps = 0.0;
          c.gamma = testing::OrNull(g);
          c.beta = testing::OrNull(b);
          std::vector<float> y(d), h(d);
          c.y = y.data();
          if (fused) {
            c.residual = zeros.data();
            c.sum_out = h.data();
          }
          ASSERT_EQ(Normalize(c, &Kernels()[k]), Status::kOk);
          const double e = Worst(y, want, b);
          EXPECT_LE(e, kMaxScaledUlp) << r.path << " d=" << d << " params=" << params
                                      << " fused=" << fused << " " << Kernels()[k].name;
          // The element nearest the mean is held closer: nothing else rounds it much.
          const double unit = testing::Ulp32(std::fabs(want[1]));
          if (b.empty()) {
            EXPECT_LE(std::fabs(y[1] - want[1]) / unit, 3.0) << r.path << " d=" << d;
          }
        }
      }
      // The statistics: the mean as one double, within one rounding of L + delta / d.
      RowStats stats;
      ASSERT_EQ(LayerNormStats(x.data(), 1, d, 0.0, &stats), Status::kOk);
      const double mean = r.l + delta / static_cast<double>(d);
      EXPECT_LE(std::fabs(stats.mean - mean), 0x1p-52 * std::fabs(mean)) << r.path << " d=" << d;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, NearestTheMean,
                         ::testing::Values(std::size_t{769}, std::size_t{3001}, std::size_t{100001},
                                           std::size_t{1000001}));

// A mean of a few subnormal spacings: mu_lo, below float32's subnormals, would be rounded to 0
// (x = [a, -a, 3 * 2^-140, 0, 0] has the mean 614.4 * 2^-149; mu_hi is 614 * 2^-149), so the
// zeros would be 2^-10.6 of themselves off, ~2^13 units. Such a mean takes the wide path.
TEST(NearestTheMeanTiny, AMeanAmongTheSubnormalsIsNotRoundedThere) {
  const double a = 0x1p-50, t = 3 * 0x1p-140;
  const std::vector<float> x = {static_cast<float>(a), static_cast<float>(-a),
                                static_cast<float>(t), 0.0f, 0.0f};
  const double m = t / 5.0;
  const double sigma = std::sqrt((2 * a * a + t * t - 5.0 * m * m) / 5.0);
  for (std::size_t k = 0; k < KernelCount(); ++k) {
    std::vector<float> y(5);
    ASSERT_EQ(LayerNorm(x.data(), y.data(), 1, 5, nullptr, nullptr, 0.0, &Kernels()[k]),
              Status::kOk);
    const double want = -m / sigma;
    EXPECT_LE(std::fabs(y[3] - want) / testing::Ulp32(std::fabs(want)), 1.0)
        << Kernels()[k].name << ": " << y[3] << ", expected " << want;
  }
}

// An eps that dwarfs the variance makes x^ tiny: x = [a, -a, t, -t] (a = 2^-55, t = 2^-78, a row
// whose sum is exact) with eps = 1.5 * 2^118 has x^ ~ 2^-137.3 at t, a float32 subnormal rounded to
// 2^-150 rather than to 2^-24 of itself, which a gain of 1000 made ~500 units. Such a row (sigma^2
// below 2^-100 of sigma^2 + eps) takes the wide path.
TEST(NearestTheMeanTiny, AnEpsThatDwarfsTheVarianceDoesNotRoundXhatToASubnormal) {
  const double a = 0x1p-55, t = 0x1p-78, eps = 0x1.8p118;
  const std::vector<float> x = {static_cast<float>(a), static_cast<float>(-a),
                                static_cast<float>(t), static_cast<float>(-t)};
  const std::vector<float> gamma(4, 1000.0f), beta = {0.0f, 0.0f, 0.0f, 1e-37f};
  const double denom = std::sqrt((2 * a * a + 2 * t * t) / 4.0 + eps);
  for (const float* b : {static_cast<const float*>(nullptr), beta.data()}) {
    for (std::size_t k = 0; k < KernelCount(); ++k) {
      std::vector<float> y(4);
      ASSERT_EQ(LayerNorm(x.data(), y.data(), 1, 4, gamma.data(), b, eps, &Kernels()[k]),
                Status::kOk);
      for (std::size_t j = 2; j < 4; ++j) {
        const double bj = b ? b[j] : 0.0;
        const double want = 1000.0 * static_cast<double>(x[j]) / denom + bj;
        EXPECT_LE(testing::ScaledUlpError(y[j], static_cast<float>(want), static_cast<float>(bj)),
                  1.0)
            << Kernels()[k].name << " element " << j << ": " << y[j] << ", expected " << want;
      }
    }
  }
}

// d = 16 with gamma[5] = 2.7859433081986407e38: gamma * x^ rounds to FLT_MAX, but the float32 x^
// was rounded up and the float32 product overflowed. Every norm form with a gain takes such a
// gain on the wide path, with or without a bias. Each element in turn gets the largest gain whose
// exact product stays below the midpoint between FLT_MAX and 2^128 (about half of them have
// their float32 x^ rounded up).
TEST(GainOverflow, AnAnswerThatRoundsToTheLargestFloatIsNotInfinity) {
  const std::vector<float> zeros(16, 0.0f);
  for (int row = 0; row < 8; ++row)
    for (Norm norm : testing::kNorms) {
      std::vector<float> x(16);
      for (std::size_t j = 0; j < 16; ++j)
        x[j] = static_cast<float>(std::sin(1.0 + j + 16 * row) * 3.0);
      double mean = 0.0, squares = 0.0;  // (mean 0 for RMSNorm)
      if (norm == Norm::kLayerNorm) {
        for (float v : x) mean += v;
        mean /= 16.0;
      }
      for (float v : x) squares += (v - mean) * (v - mean);
      int checked = 0;
      for (std::size_t at = 0; at < 16; ++at) {
        const double xhat = (x[at] - mean) / std::sqrt(squares / 16.0);
        if (std::fabs(xhat) < 1.0625) continue;  // the gain would pass FLT_MAX
        std::vector<float> gamma(16, 1.0f);
        gamma[at] = static_cast<float>((0x1p128 - 0x1p103) / std::fabs(xhat));
        while (std::fabs(static_cast<double>(gamma[at]) * xhat) >= 0x1p128 - 0x1p103) {
          gamma[at] = std::nextafter(gamma[at], 0.0f);
        }
        for (const float* beta : {static_cast<const float*>(nullptr), zeros.data()}) {
          if (norm == Norm::kRmsNorm && beta) continue;
          for (std::size_t k = 0; k < KernelCount(); ++k) {
            NormCall c;
            c.norm = norm;
            c.rows = 1;
            c.d = 16;
            c.x = x.data();
            c.gamma = gamma.data();
            c.beta = beta;
            c.eps = 0.0;
            std::vector<float> y(16), ref(16);
            c.y = y.data();
            ASSERT_EQ(Normalize(c, &Kernels()[k]), Status::kOk);
            ASSERT_EQ(Reference(c, ref.data()), Status::kOk);
            // The answer is FLT_MAX or its neighbour below (a gain is a float32: the product cannot
            // be placed closer to the midpoint than that).
            ASSERT_GE(std::fabs(ref[at]), std::nextafter(FLT_MAX, 0.0f)) << testing::Name(norm);
            ASSERT_TRUE(std::isfinite(ref[at])) << testing::Name(norm) << " element " << at;
            EXPECT_TRUE(std::isfinite(y[at]))
                << testing::Name(norm) << (beta ? " with a bias " : " ") << Kernels()[k].name
                << " element " << at;
            EXPECT_LE(std::fabs(static_cast<double>(y[at]) - ref[at]), 0x1p104) << y[at];
            ++checked;
          }
        }
      }
      EXPECT_GT(checked, 0) << testing::Name(norm);
    }
}

}  // namespace
}  // namespace layernorm
