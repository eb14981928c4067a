// The validating entry points: every bad argument gets its status, and stats and stages agree
// with the kernels bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "hard_cases.h"
#include "layernorm/layernorm.h"
#include "test_util.h"

namespace layernorm {
namespace {

TEST(Operator, RejectsBadArguments) {
  std::vector<float> x(8, 1.0f), y(8);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(LayerNorm(x.data(), y.data(), 2, 0, nullptr, nullptr, 1e-5), Status::kInvalidWidth);
  EXPECT_EQ(LayerNorm(x.data(), y.data(), 2, 4, nullptr, nullptr, -1e-5), Status::kInvalidEpsilon);
  EXPECT_EQ(LayerNorm(x.data(), y.data(), 2, 4, nullptr, nullptr, NAN), Status::kInvalidEpsilon);
  EXPECT_EQ(LayerNorm(x.data(), y.data(), 2, 4, nullptr, nullptr, inf), Status::kInvalidEpsilon);
  EXPECT_EQ(LayerNorm(nullptr, y.data(), 2, 4, nullptr, nullptr, 1e-5), Status::kNullPointer);
  EXPECT_EQ(LayerNorm(x.data(), nullptr, 2, 4, nullptr, nullptr, 1e-5), Status::kNullPointer);
  const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
  EXPECT_EQ(LayerNorm(x.data(), y.data(), huge, 4, nullptr, nullptr, 1e-5), Status::kSizeOverflow);
  std::vector<RowStats> stats(2);
  EXPECT_EQ(LayerNormStats(x.data(), 2, 0, 1e-5, stats.data()), Status::kInvalidWidth);
  EXPECT_EQ(LayerNormStats(x.data(), 2, 4, -1.0, stats.data()), Status::kInvalidEpsilon);
  EXPECT_STREQ(StatusMessage(Status::kInvalidEpsilon), "eps must be a finite number >= 0");
}

TEST(Operator, ZeroRowsIsANoOp) {
  EXPECT_EQ(LayerNorm(nullptr, nullptr, 0, 768, nullptr, nullptr, 1e-5), Status::kOk);
  EXPECT_EQ(LayerNormStats(nullptr, 0, 768, 1e-5, nullptr), Status::kOk);
}

TEST(Operator, StatsOfAKnownRow) {
  const std::vector<float> x = {1.0f, 2.0f, 3.0f, 4.0f};
  RowStats s{};
  ASSERT_EQ(LayerNormStats(x.data(), 1, 4, 0.25, &s), Status::kOk);
  EXPECT_EQ(s.mean, 2.5);
  EXPECT_EQ(s.variance, 1.25);
  EXPECT_EQ(s.rstd, 1.0 / std::sqrt(1.5));
}

TEST(Operator, StatsOfConstantAndNonFiniteRows) {
  const std::vector<float> x = {7.0f, 7.0f, 7.0f, NAN, 1.0f, 2.0f};
  std::vector<RowStats> s(2);
  ASSERT_EQ(LayerNormStats(x.data(), 2, 3, 0.0, s.data()), Status::kOk);
  EXPECT_EQ(s[0].mean, 7.0);
  EXPECT_EQ(s[0].variance, 0.0);
  EXPECT_TRUE(std::isinf(s[0].rstd));
  EXPECT_TRUE(std::isnan(s[1].mean) && std::isnan(s[1].variance) && std::isnan(s[1].rstd));
}

// The exact stages of one row in double: mean and variance by two plain passes, then
// x - mean, (x - mean) * rstd and gamma * that. The contract the stages are held to.
struct ExactStages {
  double mean, rstd, mean_error;
  std::vector<double> centered, normalized, scaled;
};

ExactStages Exact(const float* x, std::size_t d, const float* gamma, double eps) {
  ExactStages e{};
  double sum = 0.0, magnitude = 0.0;
  for (std::size_t j = 0; j < d; ++j) {
    sum += x[j];
    magnitude = std::max(magnitude, std::fabs(double(x[j])));
  }
  e.mean = sum / double(d);
  double squares = 0.0;
  for (std::size_t j = 0; j < d; ++j) squares += (x[j] - e.mean) * (x[j] - e.mean);
  e.rstd = 1.0 / std::sqrt(squares / double(d) + eps);
  // A float64 mean is exact to about d * 2^-53 of the row's magnitude (README, Numerics contract).
  e.mean_error = double(d) * 0x1p-52 * magnitude;
  for (std::size_t j = 0; j < d; ++j) {
    e.centered.push_back(x[j] - e.mean);
    e.normalized.push_back(e.centered.back() * e.rstd);
    e.scaled.push_back((gamma ? gamma[j] : 1.0f) * e.normalized.back());
  }
  return e;
}

// |got - exact| in float32 spacings of |exact|, after allowing `slack` of absolute error.
double Spacings(float got, double exact, double slack) {
  return std::max(0.0, std::fabs(double(got) - exact) - slack) / testing::Ulp32(std::fabs(exact));
}

// Every stage of every row of the hard cases within its bound of the exact value, the statistics
// equal to LayerNormStats, and the output bit-identical to LayerNorm. Bounds, in float32 spacings
// of the exact value: each float32 rounding adds at most 2^-24 relative error, at most one
// spacing; x - mean takes two roundings (x - mean_hi, then - mean_lo), x-hat two more (rstd to
// float32, the product), gamma * x-hat one: 2, 4 and 5. The float64 mean's own error comes on top.
TEST(Operator, StagesMeetTheirBoundsAndReproduceTheKernelOutput) {
  for (const testing::Case& c : testing::HardCases()) {
    SCOPED_TRACE(c.name);
    std::vector<float> y(c.x.size());
    ASSERT_EQ(LayerNorm(c.x.data(), y.data(), c.rows, c.d, testing::OrNull(c.gamma),
                        testing::OrNull(c.beta), c.eps),
              Status::kOk);
    std::vector<float> centered(c.d), normalized(c.d), scaled(c.d), output(c.d);
    for (std::size_t r = 0; r < c.rows; ++r) {
      const float* x = c.x.data() + r * c.d;
      RowStats s{}, expected{};
      ASSERT_EQ(
          LayerNormStages(x, c.d, testing::OrNull(c.gamma), testing::OrNull(c.beta), c.eps, &s,
                          {centered.data(), normalized.data(), scaled.data(), output.data()}),
          Status::kOk);
      ASSERT_EQ(LayerNormStats(x, 1, c.d, c.eps, &expected), Status::kOk);
      EXPECT_EQ(std::memcmp(&s, &expected, sizeof s), 0);
      const ExactStages e = Exact(x, c.d, testing::OrNull(c.gamma), c.eps);
      const bool finite = std::isfinite(e.mean) && std::isfinite(e.rstd);
      for (std::size_t j = 0; j < c.d; ++j) {
        ASSERT_TRUE(testing::SameBits(output[j], y[r * c.d + j])) << "row " << r << " col " << j;
        if (!finite) continue;
        const double g = c.gamma.empty() ? 1.0 : std::fabs(double(c.gamma[j]));
        EXPECT_LE(Spacings(centered[j], e.centered[j], e.mean_error), 2.0)
            << "row " << r << " col " << j;
        EXPECT_LE(Spacings(normalized[j], e.normalized[j], e.mean_error * e.rstd), 4.0)
            << "row " << r << " col " << j;
        EXPECT_LE(Spacings(scaled[j], e.scaled[j], g * e.mean_error * e.rstd), 5.0)
            << "row " << r << " col " << j;
      }
    }
  }
}

TEST(Operator, StagesOfAKnownRow) {
  const std::vector<float> x = {1.0f, 2.0f, 3.0f, 4.0f}, gamma = {2, 2, 2, 2}, beta = {1, 1, 1, 1};
  std::vector<float> c(4), n(4), s(4), o(4);
  RowStats stats{};
  ASSERT_EQ(LayerNormStages(x.data(), 4, gamma.data(), beta.data(), 0.0, &stats,
                            {c.data(), n.data(), s.data(), o.data()}),
            Status::kOk);
  EXPECT_EQ(stats.mean, 2.5);
  EXPECT_EQ(stats.variance, 1.25);
  EXPECT_EQ(c, (std::vector<float>{-1.5f, -0.5f, 0.5f, 1.5f}));  // exact in float32
  const double rstd = 1.0 / std::sqrt(1.25);
  for (std::size_t j = 0; j < 4; ++j) {
    EXPECT_LE(Spacings(n[j], c[j] * rstd, 0.0), 1.0);
    EXPECT_LE(Spacings(s[j], 2.0 * c[j] * rstd, 0.0), 1.5);
    EXPECT_LE(Spacings(o[j], 2.0 * c[j] * rstd + 1.0, 0.0), 2.0);
  }
}

}  // namespace
}  // namespace layernorm
