/*
 * symalias: exact overlap of strided views of one buffer, at the hints and
 * for all allowed shapes, for compilers written in C and C++.
 *
 * Every call returns a SymaliasStatus; on an error, symalias_last_error()
 * gives the message (naming the input and field), valid until this
 * thread's next call. No panic crosses the boundary (SYMALIAS_INTERNAL_ERROR).
 *
 * Ownership: a handle from *_new or an out pointer is the caller's, freed by
 * its *_free (null accepted); strings passed in are borrowed for the call;
 * strings returned are owned by the handle they come from.
 * Threads: a handle may move between threads but not be used from two at
 * once; distinct handles are independent.
 */

#ifndef SYMALIAS_H
#define SYMALIAS_H

/* Generated from capi/src/lib.rs by capi/tests/header.rs (SYMALIAS_BLESS=1 to refresh): do not edit. */

#include <stddef.h>
#include <stdint.h>

// The outcome of a call.
typedef enum SymaliasStatus {
  // Success.
  SYMALIAS_OK = 0,
  // A null handle or pointer, a string that is not UTF-8, an index out of
  // range.
  SYMALIAS_INVALID_ARGUMENT = 1,
  // The case is invalid (a bad expression, an unknown symbol, a negative
  // size at the hints, ...): the message names the field.
  SYMALIAS_INPUT_ERROR = 2,
  // A bug in symalias (a caught panic).
  SYMALIAS_INTERNAL_ERROR = 3,
  // The query's time limit passed with some answer still undecided. The
  // answer is still written (a result handle is the caller's, to be
  // freed as on success): what was decided holds, the rest is
  // `SYMALIAS_UNKNOWN` kept by the result's guards. The message names the
  // limit and what is undecided.
  SYMALIAS_TIME_LIMIT = 4,
} SymaliasStatus;

// An answer about memory.
typedef enum SymaliasAnswer {
  // No byte is shared.
  SYMALIAS_DISJOINT = 0,
  // Some byte is shared.
  SYMALIAS_OVERLAP = 1,
  // Not decided within the limits: to be read as "may overlap".
  SYMALIAS_UNKNOWN = 2,
} SymaliasAnswer;

// A later call, to check a result's guards on (FORMATS §6): its inputs
// by source, each a concrete tensor (object and storage identities, its
// layout) or an integer value.
typedef struct SymaliasCall SymaliasCall;

// A case under construction: symbols, assumptions, views (typed fields:
// no document is written or parsed).
typedef struct SymaliasCase SymaliasCase;

// The answer to a case: the engine's typed report. Its listed pairs and
// its overlapping views are kept sorted, so the accessors look them up by
// binary search.
typedef struct SymaliasResult SymaliasResult;

// A subset of a buffer in MLIR's terms (`tensor.extract_slice` /
// `insert_slice`, `memref.subview`): per dimension an offset, a size and a
// stride, in elements of the buffer's own dimensions; each an expression
// (text) over the case's symbols.
typedef struct SymaliasSubset {
  // The number of dimensions (the buffer's rank).
  size_t rank;
  // `rank` offsets.
  const char *const *offsets;
  // `rank` sizes.
  const char *const *sizes;
  // `rank` strides (1: every element).
  const char *const *strides;
} SymaliasSubset;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

// The message of this thread's last error ("" when none). Owned by the
// library; valid until this thread's next call.
const char *symalias_last_error(void);

// A new, empty case (free with `symalias_case_free`).
struct SymaliasCase *symalias_case_new(void);

// Frees a case (null: nothing).
void symalias_case_free(struct SymaliasCase *case_);

// Declares symbol `name` with its hint (the value now) and its inclusive
// range `[min, max]`; `max == INT64_MAX` means unbounded above.
enum SymaliasStatus symalias_case_add_symbol(struct SymaliasCase *case_,
                                             const char *name,
                                             int64_t hint,
                                             int64_t min,
                                             int64_t max);

// Adds an assumption about the symbols (FORMATS §2 text: `s0 % 8 == 0`,
// `s1 >= s0`).
enum SymaliasStatus symalias_case_add_assumption(struct SymaliasCase *case_,
                                                 const char *assumption);

// Adds a view: `ndim` sizes and strides (in elements) and a storage offset
// (in elements), each an expression over the symbols (FORMATS §2 text), and
// the element size in bytes. `source` names it in guards. Views are
// numbered from 0 in the order added.
enum SymaliasStatus symalias_case_add_view(struct SymaliasCase *case_,
                                           const char *source,
                                           size_t ndim,
                                           const char *const *sizes,
                                           const char *const *strides,
                                           const char *offset,
                                           int64_t itemsize);

// Decides which views overlap, at the hints and for all allowed shapes,
// within `time_limit_ms` (0: the default, 2 s). On success, and on
// `SYMALIAS_TIME_LIMIT`, `*out` is the caller's (free with
// `symalias_result_free`).
enum SymaliasStatus symalias_case_overlap(const struct SymaliasCase *case_,
                                          uint64_t time_limit_ms,
                                          struct SymaliasResult **out);

// Frees a result (null: nothing).
void symalias_result_free(struct SymaliasResult *result);

// Views `a` and `b`: `*at_hints` their answer at the hints (with the
// shared byte in `*address` when they overlap), and `*for_all` whether
// that answer holds for every allowed shape (`SYMALIAS_DISJOINT`/`OVERLAP`
// when proved so, `UNKNOWN` otherwise: then the result's guards keep it).
// A null out pointer is an answer not asked for.
enum SymaliasStatus symalias_result_pair(const struct SymaliasResult *result,
                                         size_t a,
                                         size_t b,
                                         enum SymaliasAnswer *at_hints,
                                         enum SymaliasAnswer *for_all,
                                         int64_t *address);

// The number of views of the case.
size_t symalias_result_view_count(const struct SymaliasResult *result);

// The group's partition: `*overlapping` is 1 when view `i` overlaps (or
// may overlap) some other view at the hints, else 0; `*for_all` whether the
// whole partition is proved for every allowed shape (`SYMALIAS_OVERLAP` /
// `SYMALIAS_DISJOINT` as view `i`'s side, `SYMALIAS_UNKNOWN`: kept by the
// result's guards).
enum SymaliasStatus symalias_result_view(const struct SymaliasResult *result,
                                         size_t i,
                                         int32_t *overlapping,
                                         enum SymaliasAnswer *for_all);

// View `i` against itself: `*at_hints` whether two of its indices reach
// one byte now, `*for_all` whether that holds for every allowed shape
// (`SYMALIAS_UNKNOWN` when not proved).
enum SymaliasStatus symalias_result_self_overlap(const struct SymaliasResult *result,
                                                 size_t i,
                                                 enum SymaliasAnswer *at_hints,
                                                 enum SymaliasAnswer *for_all);

// The number of guards that keep the result true at run time.
size_t symalias_result_guard_count(const struct SymaliasResult *result);

// Guard `i` as FORMATS §4 JSON (owned by the result), or null past the end.
const char *symalias_result_guard(const struct SymaliasResult *result, size_t i);

// MLIR's bufferization question for one buffer: does an in-place write to
// subset `write` conflict with a read of subset `read`? The buffer's
// layout is `buffer_strides` (`rank` expressions, in elements; row-major
// `[d1*d2, d2, 1]` for a dense `d0 × d1 × d2`), its element `itemsize`
// bytes; the symbols and assumptions are `env`'s (its views are not used).
// `*out`: `SYMALIAS_DISJOINT` (no conflict: disjoint for every allowed
// shape), `SYMALIAS_OVERLAP` (a conflict: they share an element at the
// hints and for every allowed shape), `SYMALIAS_UNKNOWN` (shared at some
// shapes only, or not decided within `time_limit_ms`: treat as a
// conflict; past the limit the status is `SYMALIAS_TIME_LIMIT`, `*out`
// still written).
enum SymaliasStatus symalias_subset_conflict(const struct SymaliasCase *env,
                                             size_t rank,
                                             const char *const *buffer_strides,
                                             int64_t itemsize,
                                             const struct SymaliasSubset *write,
                                             const struct SymaliasSubset *read,
                                             uint64_t time_limit_ms,
                                             enum SymaliasAnswer *out);

// A new, empty call (free with `symalias_call_free`).
struct SymaliasCall *symalias_call_new(void);

// Frees a call (null: nothing).
void symalias_call_free(struct SymaliasCall *call);

// Adds a tensor input at `source`: `object` and `storage` name its
// identities (equal strings: the same object, the same storage), `rank`
// sizes and strides in elements, its storage offset in elements and its
// itemsize in bytes. Checked when the call is: a negative field is an
// input error then.
enum SymaliasStatus symalias_call_add_tensor(struct SymaliasCall *call,
                                             const char *source,
                                             const char *object,
                                             const char *storage,
                                             size_t rank,
                                             const int64_t *sizes,
                                             const int64_t *strides,
                                             int64_t storage_offset,
                                             int64_t itemsize);

// Adds an integer input at `source` (what a plain source such as `L['k']`
// binds a symbol to).
enum SymaliasStatus symalias_call_add_value(struct SymaliasCall *call,
                                            const char *source,
                                            int64_t value);

// Checks the result's guards on `call`: `*passed` is 1 when every guard
// holds (the call's views overlap as the result says), else 0 with
// `*failed` the index of the first failing guard (read it with
// `symalias_result_guard`). The list stands alone: it pins the views'
// layouts itself. A call that does not fit the guards (a source missing,
// a negative size) is `SYMALIAS_INPUT_ERROR`, never a pass.
enum SymaliasStatus symalias_result_check(const struct SymaliasResult *result,
                                          const struct SymaliasCall *call,
                                          int32_t *passed,
                                          size_t *failed);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* SYMALIAS_H */
