"""The differential test's reference harness: runs a Python consumer under the machine's real
CPython with its real sqlite3 module, on a database file built from the exercise's schema, and
decides the checks that need no interleaving the way Prüfstein's crash harness decides them
(fresh message, duplicate at the same process and after a restart, same body under a new id,
constraint violation, lost ack, crash points). A crash is a real one: the consumer runs in a child
process that ends itself with os._exit right after the k-th crash point (a successful write, or a
statement that committed a transaction), so SQLite rolls back what was not committed, as after a kill.

Usage: reference_harness.py EXERCISE_DIR CONSUMER.py REFERENCE.py
Prints one JSON object: check name -> "passed" or "failed".
"""

import importlib.util
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import tomllib

CRASH_EXIT = 86
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def keyword(sql):
    words = sql.strip().split(None, 1)
    return words[0].upper() if words else ""


class CrashingConnection(sqlite3.Connection):
    """A real sqlite3 connection that counts crash points and dies at the chosen one."""

    crash_after = None
    points = 0

    def _point(self):
        CrashingConnection.points += 1
        if CrashingConnection.points == CrashingConnection.crash_after:
            sys.stdout.flush()
            os._exit(CRASH_EXIT)

    def execute(self, sql, parameters=()):
        was_open = self.in_transaction
        cursor = super().execute(sql, parameters)
        word = keyword(sql)
        if word in WRITES or (was_open and not self.in_transaction and word in ("COMMIT", "END", "RELEASE")):
            self._point()
        return cursor

    def commit(self):
        was_open = self.in_transaction
        super().commit()
        if was_open:
            self._point()

    def __exit__(self, exc_type, exc_value, traceback):
        if exc_type is None:
            try:
                self.commit()
            except BaseException:
                self.rollback()
                raise
        else:
            self.rollback()
        return False


def child(db_path, consumer_path, entry):
    """One consumer process: deliveries come as JSON lines on stdin ([message, crash_after])."""
    spec = importlib.util.spec_from_file_location("consumer", consumer_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    function = getattr(module, entry)
    con = sqlite3.connect(db_path, factory=CrashingConnection)
    for line in sys.stdin:
        message, crash_after = json.loads(line)
        CrashingConnection.points = 0
        CrashingConnection.crash_after = crash_after
        try:
            result = function(con, message)
            outcome = "processed" if result is True else "duplicate" if result is False else "error"
        except Exception:
            outcome = "error"
        try:
            left_open = con.in_transaction
        except sqlite3.ProgrammingError:
            # The consumer closed the connection (which rolled back what was open). Prüfstein hands
            # each delivery its connection anew; so does this process.
            con = sqlite3.connect(db_path, factory=CrashingConnection)
            left_open = False
        if left_open:
            con.rollback()
            outcome = "left-open"
        print(json.dumps([outcome, CrashingConnection.points]), flush=True)


class Process:
    """A consumer process of the parent's: deliveries in order, until it crashes or is stopped."""

    def __init__(self, harness, db):
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--child", db, harness.consumer, harness.entry],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def deliver(self, message, crash_after=None):
        self.proc.stdin.write(json.dumps([message, crash_after]) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            return ("crashed", crash_after)
        outcome, points = json.loads(line)
        return (outcome, points)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


class Harness:
    def __init__(self, exercise_dir, consumer):
        with open(os.path.join(exercise_dir, "exercise.toml"), "rb") as f:
            config = tomllib.load(f)["consumer"]
        with open(os.path.join(exercise_dir, config["schema"]), encoding="utf-8") as f:
            self.schema = f.read()
        self.entry = config["entry"]
        self.queries = [s["sql"] for s in config["state"]]
        self.messages = config["messages"]
        self.consumer = consumer
        self.tmp = tempfile.mkdtemp(prefix="pruefstein-diff-")
        self.count = 0

    def fresh_db(self):
        self.count += 1
        path = os.path.join(self.tmp, "run-%d.db" % self.count)
        con = sqlite3.connect(path)
        con.executescript(self.schema)
        con.close()
        return path

    def state(self, db):
        con = sqlite3.connect(db)
        state = [sorted(map(repr, con.execute(q).fetchall())) for q in self.queries]
        con.close()
        return state

    def run(self, db, messages):
        """Delivers messages to one process; returns the outcomes."""
        process = Process(self, db)
        outcomes = [process.deliver(m) for m in messages]
        process.stop()
        return outcomes


def expected_states(exercise_dir, reference):
    h = Harness(exercise_dir, reference)
    m = h.messages
    db = h.fresh_db()
    initial = h.state(db)
    h.run(db, [m["fresh"]])
    after_fresh = h.state(db)
    db = h.fresh_db()
    h.run(db, [m["fresh"], m["same_body"]])
    return initial, after_fresh, h.state(db)


def checks(exercise_dir, consumer, reference):
    initial, after_fresh, after_same_body = expected_states(exercise_dir, reference)
    h = Harness(exercise_dir, consumer)
    m = h.messages
    verdict = {}

    def decide(name, ok):
        verdict[name] = "passed" if ok else "failed"

    db = h.fresh_db()
    (first,) = h.run(db, [m["fresh"]])
    decide("fresh-message", first[0] == "processed" and h.state(db) == after_fresh)

    db = h.fresh_db()
    first, second = h.run(db, [m["fresh"], m["fresh"]])
    decide("duplicate-same-instance",
           first[0] == "processed" and second[0] == "duplicate" and h.state(db) == after_fresh)

    for name in ("duplicate-after-restart", "lost-ack"):
        db = h.fresh_db()
        (first,) = h.run(db, [m["fresh"]])
        (second,) = h.run(db, [m["fresh"]])
        decide(name, first[0] == "processed" and second[0] == "duplicate" and h.state(db) == after_fresh)

    db = h.fresh_db()
    first, second = h.run(db, [m["fresh"], m["same_body"]])
    decide("same-body-new-id",
           first[0] == "processed" and second[0] == "processed" and h.state(db) == after_same_body)

    db = h.fresh_db()
    (outcome,) = h.run(db, [m["violation"]])
    decide("constraint-violation", outcome[0] == "error" and h.state(db) == initial)

    decide("crash-points", crash_points(h, initial, after_fresh))
    return verdict


def crash_points(h, initial, after_fresh):
    m = h.messages
    # The fresh message: at every crash point all or nothing, and a redelivery finishes it.
    db = h.fresh_db()
    ((outcome, points),) = h.run(db, [m["fresh"]])
    if outcome != "processed" or points == 0:
        return False
    for k in range(1, points + 1):
        db = h.fresh_db()
        victim = Process(h, db)
        outcome, _ = victim.deliver(m["fresh"], k)
        victim.stop()
        if outcome != "crashed" and outcome != "processed":
            return False
        middle = h.state(db)
        if middle == after_fresh:
            continue
        if middle != initial:
            return False
        (again,) = h.run(db, [m["fresh"]])
        if again[0] != "processed" or h.state(db) != after_fresh:
            return False
    # The failing effect and a duplicate: nothing durable at any crash point. A path whose
    # delivery goes wrong without a crash is left to the checks without crashes.
    for message, expect, expected, first in (
            (m["violation"], "error", initial, None),
            (m["fresh"], "duplicate", after_fresh, m["fresh"])):
        db = h.fresh_db()
        if first is not None:
            h.run(db, [first])
        ((outcome, points),) = h.run(db, [message])
        if outcome != expect or h.state(db) != expected:
            continue
        for k in range(1, points + 1):
            db = h.fresh_db()
            if first is not None:
                h.run(db, [first])
            victim = Process(h, db)
            outcome, _ = victim.deliver(message, k)
            victim.stop()
            if outcome != "crashed" and outcome != expect:
                return False
            if h.state(db) != expected:
                return False
    return True


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        print(json.dumps(checks(sys.argv[1], sys.argv[2], sys.argv[3]), sort_keys=True))
