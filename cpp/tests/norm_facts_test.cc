// A norm is its facts (norm_traits.h): every combination of them the kernels compute, given by
// NormOf() rather than by name, runs through every entry point on every kernel and element type.
// Each output is held to the contract against the reference, and the reference to the formula the
// facts spell, evaluated here on its own in long double; the named norms' facts give their bits.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "dtype_util.h"
#include "layernorm/layernorm.h"
#include "plan.h"
#include "test_util.h"

namespace layernorm {
namespace {

using testing::Activations;

constexpr std::uint64_t kSeed = 20261207;

// Every combination the kernels compute (a bias needs centring: the uncentred kernels add none).
const NormTraits kFacts[] = {
    {true, MomentDivisor::kWidth, true},   {true, MomentDivisor::kWidth, false},
    {true, MomentDivisor::kOne, true},     {true, MomentDivisor::kOne, false},
    {false, MomentDivisor::kWidth, false}, {false, MomentDivisor::kOne, false},
};

std::string FactsName(const NormTraits& t) {
  return std::string(t.centred ? "centred" : "uncentred") +
         (t.divisor == MomentDivisor::kWidth ? "_byWidth" : "_byOne") +
         (t.bias ? "_bias" : "_noBias");
}

// y_j = gamma_j * c_j / sqrt(sum(c^2) / divisor + eps) + beta_j, c = x - mean (centred) or x, in
// long double, as the facts spell it; a row whose c are all 0 gives beta (or 0).
std::vector<double> Formula(const NormTraits& t, const std::vector<float>& x, std::size_t rows,
                            std::size_t d, const float* gamma, const float* beta, double eps) {
  std::vector<double> y(rows * d);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * d;
    long double mean = 0.0L;
    if (t.centred) {
      for (std::size_t j = 0; j < d; ++j) mean += row[j];
      mean /= static_cast<long double>(d);
    }
    long double squares = 0.0L;
    for (std::size_t j = 0; j < d; ++j) squares += (row[j] - mean) * (row[j] - mean);
    const long double divisor = t.divisor == MomentDivisor::kWidth ? d : 1.0L;
    const long double denom = std::sqrt(squares / divisor + eps);
    for (std::size_t j = 0; j < d; ++j) {
      const long double c = row[j] - mean;
      long double v = c == 0.0L ? 0.0L : c / denom;
      if (gamma) v *= gamma[j];
      if (beta) v += beta[j];
      y[r * d + j] = static_cast<double>(v);
    }
  }
  return y;
}

class NormFactsTest : public ::testing::TestWithParam<std::tuple<int, DType>> {
 protected:
  const NormTraits& facts() const { return kFacts[std::get<0>(GetParam())]; }
  Norm norm() const { return NormOf(facts()); }
  DType dtype() const { return std::get<1>(GetParam()); }
};

TEST_P(NormFactsTest, EveryKernelMeetsTheContractAndTheReferenceTheFormula) {
  std::mt19937_64 rng(kSeed);
  std::size_t n = 0;
  for (std::size_t d : {1, 7, 8, 9, 768, 1025}) {
    for (std::size_t rows : {1, 9, 41}) {
      const Activations x(dtype(), testing::Gpt2Like(rng, rows, d));
      const std::vector<float> gamma = testing::Params(rng, d, 1.0, 0.5);
      const std::vector<float> beta = testing::Params(rng, d, 0.0, 0.5);
      NormCall c = testing::MakeCall(norm(), x, rows, d, n++ % 2 ? 1e-5 : 0.0);
      c.gamma = gamma.data();
      if (facts().bias) c.beta = beta.data();
      SCOPED_TRACE(FactsName(facts()) + " d=" + std::to_string(d) +
                   " rows=" + std::to_string(rows));
      const std::vector<float> ref = testing::ReferenceOf(c);
      const std::vector<double> exact = Formula(
          facts(), testing::Widen(dtype(), x.data(), rows * d), rows, d, c.gamma, c.beta, c.eps);
      const Activations first = testing::Run(c, &Kernels()[0]);
      for (std::size_t i = 0; i < ref.size(); ++i) {
        const float b = c.beta ? c.beta[i % d] : 0.0f;
        ASSERT_LE(testing::ScaledUlpError(ref[i], static_cast<float>(exact[i]), b), 1.0)
            << "reference element " << i;
        if (dtype() == DType::kFloat32) {
          ASSERT_LE(testing::ScaledUlpError(first.Get(i), ref[i], b), testing::kContractScaledUlp)
              << "element " << i;
        } else {
          ASSERT_LE(testing::TypeUlpError(dtype(), first.Get(i), ref[i], b), 1.0)
              << "element " << i;
        }
      }
      for (std::size_t k = 1; k < KernelCount(); ++k) {
        const Activations y = testing::Run(c, &Kernels()[k]);
        EXPECT_EQ(testing::FirstDifference(y, first), y.size()) << Kernels()[k].name;
      }
    }
  }
}

// The pipelined rows, the wide path (huge, subnormal, constant and zero rows) and non-finite
// rows all follow the facts: a many-row call equals its rows one at a time, and the statistics
// are the facts' mean and moment.
TEST_P(NormFactsTest, RowsOfEveryPathAndTheirStatistics) {
  std::mt19937_64 rng(kSeed + 1);
  int modes_seen[3] = {0, 0, 0};
  for (std::size_t d : {7, 768}) {
    const std::size_t rows = 41;
    const Activations x = testing::MixedRows(rng, dtype(), rows, d);
    const std::vector<float> gamma = testing::Params(rng, d, 1.0, 0.3);
    const std::vector<float> beta = testing::Params(rng, d, 0.0, 0.3);
    NormCall c = testing::MakeCall(norm(), x, rows, d, 0.0);
    c.gamma = gamma.data();
    if (facts().bias) c.beta = beta.data();
    std::vector<RowStats> stats(rows);
    ASSERT_EQ(Statistics(c, stats.data()), Status::kOk);
    const std::vector<float> values = testing::Widen(dtype(), x.data(), rows * d);
    for (std::size_t r = 0; r < rows; ++r) {
      ++modes_seen[static_cast<int>(detail::ModeOf(norm(), stats[r]))];
      if (!std::isfinite(stats[r].rstd)) continue;
      long double mean = 0.0L, squares = 0.0L;
      for (std::size_t j = 0; j < d; ++j) mean += values[r * d + j];
      mean = facts().centred ? mean / d : 0.0L;
      for (std::size_t j = 0; j < d; ++j) {
        squares += (values[r * d + j] - mean) * (values[r * d + j] - mean);
      }
      const long double moment = facts().divisor == MomentDivisor::kWidth ? squares / d : squares;
      EXPECT_NEAR(stats[r].variance, static_cast<double>(moment), 0x1p-29 * moment) << "row " << r;
      if (!facts().centred) {
        EXPECT_EQ(stats[r].mean, 0.0) << "row " << r;
      }
    }
    for (std::size_t k = 0; k < KernelCount(); ++k) {
      const Activations whole = testing::Run(c, &Kernels()[k]);
      const Activations by_row = testing::RunByRow(c, &Kernels()[k]);
      EXPECT_EQ(testing::FirstDifference(whole, by_row), whole.size()) << Kernels()[k].name;
    }
  }
  EXPECT_GT(modes_seen[static_cast<int>(detail::RowMode::kFast)], 0);
  EXPECT_GT(modes_seen[static_cast<int>(detail::RowMode::kWide)], 0);
  EXPECT_GT(modes_seen[static_cast<int>(detail::RowMode::kNonFinite)], 0);
}

// A fused call and the stages follow the facts too: the stages' output is Normalize()'s.
TEST_P(NormFactsTest, FusedCallAndStages) {
  std::mt19937_64 rng(kSeed + 2);
  const std::size_t d = 96;
  const Activations x(dtype(), testing::Gaussian(rng, d, 0.5, 2.0));
  const Activations r(dtype(), testing::Gaussian(rng, d, 0.0, 1.0));
  const std::vector<float> gamma = testing::Params(rng, d, 1.0, 0.5);
  const std::vector<float> beta = testing::Params(rng, d, 0.0, 0.5);
  const std::vector<float> bias = testing::Params(rng, d, 0.0, 0.5);
  NormCall c = testing::MakeCall(norm(), x, 1, d, 1e-5);
  c.gamma = gamma.data();
  if (facts().bias) c.beta = beta.data();
  c.residual = r.data();
  c.bias = bias.data();
  const Activations y = testing::Run(c);
  const Activations h = testing::ResidualSum(x, r, c.bias, d);
  NormCall plain = testing::MakeCall(norm(), h, 1, d, 1e-5);
  plain.gamma = c.gamma;
  plain.beta = c.beta;
  EXPECT_EQ(testing::FirstDifference(y, testing::Run(plain)), d);
  std::vector<float> input(d), sum(d), centered(d), normalized(d), scaled(d), output(d);
  RowStats stats;
  ASSERT_EQ(Stages(c, &stats,
                   {input.data(), sum.data(), centered.data(), normalized.data(), scaled.data(),
                    output.data()}),
            Status::kOk);
  for (std::size_t j = 0; j < d; ++j) {
    EXPECT_TRUE(testing::SameBits(output[j], y.Get(j))) << "element " << j;
    if (!facts().centred) {
      EXPECT_TRUE(testing::SameBits(centered[j], sum[j])) << "element " << j;
    }
  }
}

// What a norm without a bias or a mean refuses, from its facts.
TEST_P(NormFactsTest, RefusesWhatItsFactsLack) {
  const Activations x(dtype(), std::vector<float>{1.0f, 2.0f});
  std::vector<float> beta = {0.5f, 0.5f}, y(2);
  double mean = 0.0;
  NormCall c = testing::MakeCall(norm(), x, 1, 2, 1e-5);
  c.beta = beta.data();
  Activations out(dtype(), 2);
  c.y = out.data();
  EXPECT_EQ(Normalize(c), facts().bias ? Status::kOk : Status::kBetaWithRmsNorm);
  c.beta = nullptr;
  c.mean = &mean;
  EXPECT_EQ(Normalize(c), facts().centred ? Status::kOk : Status::kMeanWithRmsNorm);
}

INSTANTIATE_TEST_SUITE_P(
    Facts, NormFactsTest,
    ::testing::Combine(::testing::Range(0, static_cast<int>(std::size(kFacts))),
                       ::testing::Values(DType::kFloat32, DType::kFloat16, DType::kBFloat16)),
    [](const auto& info) {
      return FactsName(kFacts[std::get<0>(info.param)]) + "_" +
             testing::Name(std::get<1>(info.param));
    });

// The named norms are rows of the table: their facts, given by NormOf(), compute their bits.
TEST(NormFacts, NamedNormsAreTheirFacts) {
  std::mt19937_64 rng(kSeed + 3);
  const std::size_t rows = 41, d = 768;
  for (Norm named : {Norm::kLayerNorm, Norm::kRmsNorm}) {
    const NormTraits t = detail::TraitsOf(named);
    for (DType type : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      const Activations x = testing::MixedRows(rng, type, rows, d);
      const std::vector<float> gamma = testing::Params(rng, d, 1.0, 0.3);
      const std::vector<float> beta = testing::Params(rng, d, 0.0, 0.3);
      NormCall c = testing::MakeCall(named, x, rows, d, 1e-5);
      c.gamma = gamma.data();
      if (t.bias) c.beta = beta.data();
      NormCall by_facts = c;
      by_facts.norm = NormOf(t);
      EXPECT_EQ(testing::FirstDifference(testing::Run(c), testing::Run(by_facts)), rows * d);
    }
  }
}

TEST(NormFacts, ABiasWithoutCentringIsNoNorm) {
  const std::vector<float> x = {1.0f, 2.0f};
  std::vector<float> y(2);
  for (MomentDivisor divisor : {MomentDivisor::kWidth, MomentDivisor::kOne}) {
    NormCall c;
    c.norm = NormOf({false, divisor, true});
    c.rows = 1;
    c.d = 2;
    c.x = x.data();
    c.y = y.data();
    EXPECT_EQ(Normalize(c), Status::kInvalidNorm);
    EXPECT_EQ(Reference(c, y.data()), Status::kInvalidNorm);
  }
}

}  // namespace
}  // namespace layernorm
