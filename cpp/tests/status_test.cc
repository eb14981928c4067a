// Each misuse of NormCall gets its Status from every entry point it applies to (Normalize,
// Statistics, Stages, Reference) before any memory is touched, and every Status has its text.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "layernorm/layernorm.h"

namespace layernorm {
namespace {

constexpr std::size_t kD = 4;

// Valid arrays for one call of 2 rows of kD float32 values (large enough for any type), and the
// entry points run on a call built over them.
class StatusTest : public ::testing::Test {
 protected:
  NormCall Call(Norm norm = Norm::kLayerNorm, DType dtype = DType::kFloat32) {
    NormCall c;
    c.norm = norm;
    c.dtype = dtype;
    c.rows = 1;
    c.d = kD;
    c.x = x_.data();
    c.y = y_.data();
    return c;
  }

  Status RunNormalize(const NormCall& c) {
    y_.assign(y_.size(), kUntouched);
    const Status s = Normalize(c);
    for (float v : y_) {
      if (s != Status::kOk && !(v == kUntouched)) ADD_FAILURE() << "y written on failure";
    }
    return s;
  }
  Status RunStatistics(const NormCall& c) { return Statistics(c, stats_); }
  Status RunStages(const NormCall& c) { return Stages(c, stats_, stages()); }
  Status RunReference(const NormCall& c) { return Reference(c, ref_.data()); }

  // Every entry point the misuse applies to returns `want`.
  void ExpectEverywhere(const NormCall& c, Status want, bool reference = true) {
    EXPECT_EQ(RunNormalize(c), want) << "Normalize";
    EXPECT_EQ(RunStatistics(c), want) << "Statistics";
    EXPECT_EQ(RunStages(c), want) << "Stages";
    if (reference) {
      EXPECT_EQ(RunReference(c), want) << "Reference";
    }
  }

  RowStages stages() {
    return {stage_[0].data(), stage_[1].data(), stage_[2].data(),
            stage_[3].data(), stage_[4].data(), stage_[5].data()};
  }

  static constexpr float kUntouched = -7.0f;
  std::vector<float> x_ = std::vector<float>(2 * kD, 1.5f), y_ = std::vector<float>(2 * kD);
  std::vector<float> r_ = std::vector<float>(2 * kD, 0.5f), s_ = std::vector<float>(2 * kD);
  std::vector<float> ref_ = std::vector<float>(2 * kD), params_ = std::vector<float>(kD, 1.0f);
  std::vector<float> stage_[6] = {std::vector<float>(kD), std::vector<float>(kD),
                                  std::vector<float>(kD), std::vector<float>(kD),
                                  std::vector<float>(kD), std::vector<float>(kD)};
  RowStats stats_[2] = {};
  double mean_[2] = {}, rstd_[2] = {};
};

TEST_F(StatusTest, ValidCallsAreOkEverywhere) {
  for (Norm norm : {Norm::kLayerNorm, Norm::kRmsNorm}) {
    for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      NormCall c = Call(norm, dtype);
      c.gamma = params_.data();
      c.rstd = rstd_;
      ExpectEverywhere(c, Status::kOk);
      c.residual = r_.data();
      c.bias = params_.data();
      c.sum_out = s_.data();
      EXPECT_EQ(RunNormalize(c), Status::kOk);
      EXPECT_EQ(RunStages(c), Status::kOk);
      EXPECT_EQ(RunReference(c), Status::kOk);
    }
  }
}

TEST_F(StatusTest, EnumsOutOfRange) {
  for (int bad : {2, -1, 1000}) {
    SCOPED_TRACE(bad);
    NormCall c = Call(static_cast<Norm>(bad));
    ExpectEverywhere(c, Status::kInvalidNorm);
    c = Call(Norm::kLayerNorm, static_cast<DType>(bad == 2 ? 3 : bad));
    ExpectEverywhere(c, Status::kInvalidDType);
  }
  EXPECT_EQ(ElementSize(static_cast<DType>(3)), 0u);
  EXPECT_EQ(ElementSize(DType::kFloat32), 4u);
  EXPECT_EQ(ElementSize(DType::kFloat16), 2u);
  EXPECT_EQ(ElementSize(DType::kBFloat16), 2u);
}

TEST_F(StatusTest, WidthAndEpsilon) {
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    NormCall c = Call(Norm::kRmsNorm, dtype);
    c.d = 0;
    ExpectEverywhere(c, Status::kInvalidWidth);
    for (double eps : {-1e-5, -1e-300, std::nan(""), std::numeric_limits<double>::infinity()}) {
      c = Call(Norm::kRmsNorm, dtype);
      c.eps = eps;
      ExpectEverywhere(c, Status::kInvalidEpsilon);
    }
  }
}

// rows * d * the element size must fit in size_t: the threshold moves with the type. (Only null
// x and y reach past the check, so nothing is read or written.)
TEST_F(StatusTest, SizeOverflowCountsTheElementSize) {
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  NormCall c = Call();
  c.x = c.y = nullptr;
  c.rows = max / kD / 4 + 1;
  EXPECT_EQ(Normalize(c), Status::kSizeOverflow);
  EXPECT_EQ(Statistics(c, nullptr), Status::kSizeOverflow);
  EXPECT_EQ(Reference(c, nullptr), Status::kSizeOverflow);
  c.dtype = DType::kFloat16;
  EXPECT_EQ(Normalize(c), Status::kNullPointer);  // fits in 2 bytes a value
  EXPECT_EQ(Reference(c, nullptr), Status::kNullPointer);
  c.rows = max / kD / 2 + 1;
  EXPECT_EQ(Normalize(c), Status::kSizeOverflow);
  EXPECT_EQ(Statistics(c, nullptr), Status::kSizeOverflow);
  EXPECT_EQ(Reference(c, nullptr), Status::kSizeOverflow);
  c.dtype = DType::kBFloat16;
  EXPECT_EQ(Normalize(c), Status::kSizeOverflow);
}

TEST_F(StatusTest, RmsNormHasNoBetaAndNoMean) {
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    NormCall c = Call(Norm::kRmsNorm, dtype);
    c.beta = params_.data();
    ExpectEverywhere(c, Status::kBetaWithRmsNorm);
    c = Call(Norm::kRmsNorm, dtype);
    c.mean = mean_;
    // Reference() writes no statistics, so a mean pointer means nothing to it.
    ExpectEverywhere(c, Status::kMeanWithRmsNorm, /*reference=*/false);
    EXPECT_EQ(RunReference(c), Status::kOk);
    c = Call(Norm::kLayerNorm, dtype);
    c.mean = mean_;
    c.beta = params_.data();
    ExpectEverywhere(c, Status::kOk);
  }
}

TEST_F(StatusTest, BiasAndSumOutNeedAResidual) {
  NormCall c = Call();
  c.bias = params_.data();
  ExpectEverywhere(c, Status::kBiasWithoutResidual);
  c = Call();
  c.sum_out = s_.data();
  ExpectEverywhere(c, Status::kSumOutWithoutResidual, /*reference=*/false);
  EXPECT_EQ(RunReference(c), Status::kOk);  // writes no sum either
}

TEST_F(StatusTest, SumOutMustNotBeTheOutput) {
  NormCall c = Call(Norm::kRmsNorm, DType::kFloat16);
  c.residual = r_.data();
  c.sum_out = c.y;
  EXPECT_EQ(RunNormalize(c), Status::kSumOutIsOutput);
  c.sum_out = stage_[5].data();  // Stages' output stage stands for y
  EXPECT_EQ(RunStages(c), Status::kSumOutIsOutput);
  // sum_out may be x or the residual.
  c.sum_out = const_cast<void*>(c.x);
  EXPECT_EQ(RunNormalize(c), Status::kOk);
  c.sum_out = r_.data();
  EXPECT_EQ(RunNormalize(c), Status::kOk);
}

TEST_F(StatusTest, StatisticsTakeNoResidual) {
  for (Norm norm : {Norm::kLayerNorm, Norm::kRmsNorm}) {
    NormCall c = Call(norm);
    c.residual = r_.data();
    EXPECT_EQ(RunStatistics(c), Status::kResidualNotHere);
    c.bias = params_.data();
    c.sum_out = s_.data();
    EXPECT_EQ(RunStatistics(c), Status::kResidualNotHere);
  }
}

TEST_F(StatusTest, NullPointers) {
  NormCall c = Call();
  c.x = nullptr;
  ExpectEverywhere(c, Status::kNullPointer);
  c = Call();
  c.y = nullptr;
  EXPECT_EQ(Normalize(c), Status::kNullPointer);
  EXPECT_EQ(Statistics(c, nullptr), Status::kNullPointer);      // the stats stand for y
  EXPECT_EQ(Reference(Call(), nullptr), Status::kNullPointer);  // its own y
  EXPECT_EQ(Stages(Call(), nullptr, stages()), Status::kNullPointer);
  // Stages: one row, every stage but `sum` (which a residual needs).
  for (std::size_t rows : {0, 2}) {
    c = Call();
    c.rows = rows;
    EXPECT_EQ(RunStages(c), Status::kNullPointer) << "rows " << rows;
  }
  for (int missing = 0; missing < 6; ++missing) {
    RowStages s = stages();
    float** fields[6] = {&s.input, &s.sum, &s.centered, &s.normalized, &s.scaled, &s.output};
    *fields[missing] = nullptr;
    c = Call();
    EXPECT_EQ(Stages(c, stats_, s), missing == 1 ? Status::kOk : Status::kNullPointer) << missing;
    c.residual = r_.data();
    EXPECT_EQ(Stages(c, stats_, s), Status::kNullPointer) << missing;
  }
  // No rows: nothing to point at.
  c = Call();
  c.rows = 0;
  c.x = c.y = nullptr;
  EXPECT_EQ(Normalize(c), Status::kOk);
  EXPECT_EQ(Statistics(c, nullptr), Status::kOk);
  EXPECT_EQ(Reference(c, nullptr), Status::kOk);
}

// float16 / bfloat16 rows wider than the kernels' stack staging go through NormCall::scratch, or
// through an allocation Normalize() makes when none is given: the same bits either way, and the
// scratch is all the call touches besides its arrays.
TEST(WideHalfRows, StagedThroughScratchOrAnAllocationAlike) {
  const std::size_t d = 5003, rows = 3;
  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    std::vector<std::uint16_t> x(rows * d), a(rows * d), b(rows * d);
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<std::uint16_t>(0x3c00 + (i * 37) % 900);
    NormCall c;
    c.dtype = dtype;
    c.rows = rows;
    c.d = d;
    c.x = x.data();
    c.y = a.data();
    ASSERT_EQ(Normalize(c), Status::kOk);
    std::vector<float> scratch(d + 1, -1.0f);
    c.y = b.data();
    c.scratch = scratch.data();
    ASSERT_EQ(Normalize(c), Status::kOk);
    EXPECT_EQ(a, b);
    EXPECT_EQ(scratch[d], -1.0f) << "the scratch is d floats, no more";
  }
}

TEST(StatusMessages, EveryStatusHasItsText) {
  const std::pair<Status, const char*> texts[] = {
      {Status::kOk, "ok"},
      {Status::kNullPointer, "a required pointer is null"},
      {Status::kInvalidWidth, "d must be a positive integer"},
      {Status::kInvalidEpsilon, "eps must be a finite number >= 0"},
      {Status::kSizeOverflow,
       "a size in bytes (rows * d values, d floats, rows statistics) overflows size_t"},
      {Status::kNoKernel, "no such kernel in this build"},
      {Status::kInvalidNorm, "norm must be LayerNorm or RMSNorm"},
      {Status::kInvalidDType, "dtype must be float32, float16 or bfloat16"},
      {Status::kBetaWithRmsNorm, "RMSNorm takes no beta"},
      {Status::kMeanWithRmsNorm, "RMSNorm has no mean to write"},
      {Status::kBiasWithoutResidual, "bias is added with the residual, and there is none"},
      {Status::kSumOutWithoutResidual, "sum_out receives x + residual, and there is no residual"},
      {Status::kSumOutIsOutput, "sum_out and y must be different arrays"},
      {Status::kResidualNotHere, "statistics are of x alone: this entry point takes no residual"},
      {Status::kOutOfMemory, "not enough memory for a row's float32 staging (pass scratch)"},
  };
  std::set<std::string> seen;
  for (int i = 0; i < static_cast<int>(std::size(texts)); ++i) {
    EXPECT_EQ(static_cast<int>(texts[i].first), i) << "layernorm.h numbers the statuses in order";
    EXPECT_STREQ(StatusMessage(texts[i].first), texts[i].second);
    seen.insert(StatusMessage(texts[i].first));
  }
  EXPECT_EQ(seen.size(), std::size(texts));
  EXPECT_STREQ(StatusMessage(static_cast<Status>(std::size(texts))), "unknown status");
  EXPECT_STREQ(StatusMessage(static_cast<Status>(-1)), "unknown status");
}

}  // namespace
}  // namespace layernorm
