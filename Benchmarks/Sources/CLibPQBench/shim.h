// PostgreSQL's client library, libpq, for the raw contender of strata-pg-benchmarks (the same library as
// Strata's CLibPQ; Debian/Ubuntu: libpq-dev, header in /usr/include/postgresql, found with pkg-config).
#include <libpq-fe.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
/// Under callgrind (`--callgrind`, run with --collect-atstart=no): collection on or off around a timed part.
static inline void strata_pg_bench_callgrind_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
/// Under callgrind: writes the counts collected since the last dump to a part file labelled `label`.
static inline void strata_pg_bench_callgrind_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
#else
static inline void strata_pg_bench_callgrind_toggle(void) {}
static inline void strata_pg_bench_callgrind_dump(const char *label) { (void)label; }
#endif
