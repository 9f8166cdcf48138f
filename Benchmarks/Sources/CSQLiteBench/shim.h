// The system SQLite C API for the raw contender and for the harness's setup and verification.
// Same library as Strata's CSQLite and GRDB's GRDBSQLite (Debian's libsqlite3).
#include <sqlite3.h>
