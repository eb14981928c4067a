// Sizes that cannot wrap: the checked products of sizes.h, and every entry point refusing a call
// whose arrays' sizes in bytes do not fit in size_t (Status::kSizeOverflow) before it reads or
// writes anything, at rows and d around 2^26, 2^28, 2^31 and 2^32 and at size_t's own edges (the
// same tests on a 32-bit size_t, wasm32's, cross those edges much sooner).
#include "sizes.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>

#include "layernorm/layernorm.h"
#include "validate.h"

namespace layernorm {
namespace {

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
constexpr int kBits = std::numeric_limits<std::size_t>::digits;

// 2^k, or 0 when size_t cannot hold it (a 32-bit size_t: the tests leave those sizes out).
constexpr std::size_t Pow2(int k) { return k < kBits ? std::size_t{1} << k : 0; }

// The exact product in 128 bits, to judge CheckedMultiply by.
bool Fits(std::size_t a, std::size_t b) {
  return static_cast<unsigned __int128>(a) * b <= static_cast<unsigned __int128>(kMax);
}

TEST(CheckedMultiply, IsTheExactProductOrRefusesIt) {
  const std::size_t values[] = {0,        1,
                                2,        3,
                                4,        Pow2(26),
                                Pow2(28), Pow2(31),
                                Pow2(32), Pow2(kBits / 2),
                                kMax / 2, kMax / 3,
                                kMax / 4, kMax / 2 + 1,
                                kMax};
  for (std::size_t a : values) {
    for (std::size_t b : values) {
      std::size_t product = 12345;
      const bool ok = detail::CheckedMultiply(a, b, &product);
      EXPECT_EQ(ok, Fits(a, b)) << a << " * " << b;
      EXPECT_EQ(product, ok ? a * b : 12345u) << a << " * " << b << ": untouched when refused";
      EXPECT_EQ(detail::BytesFit(a, b), ok);
    }
  }
  std::size_t product = 0;
  EXPECT_TRUE(detail::CheckedMultiply(kMax / 2, 2, 1, &product));
  EXPECT_EQ(product, kMax - 1);
  EXPECT_FALSE(detail::CheckedMultiply(kMax / 2, 2, 2, &product));
  EXPECT_FALSE(detail::CheckedMultiply(kMax, 2, 0, &product));  // a partial product already wraps
  EXPECT_TRUE(detail::CheckedMultiply(Pow2(kBits / 2), Pow2(kBits / 2 - 1), &product));
  EXPECT_FALSE(detail::CheckedMultiply(Pow2(kBits / 2), Pow2(kBits / 2), &product));
}

// A call over one-element arrays that are never touched: each case below is refused, or stops at
// a check after the sizes, before any element is read.
class SizesTest : public ::testing::Test {
 protected:
  NormCall Call(std::size_t rows, std::size_t d, DType dtype) {
    NormCall c;
    c.dtype = dtype;
    c.rows = rows;
    c.d = d;
    c.x = x_;
    c.y = y_;
    return c;
  }
  float x_[1] = {1.0f};
  float y_[1] = {2.0f};
  RowStats stats_[1] = {{3.0, 4.0, 5.0}};

  void ExpectUntouched() {
    EXPECT_EQ(x_[0], 1.0f);
    EXPECT_EQ(y_[0], 2.0f);
    EXPECT_EQ(stats_[0].mean, 3.0);
  }
};

// rows and d around 2^26, 2^28, 2^31 and 2^32 (those size_t holds): each call is refused with
// kSizeOverflow exactly when rows * d values of its type do not fit in size_t; a call that fits
// is judged on (here: refused for) its arrays instead, a null gamma where a bias needs one.
TEST_F(SizesTest, RowsTimesDTimesTheElementSizeAtPowersOfTwo) {
  for (int rk : {0, 26, 28, 31, 32}) {
    for (int dk : {0, 26, 28, 31, 32}) {
      const std::size_t rows = Pow2(rk), d = Pow2(dk);
      if (rows == 0 || d == 0) continue;  // wider than this size_t
      for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
        NormCall c = Call(rows, d, dtype);
        c.y = nullptr;  // past the size check, a null output stops the call
        const std::size_t size = ElementSize(dtype);
        std::size_t bytes = 0;
        const bool fits = detail::CheckedMultiply(rows, d, size, &bytes);
        const Status expected = fits ? Status::kNullPointer : Status::kSizeOverflow;
        EXPECT_EQ(Normalize(c), expected) << "rows 2^" << rk << ", d 2^" << dk << ", " << size;
        EXPECT_EQ(detail::Validate(c), expected);
        EXPECT_EQ(Reference(c, nullptr), expected);
      }
    }
  }
  ExpectUntouched();
}

// A 16-bit row's d values fit where its d floats of float32 staging (and d floats of gamma, beta
// and bias) would not: refused, where the staging's size would have wrapped to a small block.
TEST_F(SizesTest, DFloatsMustFitAsWellAsDValuesOfTheType) {
  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    NormCall c = Call(1, kMax / 2, dtype);  // d * 2 bytes fit, d * 4 do not
    EXPECT_EQ(Normalize(c), Status::kSizeOverflow);
    EXPECT_EQ(Statistics(c, stats_), Status::kSizeOverflow);
    EXPECT_EQ(Reference(c, y_), Status::kSizeOverflow);
    c.d = kMax / 4;  // d * 4 fits: the check moves on
    c.y = nullptr;
    EXPECT_EQ(Normalize(c), Status::kNullPointer);
  }
  ExpectUntouched();
}

// The *Validated entry points (the wasm bindings') allocate a wide 16-bit row's staging
// themselves: a d whose staging's size does not fit is refused there too, before the allocation.
TEST_F(SizesTest, TheStagingAllocationChecksItsOwnSize) {
  NormCall c = Call(1, kMax / 2, DType::kFloat16);
  EXPECT_EQ(detail::NormalizeValidated(c, nullptr), Status::kSizeOverflow);
  EXPECT_EQ(detail::StatisticsValidated(c, stats_, nullptr), Status::kSizeOverflow);
  ExpectUntouched();
}

// rows doubles of mean and rstd, rows records of statistics: their sizes must fit too.
TEST_F(SizesTest, PerRowOutputsMustFit) {
  double mean[1] = {6.0};
  NormCall c = Call(kMax / 4 + 1, 1, DType::kFloat16);  // rows * 2 bytes fit, rows * 8 do not
  c.mean = mean;
  EXPECT_EQ(Normalize(c), Status::kSizeOverflow);
  c.mean = nullptr;
  c.rstd = mean;
  EXPECT_EQ(Normalize(c), Status::kSizeOverflow);
  c.rstd = nullptr;
  EXPECT_EQ(Statistics(c, stats_), Status::kSizeOverflow);  // rows * 24 bytes do not fit
  c.y = nullptr;
  EXPECT_EQ(Normalize(c), Status::kNullPointer);  // without them the sizes fit
  EXPECT_EQ(mean[0], 6.0);
  ExpectUntouched();
}

// The float64 oracle keeps two rows of d doubles: a d whose values fit but whose doubles do not
// is refused, where std::vector would throw.
TEST_F(SizesTest, TheReferenceRowsMustFit) {
  NormCall c = Call(1, kMax / 8, DType::kFloat32);  // d * 4 bytes fit, d * 16 do not
  EXPECT_EQ(Reference(c, y_), Status::kSizeOverflow);
  ExpectUntouched();
}

}  // namespace
}  // namespace layernorm
