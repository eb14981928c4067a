// The fused residual add: h = round_T(fl32(fl32(x + residual) + bias)) is normalized, and written
// to sum_out. Its output must be Normalize() of h computed separately, bit for bit, and sum_out
// must be h exactly, for every norm, element type and kernel, whichever arrays alias.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "dtype_util.h"
#include "layernorm/layernorm.h"
#include "schedule.h"
#include "test_util.h"

namespace layernorm {
namespace {

using testing::Activations;

constexpr std::uint64_t kSeed = 20261203;

void ExpectSameBits(const Activations& got, const Activations& want, const std::string& what) {
  const std::size_t i = testing::FirstDifference(got, want);
  EXPECT_EQ(i, got.size()) << what << " differs at element " << i << ": " << got.Get(i)
                           << " instead of " << want.Get(i);
  EXPECT_TRUE(got.GuardIntact()) << what << ": written past its end";
}

class ResidualTest : public ::testing::TestWithParam<testing::Kind> {
 protected:
  Norm norm() const { return std::get<0>(GetParam()); }
  DType dtype() const { return std::get<1>(GetParam()); }
  bool rms() const { return norm() == Norm::kRmsNorm; }
};

struct Shape {
  std::size_t rows, d;
};

// Around the tile, and calls spanning several residual blocks (detail::kResidualBlockBytes): 16 KiB
// holds 1365 rows of 3 float32 values (2730 of float16), 5 rows of 768, 40 rows of 100 (so each
// block is split in two runs), and less than one row of 4097 (one row per block).
constexpr Shape kShapes[] = {{1, 1},    {3, 8},    {9, 17},   {41, 768}, {123, 100},
                             {7, 4096}, {5, 4097}, {6000, 3}, {13, 1600}};

TEST_P(ResidualTest, OutputIsNormalizeOfTheSumAndSumOutIsTheSum) {
  SCOPED_TRACE("seed " + std::to_string(kSeed));
  std::mt19937_64 rng(kSeed);
  std::size_t most_blocks = 0;
  for (const Shape& shape : kShapes) {
    const std::size_t rows = shape.rows, d = shape.d;
    // The 16-bit schedule adds a block of rows, then normalizes it while it is in L1.
    const std::size_t block = detail::ResidualBlockRows(d * ElementSize(dtype()));
    most_blocks = std::max(most_blocks, (rows + block - 1) / block);
    const Activations x(dtype(), testing::Gpt2Like(rng, rows, d));
    const Activations r(dtype(), testing::Gaussian(rng, rows * d, 0.0, 2.0));
    const std::vector<float> gamma = testing::Params(rng, d, 1.0, 0.3);
    const std::vector<float> beta = testing::Params(rng, d, 0.0, 0.3);
    const std::vector<float> bias = testing::Params(rng, d, 0.0, 1.0);
    for (int variant = 0; variant < 8; ++variant) {
      const bool has_bias = variant & 1, has_gamma = variant & 2, has_beta = variant & 4;
      if (has_beta && rms()) continue;
      const Activations h = testing::ResidualSum(x, r, has_bias ? bias.data() : nullptr, d);
      NormCall plain = testing::MakeCall(norm(), h, rows, d, 1e-5);
      plain.gamma = has_gamma ? gamma.data() : nullptr;
      plain.beta = has_beta ? beta.data() : nullptr;
      NormCall fused = plain;
      fused.x = x.data();
      fused.residual = r.data();
      fused.bias = has_bias ? bias.data() : nullptr;
      SCOPED_TRACE(testing::Describe(fused));
      for (std::size_t k = 0; k < KernelCount(); ++k) {
        const Kernel& kernel = Kernels()[k];
        const Activations want = testing::Run(plain, &kernel);
        Activations y(dtype(), rows * d), sum(dtype(), rows * d);
        NormCall c = fused;
        c.y = y.data();
        c.sum_out = sum.data();
        ASSERT_EQ(Normalize(c, &kernel), Status::kOk);
        ExpectSameBits(y, want, std::string(kernel.name) + " y");
        ExpectSameBits(sum, h, std::string(kernel.name) + " sum_out");
        // Without sum_out, h is formed in y and normalized there.
        ExpectSameBits(testing::Run(fused, &kernel), want, std::string(kernel.name) + " y alone");
      }
    }
  }
  EXPECT_GE(most_blocks, 4u);
}

// Layouts a caller may use: the sum written over x or over the residual stream, the output over
// x or the residual, or both. Every array that receives y or h must hold exactly that.
TEST_P(ResidualTest, SumOutAndOutputMayBeXOrTheResidual) {
  std::mt19937_64 rng(kSeed + 1);
  enum Where { kNone, kX, kResidual, kOwn };
  const std::tuple<Where, Where> layouts[] = {
      // (y, sum_out)
      {kX, kNone}, {kResidual, kNone}, {kX, kResidual}, {kResidual, kX},
      {kOwn, kX},  {kOwn, kResidual},  {kX, kOwn},      {kResidual, kOwn}};
  for (const Shape& shape : {Shape{41, 771}, Shape{6000, 3}, Shape{3, 4097}}) {
    const std::size_t rows = shape.rows, d = shape.d;
    const Activations x0(dtype(), testing::Gpt2Like(rng, rows, d));
    const Activations r0(dtype(), testing::Gaussian(rng, rows * d, 0.0, 2.0));
    const std::vector<float> gamma = testing::Params(rng, d, 1.0, 0.3);
    const std::vector<float> bias = testing::Params(rng, d, 0.0, 1.0);
    const Activations h = testing::ResidualSum(x0, r0, bias.data(), d);
    NormCall plain = testing::MakeCall(norm(), h, rows, d, 1e-5);
    plain.gamma = gamma.data();
    for (std::size_t k = 0; k < KernelCount(); ++k) {
      const Kernel& kernel = Kernels()[k];
      const Activations want = testing::Run(plain, &kernel);
      for (const auto& [where_y, where_sum] : layouts) {
        Activations x = x0, r = r0, own(dtype(), rows * d);
        auto array = [&](Where w) -> Activations* {
          return w == kX ? &x : w == kResidual ? &r : w == kOwn ? &own : nullptr;
        };
        NormCall c = plain;
        c.x = x.data();
        c.residual = r.data();
        c.bias = bias.data();
        c.y = array(where_y)->data();
        c.sum_out = where_sum == kNone ? nullptr : array(where_sum)->data();
        const std::string what = std::string(kernel.name) + " layout (" + std::to_string(where_y) +
                                 ", " + std::to_string(where_sum) + ") d=" + std::to_string(d);
        ASSERT_EQ(Normalize(c, &kernel), Status::kOk) << what;
        ExpectSameBits(*array(where_y), want, what + " y");
        if (where_sum != kNone) ExpectSameBits(*array(where_sum), h, what + " sum_out");
      }
    }
  }
}

// A NaN or infinity in the residual (or a sum that overflows the type) makes that row's h
// non-finite: the output row is the type's quiet NaN, sum_out holds the non-finite sum, and the
// rows around are untouched by it.
TEST_P(ResidualTest, NonFiniteSumsGiveNaNRows) {
  std::mt19937_64 rng(kSeed + 2);
  const std::size_t rows = 6, d = 19;
  const std::vector<float> xv = testing::Gaussian(rng, rows * d, 0.0, 1.0);
  std::vector<float> rv = testing::Gaussian(rng, rows * d, 0.0, 1.0);
  const Activations x(dtype(), xv), r_clean(dtype(), rv);
  rv[1 * d + 4] = NAN;
  rv[3 * d] = -INFINITY;
  Activations r(dtype(), rv);
  // Row 4: a finite sum beyond the type's range.
  const float big = dtype() == DType::kFloat16 ? 60000.0f : 3.0e38f;
  Activations xb = x;
  xb.Set(4 * d + 7, big);
  r.Set(4 * d + 7, big);
  NormCall c = testing::MakeCall(norm(), xb, rows, d, 1e-5);
  c.residual = r.data();
  NormCall clean = c;
  clean.x = x.data();
  clean.residual = r_clean.data();
  for (std::size_t k = 0; k < KernelCount(); ++k) {
    Activations y(dtype(), rows * d), sum(dtype(), rows * d);
    NormCall call = c;
    call.y = y.data();
    call.sum_out = sum.data();
    ASSERT_EQ(Normalize(call, &Kernels()[k]), Status::kOk);
    const Activations y_clean = testing::Run(clean, &Kernels()[k]);
    for (std::size_t i = 0; i < y.size(); ++i) {
      const std::size_t row = i / d;
      if (row == 1 || row == 3 || row == 4) {
        ASSERT_EQ(y.Bits(i), testing::QuietNaNBits(dtype())) << "element " << i;
      } else {
        ASSERT_EQ(y.Bits(i), y_clean.Bits(i)) << "element " << i;
      }
    }
    EXPECT_TRUE(std::isnan(sum.Get(1 * d + 4)));
    EXPECT_EQ(sum.Get(3 * d), -INFINITY);
    EXPECT_EQ(sum.Get(4 * d + 7), INFINITY);
  }
}

INSTANTIATE_TEST_SUITE_P(AllKinds, ResidualTest,
                         ::testing::Combine(::testing::ValuesIn(testing::kNorms),
                                            ::testing::ValuesIn(testing::kDTypes)),
                         testing::KindName());

// Issue 14's statement in its own terms: the fused float32 LayerNorm of (x, r) is the one-line
// LayerNorm() of fl32(x + r), bit for bit, on GPT-2-like rows at [1024 x 768].
TEST(Residual, FusedLayerNormIsLayerNormOfTheFloat32Sum) {
  std::mt19937_64 rng(kSeed + 3);
  const std::size_t rows = 1024, d = 768;
  const std::vector<float> x = testing::Gpt2Like(rng, rows, d);
  const std::vector<float> r = testing::Gaussian(rng, rows * d, 0.0, 1.0);
  const std::vector<float> gamma = testing::Params(rng, d, 1.0, 0.3);
  const std::vector<float> beta = testing::Params(rng, d, 0.0, 0.3);
  std::vector<float> h(rows * d);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = x[i] + r[i];
  std::vector<float> want(rows * d), y(rows * d), sum(rows * d);
  for (std::size_t k = 0; k < KernelCount(); ++k) {
    ASSERT_EQ(
        LayerNorm(h.data(), want.data(), rows, d, gamma.data(), beta.data(), 1e-5, &Kernels()[k]),
        Status::kOk);
    NormCall c;
    c.rows = rows;
    c.d = d;
    c.x = x.data();
    c.residual = r.data();
    c.y = y.data();
    c.sum_out = sum.data();
    c.gamma = gamma.data();
    c.beta = beta.data();
    ASSERT_EQ(Normalize(c, &Kernels()[k]), Status::kOk);
    for (std::size_t i = 0; i < y.size(); ++i) {
      ASSERT_TRUE(testing::SameBits(y[i], want[i])) << Kernels()[k].name << " element " << i;
      ASSERT_TRUE(testing::SameBits(sum[i], h[i])) << Kernels()[k].name << " element " << i;
    }
  }
}

}  // namespace
}  // namespace layernorm
