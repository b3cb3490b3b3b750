//! The report's diagnosis, proven on every mutant of every exercise in every language: each has
//! the main problem, decisive line and key claim the table below expects, and every finding of
//! every report (main and others) claims only what the report's own evidence shows (a "doppelt"
//! only with a doubled effect in the state, "ID gemerkt, Wirkung fehlt" only with that pattern of
//! rows, a return value only with that return in the trace, a decisive line only where the trace
//! or the log has it). Reports in Python or JavaScript use none of ABI v1's words; no report mixes
//! its two languages; the default text fits one screen. An exercise can bring its own kinds of
//! mistake.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use pruefstein::grade::{GradeOptions, grade};
use pruefstein::report::consumer::{ConsumerDetail, TraceEvent};
use pruefstein::report::diagnosis::{Effect, Finding, Memory};
use pruefstein::report::state::{Row, SqlValue, State};
use pruefstein::report::{CheckDetail, Report, render_text, render_text_full};
use pruefstein::submission::{Language, Submission};
use pruefstein::text::Lang;

use crate::support::{copy_tree, exercise_dir, load, repo};

/// One mutant's expected diagnosis: the check and kind of its main problem, its decisive line (a
/// source) or the start of its decisive statement (a module), and words its title must hold.
struct Expected {
    file: &'static str,
    check: &'static str,
    mistake: &'static str,
    line: Option<u32>,
    statement: Option<&'static str>,
    claim: &'static str,
}

const fn row(
    file: &'static str,
    check: &'static str,
    mistake: &'static str,
    (line, statement): (Option<u32>, Option<&'static str>),
    claim: &'static str,
) -> Expected {
    Expected { file, check, mistake, line, statement, claim }
}

const NONE: (Option<u32>, Option<&str>) = (None, None);
const fn at(line: u32) -> (Option<u32>, Option<&'static str>) {
    (Some(line), None)
}
const fn sql(statement: &'static str) -> (Option<u32>, Option<&'static str>) {
    (None, Some(statement))
}

/// Every mutant of the diagnosed exercises, with its expected diagnosis.
const TABLE: &[Expected] = &[
    row(
        "03-idempotenter-konsument/mutants/check-then-act.ts",
        "concurrent-duplicate",
        "concurrent-double",
        at(2),
        "doppelt",
    ),
    row(
        "03-idempotenter-konsument/mutants/check-then-act.wat",
        "concurrent-duplicate",
        "concurrent-double",
        sql("SELECT count(*) FROM gesehen"),
        "doppelt",
    ),
    row(
        "03-idempotenter-konsument/mutants/commits-failed-id-then-forgets.wat",
        "crash-points",
        "failed-id-kept",
        sql("COMMIT"),
        "ID ist gemerkt",
    ),
    row(
        "03-idempotenter-konsument/mutants/commits-id-after-checking-the-limit.wat",
        "crash-points",
        "id-kept-without-effect",
        sql("COMMIT"),
        "ID gemerkt, Wirkung fehlt",
    ),
    row(
        "03-idempotenter-konsument/mutants/commits-id-first.wat",
        "crash-points",
        "id-kept-without-effect",
        sql("COMMIT"),
        "ID gemerkt, Wirkung fehlt",
    ),
    row(
        "03-idempotenter-konsument/mutants/commits-id-then-credit-in-second-transaction.wat",
        "crash-points",
        "id-kept-without-effect",
        sql("COMMIT"),
        "ID gemerkt, Wirkung fehlt",
    ),
    row(
        "03-idempotenter-konsument/mutants/dedup-in-memory.js",
        "duplicate-after-restart",
        "duplicate-not-detected",
        at(11),
        "doppelt",
    ),
    row(
        "03-idempotenter-konsument/mutants/dedup-in-memory.py",
        "duplicate-after-restart",
        "duplicate-not-detected",
        at(12),
        "doppelt",
    ),
    row(
        "03-idempotenter-konsument/mutants/dedup-in-memory.wat",
        "duplicate-after-restart",
        "duplicate-not-detected",
        sql("UPDATE punkte"),
        "doppelt",
    ),
    row(
        "03-idempotenter-konsument/mutants/duplicate-returns-1.wat",
        "duplicate-same-instance",
        "duplicate-answered-processed",
        NONE,
        "als verarbeitet gemeldet",
    ),
    row(
        "03-idempotenter-konsument/mutants/duplicate-returns-true.py",
        "duplicate-same-instance",
        "duplicate-answered-processed",
        at(13),
        "als verarbeitet gemeldet",
    ),
    row(
        "03-idempotenter-konsument/mutants/never-commits.js",
        "fresh-message",
        "effect-rolled-back",
        at(17),
        "Wirkung ist verloren",
    ),
    row(
        "03-idempotenter-konsument/mutants/never-commits.py",
        "fresh-message",
        "effect-rolled-back",
        at(15),
        "Wirkung ist verloren",
    ),
    row(
        "03-idempotenter-konsument/mutants/never-commits.wat",
        "fresh-message",
        "effect-rolled-back",
        NONE,
        "Wirkung ist verloren",
    ),
    row(
        "03-idempotenter-konsument/mutants/no-dedup.js",
        "duplicate-same-instance",
        "duplicate-not-detected",
        at(6),
        "doppelt",
    ),
    row(
        "03-idempotenter-konsument/mutants/no-dedup.py",
        "duplicate-same-instance",
        "duplicate-not-detected",
        at(8),
        "doppelt",
    ),
    row(
        "03-idempotenter-konsument/mutants/no-dedup.wat",
        "duplicate-same-instance",
        "duplicate-not-detected",
        sql("UPDATE punkte"),
        "doppelt",
    ),
    row(
        "03-idempotenter-konsument/mutants/poison-retry-forever.wat",
        "at-least-once-schedule",
        "consumer-died",
        sql("INSERT INTO gesehen"),
        "bricht ab",
    ),
    row(
        "03-idempotenter-konsument/mutants/poison-swallowed-on-retry.wat",
        "at-least-once-schedule",
        "error-swallowed",
        NONE,
        "Fehler verschluckt",
    ),
    row(
        "03-idempotenter-konsument/mutants/refreshes-id-on-duplicate.wat",
        "at-least-once-schedule",
        "effect-repeated",
        sql("DELETE FROM gesehen"),
        "mehr als einmal",
    ),
    row(
        "03-idempotenter-konsument/mutants/remembers-failed-id.py",
        "constraint-violation",
        "failed-id-kept",
        at(18),
        "ID ist gemerkt",
    ),
    row(
        "03-idempotenter-konsument/mutants/remembers-failed-id.wat",
        "constraint-violation",
        "failed-id-kept",
        sql("COMMIT"),
        "ID ist gemerkt",
    ),
    row(
        "03-idempotenter-konsument/mutants/separate-autocommit.js",
        "crash-points",
        "id-kept-without-effect",
        at(8),
        "ID gemerkt, Wirkung fehlt",
    ),
    row(
        "03-idempotenter-konsument/mutants/separate-autocommit.py",
        "crash-points",
        "id-kept-without-effect",
        at(11),
        "ID gemerkt, Wirkung fehlt",
    ),
    row(
        "03-idempotenter-konsument/mutants/separate-autocommit.wat",
        "crash-points",
        "id-kept-without-effect",
        sql("INSERT INTO gesehen"),
        "ID gemerkt, Wirkung fehlt",
    ),
    row(
        "03-idempotenter-konsument/mutants/swallows-error.js",
        "constraint-violation",
        "error-swallowed",
        at(15),
        "Fehler verschluckt",
    ),
    row(
        "03-idempotenter-konsument/mutants/swallows-error.py",
        "constraint-violation",
        "error-swallowed",
        at(20),
        "Fehler verschluckt",
    ),
    row(
        "03-idempotenter-konsument/mutants/swallows-error.wat",
        "constraint-violation",
        "error-swallowed",
        NONE,
        "Fehler verschluckt",
    ),
    row(
        "03-idempotenter-konsument/mutants/update-then-insert-separate.wat",
        "duplicate-same-instance",
        "effect-before-dedup",
        sql("UPDATE punkte"),
        "vor dem Merken der ID",
    ),
    row(
        "03-idempotenter-konsument/mutants/wrong-error-code.js",
        "duplicate-same-instance",
        "duplicate-raised",
        at(10),
        "endet mit einem Fehler",
    ),
    row(
        "04-lager/mutants/check-then-act.wat",
        "concurrent-duplicate",
        "concurrent-double",
        sql("SELECT count(*) FROM reservierungen"),
        "doppelt",
    ),
    row(
        "04-lager/mutants/clamps-at-zero.js",
        "constraint-violation",
        "violation-acked",
        at(11),
        "nicht erlaubt",
    ),
    row(
        "04-lager/mutants/clamps-at-zero.py",
        "constraint-violation",
        "violation-acked",
        at(15),
        "nicht erlaubt",
    ),
    row(
        "04-lager/mutants/clamps-at-zero.wat",
        "constraint-violation",
        "violation-acked",
        sql("UPDATE lager"),
        "nicht erlaubt",
    ),
    row(
        "04-lager/mutants/effect-before-dedup.wat",
        "at-least-once-schedule",
        "processed-message-dead-lettered",
        sql("UPDATE lager"),
        "Dead Letter Queue",
    ),
    row(
        "04-lager/mutants/failed-reservation-committed-then-deleted.wat",
        "crash-points",
        "failed-id-kept",
        sql("COMMIT"),
        "ID ist gemerkt",
    ),
    row(
        "04-lager/mutants/insert-or-ignore.py",
        "duplicate-same-instance",
        "duplicate-not-detected",
        at(11),
        "doppelt",
    ),
    row(
        "04-lager/mutants/insert-or-ignore.wat",
        "duplicate-same-instance",
        "duplicate-not-detected",
        sql("UPDATE lager"),
        "doppelt",
    ),
    row(
        "04-lager/mutants/reservation-committed-first.py",
        "crash-points",
        "id-kept-without-effect",
        at(11),
        "ID gemerkt, Wirkung fehlt",
    ),
    row(
        "04-lager/mutants/reservation-committed-first.wat",
        "crash-points",
        "id-kept-without-effect",
        sql("COMMIT"),
        "ID gemerkt, Wirkung fehlt",
    ),
    row(
        "04-lager/mutants/separate-writes.js",
        "duplicate-same-instance",
        "effect-before-dedup",
        at(10),
        "vor dem Merken der ID",
    ),
    row(
        "04-lager/mutants/separate-writes.py",
        "duplicate-same-instance",
        "duplicate-not-detected",
        at(11),
        "doppelt",
    ),
    row(
        "04-lager/mutants/separate-writes.wat",
        "concurrent-duplicate",
        "concurrent-double",
        sql("SELECT count(*) FROM reservierungen"),
        "doppelt",
    ),
    row(
        "04-lager/mutants/stock-taken-in-second-transaction.wat",
        "crash-points",
        "id-kept-without-effect",
        sql("COMMIT"),
        "ID gemerkt, Wirkung fehlt",
    ),
    row(
        "09-ueberweisung/mutants/fehler-verschluckt.py",
        "constraint-violation",
        "failed-id-kept",
        at(10),
        "ID ist gemerkt",
    ),
    row(
        "09-ueberweisung/mutants/ohne-dedup.py",
        "duplicate-same-instance",
        "duplicate-not-detected",
        at(7),
        "doppelt",
    ),
    row(
        "09-ueberweisung/mutants/pruefen-dann-buchen.py",
        "concurrent-duplicate",
        "concurrent-double",
        at(7),
        "doppelt",
    ),
    row(
        "09-ueberweisung/mutants/zwei-transaktionen.py",
        "concurrent-duplicate",
        "concurrent-double",
        at(10),
        "mehr als einmal",
    ),
    row(
        "10-punkte-einloesen/mutants/bei-null-gekappt.js",
        "constraint-violation",
        "violation-acked",
        at(11),
        "nicht erlaubt",
    ),
    row(
        "10-punkte-einloesen/mutants/duplikat-als-fehler.js",
        "duplicate-same-instance",
        "duplicate-raised",
        at(9),
        "endet mit einem Fehler",
    ),
    row(
        "10-punkte-einloesen/mutants/getrennt-geschrieben.js",
        "duplicate-same-instance",
        "effect-before-dedup",
        at(9),
        "doppelt",
    ),
    row(
        "05-buchung-und-mail/mutants/fehler-verschluckt.py",
        "constraint-violation",
        "error-swallowed",
        at(21),
        "verschluckt",
    ),
    row(
        "05-buchung-und-mail/mutants/mail-nach-commit.py",
        "crash-points",
        "mail-lost-after-commit",
        at(10),
        "Mail ging verloren",
    ),
    row(
        "05-buchung-und-mail/mutants/mail-nach-commit.wat",
        "crash-points",
        "mail-lost-after-commit",
        sql("COMMIT"),
        "Mail ging verloren",
    ),
    row(
        "05-buchung-und-mail/mutants/mail-vor-buchung.py",
        "constraint-violation",
        "mail-without-booking",
        at(10),
        "obwohl die Buchung scheiterte",
    ),
    row(
        "05-buchung-und-mail/mutants/mail-vor-buchung.wat",
        "constraint-violation",
        "mail-without-booking",
        sql("UPDATE konten SET saldo = sald"),
        "obwohl die Buchung scheiterte",
    ),
    row(
        "05-buchung-und-mail/mutants/ohne-dedup.py",
        "duplicate-same-instance",
        "duplicate-not-detected",
        at(9),
        "noch einmal gewirkt",
    ),
    row(
        "05-buchung-und-mail/mutants/schluessel-aus-falschem-feld.py",
        "same-body-new-id",
        "key-shared-by-two-messages",
        at(17),
        "Schlüssel",
    ),
    row(
        "05-buchung-und-mail/mutants/schluessel-aus-falschem-feld.wat",
        "same-body-new-id",
        "key-shared-by-two-messages",
        sql("COMMIT"),
        "Schlüssel",
    ),
    row(
        "05-buchung-und-mail/mutants/schluessel-neu-je-aufruf.js",
        "at-least-once-schedule",
        "effect-repeated",
        at(15),
        "mehr als einmal",
    ),
    row(
        "05-buchung-und-mail/mutants/zwei-transaktionen.py",
        "crash-points",
        "id-kept-without-effect",
        at(10),
        "Wirkung fehlt",
    ),
    row(
        "05-mail-ohne-schluessel/mutants/mail-nach-commit.js",
        "crash-points",
        "mail-lost-after-commit",
        at(11),
        "Mail ging verloren",
    ),
    row(
        "05-mail-ohne-schluessel/mutants/mail-nach-commit.py",
        "crash-points",
        "mail-lost-after-commit",
        at(10),
        "Mail ging verloren",
    ),
    row(
        "05-mail-ohne-schluessel/mutants/mail-vor-buchung.py",
        "constraint-violation",
        "mail-without-booking",
        at(15),
        "obwohl die Buchung scheiterte",
    ),
    row(
        "05-mail-ohne-schluessel/mutants/mail-vor-dedup.py",
        "duplicate-same-instance",
        "mail-before-dedup",
        at(9),
        "vor der Prüfung der ID",
    ),
    row(
        "05-mail-ohne-schluessel/mutants/ohne-dedup.py",
        "duplicate-same-instance",
        "duplicate-not-detected",
        at(9),
        "noch einmal gewirkt",
    ),
    row("05-mail-ohne-schluessel/mutants/zwei-mails.py", "fresh-message", "two-mails", at(17), "Zwei Mails"),
    row(
        "06-outbox/mutants/direkt-veroeffentlicht.py",
        "crash-points",
        "published-before-commit",
        at(21),
        "nie gebucht",
    ),
    row(
        "06-outbox/mutants/getrennte-transaktionen.py",
        "crash-points",
        "booking-without-event",
        at(11),
        "nie hinaus",
    ),
    row(
        "06-outbox/mutants/markiert-vor-dem-senden.py",
        "crash-points",
        "marked-before-publish",
        NONE,
        "nie veröffentlicht",
    ),
    row(
        "06-outbox/mutants/markiert-vor-dem-senden.wat",
        "crash-points",
        "marked-before-publish",
        NONE,
        "nie veröffentlicht",
    ),
    row(
        "06-outbox/mutants/nach-commit-veroeffentlicht.py",
        "crash-points",
        "booking-without-event",
        at(11),
        "nie hinaus",
    ),
    row(
        "06-outbox/mutants/ohne-order-by.py",
        "at-least-once-schedule",
        "relay-out-of-order",
        NONE,
        "falscher Reihenfolge",
    ),
    row(
        "06-outbox/mutants/ohne-order-by.wat",
        "at-least-once-schedule",
        "relay-out-of-order",
        NONE,
        "falscher Reihenfolge",
    ),
    row(
        "06-outbox/mutants/order-by-ereignis.js",
        "at-least-once-schedule",
        "relay-out-of-order",
        NONE,
        "falscher Reihenfolge",
    ),
    row(
        "06-outbox/mutants/schluessel-je-lauf.js",
        "crash-points",
        "new-key-per-attempt",
        NONE,
        "zwei Schlüsseln",
    ),
    row(
        "07-dead-letter/mutants/abbuchung-ausserhalb.py",
        "concurrent-duplicate",
        "concurrent-double",
        at(11),
        "gleichzeitige",
    ),
    row(
        "07-dead-letter/mutants/duplikat-als-fehler.js",
        "duplicate-same-instance",
        "duplicate-raised",
        at(9),
        "Fehler",
    ),
    row(
        "07-dead-letter/mutants/duplikat-als-fehler.py",
        "duplicate-same-instance",
        "duplicate-raised",
        at(11),
        "Fehler",
    ),
    row(
        "07-dead-letter/mutants/fehler-verschluckt.py",
        "at-least-once-schedule",
        "transient-error-swallowed",
        at(22),
        "verschluckt",
    ),
    row(
        "07-dead-letter/mutants/fehler-verschluckt.wat",
        "at-least-once-schedule",
        "transient-error-swallowed",
        NONE,
        "verschluckt",
    ),
    row(
        "07-dead-letter/mutants/gift-als-duplikat.py",
        "constraint-violation",
        "error-swallowed",
        at(20),
        "verschluckt",
    ),
    row(
        "07-dead-letter/mutants/ohne-dedup.py",
        "duplicate-same-instance",
        "duplicate-not-detected",
        at(10),
        "noch einmal gewirkt",
    ),
    row(
        "07-dead-letter/mutants/teilwirkung-vor-fehler.py",
        "crash-points",
        "effect-partial-after-crash",
        at(11),
        "Teil der Wirkung",
    ),
    row(
        "07-dead-letter/mutants/zaehler-im-speicher.py",
        "at-least-once-schedule",
        "effect-lost",
        at(16),
        "ohne Wirkung",
    ),
    row(
        "08-offsets/mutants/commit-vor-verarbeitung.py",
        "crash-points",
        "offset-before-processing",
        at(9),
        "vor dem Verarbeiten",
    ),
    row(
        "08-offsets/mutants/commit-vor-verarbeitung.wat",
        "crash-points",
        "offset-before-processing",
        sql("COMMIT"),
        "vor dem Verarbeiten",
    ),
    row("08-offsets/mutants/falsche-gruppe.py", "fresh-message", "effect-lost", at(15), "ohne Wirkung"),
    row(
        "08-offsets/mutants/fehlschlag-festgeschrieben.py",
        "constraint-violation",
        "failed-record-committed",
        at(26),
        "gescheiterten Eintrags",
    ),
    row(
        "08-offsets/mutants/getrennte-transaktion.py",
        "crash-points",
        "offset-after-effect-separately",
        at(14),
        "nicht festgeschrieben",
    ),
    row(
        "08-offsets/mutants/offset-im-speicher.py",
        "duplicate-after-restart",
        "duplicate-not-detected",
        at(12),
        "noch einmal gewirkt",
    ),
    row(
        "08-offsets/mutants/offset-statt-plus-eins.js",
        "duplicate-same-instance",
        "duplicate-not-detected",
        at(16),
        "noch einmal gewirkt",
    ),
    row(
        "08-offsets/mutants/offset-statt-plus-eins.py",
        "duplicate-same-instance",
        "duplicate-not-detected",
        at(16),
        "noch einmal gewirkt",
    ),
    row(
        "08-offsets-im-log/mutants/commit-vor-dem-commit.py",
        "crash-points",
        "offset-committed-before-the-commit",
        at(19),
        "übersprungen",
    ),
    row(
        "08-offsets-im-log/mutants/commit-vor-dem-commit.wat",
        "crash-points",
        "offset-committed-before-the-commit",
        sql("INSERT INTO posten (partition,"),
        "übersprungen",
    ),
    row(
        "08-offsets-im-log/mutants/commit-vor-verarbeitung.js",
        "crash-points",
        "offset-committed-before-the-commit",
        at(8),
        "übersprungen",
    ),
    row(
        "08-offsets-im-log/mutants/dedup-getrennt.py",
        "concurrent-duplicate",
        "concurrent-double",
        at(9),
        "gleichzeitige",
    ),
    row(
        "08-offsets-im-log/mutants/fehlschlag-festgeschrieben.py",
        "constraint-violation",
        "failed-record-committed",
        at(21),
        "gescheiterten Eintrags",
    ),
    row(
        "08-offsets-im-log/mutants/nur-jeder-zweite.py",
        "fresh-message",
        "offset-not-committed",
        at(23),
        "nicht festgeschrieben",
    ),
    row(
        "08-offsets-im-log/mutants/offset-statt-plus-eins.py",
        "fresh-message",
        "offset-points-at-the-record",
        at(18),
        "zeigt auf den verarbeiteten Eintrag",
    ),
    row(
        "08-offsets-im-log/mutants/ohne-dedup.py",
        "duplicate-same-instance",
        "record-counted-twice",
        at(14),
        "zweimal gezählt",
    ),
];

fn submission_of(path: &Path) -> Submission {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match path.extension().and_then(|e| e.to_str()).and_then(Language::from_extension) {
        Some(language) => Submission::Source { language, text: String::from_utf8(bytes).expect("UTF-8") },
        None => Submission::Module(bytes),
    }
}

/// The consumer exercises whose every mutant is in the table.
const DIAGNOSED_EXERCISES: [&str; 10] = [
    "03-idempotenter-konsument",
    "04-lager",
    "05-buchung-und-mail",
    "05-mail-ohne-schluessel",
    "06-outbox",
    "07-dead-letter",
    "08-offsets",
    "08-offsets-im-log",
    "09-ueberweisung",
    "10-punkte-einloesen",
];

/// Every mutant's report (graded once for all tests of this module), by its path under
/// `exercises/`.
fn reports() -> &'static [(String, Report)] {
    static REPORTS: OnceLock<Vec<(String, Report)>> = OnceLock::new();
    REPORTS.get_or_init(|| {
        let mut out = Vec::new();
        for slug in DIAGNOSED_EXERCISES {
            let mut exercise = load(slug);
            // Every check must run: on a busy machine a debug build may need more than the
            // submission's wall-clock backstop, which only a runaway submission should meet.
            exercise.limits.wall_ms_per_submission = 60_000;
            let mut files: Vec<PathBuf> = std::fs::read_dir(exercise_dir(slug).join("mutants"))
                .expect("mutants")
                .map(|e| e.expect("entry").path())
                .filter(|p| p.extension().is_none_or(|e| e != "expect"))
                .collect();
            files.sort();
            for file in files {
                let report =
                    grade(&exercise, &submission_of(&file), &GradeOptions::default()).expect("grades");
                out.push((
                    format!("{slug}/mutants/{}", file.file_name().expect("name").to_string_lossy()),
                    report,
                ));
            }
        }
        out
    })
}

fn detail<'r>(report: &'r Report, check: &str) -> &'r ConsumerDetail {
    match &report.checks.iter().find(|c| c.name == check).expect("the finding's check").detail {
        CheckDetail::Consumer(detail) => detail,
        CheckDetail::Prediction(_) => panic!("a consumer check"),
    }
}

fn rows<'s>(state: &'s State, names: &[String]) -> Vec<&'s Row> {
    names.iter().flat_map(|n| state.get(n).into_iter().flatten()).collect()
}

fn int(value: &SqlValue) -> Option<i64> {
    match value {
        SqlValue::Integer(i) => Some(*i),
        _ => None,
    }
}

/// Some effect row (matched by its values that are not numbers) moved exactly twice the expected
/// change away from the baseline.
fn doubled_in_state(detail: &ConsumerDetail, tables: &[String]) -> bool {
    let state = detail.state.as_ref().expect("state evidence");
    let baseline = state.baseline.as_ref().unwrap_or(&state.before);
    rows_inserted_twice(baseline, &state.after, &state.expected, tables) || {
        numbers_moved_twice(baseline, &state.after, &state.expected, tables)
    }
}

/// The rows the effect should have added (expected minus baseline), each added exactly twice
/// (after minus baseline), as multisets: an inserted effect that happened twice.
fn rows_inserted_twice(baseline: &State, after: &State, expected: &State, tables: &[String]) -> bool {
    let counts = |state: &State| {
        let mut counts = std::collections::BTreeMap::<String, i64>::new();
        for row in rows(state, tables) {
            *counts.entry(format!("{row:?}")).or_default() += 1;
        }
        counts
    };
    let (base, after, expected) = (counts(baseline), counts(after), counts(expected));
    let added = |state: &std::collections::BTreeMap<String, i64>, row: &String| {
        state.get(row).copied().unwrap_or(0) - base.get(row).copied().unwrap_or(0)
    };
    let rows: std::collections::BTreeSet<&String> = after.keys().chain(expected.keys()).collect();
    let expected_added: Vec<(&String, i64)> = rows.iter().map(|r| (*r, added(&expected, r))).collect();
    expected_added.iter().any(|(_, n)| *n > 0)
        && expected_added.iter().all(|(row, n)| added(&after, row) == 2 * n)
}

/// A row whose numbers moved twice as far from the baseline as expected (a balance debited twice).
fn numbers_moved_twice(baseline: &State, after: &State, expected: &State, tables: &[String]) -> bool {
    let state_after = after;
    let state_expected = expected;
    let key = |r: &Row| r.iter().filter(|v| int(v).is_none()).map(|v| v.to_string()).collect::<Vec<_>>();
    let numbers = |r: &Row| r.iter().filter_map(int).collect::<Vec<_>>();
    let after = rows(state_after, tables);
    let expected = rows(state_expected, tables);
    rows(baseline, tables).iter().any(|b| {
        let find = |rows: &[&Row]| rows.iter().find(|r| key(r) == key(b)).map(|r| numbers(r));
        match (find(&after), find(&expected)) {
            (Some(a), Some(e)) => {
                let b = numbers(b);
                e.iter().zip(&b).any(|(e, b)| e != b)
                    && a.iter().zip(&e).zip(&b).all(|((a, e), b)| a - b == 2 * (e - b))
            }
            _ => false,
        }
    })
}

/// Every claim of `finding` is shown by the report's own evidence.
fn check_claims(name: &str, report: &Report, finding: &Finding) {
    let detail = detail(report, &finding.check);
    let facts = &finding.facts;
    let at = format!("{name}, {} ({})", finding.check, finding.mistake);
    let said = format!(
        "{} {} {} {}",
        finding.title.de, finding.explanation.de, finding.title.en, finding.explanation.en
    );
    if said.contains("doppelt") || said.contains("twice") || facts.effect == Effect::Doubled {
        assert_eq!(facts.effect, Effect::Doubled, "{at}: says twice: {said}");
        assert!(doubled_in_state(detail, &facts.effect_tables), "{at}: no doubled effect in the state");
    }
    if let Some(state) = &detail.state {
        let baseline = state.baseline.as_ref().unwrap_or(&state.before);
        let effect = (rows(baseline, &facts.effect_tables), rows(&state.after, &facts.effect_tables));
        let expected_effect = rows(&state.expected, &facts.effect_tables);
        if facts.effect == Effect::Missing {
            assert!(effect.0 == effect.1 && effect.0 != expected_effect, "{at}: the effect is not missing");
        }
        // Table by table: two memory tables may hold rows of the same shape.
        let (mut missing, mut extra) = (false, false);
        for table in &facts.memory_tables {
            let one = std::slice::from_ref(table);
            let (after, expected) = (rows(&state.after, one), rows(&state.expected, one));
            missing |= expected.iter().any(|r| !after.contains(r));
            extra |= after.iter().any(|r| !expected.contains(r));
        }
        match facts.memory {
            Memory::Right => assert!(!missing && !extra, "{at}: memory not right"),
            Memory::Missing => assert!(missing && !extra, "{at}: no id missing"),
            Memory::Extra => assert!(extra && !missing, "{at}: no id extra"),
            Memory::Differs => assert!(missing && extra, "{at}: memory does not differ both ways"),
            Memory::Unknown => {}
        }
        if said.contains("ID gemerkt, Wirkung fehlt") {
            assert!(
                !missing && facts.effect == Effect::Missing,
                "{at}: not the pattern of an id kept without effect"
            );
        }
        if let Some(evidence) = &finding.evidence {
            for table in &state.diff {
                for row in table.missing.iter().chain(&table.unexpected).take(2) {
                    let text =
                        format!("({})", row.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "));
                    assert!(
                        evidence.de.contains(&text),
                        "{at}: the evidence leaves out {text}: {}",
                        evidence.de
                    );
                }
            }
        }
    } else {
        assert_eq!(finding.evidence, None, "{at}: evidence without a state");
    }
    let events: Vec<&TraceEvent> = finding.events.iter().map(|&i| &detail.trace[i as usize]).collect();
    if let Some(value) = facts.returned {
        assert!(
            events.iter().any(|e| matches!(e, TraceEvent::Return { value: v, .. } if *v == value)),
            "{at}: returned {value} is not in the failing delivery"
        );
    }
    if facts.called_outside {
        assert!(
            events.iter().any(|e| matches!(e, TraceEvent::Outside { .. })),
            "{at}: no call to an outside service in the failing delivery"
        );
    }
    if let Some(invariant) = &facts.invariant {
        assert_eq!(
            detail.invariant.as_ref(),
            Some(invariant),
            "{at}: the check found another invariant broken"
        );
    }
    if facts.crashed {
        assert!(
            detail.trace.iter().any(|e| matches!(e, TraceEvent::Crash { .. })),
            "{at}: no crash in the trace"
        );
    }
    if let Some(line) = finding.line {
        let source = report.source.as_ref().expect("a decisive line needs a source");
        let in_trace = events.iter().any(|e| match e {
            TraceEvent::Statement { line: l, .. }
            | TraceEvent::Crash { line: l, .. }
            | TraceEvent::Return { line: l, .. }
            | TraceEvent::Outside { line: l, .. } => *l == Some(line),
            TraceEvent::Log { text, .. } => {
                text.contains(&format!("line {line},")) || text.contains(&format!(":{line}:"))
            }
            _ => false,
        });
        let a_with =
            source.text.lines().nth(line as usize - 1).is_some_and(|l| l.trim_start().starts_with("with "));
        assert!(in_trace || a_with, "{at}: line {line} is not in the failing delivery");
    }
}

#[test]
fn every_mutant_has_its_main_problem_decisive_line_and_claim_each_backed_by_its_evidence() {
    let reports = reports();
    let covered: Vec<&str> = TABLE.iter().map(|e| e.file).collect();
    for (name, _) in reports {
        assert!(covered.contains(&name.as_str()), "{name}: a mutant without a row in the table");
    }
    for expected in TABLE {
        let (name, report) = reports
            .iter()
            .find(|(n, _)| n == expected.file)
            .unwrap_or_else(|| panic!("{}: graded", expected.file));
        let diagnosis = report.diagnosis.as_ref().unwrap_or_else(|| panic!("{name}: no diagnosis"));
        let main = &diagnosis.main;
        assert!(
            !["generic", "state-differs"].contains(&main.mistake.as_str()),
            "{name}: a generic diagnosis"
        );
        assert_eq!(
            (main.check.as_str(), main.mistake.as_str()),
            (expected.check, expected.mistake),
            "{name}"
        );
        assert_eq!(main.line, expected.line, "{name}: decisive line");
        match expected.statement {
            Some(start) => assert!(
                main.statement.as_deref().is_some_and(|s| s.starts_with(start)),
                "{name}: decisive statement {:?}",
                main.statement
            ),
            None if expected.line.is_none() => assert_eq!(main.statement, None, "{name}"),
            None => {}
        }
        assert!(main.title.de.contains(expected.claim), "{name}: {}", main.title.de);
        for finding in std::iter::once(main).chain(&diagnosis.others) {
            check_claims(name, report, finding);
        }
        let marked: Vec<u32> =
            report.source.iter().flat_map(|s| &s.marks).filter(|m| m.decisive).map(|m| m.line).collect();
        assert_eq!(
            marked,
            main.line.into_iter().collect::<Vec<_>>(),
            "{name}: the decisive line is marked in the source"
        );
    }
}

/// Words of ABI v1 that a Python or JavaScript student never wrote.
const ABI_WORDS: &[&str] = &[
    "db.exec ",
    "db.query_int",
    "→ 0 ",
    "→ 1 ",
    "→ 2 ",
    "→ 4 ",
    "Treibstoff",
    "fuel",
    "Rückgabe",
    "gab 0",
    "gab 1",
    "gab 2",
    "returned 0",
    "returned 1",
    "returned 2",
    "ungleich 0 und 1",
    "other than 0 and 1",
];

#[test]
fn source_reports_speak_the_language_the_student_wrote_in() {
    for (name, report) in reports() {
        if name.ends_with(".wat") {
            continue;
        }
        for lang in [Lang::De, Lang::En] {
            for text in [render_text(report, lang), render_text_full(report, lang)] {
                for word in ABI_WORDS {
                    assert!(!text.contains(word), "{name} ({lang:?}) says {word:?}:\n{text}");
                }
            }
        }
        let full = render_text_full(report, Lang::De);
        let python = name.ends_with(".py");
        let returns = if python { "`True`" } else { "`true`" };
        assert!(
            full.contains(returns) || full.contains(if python { "`False`" } else { "`false`" }),
            "{name}: {full}"
        );
    }
}

/// `text` without what is quoted rather than said: code and SQL in backticks or double quotes,
/// rows and values in single quotes, messages as JSON, SQLite's own error texts, the program's
/// output, the exercise's name and the commands.
fn said(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = line.split(" pruefstein ").next().unwrap_or(line);
        let line = line.split("Ausgabe:").next().unwrap_or(line).split("output:").next().unwrap_or(line);
        // The decisive line is quoted code, comments and all: the label is said, the code is not.
        let line = match ["Entscheidende Zeile ", "Decisive line "].iter().find_map(|label| line.find(label))
        {
            Some(i) => line[i..].split(": ").next().unwrap_or(line),
            None => line,
        };
        // An uncaught exception's own text is the program's words (the mail provider's refusals
        // are English, as a real provider's API errors are): the label is said, the text is not.
        let line = match ["nicht gefangen", "uncaught exception", "uncaught error"]
            .iter()
            .find_map(|label| line.find(label))
        {
            Some(i) => line[i..].find(": ").map_or(line, |j| &line[..i + j]),
            None => line,
        };
        // What a statement came to (after its last arrow) is the report's own words, also where
        // the statement before it is the student's quoted code.
        let (line, outcome) = match line.rfind(" → ") {
            Some(i) => (&line[..i], unquoted_error(&line[i..])),
            None => (line, String::new()),
        };
        let line = ["Error:", "Error ", "constraint failed", "Zeile ", "line "].iter().fold(
            line.to_string(),
            |l, cut| {
                // An error's own text and the student's code after a line number are quoted.
                match (l.find(cut), cut.starts_with("Zeile") || cut.starts_with("line")) {
                    (Some(i), false) => l[..i].to_string(),
                    (Some(i), true) => {
                        let rest = &l[i..];
                        match rest.find(": ") {
                            Some(j) if rest[j..].contains('(') || rest[j..].contains('"') => {
                                l[..i].to_string()
                            }
                            _ => l,
                        }
                    }
                    (None, _) => l,
                }
            },
        );
        let line = line + &outcome;
        let mut kept = String::new();
        let mut quote: Option<char> = None;
        let mut depth = 0;
        for c in line.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '`' | '"' | '\'') if depth == 0 => quote = Some(c),
                (None, '{') => depth += 1,
                (None, '}') => depth -= 1,
                (None, c) if depth == 0 => kept.push(c),
                _ => {}
            }
        }
        out.push_str(&kept);
        out.push('\n');
    }
    DIAGNOSED_EXERCISES.iter().fold(out, |out, slug| out.replace(slug, ""))
}

/// `outcome` up to an error's own text (SQLite's, or the runtime's exception), which is quoted.
fn unquoted_error(outcome: &str) -> String {
    ["Error:", "Error ", "constraint failed"]
        .iter()
        .fold(outcome, |o, cut| o.find(cut).map_or(o, |i| &o[..i]))
        .to_string()
}

const ENGLISH: &[&str] = &[
    "the",
    "and",
    "is",
    "of",
    "to",
    "returned",
    "receives",
    "starts",
    "process",
    "processed",
    "duplicate",
    "expected",
    "effect",
    "message",
    "delivery",
    "missing",
    "instead",
    "crash",
    "write",
    "row",
    "changed",
    "error",
    "not",
    "check",
    "checks",
    "passed",
    "failed",
    "trace",
    "state",
    "hint",
    "where",
    "evidence",
    "problem",
    "after",
    "before",
    "exception",
    "uncaught",
    "output",
    "acked",
];
const GERMAN: &[&str] = &[
    "der",
    "die",
    "das",
    "und",
    "ist",
    "nicht",
    "Zeile",
    "Zustellung",
    "Prüfung",
    "gibt",
    "gab",
    "zurück",
    "erhält",
    "startet",
    "Absturz",
    "ABSTURZ",
    "Wirkung",
    "Nachricht",
    "Fehler",
    "bestätigt",
    "vorher",
    "nachher",
    "Erwartet",
    "Tipp",
    "Beleg",
    "oder",
    "für",
    "mit",
    "eine",
    "nach",
    "Duplikat",
    "Ausnahme",
    "Hauptproblem",
    "Ablauf",
];

#[test]
fn no_report_mixes_its_two_languages() {
    for (name, report) in reports() {
        for (lang, foreign) in [(Lang::De, ENGLISH), (Lang::En, GERMAN)] {
            for text in [render_text(report, lang), render_text_full(report, lang)] {
                let kept = said(&text);
                let words: Vec<&str> =
                    kept.split(|c: char| !c.is_alphanumeric() && c != 'ü' && c != 'ä' && c != 'ö').collect();
                for word in foreign {
                    assert!(
                        !words.contains(word),
                        "{name} ({lang:?}) has the word {word:?} of the other language in:\n{}",
                        kept.lines()
                            .find(|l| l.split(|c: char| !c.is_alphanumeric()).any(|w| w == *word))
                            .unwrap_or_default()
                    );
                }
            }
        }
    }
}

#[test]
fn the_default_report_fits_one_screen_and_the_full_traces_are_one_flag_away() {
    for (name, report) in reports() {
        for lang in [Lang::De, Lang::En] {
            let short = render_text(report, lang);
            assert!(
                short.lines().count() <= 60,
                "{name} ({lang:?}): {} lines:\n{short}",
                short.lines().count()
            );
            assert!(short.contains("--trace"), "{name}: the flag for the full traces is named");
            assert!(
                !short.contains("sha256") && !short.contains("seed 0x"),
                "{name}: hashes and seeds stay in the full report"
            );
            let full = render_text_full(report, lang);
            for check in report.failed_checks() {
                let CheckDetail::Consumer(detail) = &check.detail else { continue };
                let first = detail.trace.first().cloned();
                assert!(full.contains(check.title.get(lang)), "{name}: {} in the full report", check.name);
                assert!(
                    first.is_none() || full.contains(if lang == Lang::De { "Ablauf" } else { "Trace" }),
                    "{name}"
                );
            }
            assert!(full.contains("sha256"), "{name}: the full report names the module's hash");
        }
    }
}

/// An exercise folder adds a kind of mistake of its own (here: its words for a doubled effect,
/// ranked above the lesson's): the report uses it; a kind with an unknown condition is refused
/// when the folder loads, naming the file and the value.
#[test]
fn an_exercise_brings_its_own_kinds_of_mistake() {
    let scratch = tempfile::tempdir().expect("temporary directory");
    let dir = scratch.path().join("03-idempotenter-konsument");
    copy_tree(&exercise_dir("03-idempotenter-konsument"), &dir);
    let toml = dir.join("exercise.toml");
    let text = std::fs::read_to_string(&toml).expect("exercise.toml");
    let with_key =
        text.replace("mutants = \"mutants\"", "mutants = \"mutants\"\nmistakes = \"mistakes.toml\"");
    std::fs::write(&toml, &with_key).expect("write");
    let kind = |effect: &str| {
        format!(
            "[[mistake]]\nname = \"punkte-doppelt\"\nrank = 5\nwhen = {{ effect = [\"{effect}\"] }}\n\
             decisive = [\"effect-write\"]\ntitle.de = \"Treuepunkte {{times}} gutgeschrieben\"\n\
             title.en = \"Points credited {{times}}\"\nexplanation.de = \"In {{effect}}.\"\nexplanation.en = \"In {{effect}}.\"\n"
        )
    };
    std::fs::write(dir.join("mistakes.toml"), kind("doubled")).expect("write");
    let exercise = pruefstein::graders::load(&dir).expect("loads with its own kinds");
    let mutant = repo().join("exercises/03-idempotenter-konsument/mutants/no-dedup.wat");
    let report = grade(&exercise, &submission_of(&mutant), &GradeOptions::default()).expect("grades");
    let main = &report.diagnosis.as_ref().expect("diagnosis").main;
    assert_eq!(main.mistake, "punkte-doppelt");
    assert_eq!(main.title.de, "Treuepunkte doppelt gutgeschrieben");
    assert_eq!(main.explanation.en, "In `punkte`.");
    check_claims("no-dedup.wat with the exercise's kinds", &report, main);

    std::fs::write(dir.join("mistakes.toml"), kind("twice")).expect("write");
    let error = pruefstein::graders::load(&dir).expect_err("an unknown effect is refused").to_string();
    assert!(error.contains("mistakes.toml") && error.contains("twice"), "{error}");
}
