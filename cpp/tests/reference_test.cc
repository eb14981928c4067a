// The oracle itself, on answers worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "layernorm/layernorm.h"

namespace layernorm {
namespace {

TEST(Reference, KnownRow) {
  const std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> y(4);
  ASSERT_EQ(LayerNormReference(x.data(), y.data(), 1, 4, nullptr, nullptr, 0.0), Status::kOk);
  const double s = std::sqrt(1.25);
  EXPECT_EQ(y[0], static_cast<float>(-1.5 / s));
  EXPECT_EQ(y[1], static_cast<float>(-0.5 / s));
  EXPECT_EQ(y[2], static_cast<float>(0.5 / s));
  EXPECT_EQ(y[3], static_cast<float>(1.5 / s));
}

TEST(Reference, GammaBetaAndEps) {
  const std::vector<float> x = {0, 2}, gamma = {3, -1}, beta = {0.5f, 0.25f};
  std::vector<float> y(2);
  ASSERT_EQ(LayerNormReference(x.data(), y.data(), 1, 2, gamma.data(), beta.data(), 3.0),
            Status::kOk);
  EXPECT_EQ(y[0], static_cast<float>(3 * (-1 / 2.0) + 0.5));  // var 1, sqrt(1 + 3) = 2
  EXPECT_EQ(y[1], static_cast<float>(-1 * (1 / 2.0) + 0.25));
}

TEST(Reference, ConstantRowIsBetaEvenWithZeroEps) {
  const std::vector<float> x = {5, 5, 5}, beta = {1, 2, 3};
  std::vector<float> y(3);
  ASSERT_EQ(LayerNormReference(x.data(), y.data(), 1, 3, nullptr, beta.data(), 0.0), Status::kOk);
  EXPECT_EQ(y, beta);
}

TEST(Reference, NonFiniteRowIsNaN) {
  const std::vector<float> x = {1, INFINITY, 3, 1, 2, 3};
  std::vector<float> y(6);
  ASSERT_EQ(LayerNormReference(x.data(), y.data(), 2, 3, nullptr, nullptr, 1e-5), Status::kOk);
  for (int j = 0; j < 3; ++j) EXPECT_TRUE(std::isnan(y[j]));
  EXPECT_TRUE(std::isfinite(y[3]));
}

}  // namespace
}  // namespace layernorm
