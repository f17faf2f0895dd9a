/* The C side of the latency bench (capi/benches/latency.rs builds and runs
 * it): the same three queries as the Rust side, made by a C program through
 * the header, as a compiler written in C would make them. Each query builds
 * its case through the handles, answers it and frees everything.
 *
 *   latency PER_ROUND     prints one line per query kind:
 *                         "<kind>\t<seconds per query>"
 *
 * A warm-up pass runs first so the timed queries find the library loaded
 * and its caches as warm as the Rust side's. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "symalias.h"

static void fail(const char *what) {
  fprintf(stderr, "%s: %s\n", what, symalias_last_error());
  exit(1);
}

static void answer(SymaliasCase *c) {
  SymaliasResult *r = NULL;
  if (symalias_case_overlap(c, 0, &r) != SYMALIAS_OK) fail("overlap");
  symalias_result_free(r);
  symalias_case_free(c);
}

/* Two rows of 4 every 9 elements, at offsets 0 and 9. */
static void concrete_pair(void) {
  static const char *sizes[] = {"4", "4"}, *strides[] = {"9", "1"};
  SymaliasCase *c = symalias_case_new();
  if (symalias_case_add_view(c, "v0", 2, sizes, strides, "0", 4) != SYMALIAS_OK ||
      symalias_case_add_view(c, "v1", 2, sizes, strides, "9", 4) != SYMALIAS_OK)
    fail("concrete pair");
  answer(c);
}

/* x[:n] and x[n:], n in [1, inf) with hint 5: a proof for all n. */
static void symbolic_pair(void) {
  static const char *size[] = {"n"}, *unit[] = {"1"};
  SymaliasCase *c = symalias_case_new();
  if (symalias_case_add_symbol(c, "n", 5, 1, INT64_MAX) != SYMALIAS_OK ||
      symalias_case_add_view(c, "v0", 1, size, unit, "0", 4) != SYMALIAS_OK ||
      symalias_case_add_view(c, "v1", 1, size, unit, "n", 4) != SYMALIAS_OK)
    fail("symbolic pair");
  answer(c);
}

/* 100 blocks of n elements at k*n, n in [1, 1000] with hint 5. */
static char offsets[100][16], names[100][8];

static void group_of_100(void) {
  static const char *size[] = {"n"}, *unit[] = {"1"};
  SymaliasCase *c = symalias_case_new();
  if (symalias_case_add_symbol(c, "n", 5, 1, 1000) != SYMALIAS_OK) fail("group");
  for (int k = 0; k < 100; k++)
    if (symalias_case_add_view(c, names[k], 1, size, unit, offsets[k], 4) != SYMALIAS_OK)
      fail("group");
  answer(c);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void run(const char *kind, void (*query)(void), int n) {
  for (int i = 0; i < (n < 20 ? n : 20); i++) query(); /* warm-up */
  double t = now();
  for (int i = 0; i < n; i++) query();
  printf("%s\t%.9g\n", kind, (now() - t) / n);
}

int main(int argc, char **argv) {
  int per_round = argc > 1 ? atoi(argv[1]) : 200;
  if (per_round <= 0) {
    fprintf(stderr, "usage: latency PER_ROUND (a positive count)\n");
    return 2;
  }
  /* The strings a caller holds: made once, like the Rust side's. */
  for (int k = 0; k < 100; k++) {
    snprintf(offsets[k], sizeof offsets[k], "%d*n", k);
    snprintf(names[k], sizeof names[k], "v%d", k);
  }
  run("concrete pair", concrete_pair, per_round);
  run("symbolic pair", symbolic_pair, per_round);
  run("group of 100", group_of_100, per_round / 10 > 0 ? per_round / 10 : 1);
  return 0;
}
