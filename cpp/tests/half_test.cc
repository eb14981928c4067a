// The float16 and bfloat16 conversions of kernels/half.h against independent oracles (the
// formula for each bit pattern's value, nearest-value search for rounding, and GCC's _Float16
// where the compiler has it), then the wasm SIMD versions of wasmsimd_ops.h bit-identical to them.
#include "kernels/half.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/io.h"
#include "kernels/row_ukernels.h"
#include "kernels/wasmsimd_ops.h"

namespace layernorm::kernels {
namespace {

constexpr std::uint64_t kSeed = 20261201;
constexpr std::size_t kRandomSamples = std::size_t{1} << 22;

// ---- oracles, written from the formats' definitions

// sign * (implicit bit + mantissa) * 2^(exponent - bias - mantissa bits); subnormals without the
// implicit bit and with the smallest exponent. NaN for the NaN patterns.
double FormatValue(std::uint32_t bits, int mantissa_bits, int exponent_bits) {
  const std::uint32_t mantissa = bits & ((1u << mantissa_bits) - 1);
  const std::uint32_t all_ones = (1u << exponent_bits) - 1;
  const std::uint32_t exponent = (bits >> mantissa_bits) & all_ones;
  const bool negative = (bits >> (mantissa_bits + exponent_bits)) & 1;
  const int bias = static_cast<int>(all_ones >> 1);
  double v;
  if (exponent == all_ones) {
    v = mantissa == 0 ? std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), 1 - bias - mantissa_bits);
  } else {
    v = std::ldexp(static_cast<double>(mantissa + (1u << mantissa_bits)),
                   static_cast<int>(exponent) - bias - mantissa_bits);
  }
  return negative ? -v : v;
}

double F16Value(std::uint16_t h) { return FormatValue(h, 10, 5); }
double BF16Value(std::uint16_t b) { return FormatValue(b, 7, 8); }

// The float32 bits a 16-bit pattern widens to: its value (exact in float32), or for a NaN the
// payload moved up unchanged, as half.h documents.
std::uint32_t WidenedBits(std::uint16_t bits, int mantissa_bits, double value) {
  if (std::isnan(value)) {
    const std::uint32_t mantissa = bits & ((1u << mantissa_bits) - 1);
    return (std::uint32_t{bits} & 0x8000u) << 16 | 0x7f800000u | mantissa << (23 - mantissa_bits);
  }
  return FloatBits(static_cast<float>(value));
}

// Every non-negative finite float16 value, indexed by its bits (0 .. 0x7bff, increasing).
const std::vector<double>& F16Table() {
  static const std::vector<double> table = [] {
    std::vector<double> t(0x7c00);
    for (std::uint32_t h = 0; h < 0x7c00; ++h) t[h] = F16Value(static_cast<std::uint16_t>(h));
    return t;
  }();
  return table;
}

std::uint16_t Sign16(float f) { return std::signbit(f) ? 0x8000u : 0u; }

// Round to nearest, ties to even, by search among the float16 values. IEEE 754 overflows to
// infinity from max + half a spacing (65504 + 16) on; NaN becomes the quiet NaN with its sign.
std::uint16_t F16Nearest(float f) {
  if (std::isnan(f)) return Sign16(f) | 0x7e00u;
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return Sign16(f) | 0x7c00u;
  const std::vector<double>& t = F16Table();
  const std::size_t hi = std::upper_bound(t.begin(), t.end(), a) - t.begin();  // 1 .. 0x7c00
  const std::size_t lo = hi - 1;
  const double below = a - t[lo];
  const double above = (hi < t.size() ? t[hi] : 65536.0) - a;
  const bool up = above < below || (above == below && lo % 2 == 1);
  return static_cast<std::uint16_t>(Sign16(f) | (up ? hi : lo));
}

// Round to nearest, ties to even, deciding in double between the two bfloat16 values around f
// (its bits truncated, and the next value up, which may be infinity).
std::uint16_t BF16Nearest(float f) {
  if (std::isnan(f)) return Sign16(f) | 0x7fc0u;
  const auto lo = static_cast<std::uint16_t>(FloatBits(f) >> 16);
  const double a = std::fabs(static_cast<double>(f));
  const double low = std::fabs(BF16Value(lo));
  if (a == low) return lo;  // exact, including +-Inf
  const int exponent = (lo >> 7) & 0xff;
  const double spacing = std::ldexp(1.0, (exponent == 0 ? 1 : exponent) - 127 - 7);
  const double below = a - low, above = low + spacing - a;
  const bool up = above < below || (above == below && (lo & 1u));
  return static_cast<std::uint16_t>(lo + up);
}

// ---- the float inputs where rounding can go wrong

// Every value of the type, the midpoints between neighbours and one float32 spacing either side
// of both, with both signs; then the ends of the range and NaNs of several payloads.
void AddAround(std::vector<float>* out, float v) {
  for (float f : {v, std::nextafter(v, 0.0f), std::nextafter(v, INFINITY)}) {
    out->push_back(f);
    out->push_back(-f);
  }
}

void AddSpecials(std::vector<float>* out) {
  const float inf = std::numeric_limits<float>::infinity();
  for (float f : {0.0f, inf, std::numeric_limits<float>::max(), 0x1p-149f, 0x1p-126f,
                  std::nextafter(0x1p-126f, 0.0f), 65504.0f, 65520.0f, 65536.0f, 0x1p-14f, 0x1p-24f,
                  0x1p-25f, 0x1p-26f, 1.0f, 1.0f + 0x1p-11f, 1.0f + 0x1p-8f}) {
    AddAround(out, f);
  }
  for (std::uint32_t nan : {0x7f800001u, 0x7fc00000u, 0x7fbfffffu, 0x7fffffffu, 0x7fe12345u,
                            0xff800001u, 0xffc00000u, 0xffffffffu}) {
    out->push_back(BitsFloat(nan));
  }
}

std::vector<float> F16Boundaries() {
  std::vector<float> out;
  const std::vector<double>& t = F16Table();
  for (std::size_t h = 0; h < t.size(); ++h) {
    AddAround(&out, static_cast<float>(t[h]));
    const double next = h + 1 < t.size() ? t[h + 1] : 65536.0;
    AddAround(&out, static_cast<float>((t[h] + next) / 2));  // exact: 12 significant bits
  }
  AddSpecials(&out);
  return out;
}

std::vector<float> BF16Boundaries() {
  std::vector<float> out;
  for (std::uint32_t b = 0; b < 0x7f80; ++b) {
    AddAround(&out, BitsFloat(b << 16));
    AddAround(&out, BitsFloat(b << 16 | 0x8000u));  // the midpoint to the next value up
  }
  AddSpecials(&out);
  return out;
}

std::vector<float> RandomFloats(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> out(kRandomSamples);
  for (float& f : out) f = BitsFloat(static_cast<std::uint32_t>(rng()));
  return out;
}

std::string Hex(std::uint32_t u) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08x", u);
  return s;
}

// ---- scalar conversions against the oracles

TEST(Float16, EveryPatternWidensToItsValue) {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const std::uint32_t want = WidenedBits(bits, 10, F16Value(bits));
    ASSERT_EQ(FloatBits(F16ToF32(bits)), want) << "float16 " << Hex(h);
  }
}

#ifdef __FLT16_MANT_DIG__
// GCC's _Float16 (software conversions in libgcc on x86-64) agrees on every value; for a NaN it
// keeps the payload of a quiet NaN, as half.h does (it may quiet a signaling one, half.h does not).
TEST(Float16, EveryPatternWidensAsTheCompilersFloat16) {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    _Float16 v;
    std::memcpy(&v, &bits, 2);
    const float want = static_cast<float>(v);
    const bool signaling = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0 && !(h & 0x200u);
    if (signaling) {
      EXPECT_TRUE(std::isnan(F16ToF32(bits))) << "float16 " << Hex(h);
    } else {
      ASSERT_EQ(FloatBits(F16ToF32(bits)), FloatBits(want)) << "float16 " << Hex(h);
    }
  }
}

TEST(Float16, NarrowsAsTheCompilersFloat16) {
  std::vector<float> inputs = F16Boundaries();
  const std::vector<float> random = RandomFloats(kSeed);
  inputs.insert(inputs.end(), random.begin(), random.end());
  for (float f : inputs) {
    if (std::isnan(f)) continue;  // _Float16 keeps NaN payloads; half.h quiets to 0x7e00
    const _Float16 h = static_cast<_Float16>(f);
    std::uint16_t want;
    std::memcpy(&want, &h, 2);
    ASSERT_EQ(F32ToF16(f), want) << "float " << Hex(FloatBits(f)) << " seed " << kSeed;
  }
}
#endif

TEST(Float16, NarrowsToNearestEvenAtEveryBoundary) {
  const std::vector<float> inputs = F16Boundaries();
  ASSERT_GT(inputs.size(), 6u * 0x7c00u);
  for (float f : inputs) {
    ASSERT_EQ(F32ToF16(f), F16Nearest(f)) << "float " << Hex(FloatBits(f)) << " (" << f << ")";
  }
  // The named edges, spelled out.
  EXPECT_EQ(F32ToF16(65504.0f), 0x7bffu);
  EXPECT_EQ(F32ToF16(std::nextafter(65520.0f, 0.0f)), 0x7bffu);
  EXPECT_EQ(F32ToF16(65520.0f), 0x7c00u);  // the tie goes to the even neighbour: infinity
  EXPECT_EQ(F32ToF16(-65520.0f), 0xfc00u);
  EXPECT_EQ(F32ToF16(0x1p-25f), 0x0000u);  // a tie between 0 and the smallest subnormal
  EXPECT_EQ(F32ToF16(std::nextafter(0x1p-25f, 1.0f)), 0x0001u);
  EXPECT_EQ(F32ToF16(0x1.8p-24f), 0x0002u);  // a tie between 1 and 2 subnormal units: even
  EXPECT_EQ(F32ToF16(std::nextafter(0x1p-14f, 0.0f)), 0x0400u);  // rounds up into the normals
  EXPECT_EQ(F32ToF16(-0.0f), 0x8000u);
  EXPECT_EQ(F32ToF16(BitsFloat(0x7f800001u)), 0x7e00u);  // a signaling NaN: quiet, sign kept
  EXPECT_EQ(F32ToF16(BitsFloat(0xffc12345u)), 0xfe00u);
}

TEST(Float16, NarrowsRandomFloatsToNearestEven) {
  for (float f : RandomFloats(kSeed)) {
    ASSERT_EQ(F32ToF16(f), F16Nearest(f)) << "float " << Hex(FloatBits(f)) << " seed " << kSeed;
  }
}

TEST(Float16, EveryValueSurvivesTheRoundTrip) {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const bool nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
    EXPECT_EQ(F32ToF16(F16ToF32(bits)), nan ? (h & 0x8000u) | 0x7e00u : h) << Hex(h);
  }
}

TEST(BFloat16, EveryPatternWidensToItsValue) {
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    ASSERT_EQ(FloatBits(BF16ToF32(bits)), WidenedBits(bits, 7, BF16Value(bits)))
        << "bfloat16 " << Hex(b);
  }
}

TEST(BFloat16, NarrowsToNearestEvenAtEveryBoundary) {
  const std::vector<float> inputs = BF16Boundaries();
  ASSERT_GT(inputs.size(), 12u * 0x7f80u);
  for (float f : inputs) {
    ASSERT_EQ(F32ToBF16(f), BF16Nearest(f)) << "float " << Hex(FloatBits(f)) << " (" << f << ")";
  }
  EXPECT_EQ(F32ToBF16(std::numeric_limits<float>::max()), 0x7f80u);  // beyond max + half spacing
  EXPECT_EQ(F32ToBF16(BitsFloat(0x7f7f7fffu)), 0x7f7fu);
  EXPECT_EQ(F32ToBF16(BitsFloat(0x7f7f8000u)), 0x7f80u);  // the tie: even is infinity
  EXPECT_EQ(F32ToBF16(BitsFloat(0x3f808000u)), 0x3f80u);  // a tie down to even
  EXPECT_EQ(F32ToBF16(BitsFloat(0x3f818000u)), 0x3f82u);  // a tie up to even
  EXPECT_EQ(F32ToBF16(BitsFloat(0x00008000u)), 0x0000u);  // subnormal tie
  EXPECT_EQ(F32ToBF16(BitsFloat(0x00018000u)), 0x0002u);
  EXPECT_EQ(F32ToBF16(BitsFloat(0x7f800001u)), 0x7fc0u);
  EXPECT_EQ(F32ToBF16(BitsFloat(0xff800001u)), 0xffc0u);
  EXPECT_EQ(F32ToBF16(-0.0f), 0x8000u);
}

TEST(BFloat16, NarrowsRandomFloatsToNearestEven) {
  for (float f : RandomFloats(kSeed + 1)) {
    ASSERT_EQ(F32ToBF16(f), BF16Nearest(f))
        << "float " << Hex(FloatBits(f)) << " seed " << kSeed + 1;
  }
}

TEST(BFloat16, EveryValueSurvivesTheRoundTrip) {
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const bool nan = (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0;
    EXPECT_EQ(F32ToBF16(BF16ToF32(bits)), nan ? (b & 0x8000u) | 0x7fc0u : b) << Hex(b);
  }
}

// ---- the wasm SIMD conversions, bit-identical to the scalar ones

using Ops = WasmSimdOps;

struct Conversions {
  float (*widen)(std::uint16_t);
  std::uint16_t (*narrow)(float);
  void (*load8)(const std::uint16_t*, Ops::F32*, Ops::F32*);
  void (*store8)(std::uint16_t*, Ops::F32, Ops::F32);
  // The range store's fast path: its bits, and the lanes it marks for the general path.
  void (*store8_fast)(std::uint16_t*, Ops::F32, Ops::F32, Ops::F32*);
};

constexpr Conversions kF16{&F16ToF32, &F32ToF16, &Ops::LoadF16x8, &Ops::StoreF16x8,
                           &Ops::StoreF16x8Fast};
constexpr Conversions kBF16{&BF16ToF32, &F32ToBF16, &Ops::LoadBF16x8, &Ops::StoreBF16x8,
                            &Ops::StoreBF16x8Fast};

void ExpectLanes(Ops::F32 v, const Conversions& c, const std::uint16_t* bits) {
  float lanes[4];
  Ops::Store(lanes, v);
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(FloatBits(lanes[i]), FloatBits(c.widen(bits[i]))) << "pattern " << Hex(bits[i]);
  }
}

void CheckVectorWidening(const Conversions& c) {
  // Every pattern, then the first 7 again: the load at every offset puts each pattern in each of
  // the 8 lanes exactly once.
  std::vector<std::uint16_t> all(0x10000 + 7);
  for (std::uint32_t h = 0; h < all.size(); ++h) all[h] = static_cast<std::uint16_t>(h);
  for (std::size_t i = 0; i < 0x10000; ++i) {
    Ops::F32 lo, hi;
    c.load8(&all[i], &lo, &hi);
    ExpectLanes(lo, c, &all[i]);
    ExpectLanes(hi, c, &all[i + 4]);
  }
}

void CheckVectorNarrowing(const Conversions& c, std::vector<float> inputs) {
  while (inputs.size() % 8 != 0) inputs.push_back(0.0f);
  for (std::size_t i = 0; i < inputs.size(); i += 8) {
    std::uint16_t out[8];
    c.store8(out, Ops::Load(&inputs[i]), Ops::Load(&inputs[i + 4]));
    for (int k = 0; k < 8; ++k) {
      ASSERT_EQ(out[k], c.narrow(inputs[i + k])) << "float " << Hex(FloatBits(inputs[i + k]));
    }
  }
}

// The fast path of the range store is right for every group it does not mark: a group with a lane
// it rounds wrong always asks for the general path.
void CheckFastNarrowing(const Conversions& c, std::vector<float> inputs) {
  while (inputs.size() % 8 != 0) inputs.push_back(0.0f);
  for (std::size_t i = 0; i < inputs.size(); i += 8) {
    std::uint16_t out[8];
    Ops::F32 redo = Ops::Splat32(0.0f);
    c.store8_fast(out, Ops::Load(&inputs[i]), Ops::Load(&inputs[i + 4]), &redo);
    if (Ops::AnyLane(redo)) continue;
    for (int k = 0; k < 8; ++k) {
      ASSERT_EQ(out[k], c.narrow(inputs[i + k]))
          << "unmarked lane, float " << Hex(FloatBits(inputs[i + k]));
    }
  }
}

// Narrow over whole ranges: spans of values the fast path takes, with a value it does not take in
// some of them (at the start, the end, the middle of a span, in the tail) and none in others.
template <class Io>
void CheckRangeNarrowing(std::uint16_t (*narrow)(float), std::uint64_t seed) {
  using U = RowUkernels<Ops, Io>;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  const float odd[] = {0.0f,
                       -0.0f,
                       1e-6f,
                       -3e-8f,
                       7e4f,
                       -1e9f,
                       std::numeric_limits<float>::infinity(),
                       BitsFloat(0x7fc00000u),
                       BitsFloat(0xffffffffu),
                       BitsFloat(0x7f800001u)};
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{509},
                        std::size_t{1024}, std::size_t{1543}, std::size_t{4096}}) {
    for (int placement = 0; placement < 6; ++placement) {
      std::vector<float> in(n);
      for (float& v : in) {
        do v = normal(rng);
        while (std::fabs(v) < 1e-3f);  // normal halves: the fast path's
      }
      const std::size_t at[] = {0, n - 1, n / 2, n & ~std::size_t{7}, 600, n};
      if (at[placement] < n) in[at[placement]] = odd[rng() % std::size(odd)];
      std::vector<std::uint16_t> out(n, 0x5555u);
      U::Narrow(in.data(), out.data(), n);
      for (std::size_t j = 0; j < n; ++j) {
        ASSERT_EQ(out[j], narrow(in[j]))
            << "n " << n << ", index " << j << ", float " << Hex(FloatBits(in[j]));
      }
    }
  }
}

TEST(WasmSimdConversions, Float16RangeStoresAreRightWhereTheyDoNotAskForTheGeneralPath) {
  std::vector<float> inputs = F16Boundaries();
  const std::vector<float> random = RandomFloats(kSeed + 4);
  inputs.insert(inputs.end(), random.begin(), random.end());
  CheckFastNarrowing(kF16, inputs);
}

TEST(WasmSimdConversions, BFloat16RangeStoresAreRightWhereTheyDoNotAskForTheGeneralPath) {
  std::vector<float> inputs = BF16Boundaries();
  const std::vector<float> random = RandomFloats(kSeed + 5);
  inputs.insert(inputs.end(), random.begin(), random.end());
  CheckFastNarrowing(kBF16, inputs);
}

TEST(WasmSimdConversions, Float16RangesNarrowAsTheScalarRounding) {
  CheckRangeNarrowing<F16Io<Ops>>(&F32ToF16, kSeed + 6);
}

TEST(WasmSimdConversions, BFloat16RangesNarrowAsTheScalarRounding) {
  CheckRangeNarrowing<BF16Io<Ops>>(&F32ToBF16, kSeed + 7);
}

TEST(WasmSimdConversions, Float16LoadsEqualTheScalarWidening) { CheckVectorWidening(kF16); }
TEST(WasmSimdConversions, BFloat16LoadsEqualTheScalarWidening) { CheckVectorWidening(kBF16); }

TEST(WasmSimdConversions, Float16StoresEqualTheScalarRounding) {
  std::vector<float> inputs = F16Boundaries();
  const std::vector<float> random = RandomFloats(kSeed + 2);
  inputs.insert(inputs.end(), random.begin(), random.end());
  CheckVectorNarrowing(kF16, inputs);
}

TEST(WasmSimdConversions, BFloat16StoresEqualTheScalarRounding) {
  std::vector<float> inputs = BF16Boundaries();
  const std::vector<float> random = RandomFloats(kSeed + 3);
  inputs.insert(inputs.end(), random.begin(), random.end());
  CheckVectorNarrowing(kBF16, inputs);
}

}  // namespace
}  // namespace layernorm::kernels
