// The per-row statistics a call writes (NormCall::mean, NormCall::rstd) from the pass that
// normalizes: bit-identical to Statistics() for every norm, type and kernel, through the
// pipelined and two-run schedules, on rows of every path, and with a residual (of h).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "dtype_util.h"
#include "kernels/ukernels.h"
#include "layernorm/layernorm.h"
#include "plan.h"
#include "test_util.h"

namespace layernorm {
namespace {

using testing::Activations;

constexpr std::uint64_t kSeed = 20261204;
constexpr double kUnwritten = -12345.0;

class RowStatsTest : public ::testing::TestWithParam<testing::Kind> {
 protected:
  Norm norm() const { return std::get<0>(GetParam()); }
  DType dtype() const { return std::get<1>(GetParam()); }
  bool rms() const { return norm() == Norm::kRmsNorm; }
};

// The statistics c's mean / rstd should hold: Statistics() of the rows normalized (x, or h).
std::vector<RowStats> Expected(const NormCall& c, const void* rows, const Kernel& k) {
  NormCall s = c;
  s.x = rows;
  s.residual = nullptr;
  s.bias = nullptr;
  s.sum_out = nullptr;
  s.mean = s.rstd = nullptr;
  std::vector<RowStats> stats(c.rows);
  EXPECT_EQ(Statistics(s, stats.data(), &k), Status::kOk);
  return stats;
}

// Runs c with the outputs it asks for (mean, rstd or both) and checks them, the sentinel after
// the last row, and that y is what it is without them.
void ExpectStatsOutputs(NormCall c, const void* normalized_rows, const Kernel& k, bool want_mean,
                        bool want_rstd) {
  const std::vector<RowStats> want = Expected(c, normalized_rows, k);
  const Activations y_plain = testing::Run(c, &k);
  std::vector<double> mean(c.rows + 1, kUnwritten), rstd(c.rows + 1, kUnwritten);
  if (want_mean) c.mean = mean.data();
  if (want_rstd) c.rstd = rstd.data();
  const Activations y = testing::Run(c, &k);
  EXPECT_EQ(testing::FirstDifference(y, y_plain), y.size()) << "y changed by asking for stats";
  for (std::size_t r = 0; r < c.rows; ++r) {
    if (want_mean) {
      EXPECT_TRUE(testing::SameBits64(mean[r], want[r].mean))
          << k.name << " row " << r << ": mean " << mean[r] << ", Statistics " << want[r].mean;
    }
    if (want_rstd) {
      EXPECT_TRUE(testing::SameBits64(rstd[r], want[r].rstd))
          << k.name << " row " << r << ": rstd " << rstd[r] << ", Statistics " << want[r].rstd;
    }
  }
  EXPECT_EQ(mean[c.rows], kUnwritten);
  EXPECT_EQ(rstd[c.rows], kUnwritten);
  if (!want_mean) {
    EXPECT_EQ(mean[0], kUnwritten);
  }
  if (!want_rstd) {
    EXPECT_EQ(rstd[0], kUnwritten);
  }
}

// Rows 9 .. 100: one run (pipelined), two runs from 32 on, odd splits; the mixed rows put fast,
// wide and non-finite rows on both sides of the split. The operator's plan confirms the paths.
TEST_P(RowStatsTest, MeanAndRstdEqualStatistics) {
  std::mt19937_64 rng(kSeed);
  int modes_seen[3] = {0, 0, 0};
  for (std::size_t rows : {9, 31, 32, 33, 41, 100}) {
    for (std::size_t d : {1, 8, 9, 768, 771}) {
      for (double eps : {1e-5, 0.0}) {
        const Activations x = testing::MixedRows(rng, dtype(), rows, d);
        const std::vector<float> gamma = testing::Params(rng, d, 1.0, 0.3);
        NormCall c = testing::MakeCall(norm(), x, rows, d, eps);
        c.gamma = gamma.data();
        SCOPED_TRACE(testing::Describe(c));
        for (const RowStats& s : Expected(c, x.data(), DefaultKernel())) {
          ++modes_seen[static_cast<int>(detail::ModeOf(norm(), s))];
        }
        for (std::size_t k = 0; k < KernelCount(); ++k) {
          ExpectStatsOutputs(c, x.data(), Kernels()[k], !rms(), true);
          if (!rms()) ExpectStatsOutputs(c, x.data(), Kernels()[k], true, false);
          ExpectStatsOutputs(c, x.data(), Kernels()[k], false, true);
        }
      }
    }
  }
  EXPECT_GT(modes_seen[static_cast<int>(detail::RowMode::kFast)], 0);
  EXPECT_GT(modes_seen[static_cast<int>(detail::RowMode::kWide)], 0);
  EXPECT_GT(modes_seen[static_cast<int>(detail::RowMode::kNonFinite)], 0);
}

// Rows wider than the kernels' stack staging (a 16-bit row is widened before it is summed): the
// statistics with d floats of the caller's scratch, and with none (Statistics() allocates them),
// are those the normalizing call keeps.
TEST_P(RowStatsTest, RowsWiderThanTheStackStagingWithAndWithoutScratch) {
  std::mt19937_64 rng(kSeed + 3);
  const std::size_t rows = 9, d = kernels::kStageFloats + 3;
  const Activations x = testing::MixedRows(rng, dtype(), rows, d);
  std::vector<float> scratch(d);
  for (float* s : {static_cast<float*>(nullptr), scratch.data()}) {
    NormCall c = testing::MakeCall(norm(), x, rows, d, 1e-5);
    c.scratch = s;
    SCOPED_TRACE(testing::Describe(c));
    for (std::size_t k = 0; k < KernelCount(); ++k) {
      ExpectStatsOutputs(c, x.data(), Kernels()[k], !rms(), true);
    }
  }
}

// With a residual the statistics are those of h, across residual blocks (6000 rows of 3).
TEST_P(RowStatsTest, WithAResidualTheyAreTheStatisticsOfTheSum) {
  std::mt19937_64 rng(kSeed + 1);
  for (const auto& [rows, d] : {std::pair<std::size_t, std::size_t>{41, 768}, {6000, 3}}) {
    const Activations x = testing::MixedRows(rng, dtype(), rows, d);
    const Activations r(dtype(), testing::Gaussian(rng, rows * d, 0.0, 1.0));
    const std::vector<float> bias = testing::Params(rng, d, 0.0, 1.0);
    const Activations h = testing::ResidualSum(x, r, bias.data(), d);
    NormCall c = testing::MakeCall(norm(), x, rows, d, 1e-5);
    c.residual = r.data();
    c.bias = bias.data();
    SCOPED_TRACE(testing::Describe(c));
    for (std::size_t k = 0; k < KernelCount(); ++k) {
      ExpectStatsOutputs(c, h.data(), Kernels()[k], !rms(), true);
    }
  }
}

// rstd is 1 / sqrt(variance + eps) of the statistics, exactly (RMSNorm: the mean square, and a
// mean of 0); +inf for a zero (RMSNorm) or constant (LayerNorm) row with eps 0.
TEST_P(RowStatsTest, RstdIsOneOverSqrtOfVariancePlusEps) {
  std::mt19937_64 rng(kSeed + 2);
  for (double eps : {1e-5, 0.0, 0.25}) {
    const std::size_t rows = 41, d = 771;
    const Activations x = testing::MixedRows(rng, dtype(), rows, d);
    NormCall c = testing::MakeCall(norm(), x, rows, d, eps);
    std::vector<double> rstd(rows);
    c.rstd = rstd.data();
    const Activations y = testing::Run(c);
    const std::vector<RowStats> stats = Expected(c, x.data(), DefaultKernel());
    for (std::size_t r = 0; r < rows; ++r) {
      if (std::isnan(stats[r].variance)) {
        EXPECT_TRUE(std::isnan(rstd[r]));
        continue;
      }
      EXPECT_EQ(rstd[r], 1.0 / std::sqrt(stats[r].variance + eps)) << "row " << r;
      if (rms()) {
        EXPECT_EQ(stats[r].mean, 0.0) << "row " << r;
      }
    }
    if (eps == 0.0) {
      EXPECT_EQ(rstd[rms() ? 3 : 2], INFINITY);  // the zero row; the constant row
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllKinds, RowStatsTest,
                         ::testing::Combine(::testing::ValuesIn(testing::kNorms),
                                            ::testing::ValuesIn(testing::kDTypes)),
                         testing::KindName());

}  // namespace
}  // namespace layernorm
