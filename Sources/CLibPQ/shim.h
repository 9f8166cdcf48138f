// PostgreSQL's client library, libpq (Debian/Ubuntu: libpq-dev; found with pkg-config as "libpq").
#include <libpq-fe.h>
