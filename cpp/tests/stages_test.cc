// Stages() for every norm and type, with and without a residual: the output stage is
// Normalize()'s output widened, bit for bit; the statistics are Statistics()'s (of h with a
// residual); input and sum are x and h widened; and RMSNorm's stages are within their bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "dtype_util.h"
#include "hard_cases.h"
#include "layernorm/layernorm.h"
#include "test_util.h"

namespace layernorm {
namespace {

using testing::Activations;

constexpr std::uint64_t kSeed = 20261205;

class StagesTest : public ::testing::TestWithParam<testing::Kind> {
 protected:
  Norm norm() const { return std::get<0>(GetParam()); }
  DType dtype() const { return std::get<1>(GetParam()); }
  bool rms() const { return norm() == Norm::kRmsNorm; }
};

struct StageVectors {
  explicit StageVectors(std::size_t d)
      : input(d), sum(d), centered(d), normalized(d), scaled(d), output(d) {}
  RowStages view() {
    return {input.data(),      sum.data(),    centered.data(),
            normalized.data(), scaled.data(), output.data()};
  }
  std::vector<float> input, sum, centered, normalized, scaled, output;
};

void ExpectBits(const std::vector<float>& got, const Activations& want, std::size_t first,
                const char* what, std::size_t row) {
  for (std::size_t j = 0; j < got.size(); ++j) {
    ASSERT_EQ(kernels::FloatBits(got[j]), kernels::FloatBits(want.Get(first + j)))
        << what << " differs in row " << row << ", column " << j << ": " << got[j] << " vs "
        << want.Get(first + j);
  }
}

// |got - exact| in float32 spacings of |exact|.
double Spacings(float got, double exact) {
  return std::fabs(static_cast<double>(got) - exact) / testing::Ulp32(std::fabs(exact));
}

// Every row of c through Stages(), against Normalize() (y), Statistics() of what is normalized
// (x, or h = sum), and for RMSNorm the exact stages in double. Bounds, in float32 spacings of the
// exact value: rstd rounded to float32 and the product, 2; gamma's product, 1 more.
void ExpectStagesOfEveryRow(const NormCall& c, const Activations& x, const Activations* h) {
  SCOPED_TRACE(testing::Describe(c));
  const Activations y = testing::Run(c);
  const Activations& normalized_rows = h ? *h : x;
  NormCall plain = c;
  plain.x = normalized_rows.data();
  plain.residual = nullptr;
  plain.bias = nullptr;
  std::vector<RowStats> want(c.rows);
  ASSERT_EQ(Statistics(plain, want.data()), Status::kOk);
  const std::size_t d = c.d;
  StageVectors v(d);
  for (std::size_t r = 0; r < c.rows; ++r) {
    NormCall one = c;
    one.rows = 1;
    one.x = x.row(r, d);
    if (c.residual)
      one.residual = static_cast<const char*>(c.residual) + r * d * ElementSize(c.dtype);
    RowStats stats{};
    ASSERT_EQ(Stages(one, &stats, v.view()), Status::kOk) << "row " << r;
    EXPECT_TRUE(testing::SameBits64(stats.mean, want[r].mean)) << "row " << r;
    EXPECT_TRUE(testing::SameBits64(stats.variance, want[r].variance)) << "row " << r;
    EXPECT_TRUE(testing::SameBits64(stats.rstd, want[r].rstd)) << "row " << r;
    ExpectBits(v.input, x, r * d, "input", r);
    if (h) ExpectBits(v.sum, *h, r * d, "sum", r);
    ExpectBits(v.output, y, r * d, "output", r);
    if (c.norm != Norm::kRmsNorm || std::isnan(stats.rstd)) continue;
    ExpectBits(v.centered, normalized_rows, r * d, "RMSNorm's centered (= its input)", r);
    double squares = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
      const double value = normalized_rows.Get(r * d + j);
      squares += value * value;
    }
    const double rstd = 1.0 / std::sqrt(squares / static_cast<double>(d) + c.eps);
    for (std::size_t j = 0; j < d; ++j) {
      const double value = normalized_rows.Get(r * d + j);
      const double exact = value == 0.0 ? 0.0 : value * rstd;
      const double g = c.gamma ? c.gamma[j] : 1.0;
      EXPECT_LE(Spacings(v.normalized[j], exact), 2.0) << "row " << r << " col " << j;
      EXPECT_LE(Spacings(v.scaled[j], g * exact), 3.0) << "row " << r << " col " << j;
    }
  }
}

TEST_P(StagesTest, HardCasesReproduceNormalize) {
  for (const testing::Case& hc : testing::HardCases()) {
    const Activations x(dtype(), hc.x);
    NormCall c = testing::MakeCall(norm(), x, hc.rows, hc.d, hc.eps);
    c.gamma = testing::OrNull(hc.gamma);
    if (!rms()) c.beta = testing::OrNull(hc.beta);
    SCOPED_TRACE(hc.name);
    ExpectStagesOfEveryRow(c, x, nullptr);
  }
}

TEST_P(StagesTest, MixedRowsWithAndWithoutAResidual) {
  std::mt19937_64 rng(kSeed);
  for (std::size_t d : {1, 7, 8, 9, 768, 771}) {
    const std::size_t rows = 9;
    const Activations x = testing::MixedRows(rng, dtype(), rows, d);
    const Activations r(dtype(), testing::Gaussian(rng, rows * d, 0.0, 1.0));
    const std::vector<float> gamma = testing::Params(rng, d, 1.0, 0.3);
    const std::vector<float> beta = testing::Params(rng, d, 0.0, 0.3);
    const std::vector<float> bias = testing::Params(rng, d, 0.0, 1.0);
    for (double eps : {1e-5, 0.0}) {
      NormCall c = testing::MakeCall(norm(), x, rows, d, eps);
      c.gamma = gamma.data();
      if (!rms()) c.beta = beta.data();
      ExpectStagesOfEveryRow(c, x, nullptr);
      c.residual = r.data();
      const Activations h = testing::ResidualSum(x, r, nullptr, d);
      ExpectStagesOfEveryRow(c, x, &h);
      c.bias = bias.data();
      const Activations hb = testing::ResidualSum(x, r, bias.data(), d);
      ExpectStagesOfEveryRow(c, x, &hb);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllKinds, StagesTest,
                         ::testing::Combine(::testing::ValuesIn(testing::kNorms),
                                            ::testing::ValuesIn(testing::kDTypes)),
                         testing::KindName());

}  // namespace
}  // namespace layernorm
