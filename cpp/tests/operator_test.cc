// The validating entry points: every bad argument gets its status, and stats and stages agree
// with the kernels bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

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

TEST(Operator, StagesReproduceTheKernelOutput) {
  std::mt19937_64 rng(99);
  for (const testing::Case& c : testing::HardCases(7)) {
    SCOPED_TRACE(c.name);
    std::vector<float> y(c.x.size());
    ASSERT_EQ(LayerNorm(c.x.data(), y.data(), c.rows, c.d, testing::OrNull(c.gamma),
                        testing::OrNull(c.beta), c.eps),
              Status::kOk);
    std::vector<float> centered(c.d), normalized(c.d), scaled(c.d), output(c.d);
    for (std::size_t r = 0; r < c.rows; ++r) {
      RowStats s{}, expected{};
      ASSERT_EQ(LayerNormStages(c.x.data() + r * c.d, c.d, testing::OrNull(c.gamma),
                                testing::OrNull(c.beta), c.eps, &s,
                                {centered.data(), normalized.data(), scaled.data(), output.data()}),
                Status::kOk);
      ASSERT_EQ(LayerNormStats(c.x.data() + r * c.d, 1, c.d, c.eps, &expected), Status::kOk);
      EXPECT_EQ(std::memcmp(&s, &expected, sizeof s), 0);
      for (std::size_t j = 0; j < c.d; ++j) {
        ASSERT_TRUE(testing::SameBits(output[j], y[r * c.d + j])) << "row " << r << " col " << j;
        if (c.beta.empty()) {
          ASSERT_TRUE(testing::SameBits(scaled[j], output[j]));
        }
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
  EXPECT_EQ(c, (std::vector<float>{-1.5f, -0.5f, 0.5f, 1.5f}));
  const float r = static_cast<float>(1.0 / std::sqrt(1.25));
  EXPECT_EQ(n[0], -1.5f * r);
  EXPECT_EQ(s[3], 1.5f * r * 2.0f);
  EXPECT_EQ(o[3], 1.5f * r * 2.0f + 1.0f);
}

}  // namespace
}  // namespace layernorm
