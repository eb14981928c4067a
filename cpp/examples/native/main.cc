// A native program using the layernorm library: GPT-2's final LayerNorm and a Llama-style RMSNorm
// on a few activation-like rows, each checked against the library's float64 oracle. Exits 1 if an
// output is more than 6.5 float32 spacings from it (the library's contract).
#include <layernorm/layernorm.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

// The float32 spacing at |v| (at least the smallest subnormal's).
double Spacing(double v) {
  const double a = std::fabs(v);
  return a < 0x1p-126 ? 0x1p-149 : std::ldexp(1.0, std::ilogb(a) - 23);
}

// Largest error of y against the oracle, in spacings of the larger of |oracle - beta| and |beta|.
double WorstError(const layernorm::NormCall& call, const std::vector<float>& y) {
  std::vector<float> exact(y.size());
  if (layernorm::Reference(call, exact.data()) != layernorm::Status::kOk) return INFINITY;
  double worst = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double b = call.beta ? call.beta[i % call.d] : 0.0;
    const double scale = std::fmax(std::fabs(exact[i] - b), std::fabs(b));
    worst = std::fmax(worst, std::fabs(double(y[i]) - exact[i]) / Spacing(scale));
  }
  return worst;
}

}  // namespace

int main() {
  const std::size_t rows = 4, d = 768;
  std::vector<float> x(rows * d), gamma(d), beta(d), y(rows * d);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(0.37 * i) + (i % d == 447 ? 300.0f : 0.0f);
  for (std::size_t j = 0; j < d; ++j) {
    gamma[j] = 1.0f + 0.1f * std::cos(0.5 * j);
    beta[j] = 0.05f * std::sin(0.25 * j);
  }

  layernorm::NormCall call;
  call.rows = rows;
  call.d = d;
  call.x = x.data();
  call.y = y.data();
  call.gamma = gamma.data();
  call.beta = beta.data();
  call.eps = 1e-5;
  std::vector<double> mean(rows), rstd(rows);
  call.mean = mean.data();
  call.rstd = rstd.data();
  if (layernorm::Normalize(call) != layernorm::Status::kOk) return 1;
  const double ln_error = WorstError(call, y);
  std::printf(
      "LayerNorm (%s): y[447] = %.6f, mean[0] = %.6f, rstd[0] = %.6f, worst %.2f spacings\n",
      layernorm::DefaultKernel().name, y[447], mean[0], rstd[0], ln_error);

  call.norm = layernorm::Norm::kRmsNorm;
  call.beta = nullptr;
  call.mean = nullptr;
  call.eps = 1e-6;
  if (layernorm::Normalize(call) != layernorm::Status::kOk) return 1;
  const double rms_error = WorstError(call, y);
  std::printf("RMSNorm: y[447] = %.6f, rstd[0] = %.6f, worst %.2f spacings\n", y[447], rstd[0],
              rms_error);

  // A bad argument is a status, never a crash.
  call.d = 0;
  const layernorm::Status bad = layernorm::Normalize(call);
  std::printf("d = 0: %s\n", layernorm::StatusMessage(bad));
  return ln_error <= 6.5 && rms_error <= 6.5 && bad == layernorm::Status::kInvalidWidth ? 0 : 1;
}
