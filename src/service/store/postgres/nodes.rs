//! The nodes on the shared database and the exercise versions they serve (what `sqlite::nodes`
//! does on SQLite, with the same meaning), and the Jobe endpoint's uploaded files, which every node
//! must find. Times are the lease clock's: the database's, or the caller's in tests.

use deadpool_postgres::GenericClient;

use super::error::Sql;
use super::queue::clock;
use crate::limits::NODE_LIVENESS_MS;
use crate::service::store::{Millis, RecordedJobs, ServedVersion, VersionCensus};

/// Replaces `node`'s announcement: it lives now and serves `versions`.
pub(super) async fn announce<C: GenericClient>(
    tx: &C,
    node: &str,
    versions: &[(String, String)],
    now: Option<Millis>,
) -> Sql<()> {
    let stmt = tx
        .prepare_cached(&format!(
            "INSERT INTO nodes (node_id, seen_at) VALUES ($1, {now}) \
             ON CONFLICT (node_id) DO UPDATE SET seen_at = EXCLUDED.seen_at",
            now = clock(2)
        ))
        .await?;
    tx.execute(&stmt, &[&node, &now]).await?;
    let exercises: Vec<&str> = versions.iter().map(|(e, _)| e.as_str()).collect();
    let hashes: Vec<&str> = versions.iter().map(|(_, h)| h.as_str()).collect();
    tx.execute("DELETE FROM node_exercises WHERE node_id = $1", &[&node]).await?;
    let stmt = tx
        .prepare_cached(
            "INSERT INTO node_exercises (node_id, exercise, content_hash) \
             SELECT DISTINCT ON (e) $1, e, h FROM unnest($2::TEXT[], $3::TEXT[]) AS v(e, h)",
        )
        .await?;
    tx.execute(&stmt, &[&node, &exercises, &hashes]).await?;
    Ok(())
}

/// Removes `node`'s announcement and the versions it served.
pub(super) async fn withdraw<C: GenericClient>(tx: &C, node: &str) -> Sql<()> {
    tx.execute("DELETE FROM node_exercises WHERE node_id = $1", &[&node]).await?;
    tx.execute("DELETE FROM nodes WHERE node_id = $1", &[&node]).await?;
    Ok(())
}

/// The versions living nodes serve, and the open jobs' recorded versions.
pub(super) async fn census<C: GenericClient>(c: &C, now: Option<Millis>) -> Sql<VersionCensus> {
    let stmt = c
        .prepare_cached(&format!(
            "SELECT e.node_id, e.exercise, e.content_hash FROM node_exercises e \
             JOIN nodes n ON n.node_id = e.node_id WHERE n.seen_at > {now} - $2::BIGINT \
             ORDER BY e.node_id, e.exercise",
            now = clock(1)
        ))
        .await?;
    let served = c
        .query(&stmt, &[&now, &(NODE_LIVENESS_MS as i64)])
        .await?
        .iter()
        .map(|r| {
            Ok(ServedVersion { node: r.try_get(0)?, exercise: r.try_get(1)?, content_hash: r.try_get(2)? })
        })
        .collect::<Sql<Vec<_>>>()?;
    let stmt = c
        .prepare_cached(
            "SELECT s.exercise, j.exercise_hash, count(*) FROM jobs j \
             JOIN submissions s ON s.id = j.submission_id WHERE j.exercise_hash IS NOT NULL \
             GROUP BY s.exercise, j.exercise_hash ORDER BY s.exercise, j.exercise_hash",
        )
        .await?;
    let recorded = c
        .query(&stmt, &[])
        .await?
        .iter()
        .map(|r| {
            Ok(RecordedJobs {
                exercise: r.try_get(0)?,
                content_hash: r.try_get(1)?,
                jobs: r.try_get::<_, i64>(2)?.max(0) as u64,
            })
        })
        .collect::<Sql<Vec<_>>>()?;
    Ok(VersionCensus { served, recorded })
}

/// Keeps a client's file and forgets its oldest ones beyond the limits (never the new one).
pub(super) async fn put_jobe_file<C: GenericClient>(
    tx: &C,
    client_id: i64,
    file_id: &str,
    contents: &[u8],
    (files_max, bytes_max): (usize, u64),
    now: Millis,
) -> Sql<()> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO jobe_files (client_id, file_id, contents, stored_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (client_id, file_id) DO UPDATE SET contents = EXCLUDED.contents, \
                 stored_at = EXCLUDED.stored_at",
        )
        .await?;
    tx.execute(&stmt, &[&client_id, &file_id, &contents, &now]).await?;
    // Newest first (the new file first of all): whatever lies past either limit goes.
    let stmt = tx
        .prepare_cached(
            "WITH ranked AS ( \
                 SELECT file_id, \
                     row_number() OVER w AS n, sum(octet_length(contents)) OVER w AS bytes \
                 FROM jobe_files WHERE client_id = $1 \
                 WINDOW w AS (ORDER BY file_id = $2 DESC, stored_at DESC, file_id)) \
             DELETE FROM jobe_files f USING ranked r \
             WHERE f.client_id = $1 AND f.file_id = r.file_id AND r.n > 1 AND (r.n > $3 OR r.bytes > $4)",
        )
        .await?;
    tx.execute(
        &stmt,
        &[&client_id, &file_id, &(files_max.max(1) as i64), &(bytes_max.min(i64::MAX as u64) as i64)],
    )
    .await?;
    Ok(())
}

pub(super) async fn jobe_file<C: GenericClient>(
    c: &C,
    client_id: i64,
    file_id: &str,
) -> Sql<Option<Vec<u8>>> {
    let stmt =
        c.prepare_cached("SELECT contents FROM jobe_files WHERE client_id = $1 AND file_id = $2").await?;
    Ok(match c.query_opt(&stmt, &[&client_id, &file_id]).await? {
        Some(row) => Some(row.try_get(0)?),
        None => None,
    })
}
