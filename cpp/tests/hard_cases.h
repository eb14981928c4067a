// The hard cases of the numerics contract, read from the shared vector files in tests/data/
// (hard_cases.txt lists them, hard_cases.f32 holds their values), which the JS tests read too.
#ifndef LAYERNORM_TESTS_HARD_CASES_H_
#define LAYERNORM_TESTS_HARD_CASES_H_

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_util.h"

#ifndef LAYERNORM_TEST_DATA_DIR
#error "LAYERNORM_TEST_DATA_DIR must name tests/data (CMakeLists.txt defines it)"
#endif

namespace layernorm::testing {

inline std::string TestDataPath(const std::string& name) {
  return std::string(LAYERNORM_TEST_DATA_DIR) + "/" + name;
}

// The whole of hard_cases.f32, decoded from little-endian whatever the host's byte order.
inline std::vector<float> ReadFloat32File(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                         std::istreambuf_iterator<char>());
  if (bytes.size() % 4 != 0) throw std::runtime_error(path + ": size is not a multiple of 4");
  std::vector<float> values(bytes.size() / 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint32_t bits = std::uint32_t{bytes[4 * i]} | std::uint32_t{bytes[4 * i + 1]} << 8 |
                               std::uint32_t{bytes[4 * i + 2]} << 16 |
                               std::uint32_t{bytes[4 * i + 3]} << 24;
    std::memcpy(&values[i], &bits, 4);
  }
  return values;
}

// Every case of hard_cases.txt; throws (failing the test) when the files are missing or do not
// agree with each other.
inline std::vector<Case> HardCases() {
  const std::vector<float> data = ReadFloat32File(TestDataPath("hard_cases.f32"));
  const std::string list = TestDataPath("hard_cases.txt");
  std::ifstream in(list);
  if (!in) throw std::runtime_error("cannot open " + list);
  auto slice = [&](long long offset, std::size_t count, const std::string& what) {
    if (offset < 0) return std::vector<float>{};
    if (static_cast<std::size_t>(offset) + count > data.size()) {
      throw std::runtime_error(list + ": " + what + " lies beyond the end of hard_cases.f32");
    }
    return std::vector<float>(data.begin() + offset, data.begin() + offset + count);
  };
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Case c;
    long long x = 0, gamma = 0, beta = 0;
    if (!(fields >> c.name >> c.rows >> c.d >> c.eps >> x >> gamma >> beta) || x < 0) {
      throw std::runtime_error(list + ": cannot read the line \"" + line + "\"");
    }
    c.x = slice(x, c.rows * c.d, c.name + " x");
    c.gamma = slice(gamma, c.d, c.name + " gamma");
    c.beta = slice(beta, c.d, c.name + " beta");
    cases.push_back(std::move(c));
  }
  if (cases.empty()) throw std::runtime_error(list + ": no cases");
  return cases;
}

}  // namespace layernorm::testing

#endif  // LAYERNORM_TESTS_HARD_CASES_H_
