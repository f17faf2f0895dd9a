// How a bufferization pass would ask symalias (MLIR One-Shot Bufferize's
// areNonConflictingSubsets, in spirit): may the write to one subset of a
// buffer happen in place, given a later read of another subset? Built with
// the system C++ compiler and run by capi/tests/c_example.rs.
//
//   bufferize                the decode-step example below
//   bufferize --pairs FILE   every case of two views of one element size in
//                            FILE (corpus.c's format) asked as two subsets:
//                            "ID subset d|o|u" (the test holds each against
//                            the Rust API's answer for the pair)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
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

  // A fact about the symbols (`p % 8 == 0`, `q >= p`).
  void assume(const char *fact) { symalias_case_add_assumption(env_.get(), fact); }

  // true: the write may be done in place (no byte of `read` is written, for
  // every value the symbols may take); false: a conflict or unknown.
  bool areNonConflicting(const std::vector<std::string> &bufferStrides, const Subset &write,
                         const Subset &read) const {
    return conflict(bufferStrides, 4, write, read) == SYMALIAS_DISJOINT;
  }

  // The three-valued answer (an error is UNKNOWN: a conflict to the pass).
  SymaliasAnswer conflict(const std::vector<std::string> &bufferStrides, int64_t itemsize,
                          const Subset &write, const Subset &read) const {
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
    if (symalias_subset_conflict(env_.get(), bs.size(), bs.data(), itemsize, &w, &r, kTimeLimitMs,
                                 &answer) !=
        SYMALIAS_OK) {
      std::fprintf(stderr, "symalias: %s\n", symalias_last_error());
      return SYMALIAS_UNKNOWN;  // conservative
    }
    return answer;
  }

 private:
  // A pass picks its own budget per query; this example's answers must not
  // depend on how loaded the machine is (the default is 2 s).
  static constexpr uint64_t kTimeLimitMs = 30000;
  std::unique_ptr<SymaliasCase, void (*)(SymaliasCase *)> env_;
};

std::vector<std::string> fields(const std::string &line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, '\t');) out.push_back(f);
  return out;
}

// A view of one storage as a subset of a buffer of unit strides, padded to
// `rank` dimensions of one element: the same bytes, in MLIR's terms.
struct View {
  int64_t itemsize = 0;
  std::string offset;
  std::vector<std::string> sizes, strides;

  Subset asSubset(size_t rank) const {
    Subset s{{offset}, sizes, strides};
    s.sizes.resize(rank, "1");
    s.strides.resize(rank, "0");
    s.offsets.resize(rank, "0");
    return s;
  }
};

int pairs(const char *path) {
  std::ifstream in(path);
  if (!in) {
    std::perror(path);
    return 2;
  }
  std::string id;
  std::unique_ptr<ConflictOracle> oracle;
  std::vector<View> views;
  for (std::string line; std::getline(in, line);) {
    auto f = fields(line);
    if (f.empty()) return 1;
    if (f[0] == "case") {
      id = f.at(1);
      oracle = std::make_unique<ConflictOracle>();
      views.clear();
    } else if (f[0] == "symbol") {
      oracle->declare(f.at(1).c_str(), std::stoll(f.at(2)), std::stoll(f.at(3)), std::stoll(f.at(4)));
    } else if (f[0] == "assume") {
      oracle->assume(f.at(1).c_str());
    } else if (f[0] == "view") {
      size_t ndim = std::stoul(f.at(3));
      View v{std::stoll(f.at(2)), f.at(4), {}, {}};
      v.sizes.assign(f.begin() + 5, f.begin() + 5 + ndim);
      v.strides.assign(f.begin() + 5 + ndim, f.begin() + 5 + 2 * ndim);
      views.push_back(v);
    } else if (f[0] == "end") {
      if (views.size() != 2 || views[0].itemsize != views[1].itemsize) continue;
      size_t rank = std::max<size_t>({1, views[0].sizes.size(), views[1].sizes.size()});
      std::vector<std::string> unit(rank, "1");
      SymaliasAnswer a = oracle->conflict(unit, views[0].itemsize, views[0].asSubset(rank),
                                          views[1].asSubset(rank));
      std::printf("%s\tsubset\t%c\n", id.c_str(),
                  a == SYMALIAS_DISJOINT ? 'd' : a == SYMALIAS_OVERLAP ? 'o' : 'u');
    } else {
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc == 3 && std::string(argv[1]) == "--pairs") return pairs(argv[2]);
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
