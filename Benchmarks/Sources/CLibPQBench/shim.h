// PostgreSQL's client library, libpq, for the raw contender of strata-pg-benchmarks (the same library as
// Strata's CLibPQ; Debian/Ubuntu: libpq-dev, header in /usr/include/postgresql, found with pkg-config).
#include <libpq-fe.h>
