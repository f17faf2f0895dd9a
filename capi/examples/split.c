/* x[:n] and x[n:] of one float buffer, n a shape symbol in [1, inf): are
 * they disjoint for every n? And rows of 4 every 9 elements at offsets 0
 * and 9: where do they meet? Built and run by capi/tests/c_example.rs. */
#include <stdint.h>
#include <stdio.h>
#include "symalias.h"

static const char *answer(SymaliasAnswer a) {
  return a == SYMALIAS_DISJOINT ? "disjoint" : a == SYMALIAS_OVERLAP ? "overlap" : "unknown";
}

static int check(SymaliasStatus s) {
  if (s != SYMALIAS_OK) fprintf(stderr, "symalias: %s\n", symalias_last_error());
  return s == SYMALIAS_OK;
}

int main(void) {
  SymaliasCase *c = symalias_case_new();
  const char *size[] = {"n"}, *unit[] = {"1"};
  if (!check(symalias_case_add_symbol(c, "n", 5, 1, INT64_MAX)) ||
      !check(symalias_case_add_view(c, "x[:n]", 1, size, unit, "0", 4)) ||
      !check(symalias_case_add_view(c, "x[n:]", 1, size, unit, "n", 4)))
    return 1;
  SymaliasResult *r = NULL;
  if (!check(symalias_case_overlap(c, 0, &r))) return 1;
  SymaliasAnswer hints, all;
  int64_t at = -1;
  if (!check(symalias_result_pair(r, 0, 1, &hints, &all, &at))) return 1;
  printf("split: at the hints %s, for all n %s, guards %zu\n", answer(hints), answer(all),
         symalias_result_guard_count(r));
  symalias_result_free(r);
  symalias_case_free(c);

  c = symalias_case_new();
  const char *sizes[] = {"4", "4"}, *strides[] = {"9", "1"};
  symalias_case_add_view(c, "a", 2, sizes, strides, "0", 4);
  symalias_case_add_view(c, "b", 2, sizes, strides, "9", 4);
  if (!check(symalias_case_overlap(c, 0, &r))) return 1;
  if (!check(symalias_result_pair(r, 0, 1, &hints, &all, &at))) return 1;
  printf("rows: %s at byte %lld\n", answer(hints), (long long)at);
  symalias_result_free(r);

  /* A bad expression: an error naming the field, no crash. */
  const char *bad[] = {"4 +"};
  symalias_case_add_view(c, "c", 1, bad, unit, "0", 4);
  SymaliasStatus s = symalias_case_overlap(c, 0, &r);
  printf("bad input: status %d, %s\n", (int)s, symalias_last_error());
  symalias_case_free(c);
  return 0;
}
