// The system SQLite C API for the raw contender and for the harness's setup and verification.
// Same library as Strata's CSQLite and GRDB's GRDBSQLite (Debian's libsqlite3).
#include <sqlite3.h>

#if defined(__linux__)
#include <malloc.h>
/// Heap bytes in use (glibc), for the release workload's bytes per held object.
static inline long strata_bench_heap_in_use(void) { return (long)mallinfo2().uordblks; }
/// The usable bytes of the heap block at `p` (glibc's chunk less its 8-byte header): a class instance's share.
static inline long strata_bench_usable_size(const void *p) { return (long)malloc_usable_size((void *)p); }
#define STRATA_BENCH_HAS_HEAP_IN_USE 1
#endif

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
/// Under callgrind: writes the counts since the last dump to a part file of their own, labelled `label`
/// (the timed part of a workload is told from the rest this way). Elsewhere a few instructions, no effect.
static inline void strata_bench_callgrind_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
#else
static inline void strata_bench_callgrind_dump(const char *label) { (void)label; }
#endif
