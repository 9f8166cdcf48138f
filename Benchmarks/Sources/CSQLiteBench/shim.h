// The system SQLite C API for the raw contender and for the harness's setup and verification.
// Same library as Strata's CSQLite and GRDB's GRDBSQLite (Debian's libsqlite3).
#include <sqlite3.h>

#if defined(__linux__)
#include <malloc.h>
/// Heap bytes in use (glibc), for the release workload's bytes per held object.
static inline long strata_bench_heap_in_use(void) { return (long)mallinfo2().uordblks; }
#define STRATA_BENCH_HAS_HEAP_IN_USE 1
#endif
