# The sqlite3 module of Prüfstein's Python guest: the part of CPython 3.11's sqlite3 a consumer
# uses, over ABI v1's db.* imports (_exec, _query_int, _bind_int, _bind_text, _changes,
# _last_error, set by the glue before this runs). The hot path runs in C (glue/sqlite3_native.c):
# _native, at the end, puts it in place of Cursor.execute, Connection.execute, commit, rollback,
# __enter__ and __exit__, keeping each Python method here as its slow path (as _py_<name>), and the
# glue runs a delivery in C; the Python here stays the reference of what they do. Default transaction mode: an implicit BEGIN
# before INSERT/UPDATE/DELETE/REPLACE; commit, rollback, in_transaction; the connection as a
# context manager (commit on success, rollback on an exception, the connection stays open); close()
# (rolls back what is open; afterwards every statement raises ProgrammingError, as CPython's does).
# Rows: a query's first column of its first row, as an integer (what ABI v1 returns).

paramstyle = "qmark"
threadsafety = 1
apilevel = "2.0"
sqlite_version = "3"
version = "2.6.0"

PARSE_DECLTYPES = 1
PARSE_COLNAMES = 2


class Warning(Exception):
    pass


class Error(Exception):
    pass


class InterfaceError(Error):
    pass


class DatabaseError(Error):
    pass


class DataError(DatabaseError):
    pass


class OperationalError(DatabaseError):
    pass


class IntegrityError(DatabaseError):
    pass


class InternalError(DatabaseError):
    pass


class ProgrammingError(DatabaseError):
    pass


class NotSupportedError(DatabaseError):
    pass


_OK = 0
_DUPLICATE = 1
_CONSTRAINT = 2
_ERROR = 3
_NO_ROW = 4

_INT64_MIN = -9223372036854775808
_INT64_MAX = 9223372036854775807


def _keyword(sql):
    # The first word of the statement, after spaces and comments, in upper case.
    return _scan(sql)[0]


def _raise_for(status):
    message = _last_error()
    if status == _DUPLICATE or status == _CONSTRAINT:
        raise IntegrityError(message)
    if message.startswith("not allowed"):
        raise OperationalError(message)
    raise OperationalError(message)


class Cursor:
    def __init__(self, connection):
        self.connection = connection
        self.arraysize = 1
        self.description = None
        self.rowcount = -1
        self._lastrowid = None
        self._rows = []
        self._wrote = False

    def _run(self, sql, parameters):
        self.connection._check()
        if not isinstance(sql, str):
            raise TypeError("execute() argument 1 must be str, not " + type(sql).__name__)
        if isinstance(parameters, dict):
            raise ProgrammingError("named parameters are not supported here; use ? and a tuple")
        try:
            values = tuple(parameters)
        except TypeError:
            raise ProgrammingError("parameters are of unsupported type")
        keyword, wanted, returning = _scan(sql)
        if wanted != len(values):
            raise ProgrammingError(
                "Incorrect number of bindings supplied. The current statement uses %d, and there are %d supplied."
                % (wanted, len(values)))
        con = self.connection
        if keyword in ("INSERT", "UPDATE", "DELETE", "REPLACE") and not con.in_transaction \
                and con.isolation_level is not None:
            con._statement("BEGIN " + con.isolation_level if con.isolation_level else "BEGIN")
            con.in_transaction = True
        for i, value in enumerate(values):
            index = i + 1
            if value is None:
                continue
            if value is True or value is False:
                _bind_int(index, 1 if value else 0)
            elif isinstance(value, int):
                if value < _INT64_MIN or value > _INT64_MAX:
                    raise OverflowError("Python int too large to convert to SQLite INTEGER")
                _bind_int(index, value)
            elif isinstance(value, str):
                _bind_text(index, value)
            else:
                raise ProgrammingError(
                    "Error binding parameter %d: type '%s' is not supported" % (index, type(value).__name__))
        self._rows = []
        self.rowcount = -1
        self._wrote = False
        query = keyword in ("SELECT", "WITH", "VALUES") or returning
        if query:
            status, value = _query_int(sql)
            if status == _OK:
                self._rows = [(value,)]
            elif status != _NO_ROW:
                _raise_for(status)
        else:
            status = _exec(sql)
            if status != _OK:
                _raise_for(status)
            con._track(keyword, sql)
            if keyword in ("INSERT", "UPDATE", "DELETE", "REPLACE"):
                self.rowcount = _changes()
                self._wrote = keyword in ("INSERT", "REPLACE")
        self._lastrowid = None
        return self

    def execute(self, sql, parameters=()):
        return self._run(sql, parameters)

    def executemany(self, sql, seq_of_parameters):
        total = 0
        for parameters in seq_of_parameters:
            self._run(sql, parameters)
            if self.rowcount > 0:
                total += self.rowcount
        self.rowcount = total
        return self

    @property
    def lastrowid(self):
        if self._wrote and self._lastrowid is None:
            status, value = _query_int("SELECT last_insert_rowid()")
            self._lastrowid = value if status == _OK else None
        return self._lastrowid

    def fetchone(self):
        if self._rows:
            return self._rows.pop(0)
        return None

    def fetchall(self):
        rows = self._rows
        self._rows = []
        return rows

    def fetchmany(self, size=None):
        size = self.arraysize if size is None else size
        rows = self._rows[:size]
        self._rows = self._rows[size:]
        return rows

    def __iter__(self):
        return self

    def __next__(self):
        if self._rows:
            return self._rows.pop(0)
        raise StopIteration

    def close(self):
        self._rows = []


class Connection:
    def __init__(self):
        self.in_transaction = False
        self.isolation_level = ""
        self.row_factory = None
        self.total_changes = 0
        self._closed = False

    def _check(self):
        if self._closed:
            raise ProgrammingError("Cannot operate on a closed database.")

    def _statement(self, sql):
        status = _exec(sql)
        if status != _OK:
            _raise_for(status)
        self._track(_keyword(sql), sql)

    def _track(self, keyword, sql):
        if keyword == "BEGIN" or (keyword == "SAVEPOINT" and not self.in_transaction):
            self.in_transaction = True
        elif keyword in ("COMMIT", "END"):
            self.in_transaction = False
        elif keyword == "ROLLBACK" and " TO " not in sql.upper():
            self.in_transaction = False

    def cursor(self):
        self._check()
        return Cursor(self)

    def execute(self, sql, parameters=()):
        return Cursor(self).execute(sql, parameters)

    def executemany(self, sql, seq_of_parameters):
        return Cursor(self).executemany(sql, seq_of_parameters)

    def commit(self):
        self._check()
        if self.in_transaction:
            self._statement("COMMIT")
            self.in_transaction = False

    def rollback(self):
        self._check()
        if self.in_transaction:
            self._statement("ROLLBACK")
            self.in_transaction = False

    def close(self):
        # As CPython's: what is not committed is rolled back, and the connection is done; closing
        # again does nothing.
        if not self._closed:
            if self.in_transaction:
                self._statement("ROLLBACK")
                self.in_transaction = False
            self._closed = True

    def __enter__(self):
        self._check()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if exc_type is None:
            try:
                self.commit()
            except Exception:
                self.rollback()
                raise
        else:
            self.rollback()
        return False


def connect(*args, **kwargs):
    raise NotSupportedError("the grader passes the connection to verarbeite(con, msg)")


# A delivery (in C, glue/sqlite3_native.c: json.loads of the message, a fresh Connection, the
# student's function): its result is True or False, or else this.
def _bad_result(result):
    raise TypeError("verarbeite must return True or False, not %r" % (result,))


_native(Cursor, Connection)
