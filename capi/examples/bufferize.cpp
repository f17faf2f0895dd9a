// How a bufferization pass would ask symalias (MLIR One-Shot Bufferize's
// areNonConflictingSubsets, in spirit): may the write to one subset of a
// buffer happen in place, given a later read of another subset? Built with
// the system C++ compiler and run by capi/tests/c_example.rs.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "symalias.h"

namespace {

// A subset as a pass holds it: offsets, sizes, strides per dimension, each
// an SSA value printed as a symbol or a constant.
struct Subset {
  std::vector<std::string> offsets, sizes, strides;
};

class ConflictOracle {
 public:
  ConflictOracle() : env_(symalias_case_new(), symalias_case_free) {}

  // A dynamic dimension or index: its value now and its range.
  void declare(const char *name, int64_t now, int64_t lo, int64_t hi) {
    symalias_case_add_symbol(env_.get(), name, now, lo, hi);
  }

  // true: the write may be done in place (no byte of `read` is written, for
  // every value the symbols may take); false: a conflict or unknown.
  bool areNonConflicting(const std::vector<std::string> &bufferStrides, const Subset &write,
                         const Subset &read) const {
    auto ptrs = [](const std::vector<std::string> &xs) {
      std::vector<const char *> out;
      for (const auto &x : xs) out.push_back(x.c_str());
      return out;
    };
    auto bs = ptrs(bufferStrides);
    auto wo = ptrs(write.offsets), wsz = ptrs(write.sizes), wst = ptrs(write.strides);
    auto ro = ptrs(read.offsets), rsz = ptrs(read.sizes), rst = ptrs(read.strides);
    SymaliasSubset w{bs.size(), wo.data(), wsz.data(), wst.data()};
    SymaliasSubset r{bs.size(), ro.data(), rsz.data(), rst.data()};
    SymaliasAnswer answer = SYMALIAS_UNKNOWN;
    if (symalias_subset_conflict(env_.get(), bs.size(), bs.data(), 4, &w, &r, 0, &answer) != SYMALIAS_OK) {
      std::fprintf(stderr, "symalias: %s\n", symalias_last_error());
      return false;  // conservative
    }
    return answer == SYMALIAS_DISJOINT;
  }

 private:
  std::unique_ptr<SymaliasCase, void (*)(SymaliasCase *)> env_;
};

}  // namespace

int main() {
  ConflictOracle oracle;
  oracle.declare("p", 5, 0, 1000);  // the decode position
  std::vector<std::string> rows = {"8", "1"};  // a cache of rows of 8
  Subset row{{"p", "0"}, {"1", "8"}, {"1", "1"}};
  Subset prefix{{"0", "0"}, {"p", "8"}, {"1", "1"}};
  Subset through{{"0", "0"}, {"p + 1", "8"}, {"1", "1"}};
  std::printf("write row p, read rows [0, p): %s\n",
              oracle.areNonConflicting(rows, row, prefix) ? "in place" : "copy");
  std::printf("write row p, read rows [0, p + 1): %s\n",
              oracle.areNonConflicting(rows, row, through) ? "in place" : "copy");
  return 0;
}
