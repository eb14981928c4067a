// Products of counts and sizes, checked: every size the core computes from a caller's rows and d
// is one of these (or bounded by one that was checked), so none wraps around size_t, which is 32
// bits in wasm32. A product that does not fit is refused with Status::kSizeOverflow.
#ifndef LAYERNORM_SIZES_H_
#define LAYERNORM_SIZES_H_

#include <cstddef>

namespace layernorm::detail {

// a * b into *product, or false (and *product untouched) when it does not fit in size_t. The
// builtin is a multiply and a flag test: a division, the portable check, costs ~30 cycles in wasm.
inline bool CheckedMultiply(std::size_t a, std::size_t b, std::size_t* product) {
  std::size_t p = 0;
  if (__builtin_mul_overflow(a, b, &p)) return false;
  *product = p;
  return true;
}

// a * b * c likewise: false when a partial product or the whole does not fit.
inline bool CheckedMultiply(std::size_t a, std::size_t b, std::size_t c, std::size_t* product) {
  std::size_t ab = 0;
  return CheckedMultiply(a, b, &ab) && CheckedMultiply(ab, c, product);
}

// Whether n elements of `size` bytes have a size in bytes that fits in size_t.
inline bool BytesFit(std::size_t n, std::size_t size) {
  std::size_t bytes = 0;
  return CheckedMultiply(n, size, &bytes);
}

}  // namespace layernorm::detail

#endif  // LAYERNORM_SIZES_H_
