// Test helpers for calls of every norm and element type: activations held in their own type,
// a NormCall built in one line, and the error metric of the half-precision contract. Values are
// narrowed and widened with kernels/half.h, which half_test.cc checks against independent oracles.
#ifndef LAYERNORM_TESTS_DTYPE_UTIL_H_
#define LAYERNORM_TESTS_DTYPE_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "element.h"
#include "kernels/half.h"
#include "layernorm/layernorm.h"
#include "test_util.h"

namespace layernorm::testing {

inline constexpr DType kDTypes[] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};
inline constexpr Norm kNorms[] = {Norm::kLayerNorm, Norm::kRmsNorm};

inline const char* Name(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat16:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
  }
  return "?";
}

inline const char* Name(Norm n) { return n == Norm::kRmsNorm ? "RMSNorm" : "LayerNorm"; }

using detail::RoundTo;
using detail::WidenAt;

// The one quiet NaN a kernel writes for a non-finite row, as the type's bits.
inline std::uint32_t QuietNaNBits(DType t) {
  switch (t) {
    case DType::kFloat16:
      return 0x7e00u;
    case DType::kBFloat16:
      return 0x7fc0u;
    case DType::kFloat32:
      break;
  }
  return 0x7fc00000u;
}

// The type's spacing at magnitude s (s >= 0): 2^(floor(log2 s) - mantissa bits), and at least
// the spacing of its subnormals (float16 2^-24, bfloat16 2^-133, float32 2^-149).
inline double UlpIn(DType t, double s) {
  int mantissa = 23, min_exponent = -126;  // float32
  if (t == DType::kFloat16) mantissa = 10, min_exponent = -14;
  if (t == DType::kBFloat16) mantissa = 7;
  if (!(s >= std::ldexp(1.0, min_exponent))) return std::ldexp(1.0, min_exponent - mantissa);
  int e;
  std::frexp(s, &e);  // s = m * 2^e, m in [0.5, 1)
  return std::ldexp(1.0, e - 1 - mantissa);
}

// |y - ref rounded to the type| in units of the type's spacing at max(|ref - beta|, |beta|), the
// scale ScaledUlpError uses (without beta: the spacing at |ref| itself).
inline double TypeUlpError(DType t, float y, float ref, float beta) {
  const double b = beta;
  const double s = std::max(std::fabs(static_cast<double>(ref) - b), std::fabs(b));
  return std::fabs(static_cast<double>(y) - RoundTo(t, ref)) / UlpIn(t, s);
}

inline std::vector<float> Widen(DType t, const void* p, std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = WidenAt(t, p, i);
  return v;
}

// rows * d activations stored in their type (float32 bits, or float16/bfloat16 as uint16_t).
class Activations {
 public:
  Activations(DType t, std::size_t n) : type_(t), n_(n), bytes_(n * ElementSize(t) + 16) {}
  // Each value rounded once to the type.
  Activations(DType t, const std::vector<float>& v) : Activations(t, v.size()) {
    for (std::size_t i = 0; i < v.size(); ++i) Set(i, v[i]);
  }

  DType type() const { return type_; }
  std::size_t size() const { return n_; }
  void* data() { return bytes_.data(); }
  const void* data() const { return bytes_.data(); }
  void* row(std::size_t r, std::size_t d) { return bytes_.data() + r * d * ElementSize(type_); }
  const void* row(std::size_t r, std::size_t d) const {
    return bytes_.data() + r * d * ElementSize(type_);
  }

  std::uint32_t Bits(std::size_t i) const {
    if (type_ == DType::kFloat32) {
      std::uint32_t u;
      std::memcpy(&u, bytes_.data() + 4 * i, 4);
      return u;
    }
    std::uint16_t h;
    std::memcpy(&h, bytes_.data() + 2 * i, 2);
    return h;
  }
  void SetBits(std::size_t i, std::uint32_t u) {
    if (type_ == DType::kFloat32) {
      std::memcpy(bytes_.data() + 4 * i, &u, 4);
    } else {
      const auto h = static_cast<std::uint16_t>(u);
      std::memcpy(bytes_.data() + 2 * i, &h, 2);
    }
  }
  // The value, widened exactly to float32.
  float Get(std::size_t i) const { return WidenAt(type_, bytes_.data(), i); }
  // v rounded to the type.
  void Set(std::size_t i, float v) {
    switch (type_) {
      case DType::kFloat16:
        return SetBits(i, kernels::F32ToF16(v));
      case DType::kBFloat16:
        return SetBits(i, kernels::F32ToBF16(v));
      case DType::kFloat32:
        break;
    }
    SetBits(i, kernels::FloatBits(v));
  }
  std::vector<float> Widened() const { return Widen(type_, bytes_.data(), n_); }
  // The bytes past the last element are a guard: the kernels must not write them.
  bool GuardIntact() const {
    for (std::size_t i = n_ * ElementSize(type_); i < bytes_.size(); ++i) {
      if (bytes_[i] != 0) return false;
    }
    return true;
  }

 private:
  DType type_;
  std::size_t n_;
  std::vector<unsigned char> bytes_;
};

// The index of the first element whose bits differ, or size() when all agree.
inline std::size_t FirstDifference(const Activations& a, const Activations& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a.Bits(i) != b.Bits(i)) return i;
  }
  return a.size();
}

inline bool SameBits64(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A call on x (rows of d), without output, parameters or residual yet.
inline NormCall MakeCall(Norm norm, const Activations& x, std::size_t rows, std::size_t d,
                         double eps) {
  NormCall c;
  c.norm = norm;
  c.dtype = x.type();
  c.rows = rows;
  c.d = d;
  c.x = x.data();
  c.eps = eps;
  return c;
}

// Normalize(c) into a fresh output of c's type (c.y is ignored). Throws on a status other than
// kOk: GoogleTest reports that as the test's failure.
inline Activations Run(const NormCall& c, const Kernel* kernel = nullptr) {
  Activations y(c.dtype, c.rows * c.d);
  NormCall call = c;
  call.y = y.data();
  const Status s = Normalize(call, kernel);
  if (s != Status::kOk) throw std::runtime_error(std::string("Normalize: ") + StatusMessage(s));
  return y;
}

// Run(c), each row a call of its own, into one fresh output: what the rows give alone. For calls
// whose only per-row arrays are x and y (no residual, sum or statistics). Throws as Run() does.
inline Activations RunByRow(const NormCall& c, const Kernel* kernel = nullptr) {
  Activations y(c.dtype, c.rows * c.d);
  for (std::size_t r = 0; r < c.rows; ++r) {
    NormCall one = c;
    one.rows = 1;
    one.x = static_cast<const char*>(c.x) + r * c.d * ElementSize(c.dtype);
    one.y = y.row(r, c.d);
    const Status s = Normalize(one, kernel);
    if (s != Status::kOk) throw std::runtime_error(std::string("Normalize: ") + StatusMessage(s));
  }
  return y;
}

// Reference(c): float32 values whatever the type. Throws as Run() does.
inline std::vector<float> ReferenceOf(const NormCall& c) {
  std::vector<float> ref(c.rows * c.d);
  const Status s = Reference(c, ref.data());
  if (s != Status::kOk) throw std::runtime_error(std::string("Reference: ") + StatusMessage(s));
  return ref;
}

// Rows of every kind in the type, as the pipelined and two-run schedules meet them: ordinary,
// offset (shifted sums), constant, zero, subnormal and huge (the wide path; in float16, whose
// range is narrow, only the constant and zero rows take it), and non-finite. rows >= 9.
inline Activations MixedRows(std::mt19937_64& rng, DType t, std::size_t rows, std::size_t d) {
  std::vector<float> x = Gpt2Like(rng, rows, d);
  const float offset = t == DType::kFloat16 ? 1e3f : 1e4f;
  const float huge = t == DType::kFloat16 ? 20.0f : 1e30f;
  const float tiny = t == DType::kFloat16 ? 0x1p-20f : 1e-40f;
  for (std::size_t j = 0; j < d; ++j) {
    x[1 * d + j] += offset;  // shifted sums
    x[2 * d + j] = 3.25f;    // constant: LayerNorm gives beta (wide path)
    x[3 * d + j] = 0.0f;     // zero: RMSNorm with eps 0 takes the wide path
    x[4 * d + j] *= tiny;    // subnormal values
    x[5 * d + j] *= huge;    // huge: the wide path, but in float16
    if (rows > 21) {
      x[19 * d + j] *= huge;
      x[20 * d + j] = -2.0f;
      x[(rows - 1) * d + j] += offset;
    }
  }
  x[7 * d + d / 2] = NAN;  // non-finite between ordinary rows
  if (rows > 21) x[21 * d] = INFINITY;
  return Activations(t, x);
}

// h as the contract defines it, one element at a time (the tests build with
// -ffp-contract=off).
inline Activations ResidualSum(const Activations& x, const Activations& r, const float* bias,
                               std::size_t d) {
  Activations h(x.type(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    float v = x.Get(i) + r.Get(i);
    if (bias) v = v + bias[i % d];
    h.Set(i, v);
  }
  return h;
}

// The parameter of the tests run for every norm and type, and its name in test names
// ("RMSNorm_bfloat16"), from GoogleTest's TestParamInfo<Kind>.
using Kind = std::tuple<Norm, DType>;

struct KindName {
  template <class Info>
  std::string operator()(const Info& info) const {
    return std::string(Name(std::get<0>(info.param))) + "_" + Name(std::get<1>(info.param));
  }
};

inline std::string Describe(const NormCall& c) {
  return std::string(Name(c.norm)) + " " + Name(c.dtype) + " rows=" + std::to_string(c.rows) +
         " d=" + std::to_string(c.d) + " eps=" + std::to_string(c.eps) + (c.gamma ? " gamma" : "") +
         (c.beta ? " beta" : "") + (c.residual ? " residual" : "") + (c.bias ? " bias" : "");
}

}  // namespace layernorm::testing

namespace layernorm {

// How GoogleTest prints a parameter.
inline void PrintTo(Norm n, std::ostream* os) { *os << testing::Name(n); }
inline void PrintTo(DType t, std::ostream* os) { *os << testing::Name(t); }

}  // namespace layernorm

#endif  // LAYERNORM_TESTS_DTYPE_UTIL_H_
