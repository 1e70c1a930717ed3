// The system's SQLite 3 (libsqlite3-dev on Linux); Apple platforms use their SQLite3 module instead.
#include <sqlite3.h>
