// The sqlite3 C API, as the SQLite store uses it (Debian: libsqlite3-dev).
#include <sqlite3.h>
