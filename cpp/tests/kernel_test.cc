// Every registered kernel against the float64 reference, at sizes around its tile width and on
// the hard rows of the numerics contract; and every kernel bit-identical to the scalar one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "hard_cases.h"
#include "layernorm/layernorm.h"
#include "test_util.h"

namespace layernorm {
namespace {

using testing::Case;

constexpr std::uint64_t kSeed = 20261130;

// Tolerance: the contract (test_util.h, derived in web/docs/numerics.md). The reference itself is
// within 0.5.
constexpr double kMaxScaledUlp = testing::kContractScaledUlp;

std::vector<float> RunKernel(const Kernel& k, const Case& c) {
  std::vector<float> y(c.x.size());
  EXPECT_EQ(LayerNorm(c.x.data(), y.data(), c.rows, c.d, testing::OrNull(c.gamma),
                      testing::OrNull(c.beta), c.eps, &k),
            Status::kOk);
  return y;
}

std::vector<float> Reference(const Case& c) {
  std::vector<float> y(c.x.size());
  EXPECT_EQ(LayerNormReference(c.x.data(), y.data(), c.rows, c.d, testing::OrNull(c.gamma),
                               testing::OrNull(c.beta), c.eps),
            Status::kOk);
  return y;
}

// Largest scaled-ULP error; fails on any NaN/Inf mismatch.
double CheckAgainstReference(const Case& c, const std::vector<float>& y) {
  const std::vector<float> ref = Reference(c);
  double worst = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const bool ref_finite = std::isfinite(ref[i]);
    if (ref_finite != std::isfinite(y[i])) {
      ADD_FAILURE() << c.name << ": element " << i << " is " << y[i] << ", reference " << ref[i];
      return INFINITY;
    }
    if (!ref_finite) continue;
    const float b = c.beta.empty() ? 0.0f : c.beta[i % c.d];
    worst = std::max(worst, testing::ScaledUlpError(y[i], ref[i], b));
  }
  return worst;
}

class KernelTest : public ::testing::TestWithParam<std::size_t> {
 protected:
  const Kernel& kernel() const { return Kernels()[GetParam()]; }
};

TEST_P(KernelTest, MatchesReferenceAroundTileWidth) {
  SCOPED_TRACE("seed " + std::to_string(kSeed));
  std::mt19937_64 rng(kSeed);
  const std::size_t tile = kernel().tile;
  std::vector<std::size_t> widths = {1, 2, 3, 5, 7, 15, 17, 33, 767, 768, 769, 1025, 4096};
  for (std::size_t w = 1; w < 2 * tile; ++w) widths.push_back(w);
  for (std::size_t m = 2; m <= 8; ++m) widths.push_back(m * tile);
  for (std::size_t d : widths) {
    for (double eps : {0.0, 1e-12, 1e-5, 1e-1}) {
      for (int variant = 0; variant < 4; ++variant) {
        Case c{"d=" + std::to_string(d) + " eps=" + std::to_string(eps) +
                   " variant=" + std::to_string(variant),
               3,
               d,
               eps,
               testing::Gaussian(rng, 3 * d, 0.3, 1.7),
               {},
               {}};
        if (variant & 1) c.gamma = testing::Params(rng, d, 1.0, 0.5);
        if (variant & 2) c.beta = testing::Params(rng, d, 0.0, 0.5);
        SCOPED_TRACE(c.name);
        EXPECT_LE(CheckAgainstReference(c, RunKernel(kernel(), c)), kMaxScaledUlp);
      }
    }
  }
}

TEST_P(KernelTest, HardRowsMeetTheContract) {
  for (const Case& c : testing::HardCases()) {
    SCOPED_TRACE(c.name);
    const std::vector<float> y = RunKernel(kernel(), c);
    EXPECT_LE(CheckAgainstReference(c, y), kMaxScaledUlp);
  }
}

TEST_P(KernelTest, OffsetRowsWithinOneHundredThousandth) {
  std::mt19937_64 rng(kSeed + 1);
  Case c{"1e4 + N(0,1)", 64, 768, 1e-5, testing::Gaussian(rng, 64 * 768, 1e4, 1.0), {}, {}};
  const std::vector<float> y = RunKernel(kernel(), c), ref = Reference(c);
  double max_abs = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i)
    max_abs = std::max(max_abs, std::fabs(double(y[i]) - ref[i]));
  EXPECT_LE(max_abs, 1e-5) << "seed " << kSeed + 1;
}

TEST_P(KernelTest, ConstantRowsGiveExactlyBeta) {
  std::mt19937_64 rng(kSeed + 2);
  for (double eps : {0.0, 1e-5}) {
    for (float value : {0.0f, 1.0f, -3.5f, 1e6f, 3e38f, 1e-42f}) {
      const std::size_t d = 37;
      Case c{"constant",
             2,
             d,
             eps,
             std::vector<float>(2 * d, value),
             testing::Params(rng, d, 1.0, 1.0),
             testing::Params(rng, d, 0.0, 1.0)};
      const std::vector<float> y = RunKernel(kernel(), c);
      for (std::size_t i = 0; i < y.size(); ++i) {
        ASSERT_EQ(y[i], c.beta[i % d]) << "value " << value << " eps " << eps << " at " << i;
      }
    }
  }
}

TEST_P(KernelTest, NonFiniteRowsAreNaNAndOthersUnaffected) {
  std::mt19937_64 rng(kSeed + 3);
  const std::size_t d = 19;
  std::vector<float> x = testing::Gaussian(rng, 4 * d, 0.0, 1.0);
  Case clean{"clean", 4, d, 1e-5, x, {}, {}};
  const std::vector<float> y_clean = RunKernel(kernel(), clean);
  x[1 * d + 3] = NAN;
  x[2 * d + 18] = INFINITY;
  Case dirty{"dirty", 4, d, 1e-5, x, {}, {}};
  const std::vector<float> y = RunKernel(kernel(), dirty);
  for (std::size_t j = 0; j < d; ++j) {
    EXPECT_TRUE(std::isnan(y[1 * d + j]));
    EXPECT_TRUE(std::isnan(y[2 * d + j]));
    EXPECT_TRUE(testing::SameBits(y[j], y_clean[j]));
    EXPECT_TRUE(testing::SameBits(y[3 * d + j], y_clean[3 * d + j]));
  }
}

TEST_P(KernelTest, InPlaceEqualsOutOfPlace) {
  std::mt19937_64 rng(kSeed + 4);
  Case c{"in place",
         5,
         771,
         1e-5,
         testing::Gpt2Like(rng, 5, 771),
         testing::Params(rng, 771, 1.0, 0.3),
         testing::Params(rng, 771, 0.0, 0.3)};
  const std::vector<float> y = RunKernel(kernel(), c);
  std::vector<float> inplace = c.x;
  ASSERT_EQ(LayerNorm(inplace.data(), inplace.data(), c.rows, c.d, c.gamma.data(), c.beta.data(),
                      c.eps, &kernel()),
            Status::kOk);
  for (std::size_t i = 0; i < y.size(); ++i) ASSERT_TRUE(testing::SameBits(y[i], inplace[i]));
}

// A call over many rows sums each row while writing the previous one, and from kTwoRunsMinRows on
// takes the two halves in turns; a one-row call does neither. All must give the same bits,
// whatever kinds of rows follow each other (fast, offset, constant, extreme, non-finite), in
// place and out of place.
TEST_P(KernelTest, PipelinedRowsEqualOneRowCalls) {
  std::mt19937_64 rng(kSeed + 7);
  for (std::size_t rows : {9, 41}) {
    for (std::size_t d : {1, 7, 8, 9, 768, 771}) {
      SCOPED_TRACE("rows = " + std::to_string(rows) + ", d = " + std::to_string(d));
      std::vector<float> x = testing::Gpt2Like(rng, rows, d);
      // Row kinds around the start, the split of the halves (41 / 2 = 20) and the end.
      for (std::size_t j = 0; j < d; ++j) {
        x[1 * d + j] += 1e4f;    // offset row: shifted sums
        x[2 * d + j] = 3.25f;    // constant row: beta
        x[4 * d + j] *= 1e-40f;  // subnormal row: wide path
        x[5 * d + j] *= 1e30f;   // huge row: wide path
        if (rows > 21) {
          x[19 * d + j] *= 1e30f;
          x[20 * d + j] = -2.0f;
          x[(rows - 1) * d + j] += 1e4f;
        }
      }
      x[7 * d + d / 2] = NAN;  // non-finite row between two ordinary rows
      if (rows > 21) x[21 * d] = INFINITY;
      const std::vector<float> gamma = testing::Params(rng, d, 1.0, 0.3);
      const std::vector<float> beta = testing::Params(rng, d, 0.0, 0.3);
      std::vector<float> whole(x.size()), in_place = x, by_row(x.size());
      ASSERT_EQ(
          LayerNorm(x.data(), whole.data(), rows, d, gamma.data(), beta.data(), 1e-5, &kernel()),
          Status::kOk);
      ASSERT_EQ(LayerNorm(in_place.data(), in_place.data(), rows, d, gamma.data(), beta.data(),
                          1e-5, &kernel()),
                Status::kOk);
      for (std::size_t r = 0; r < rows; ++r) {
        ASSERT_EQ(LayerNorm(x.data() + r * d, by_row.data() + r * d, 1, d, gamma.data(),
                            beta.data(), 1e-5, &kernel()),
                  Status::kOk);
      }
      for (std::size_t i = 0; i < x.size(); ++i) {
        ASSERT_TRUE(testing::SameBits(whole[i], by_row[i])) << "element " << i;
        ASSERT_TRUE(testing::SameBits(in_place[i], by_row[i])) << "element " << i;
      }
    }
  }
}

TEST_P(KernelTest, BitIdenticalToScalar) {
  const Kernel* scalar = FindKernel("f32_layernorm_ukernel__scalar_u8");
  ASSERT_NE(scalar, nullptr);
  std::mt19937_64 rng(kSeed + 5);
  std::vector<Case> cases = testing::HardCases();
  for (std::size_t d : {1, 4, 7, 8, 9, 16, 31, 768, 769, 1600}) {
    cases.push_back({"gpt2 d=" + std::to_string(d), 9, d, 1e-5, testing::Gpt2Like(rng, 9, d),
                     testing::Params(rng, d, 1.0, 0.3), testing::Params(rng, d, 0.0, 0.3)});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<float> a = RunKernel(*scalar, c), b = RunKernel(kernel(), c);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < a.size(); ++i) differing += !testing::SameBits(a[i], b[i]);
    EXPECT_EQ(differing, 0u) << "seed " << kSeed + 5;
    std::vector<RowStats> sa(c.rows), sb(c.rows);
    ASSERT_EQ(LayerNormStats(c.x.data(), c.rows, c.d, c.eps, sa.data(), scalar), Status::kOk);
    ASSERT_EQ(LayerNormStats(c.x.data(), c.rows, c.d, c.eps, sb.data(), &kernel()), Status::kOk);
    for (std::size_t r = 0; r < c.rows; ++r) {
      EXPECT_EQ(std::memcmp(&sa[r], &sb[r], sizeof(RowStats)), 0) << "row " << r;
    }
  }
}

// ---- Regressions found by cpp/tests/operator_fuzz.cc; inputs in cpp/tests/fuzz_regressions/.

float FromBits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// fuzz_regressions/subnormal-xhat-times-gamma: a row of subnormals normalized with eps > 0 has
// a subnormal float32 x-hat (here 8 * 2^-149 * rstd ~ 1.8e-42), whose absolute rounding error of
// up to 2^-150 a gain of -680 scales to ~60 units of the (also subnormal) output's spacing.
Case SubnormalXhatTimesGamma() {
  return {
      "subnormal x-hat times gamma = -680", 1, 2, 1e-5, {0.0f, FromBits(8)}, {0.0f, -680.0f}, {}};
}

// fuzz_regressions/mean-cancellation-xhat-near-zero: +-2^-25 cancel exactly, but the float64
// shifted sums absorb the subnormal terms, so the mean is off by ~2e-43 -- far below the row's
// sigma (6e-9) but not below the deviation of x[0] from the mean (2.5e-43): x-hat[0] (~8e-41)
// comes out as 8.9e-42. The float64 reference has the same kind of error, only smaller here.
Case MeanCancellationXhatNearZero() {
  std::vector<float> x(2 * 54, 0.0f);
  x[0] = FromBits(0xb6);
  x[20] = -0x1p-25f;
  x[21] = FromBits(0x4d);
  x[23] = 0x1p-25f;
  return {"mean cancellation, x-hat near zero", 2, 54, 1e-5, x, {}, std::vector<float>(54, 0.0f)};
}

// The known bound for both: 4 scaled ULP plus |gamma| * 2^-150 for a subnormal x-hat, plus
// |gamma| * rstd * d * 2^-52 * (row spread + row magnitude) for the mean's float64 error.
double ExcessOverKnownBound(const Case& c, const std::vector<float>& y) {
  const std::vector<float> ref = Reference(c);
  std::vector<RowStats> stats(c.rows);
  EXPECT_EQ(LayerNormStats(c.x.data(), c.rows, c.d, c.eps, stats.data()), Status::kOk);
  double worst = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const std::size_t r = i / c.d, j = i % c.d;
    const double g = c.gamma.empty() ? 1.0 : std::fabs(double(c.gamma[j]));
    const float b = c.beta.empty() ? 0.0f : c.beta[j];
    double spread = 0.0, magnitude = 0.0;
    for (std::size_t k = 0; k < c.d; ++k) {
      spread = std::max(spread, std::fabs(double(c.x[r * c.d + k]) - c.x[r * c.d]));
      magnitude = std::max(magnitude, std::fabs(double(c.x[r * c.d + k])));
    }
    const double ulp =
        testing::Ulp32(std::max(std::fabs(double(ref[i]) - b), std::fabs(double(b))));
    const double bound = kMaxScaledUlp + g * 0x1p-150 / ulp +
                         g * stats[r].rstd * double(c.d) * 0x1p-52 * (spread + magnitude) / ulp;
    worst = std::max(worst, testing::ScaledUlpError(y[i], ref[i], b) / bound);
  }
  return worst;
}

TEST_P(KernelTest, FuzzRegressionsStayWithinTheKnownBound) {
  for (const Case& c : {SubnormalXhatTimesGamma(), MeanCancellationXhatNearZero()}) {
    SCOPED_TRACE(c.name);
    EXPECT_LE(ExcessOverKnownBound(c, RunKernel(kernel(), c)), 1.0);
  }
}

// The wide path applies gamma in double, so a subnormal x-hat is no longer rounded before a
// large gain: the first regression meets the 4 scaled ULP contract literally.
TEST_P(KernelTest, FuzzRegressionSubnormalXhatMeetsTheLiteralContract) {
  const Case c = SubnormalXhatTimesGamma();
  EXPECT_LE(CheckAgainstReference(c, RunKernel(kernel(), c)), kMaxScaledUlp);
}

// fuzz_regressions/stages-nan-payload-nonfinite-row: on a row holding NaN, LayerNorm() writes
// the default quiet NaN. The stages once multiplied and added a NaN gamma/beta there, so their
// `output` carried gamma's sign and payload; now a non-finite row's stages are that same quiet
// NaN, bit for bit.
TEST_P(KernelTest, FuzzRegressionStagesOnNonFiniteRowWithNaNParams) {
  const float nan = FromBits(0xffffffffu);
  const std::vector<float> x(3, nan), gamma(3, nan), beta(3, nan);
  std::vector<float> y(3), c(3), n(3), s(3), out(3);
  ASSERT_EQ(LayerNorm(x.data(), y.data(), 1, 3, gamma.data(), beta.data(), 1e-5, &kernel()),
            Status::kOk);
  RowStats stats;
  ASSERT_EQ(LayerNormStages(x.data(), 3, gamma.data(), beta.data(), 1e-5, &stats,
                            {c.data(), n.data(), s.data(), out.data()}),
            Status::kOk);
  for (std::size_t j = 0; j < 3; ++j) {
    EXPECT_TRUE(std::isnan(y[j]));
    EXPECT_TRUE(testing::SameBits(out[j], y[j]));  // the same quiet NaN, whatever gamma/beta hold
  }
}

std::string KernelName(const ::testing::TestParamInfo<std::size_t>& info) {
  return Kernels()[info.param].name;
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelTest, ::testing::Range<std::size_t>(0, KernelCount()),
                         KernelName);

TEST(Registry, ListsScalarAndWasmSimdWithSimdAsDefault) {
  ASSERT_EQ(KernelCount(), 2u);
  EXPECT_STREQ(Kernels()[0].isa, "scalar");
  EXPECT_STREQ(DefaultKernel().name, "f32_layernorm_ukernel__wasmsimd_u8");
  EXPECT_EQ(FindKernel("no such kernel"), nullptr);
  EXPECT_EQ(FindKernel(nullptr), nullptr);
}

}  // namespace
}  // namespace layernorm
