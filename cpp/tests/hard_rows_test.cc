// The rows where one double for the mean is not enough (issue 18, items 2 and 4), on every kernel
// and against answers worked out here in closed form, independent of the kernels and of
// Reference() (which is held to them too):
// * nearly constant rows at an offset: d - 1 values L and one L + delta, delta one step of the
//   type at L, up or down, first, inside or last, at offsets of either sign and of every size
//   (subnormal to near the float32 maximum), d up to 200,000, eps 1e-5 and 0, LayerNorm with gain
//   and bias, gain only and neither, the same row formed by a fused residual, and float16 /
//   bfloat16 rows. With m = delta / d: every other element is at -m from the mean, the odd one at
//   delta - m, and the variance is delta^2 (d - 1) / d^2. Each expected value is computed in
//   double from those, a few units of 2^-53 from exact, far inside the 6.5-spacing contract.
// * a gain that overflows float32 in gamma * x^ while the bias brings the answer back into range.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "dtype_util.h"
#include "layernorm/layernorm.h"
#include "test_util.h"

namespace layernorm {
namespace {

using testing::Activations;

constexpr double kMaxScaledUlp = testing::kContractScaledUlp;  // the float32 contract
constexpr double kMaxTypeUlp = 1.0;  // the 16-bit contract (norm_kinds_test.cc derives it)

struct NearConstant {
  double offset;  // L, a value of the type
  int steps;      // delta = steps * the type's spacing at L (+1 or -1)
  std::size_t d;
  std::size_t odd;  // where L + delta sits
};

// The next value of type t above (steps = 1) or below (-1) v, as a double.
double Step(DType t, double v, int steps) {
  const double up = testing::UlpIn(t, std::fabs(v));
  // Stepping down from a power of two crosses into the finer binade below.
  const double down = testing::UlpIn(t, std::fabs(v) * (1.0 - 0x1p-30));
  const bool toward_zero = (steps < 0) == (v > 0);
  return v + steps * (toward_zero ? down : up);
}

// y[j] of the nearly constant row, in double, for gain g and bias b (each per element or none).
std::vector<double> ExpectedNearConstant(const NearConstant& row, double delta, double eps,
                                         const std::vector<float>& g, const std::vector<float>& b) {
  const double n = static_cast<double>(row.d);
  const double m = delta / n;
  const double var = delta * delta * ((n - 1.0) / (n * n));
  const double denom = std::sqrt(var + eps);
  std::vector<double> y(row.d);
  for (std::size_t j = 0; j < row.d; ++j) {
    const double centered = j == row.odd ? delta - m : -m;
    double v = denom > 0.0 ? centered / denom : 0.0;
    if (!g.empty()) v *= g[j];
    if (!b.empty()) v += b[j];
    y[j] = v;
  }
  return y;
}

// Largest error of y against the expected values, in the contract's units for the type.
double WorstError(DType t, const Activations& y, const std::vector<double>& want,
                  const std::vector<float>& beta, const std::string& what) {
  double worst = 0.0;
  for (std::size_t j = 0; j < want.size(); ++j) {
    const float got = y.Get(j);
    if (!std::isfinite(got)) {
      ADD_FAILURE() << what << ": element " << j << " is " << got << ", expected " << want[j];
      return INFINITY;
    }
    const float b = beta.empty() ? 0.0f : beta[j];
    const float ref = static_cast<float>(want[j]);
    const double e = t == DType::kFloat32 ? testing::ScaledUlpError(got, ref, b)
                                          : testing::TypeUlpError(t, got, ref, b);
    worst = std::max(worst, e);
  }
  return worst;
}

std::vector<float> Gain(std::size_t d) {
  std::vector<float> g(d);
  for (std::size_t j = 0; j < d; ++j) g[j] = 0.5f + 0.25f * static_cast<float>(j % 5);
  return g;
}

std::vector<float> Bias(std::size_t d) {
  std::vector<float> b(d);
  for (std::size_t j = 0; j < d; ++j)
    b[j] = 0.01f * static_cast<float>(static_cast<int>(j % 7) - 3);
  return b;
}

std::vector<NearConstant> Rows(DType t) {
  std::vector<double> offsets;
  if (t == DType::kFloat32) {
    offsets = {1e4, -1e4, 3e5, -7.25, 1e-3, 6e37, -1e-40, 0x1p-126};
  } else if (t == DType::kFloat16) {
    offsets = {1000.0, -1000.0, 3.5, -0.0078125, 60000.0};
  } else {
    offsets = {10240.0, -10240.0, 1e30, -3.0, 1e-30};
  }
  std::vector<NearConstant> rows;
  for (double offset : offsets) {
    const double l = testing::RoundTo(t, static_cast<float>(offset));
    for (int steps : {1, -1}) {
      for (std::size_t d : {std::size_t{7}, std::size_t{768}, std::size_t{3001}}) {
        for (std::size_t odd : {std::size_t{0}, d / 2, d - 1}) rows.push_back({l, steps, d, odd});
      }
    }
  }
  if (t == DType::kFloat32) {  // the widths where one double for the mean failed by 149 and ~1,270
    for (std::size_t d : {std::size_t{60000}, std::size_t{200000}}) {
      rows.push_back({1e4, 1, d, d / 3});
      rows.push_back({-1e4, -1, d, 0});
    }
  }
  return rows;
}

class HardRowsTest : public ::testing::TestWithParam<DType> {};

TEST_P(HardRowsTest, NearlyConstantRowsAtAnOffsetAreWithinTheContract) {
  const DType t = GetParam();
  const double bound = t == DType::kFloat32 ? kMaxScaledUlp : kMaxTypeUlp;
  double worst = 0.0;
  for (const NearConstant& row : Rows(t)) {
    const double odd_value = Step(t, row.offset, row.steps);
    const double delta = odd_value - row.offset;
    std::vector<float> x(row.d, static_cast<float>(row.offset));
    x[row.odd] = static_cast<float>(odd_value);
    const Activations in(t, x);
    const std::vector<float> gain = Gain(row.d), bias = Bias(row.d), none;
    for (double eps : {1e-5, 0.0}) {
      for (int params = 0; params < 3; ++params) {  // gain and bias, gain only, neither
        const std::vector<float>& g = params < 2 ? gain : none;
        const std::vector<float>& b = params == 0 ? bias : none;
        NormCall c = testing::MakeCall(Norm::kLayerNorm, in, 1, row.d, eps);
        c.gamma = testing::OrNull(g);
        c.beta = testing::OrNull(b);
        const std::vector<double> want = ExpectedNearConstant(row, delta, eps, g, b);
        const std::string what = testing::Describe(c) + " L=" + std::to_string(row.offset) +
                                 " steps=" + std::to_string(row.steps) +
                                 " odd=" + std::to_string(row.odd);
        std::vector<Activations> outs;
        for (std::size_t k = 0; k < KernelCount(); ++k) {
          outs.push_back(testing::Run(c, &Kernels()[k]));
          const double e = WorstError(t, outs.back(), want, b, what + " " + Kernels()[k].name);
          EXPECT_LE(e, bound) << what << " " << Kernels()[k].name;
          worst = std::max(worst, e);
          EXPECT_EQ(testing::FirstDifference(outs.back(), outs[0]), outs[0].size())
              << what << ": " << Kernels()[k].name << " differs from " << Kernels()[0].name;
        }
        if (t == DType::kFloat32) {  // the float64 oracle is held to the same answers
          std::vector<float> ref(row.d);
          ASSERT_EQ(Reference(c, ref.data()), Status::kOk);
          const Activations r(DType::kFloat32, ref);
          EXPECT_LE(WorstError(t, r, want, b, what + " Reference"), 0.5 + 1e-6) << what;
        }
      }
    }
  }
  RecordProperty("worst", std::to_string(worst));
}

TEST_P(HardRowsTest, TheSameRowFormedByAFusedResidual) {
  const DType t = GetParam();
  const double bound = t == DType::kFloat32 ? kMaxScaledUlp : kMaxTypeUlp;
  for (const NearConstant& row : Rows(t)) {
    if (row.d > 3001) continue;
    const double odd_value = Step(t, row.offset, row.steps);
    // x holds L everywhere; the residual adds 0, except delta where the odd element goes.
    std::vector<float> x(row.d, static_cast<float>(row.offset)), r(row.d, 0.0f);
    r[row.odd] = static_cast<float>(odd_value - row.offset);
    if (static_cast<double>(x[row.odd] + r[row.odd]) != odd_value) continue;  // delta not exact
    const Activations in(t, x), res(t, r);
    if (res.Get(row.odd) != r[row.odd]) continue;  // delta below the type's range
    const std::vector<float> gain = Gain(row.d), none;
    NormCall c = testing::MakeCall(Norm::kLayerNorm, in, 1, row.d, 0.0);
    c.residual = res.data();
    c.gamma = gain.data();
    const std::vector<double> want =
        ExpectedNearConstant(row, odd_value - row.offset, 0.0, gain, none);
    for (std::size_t k = 0; k < KernelCount(); ++k) {
      const Activations y = testing::Run(c, &Kernels()[k]);
      EXPECT_LE(WorstError(t, y, want, none, testing::Describe(c)), bound)
          << testing::Describe(c) << " L=" << row.offset << " " << Kernels()[k].name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, HardRowsTest, ::testing::ValuesIn(testing::kDTypes),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(testing::Name(info.param));
                         });

// gamma = 3e38 and beta = -3e38 on x = [-1, -1, -1, 3] with eps = 0: x^ = [-1/sqrt(3) x3,
// sqrt(3)], so gamma * x^ + beta = [-4.73e38 x3, 2.196e38]. Three answers are beyond float32
// (-Inf is their rounding); the fourth is finite, though gamma * x^ alone (5.2e38) is not.
TEST(GainOverflow, ABiasThatBringsTheAnswerBackIntoRangeGivesIt) {
  const std::vector<float> x = {-1.0f, -1.0f, -1.0f, 3.0f};
  const std::vector<float> gamma(4, 3e38f), beta(4, -3e38f);
  const double want = 3e38 * std::sqrt(3.0) - 3e38;
  for (std::size_t k = 0; k < KernelCount(); ++k) {
    std::vector<float> y(4);
    ASSERT_EQ(LayerNorm(x.data(), y.data(), 1, 4, gamma.data(), beta.data(), 0.0, &Kernels()[k]),
              Status::kOk);
    EXPECT_TRUE(std::isfinite(y[3])) << Kernels()[k].name << ": " << y[3];
    EXPECT_LE(testing::ScaledUlpError(y[3], static_cast<float>(want), beta[3]), kMaxScaledUlp)
        << Kernels()[k].name << ": " << y[3] << ", expected " << want;
    for (int j = 0; j < 3; ++j) EXPECT_EQ(y[j], -std::numeric_limits<float>::infinity());
  }
  // Every output finite: the huge gain and bias on the one element that needs them.
  const std::vector<float> gamma1 = {1.0f, 1.0f, 1.0f, 3e38f}, beta1 = {0.5f, 0.0f, 0.0f, -3e38f};
  for (std::size_t k = 0; k < KernelCount(); ++k) {
    std::vector<float> y(4), ref(4);
    ASSERT_EQ(LayerNorm(x.data(), y.data(), 1, 4, gamma1.data(), beta1.data(), 0.0, &Kernels()[k]),
              Status::kOk);
    ASSERT_EQ(LayerNormReference(x.data(), ref.data(), 1, 4, gamma1.data(), beta1.data(), 0.0),
              Status::kOk);
    for (int j = 0; j < 4; ++j) {
      EXPECT_TRUE(std::isfinite(y[j])) << Kernels()[k].name << " element " << j;
      EXPECT_LE(testing::ScaledUlpError(y[j], ref[j], beta1[j]), kMaxScaledUlp)
          << Kernels()[k].name << " element " << j << ": " << y[j] << ", reference " << ref[j];
    }
  }
}

}  // namespace
}  // namespace layernorm
