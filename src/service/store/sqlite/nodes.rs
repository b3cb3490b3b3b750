//! The nodes on this store and the exercise versions they serve: a node announces itself and its
//! versions, renews that while it lives and withdraws it when it stops; a job records the version
//! it was accepted under, and the lease (in `jobs`) takes only jobs of the leasing node's versions
//! or of versions no living node serves. With one node on SQLite that node serves every version
//! its jobs were accepted under, except after a reload: then the jobs of the old version are of no
//! living node's version and are graded by the new one, as before versions were recorded.

use rusqlite::{Connection, Transaction, params};

use super::error::Sql;
use crate::service::store::{Millis, RecordedJobs, ServedVersion, VersionCensus};

/// Replaces `node`'s announcement: it lives at `now` and serves `versions`.
pub(super) fn announce(
    tx: &Transaction<'_>,
    node: &str,
    versions: &[(String, String)],
    now: Millis,
) -> Sql<()> {
    tx.prepare_cached(
        "INSERT INTO nodes (node_id, seen_at) VALUES (?1, ?2) \
         ON CONFLICT (node_id) DO UPDATE SET seen_at = excluded.seen_at",
    )?
    .execute(params![node, now])?;
    tx.prepare_cached("DELETE FROM node_exercises WHERE node_id = ?1")?.execute([node])?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO node_exercises (node_id, exercise, content_hash) VALUES (?1, ?2, ?3) \
         ON CONFLICT (node_id, exercise) DO UPDATE SET content_hash = excluded.content_hash",
    )?;
    for (exercise, hash) in versions {
        insert.execute(params![node, exercise, hash])?;
    }
    Ok(())
}

/// Removes `node`'s announcement and the versions it served.
pub(super) fn withdraw(tx: &Transaction<'_>, node: &str) -> Sql<()> {
    tx.prepare_cached("DELETE FROM node_exercises WHERE node_id = ?1")?.execute([node])?;
    tx.prepare_cached("DELETE FROM nodes WHERE node_id = ?1")?.execute([node])?;
    Ok(())
}

/// The versions that nodes seen after `alive_since` serve, and the open jobs' recorded versions.
pub(super) fn census(conn: &Connection, alive_since: Millis) -> Sql<VersionCensus> {
    let served = conn
        .prepare_cached(
            "SELECT e.node_id, e.exercise, e.content_hash FROM node_exercises e \
             JOIN nodes n ON n.node_id = e.node_id WHERE n.seen_at > ?1 \
             ORDER BY e.node_id, e.exercise",
        )?
        .query_map([alive_since], |r| {
            Ok(ServedVersion { node: r.get(0)?, exercise: r.get(1)?, content_hash: r.get(2)? })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let recorded = conn
        .prepare_cached(
            "SELECT s.exercise, j.exercise_hash, count(*) FROM jobs j \
             JOIN submissions s ON s.id = j.submission_id WHERE j.exercise_hash IS NOT NULL \
             GROUP BY s.exercise, j.exercise_hash ORDER BY s.exercise, j.exercise_hash",
        )?
        .query_map([], |r| {
            Ok(RecordedJobs {
                exercise: r.get(0)?,
                content_hash: r.get(1)?,
                jobs: r.get::<_, i64>(2)?.max(0) as u64,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(VersionCensus { served, recorded })
}

/// Keeps a client's file and forgets its oldest ones beyond the limits (never the new one).
pub(super) fn put_jobe_file(
    tx: &Transaction<'_>,
    client_id: i64,
    file_id: &str,
    contents: &[u8],
    (files_max, bytes_max): (usize, u64),
    now: Millis,
) -> Sql<()> {
    tx.prepare_cached(
        "INSERT INTO jobe_files (client_id, file_id, contents, stored_at) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (client_id, file_id) DO UPDATE SET contents = excluded.contents, stored_at = excluded.stored_at",
    )?
    .execute(params![client_id, file_id, contents, now])?;
    // Newest first (the new file first of all); everything past the limits goes.
    let kept = tx
        .prepare_cached(
            "SELECT file_id, length(contents) FROM jobe_files WHERE client_id = ?1 \
             ORDER BY file_id = ?2 DESC, stored_at DESC, file_id",
        )?
        .query_map(params![client_id, file_id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    let mut bytes = 0u64;
    let mut forget = tx.prepare_cached("DELETE FROM jobe_files WHERE client_id = ?1 AND file_id = ?2")?;
    for (n, (id, len)) in kept.iter().enumerate() {
        bytes = bytes.saturating_add(len.max(&0).unsigned_abs());
        if n > 0 && (n >= files_max.max(1) || bytes > bytes_max) {
            forget.execute(params![client_id, id])?;
        }
    }
    Ok(())
}

pub(super) fn jobe_file(conn: &Connection, client_id: i64, file_id: &str) -> Sql<Option<Vec<u8>>> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .prepare_cached("SELECT contents FROM jobe_files WHERE client_id = ?1 AND file_id = ?2")?
        .query_row(params![client_id, file_id], |r| r.get(0))
        .optional()?)
}
