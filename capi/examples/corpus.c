/* Answers a file of cases through the C ABI and prints every answer, so a
 * test can hold them against the Rust API's (capi/tests/c_example.rs runs
 * it on the golden overlap cases of tests/data/).
 *
 *   corpus FILE
 *
 * FILE: one tab-separated record per line --
 *   case ID | symbol NAME HINT MIN MAX | assume TEXT |
 *   view SOURCE ITEMSIZE NDIM OFFSET SIZE... STRIDE... | end
 * Output, per case (d: disjoint, o: overlap, u: unknown):
 *   ID view I OVERLAPPING FOR_ALL      each view's side of the partition
 *   ID self I AT_HINTS FOR_ALL         each view against itself
 *   ID pair A B AT_HINTS FOR_ALL ADDR  each pair (cases of up to 12 views)
 *   ID guards N
 *   ID error STATUS                    the case was refused */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symalias.h"

#define MAX_FIELDS 512

static char letter(SymaliasAnswer a) {
  return a == SYMALIAS_DISJOINT ? 'd' : a == SYMALIAS_OVERLAP ? 'o' : 'u';
}

/* Splits `line` at tabs in place (the newline dropped): the field count. */
static size_t split(char *line, char **fields) {
  size_t n = 0;
  line[strcspn(line, "\n")] = '\0';
  for (char *p = line; n < MAX_FIELDS; p++) {
    fields[n++] = p;
    p = strchr(p, '\t');
    if (!p) break;
    *p = '\0';
  }
  return n;
}

/* Answers the case and prints what it says (or the error). */
static int answer(const char *id, SymaliasCase *c, int refused) {
  SymaliasResult *r = NULL;
  SymaliasStatus s = refused ? SYMALIAS_INPUT_ERROR : symalias_case_overlap(c, 0, &r);
  /* Past its time limit a result is still written: its undecided answers
   * are UNKNOWN (printed as they are), and it is freed below all the same. */
  if (s != SYMALIAS_OK && s != SYMALIAS_TIME_LIMIT) {
    printf("%s\terror\t%d\n", id, (int)s);
    return 0;
  }
  size_t n = symalias_result_view_count(r);
  for (size_t a = 0; a < n; a++) {
    int32_t over = -1;
    SymaliasAnswer side, hints, all;
    if (symalias_result_view(r, a, &over, &side) != SYMALIAS_OK ||
        symalias_result_self_overlap(r, a, &hints, &all) != SYMALIAS_OK)
      return 1;
    printf("%s\tview\t%zu\t%d\t%c\n", id, a, (int)over, letter(side));
    printf("%s\tself\t%zu\t%c\t%c\n", id, a, letter(hints), letter(all));
  }
  for (size_t a = 0; n <= 12 && a < n; a++)
    for (size_t b = a + 1; b < n; b++) {
      SymaliasAnswer hints, all;
      int64_t at = -1;
      if (symalias_result_pair(r, a, b, &hints, &all, &at) != SYMALIAS_OK) return 1;
      printf("%s\tpair\t%zu\t%zu\t%c\t%c\t%lld\n", id, a, b, letter(hints), letter(all),
             (long long)at);
    }
  printf("%s\tguards\t%zu\n", id, symalias_result_guard_count(r));
  symalias_result_free(r);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: corpus FILE\n");
    return 2;
  }
  FILE *in = fopen(argv[1], "r");
  if (!in) {
    perror(argv[1]);
    return 2;
  }
  char *line = NULL, *f[MAX_FIELDS], id[256] = "";
  size_t cap = 0;
  SymaliasCase *c = NULL;
  int refused = 0, bad = 0;
  while (!bad && getline(&line, &cap, in) > 0) {
    size_t n = split(line, f);
    if (!strcmp(f[0], "case") && n == 2) {
      snprintf(id, sizeof id, "%s", f[1]);
      c = symalias_case_new();
      refused = 0;
    } else if (!strcmp(f[0], "symbol") && n == 5 && c) {
      int64_t hint = strtoll(f[2], NULL, 10), lo = strtoll(f[3], NULL, 10);
      refused |= symalias_case_add_symbol(c, f[1], hint, lo, strtoll(f[4], NULL, 10)) != SYMALIAS_OK;
    } else if (!strcmp(f[0], "assume") && n == 2 && c) {
      refused |= symalias_case_add_assumption(c, f[1]) != SYMALIAS_OK;
    } else if (!strcmp(f[0], "view") && n >= 5 && c) {
      size_t ndim = strtoull(f[3], NULL, 10);
      if (n != 5 + 2 * ndim) {
        bad = 1;
        break;
      }
      refused |= symalias_case_add_view(c, f[1], ndim, (const char **)&f[5],
                                        (const char **)&f[5 + ndim], f[4],
                                        strtoll(f[2], NULL, 10)) != SYMALIAS_OK;
    } else if (!strcmp(f[0], "end") && c) {
      bad = answer(id, c, refused);
      symalias_case_free(c);
      c = NULL;
    } else {
      bad = 1;
    }
  }
  if (bad) fprintf(stderr, "corpus: a malformed record in case '%s': %s\n", id, symalias_last_error());
  symalias_case_free(c);
  free(line);
  fclose(in);
  return bad;
}
