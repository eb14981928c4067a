// libFuzzer target for the validating entry points. Each input decodes to one call:
//
//   byte 0      flags: bits 0-1 rows (0..3), bit 2 gamma, bit 3 beta, bit 4 in place,
//               bit 5 raw gamma/beta (any float, accuracy unchecked), bits 6-7 how x is built
//   byte 1      d (0..64; 0 is invalid)
//   byte 2      eps: 0 = the 8 bytes that follow as a double bit pattern, 1 = 1e-5, 2 = 0,
//               3 = |bit pattern| (still possibly NaN/Inf), other values 1e-5 too
//   bytes 3-10  eps bit pattern
//   the rest    float bit patterns for x, then gamma, then beta (missing bytes read as 0)
//
// and checks, aborting on a violation:
//   * the status is kOk exactly when the arguments are valid (and matches the reference's);
//   * every registered kernel's output (and its statistics) is bit-identical to the scalar
//     kernel's, in place or not, and LayerNormStages reproduces each output row bit for bit
//     (any NaN matching any NaN: payloads are not part of the contract);
//   * a row holding NaN/Inf comes out as NaN; otherwise, where the float64 reference is finite,
//     the output is finite and within 4 scaled ULP of it (the README's numerics contract).
// gamma and beta are kept finite with |v| <= 1e3 unless bit 5 is set, so the affine step cannot
// overflow legitimately; with bit 5 only the bit-identity and status checks apply.
// Known issues, each with a reproducer in cpp/tests/fuzz_regressions/ (see its README.md), are
// allowed for exactly their mechanism; set LAYERNORM_FUZZ_STRICT=1 to fail on them too.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "layernorm/layernorm.h"
#include "test_util.h"

namespace {

using layernorm::Kernel;
using layernorm::RowStats;
using layernorm::Status;

constexpr std::size_t kMaxD = 64;
constexpr double kMaxScaledUlp = 4.0;
constexpr float kMaxParam = 1e3f;

[[noreturn]] void Fail(const char* what, std::size_t row, std::size_t col, double a, double b) {
  std::fprintf(stderr, "operator_fuzz: %s (row %zu, column %zu: %.9g vs %.9g)\n", what, row, col, a,
               b);
  std::abort();
}

void Check(bool ok, const char* what) {
  if (!ok) Fail(what, 0, 0, 0, 0);
}

class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint32_t U32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(Byte()) << (8 * i);
    return v;
  }
  std::uint64_t U64() {
    const std::uint64_t lo = U32();
    return lo | static_cast<std::uint64_t>(U32()) << 32;
  }
  float Float() {
    const std::uint32_t bits = U32();
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// Keeps a parameter finite and moderate, deterministically.
float Moderate(float v) {
  if (std::isnan(v)) return 0.5f;
  if (std::isinf(v)) return v > 0 ? kMaxParam : -kMaxParam;
  if (std::fabs(v) > kMaxParam) return std::fmod(v, kMaxParam);
  return v;
}

std::vector<float> DecodeX(Reader& in, std::size_t n, std::size_t d, int mode) {
  std::vector<float> x(n);
  if (mode == 0 || d == 0) {  // raw bit patterns: huge, tiny, subnormal, NaN, Inf mixed
    for (float& v : x) v = in.Float();
  } else if (mode == 1) {  // per row: offset + small integer steps * scale (cancellation-heavy)
    for (std::size_t r = 0; r * d < n; ++r) {
      const float offset = in.Float();
      const float scale = in.Float();
      for (std::size_t j = 0; j < d; ++j) {
        const auto step = static_cast<std::int8_t>(in.Byte());
        x[r * d + j] = offset + scale * static_cast<float>(step);
      }
    }
  } else if (mode == 2) {  // per row: a constant with a few elements replaced
    for (std::size_t r = 0; r * d < n; ++r) {
      const float c = in.Float();
      for (std::size_t j = 0; j < d; ++j) x[r * d + j] = c;
      const std::size_t changes = in.Byte() % 4;
      for (std::size_t k = 0; k < changes; ++k) x[r * d + in.Byte() % d] = in.Float();
    }
  } else {  // per row: offset + (bits of a small float): nearby values at any magnitude
    for (std::size_t r = 0; r * d < n; ++r) {
      const float offset = in.Float();
      for (std::size_t j = 0; j < d; ++j) {
        const std::uint32_t bits = in.U32() & 0x3fffffffu;  // finite, magnitude < 2
        float t;
        std::memcpy(&t, &bits, 4);
        x[r * d + j] = offset * (1.0f + t * 0x1p-20f);
      }
    }
  }
  return x;
}

bool SameBits64(double a, double b) {
  std::uint64_t ua, ub;
  std::memcpy(&ua, &a, 8);
  std::memcpy(&ub, &b, 8);
  return ua == ub;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool strict = std::getenv("LAYERNORM_FUZZ_STRICT") != nullptr;
  Reader in(data, size);
  const std::uint8_t flags = in.Byte();
  const std::size_t rows = flags & 3;
  const bool has_gamma = flags & 4, has_beta = flags & 8, in_place = flags & 16;
  const bool raw_params = flags & 32;
  const int x_mode = flags >> 6;
  const std::size_t d = in.Byte() % (kMaxD + 1);
  const std::uint8_t eps_mode = in.Byte();
  const std::uint64_t eps_bits = in.U64();
  double eps = 1e-5;
  if (eps_mode == 0 || eps_mode == 3) {
    std::memcpy(&eps, &eps_bits, 8);
    if (eps_mode == 3) eps = std::fabs(eps);
  } else if (eps_mode == 2) {
    eps = 0.0;
  }

  const std::size_t n = rows * d;
  std::vector<float> x = DecodeX(in, n, d, x_mode);
  std::vector<float> gamma, beta;
  if (has_gamma) {
    gamma.resize(d);
    for (float& v : gamma) v = raw_params ? in.Float() : Moderate(in.Float());
  }
  if (has_beta) {
    beta.resize(d);
    for (float& v : beta) v = raw_params ? in.Float() : Moderate(in.Float());
  }
  const float* g = has_gamma && d > 0 ? gamma.data() : nullptr;
  const float* b = has_beta && d > 0 ? beta.data() : nullptr;

  const bool valid = d > 0 && eps >= 0.0 && std::isfinite(eps);
  const Status expected = d == 0   ? Status::kInvalidWidth
                          : !valid ? Status::kInvalidEpsilon
                                   : Status::kOk;

  // Inputs of the wrong kind are refused before any memory is touched.
  Check(layernorm::LayerNorm(nullptr, nullptr, 0, d, g, b, eps) == expected,
        "LayerNorm with rows = 0 and null pointers: wrong status");
  if (valid) {
    float dummy = 0.0f;
    Check(layernorm::LayerNorm(nullptr, &dummy, 1, d, g, b, eps) == Status::kNullPointer,
          "LayerNorm with x null: not kNullPointer");
    if (d >= 2) {
      const std::size_t too_many = std::numeric_limits<std::size_t>::max() / d + 1;
      Check(layernorm::LayerNorm(&dummy, &dummy, too_many, d, g, b, eps) == Status::kSizeOverflow,
            "LayerNorm with rows * d overflowing: not kSizeOverflow");
    }
  }

  // The reference.
  std::vector<float> ref(n + 1);
  const Status ref_status = layernorm::LayerNormReference(x.data(), ref.data(), rows, d, g, b, eps);
  Check(ref_status == expected, "LayerNormReference: wrong status");

  // Every kernel, out of place and in place, against the scalar one (registry entry 0).
  const Kernel* kernels = layernorm::Kernels();
  const std::size_t count = layernorm::KernelCount();
  Check(count >= 1 && std::strcmp(kernels[0].isa, "scalar") == 0, "kernel 0 is not scalar");
  std::vector<float> first;
  std::vector<RowStats> first_stats;
  for (std::size_t k = 0; k < count; ++k) {
    std::vector<float> y(n + 1, -7.0f);
    if (in_place) {
      y.assign(x.begin(), x.end());
      y.push_back(-7.0f);
    }
    const float* src = in_place ? y.data() : x.data();
    const Status s = layernorm::LayerNorm(src, y.data(), rows, d, g, b, eps, &kernels[k]);
    Check(s == expected, "LayerNorm: status differs from the validity of its arguments");
    Check(y[n] == -7.0f, "LayerNorm wrote past the end of y");
    std::vector<RowStats> stats(rows + 1);
    const Status ss = layernorm::LayerNormStats(x.data(), rows, d, eps, stats.data(), &kernels[k]);
    Check(ss == expected, "LayerNormStats: status differs from the validity of its arguments");
    if (expected != Status::kOk) continue;
    y.pop_back();
    if (k == 0) {
      first = y;
      first_stats = stats;
      continue;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!layernorm::testing::SameBits(y[i], first[i])) {
        Fail("kernel output differs from the scalar kernel's", i / d, i % d, y[i], first[i]);
      }
    }
    for (std::size_t r = 0; r < rows; ++r) {
      if (!SameBits64(stats[r].mean, first_stats[r].mean) ||
          !SameBits64(stats[r].variance, first_stats[r].variance) ||
          !SameBits64(stats[r].rstd, first_stats[r].rstd)) {
        Fail("kernel statistics differ from the scalar kernel's", r, 0, stats[r].mean,
             first_stats[r].mean);
      }
    }
  }
  if (expected != Status::kOk) return 0;

  // The stages of every row end in the same output, bit for bit.
  std::vector<float> stage(4 * (d + 1));
  std::vector<float> normalized(n);  // the kernel's float32 x-hat, per element
  const layernorm::LayerNormRowStages stages{stage.data(), stage.data() + d, stage.data() + 2 * d,
                                             stage.data() + 3 * d};
  for (std::size_t r = 0; r < rows; ++r) {
    RowStats st{};
    Check(layernorm::LayerNormStages(x.data() + r * d, d, g, b, eps, &st, stages) == Status::kOk,
          "LayerNormStages: not kOk");
    if (!SameBits64(st.mean, first_stats[r].mean) || !SameBits64(st.rstd, first_stats[r].rstd)) {
      Fail("LayerNormStages statistics differ from LayerNormStats", r, 0, st.mean,
           first_stats[r].mean);
    }
    std::memcpy(normalized.data() + r * d, stages.normalized, d * sizeof(float));
    for (std::size_t j = 0; j < d; ++j) {
      // NaN payloads are not part of the contract: a NaN gamma or beta on a finite row reaches
      // the output through operations whose operand order the compiler may swap.
      const float out = stages.output[j], want = first[r * d + j];
      if (!layernorm::testing::SameBits(out, want) && !(std::isnan(out) && std::isnan(want))) {
        Fail("LayerNormStages output differs from LayerNorm", r, j, out, want);
      }
    }
  }

  // The numerics contract against the float64 reference.
  std::vector<double> row_mean_error(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    double spread = 0.0, magnitude = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
      spread = std::fmax(spread, std::fabs(static_cast<double>(x[r * d + j]) - x[r * d]));
      magnitude = std::fmax(magnitude, std::fabs(static_cast<double>(x[r * d + j])));
    }
    // A constant row's mean is exact (every shifted term is 0), and its output is exactly beta.
    row_mean_error[r] =
        spread == 0.0 ? 0.0 : static_cast<double>(d) * 0x1p-52 * (spread + magnitude);
  }
  for (std::size_t r = 0; r < rows; ++r) {
    bool finite_row = true;
    for (std::size_t j = 0; j < d; ++j) finite_row = finite_row && std::isfinite(x[r * d + j]);
    for (std::size_t j = 0; j < d; ++j) {
      const std::size_t i = r * d + j;
      const float y = first[i];
      if (!finite_row) {
        if (!std::isnan(y)) Fail("a row with NaN/Inf gave a non-NaN output", r, j, y, ref[i]);
        continue;
      }
      if (raw_params) continue;
      if (!std::isfinite(ref[i])) Fail("reference not finite on a finite row", r, j, y, ref[i]);
      if (!std::isfinite(y)) Fail("output not finite where the reference is", r, j, y, ref[i]);
      const float bj = b ? b[j] : 0.0f;
      if (row_mean_error[r] == 0.0 && std::isfinite(x[r * d]) && !(y == bj)) {
        Fail("a constant row did not give exactly beta", r, j, y, bj);
      }
      double bound = kMaxScaledUlp;
      // Known limit (fuzz_regressions/README.md, subnormal-xhat-times-gamma): on the fast path a
      // subnormal float32 x-hat (an element within 2^-126 sigma of the mean) carries an absolute
      // rounding error of up to 2^-150, which gamma scales; the wide path no longer rounds it.
      // Allowed for exactly that, unless LAYERNORM_FUZZ_STRICT is set.
      if (!strict && g && std::fabs(normalized[i]) < 0x1p-126f) {
        const double s = std::fabs(static_cast<double>(ref[i]) - bj) + std::fabs(bj);
        bound += std::fabs(static_cast<double>(g[j])) * 0x1p-150 / layernorm::testing::Ulp32(s);
      }
      // Known issue (mean-cancellation-xhat-near-zero): the row mean is only as exact as a
      // float64 sum, ~d * 2^-53 of the row's magnitude, for the kernels and the reference alike;
      // elements whose x-hat is below that (x within ~1e-14 sigma of the mean) are judged
      // against it, scaled by |gamma| * rstd.
      if (!strict && row_mean_error[r] > 0.0) {
        const double s = std::fabs(static_cast<double>(ref[i]) - bj) + std::fabs(bj);
        const double gj = g ? std::fabs(static_cast<double>(g[j])) : 1.0;
        bound += gj * row_mean_error[r] * first_stats[r].rstd / layernorm::testing::Ulp32(s);
      }
      const double err = layernorm::testing::ScaledUlpError(y, ref[i], bj);
      if (!(err <= bound)) Fail("error above 4 scaled ULP", r, j, y, ref[i]);
    }
  }
  return 0;
}
