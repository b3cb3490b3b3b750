//! The rest of the store's SQL on PostgreSQL: clients and settings, what teachers read (listings,
//! result versions, regrades) and LTI 1.3's platforms, login states and launch contexts. The same
//! statements as SQLite's, in PostgreSQL's dialect.

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::error::Sql;
use super::queue::{JOBS_CHANNEL, SUBMISSION_QUERY, submission_from_row};
use crate::service::store::{
    ClientRecord, LtiContext, LtiState, Millis, NewPlatform, PlatformRecord, RegradeFilter, RegradesQueued,
    ResultRecord, StoreError, SubmissionFilter, SubmissionRecord, TokenScope,
};
use crate::submission::Submission;

const CLIENT_COLUMNS: &str = "id, name, webhook_secret, created_at, revoked_at, teacher";

fn client_from_row(row: &Row) -> Result<ClientRecord, tokio_postgres::Error> {
    Ok(ClientRecord {
        id: row.try_get(0)?,
        name: row.try_get(1)?,
        webhook_secret: row.try_get(2)?,
        created_at: row.try_get(3)?,
        revoked_at: row.try_get(4)?,
        teacher: row.try_get(5)?,
    })
}

pub(super) async fn add_client<C: GenericClient>(
    tx: &C,
    name: &str,
    token_hash: &str,
    webhook_secret: &str,
    now: Millis,
) -> Sql<ClientRecord> {
    if tx.query_opt("SELECT id FROM clients WHERE name = $1", &[&name]).await?.is_some() {
        return Err(StoreError::Conflict(format!("a client named {name:?} exists already")).into());
    }
    let row = tx
        .query_one(
            "INSERT INTO clients (name, token_hash, webhook_secret, created_at) VALUES ($1, $2, $3, $4) \
             RETURNING id",
            &[&name, &token_hash, &webhook_secret, &now],
        )
        .await?;
    Ok(ClientRecord {
        id: row.try_get(0)?,
        name: name.to_string(),
        webhook_secret: webhook_secret.to_string(),
        created_at: now,
        revoked_at: None,
        teacher: false,
    })
}

pub(super) async fn list_clients<C: GenericClient>(c: &C) -> Sql<Vec<ClientRecord>> {
    let rows = c
        .query(&*format!("SELECT {CLIENT_COLUMNS} FROM clients WHERE name NOT LIKE '~%' ORDER BY name"), &[])
        .await?;
    Ok(rows.iter().map(client_from_row).collect::<Result<_, _>>()?)
}

pub(super) async fn revoke_client<C: GenericClient>(tx: &C, name: &str, now: Millis) -> Sql<bool> {
    if tx.query_opt("SELECT id FROM clients WHERE name = $1", &[&name]).await?.is_none() {
        return Ok(false);
    }
    tx.execute("UPDATE clients SET revoked_at = $2 WHERE name = $1 AND revoked_at IS NULL", &[&name, &now])
        .await?;
    Ok(true)
}

pub(super) async fn client_by<C: GenericClient>(
    c: &C,
    column: &'static str,
    value: &(dyn ToSql + Sync),
) -> Sql<Option<ClientRecord>> {
    let stmt = c.prepare_cached(&format!("SELECT {CLIENT_COLUMNS} FROM clients WHERE {column} = $1")).await?;
    Ok(c.query_opt(&stmt, &[value]).await?.map(|row| client_from_row(&row)).transpose()?)
}

/// The client whose current API token, or further token of `scope` valid at `now`, has this hash.
pub(super) async fn client_by_token<C: GenericClient>(
    c: &C,
    token_hash: &str,
    scope: TokenScope,
    now: Millis,
) -> Sql<Option<ClientRecord>> {
    if let Some(client) = client_by(c, "token_hash", &token_hash).await? {
        return Ok(Some(client));
    }
    let scopes: Vec<&str> = match scope {
        TokenScope::Api => vec!["api"],
        TokenScope::Jobe => vec!["api", "jobe"],
    };
    let columns = CLIENT_COLUMNS.split(", ").map(|c| format!("c.{c}")).collect::<Vec<_>>().join(", ");
    let stmt = c
        .prepare_cached(&format!(
            "SELECT {columns} FROM client_tokens t JOIN clients c ON c.id = t.client_id \
             WHERE t.token_hash = $1 AND t.scope = ANY($2) AND (t.expires_at IS NULL OR t.expires_at > $3)"
        ))
        .await?;
    Ok(c.query_opt(&stmt, &[&token_hash, &scopes, &now])
        .await?
        .map(|row| client_from_row(&row))
        .transpose()?)
}

/// The id of the unrevoked client `name`.
async fn active_client_id<C: GenericClient>(tx: &C, name: &str) -> Sql<Option<i64>> {
    Ok(tx
        .query_opt("SELECT id FROM clients WHERE name = $1 AND revoked_at IS NULL", &[&name])
        .await?
        .map(|r| r.try_get(0))
        .transpose()?)
}

pub(super) async fn rotate_client_token<C: GenericClient>(
    tx: &C,
    name: &str,
    new_hash: &str,
    old_valid_until: Millis,
    now: Millis,
) -> Sql<bool> {
    let Some(id) = active_client_id(tx, name).await? else { return Ok(false) };
    tx.execute(
        "DELETE FROM client_tokens WHERE client_id = $1 AND expires_at IS NOT NULL AND expires_at <= $2",
        &[&id, &now],
    )
    .await?;
    tx.execute(
        "INSERT INTO client_tokens (token_hash, client_id, scope, created_at, expires_at) \
         SELECT token_hash, id, 'api', $2, $3 FROM clients WHERE id = $1",
        &[&id, &now, &old_valid_until],
    )
    .await?;
    tx.execute("UPDATE clients SET token_hash = $2 WHERE id = $1", &[&id, &new_hash]).await?;
    Ok(true)
}

pub(super) async fn add_client_token<C: GenericClient>(
    tx: &C,
    name: &str,
    token_hash: &str,
    scope: TokenScope,
    now: Millis,
) -> Sql<bool> {
    let Some(id) = active_client_id(tx, name).await? else { return Ok(false) };
    tx.execute(
        "INSERT INTO client_tokens (token_hash, client_id, scope, created_at) VALUES ($1, $2, $3, $4)",
        &[&token_hash, &id, &scope.name(), &now],
    )
    .await?;
    Ok(true)
}

pub(super) async fn remove_client<C: GenericClient>(tx: &C, name: &str, now: Millis) -> Sql<bool> {
    let Some(row) = tx.query_opt("SELECT id FROM clients WHERE name = $1", &[&name]).await? else {
        return Ok(false);
    };
    let id: i64 = row.try_get(0)?;
    tx.execute("DELETE FROM client_tokens WHERE client_id = $1", &[&id]).await?;
    tx.execute(
        "UPDATE clients SET name = $2, revoked_at = coalesce(revoked_at, $3) WHERE id = $1",
        &[&id, &format!("~{id}"), &now],
    )
    .await?;
    Ok(true)
}

pub(super) async fn set_teacher<C: GenericClient>(tx: &C, name: &str, teacher: bool) -> Sql<bool> {
    Ok(tx.execute("UPDATE clients SET teacher = $2 WHERE name = $1", &[&name, &teacher]).await? == 1)
}

pub(super) async fn setting_or_insert<C: GenericClient>(tx: &C, key: &str, default: &str) -> Sql<String> {
    tx.execute(
        "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        &[&key, &default],
    )
    .await?;
    Ok(tx.query_one("SELECT value FROM settings WHERE key = $1", &[&key]).await?.try_get(0)?)
}

pub(super) async fn put_setting<C: GenericClient>(c: &C, key: &str, value: Option<&str>) -> Sql<()> {
    match value {
        Some(value) => c.execute(
            "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            &[&key, &value],
        )
        .await?,
        None => c.execute("DELETE FROM settings WHERE key = $1", &[&key]).await?,
    };
    Ok(())
}

pub(super) async fn setting<C: GenericClient>(c: &C, key: &str) -> Sql<Option<String>> {
    Ok(c.query_opt("SELECT value FROM settings WHERE key = $1", &[&key])
        .await?
        .map(|r| r.try_get(0))
        .transpose()?)
}

// ---- Teachers ----

/// The submission query without the report (listings show no reports).
fn without_report() -> String {
    SUBMISSION_QUERY.replacen("r.report,", "NULL::TEXT,", 1)
}

fn records(rows: &[Row]) -> Sql<Vec<SubmissionRecord>> {
    Ok(rows.iter().map(submission_from_row).collect::<Result<_, _>>()?)
}

pub(super) async fn list_submissions<C: GenericClient>(
    c: &C,
    client_id: i64,
    filter: &SubmissionFilter,
    after: i64,
    limit: usize,
) -> Sql<Vec<SubmissionRecord>> {
    let sql = format!(
        "{} WHERE s.client_id = $1 AND s.id > $2 AND ($3::TEXT IS NULL OR s.exercise = $3) \
         AND ($4::TEXT IS NULL OR s.learner = $4) AND ($5::TEXT IS NULL OR r.verdict = $5) \
         AND ($6::BIGINT IS NULL OR s.created_at >= $6) ORDER BY s.id LIMIT $7",
        without_report()
    );
    let stmt = c.prepare_cached(&sql).await?;
    let rows = c
        .query(
            &stmt,
            &[
                &client_id,
                &after,
                &filter.exercise,
                &filter.learner,
                &filter.verdict,
                &filter.since,
                &(limit as i64),
            ],
        )
        .await?;
    records(&rows)
}

pub(super) async fn result_versions<C: GenericClient>(c: &C, submission_id: i64) -> Sql<Vec<ResultRecord>> {
    let columns =
        "status, verdict, points, max_points, failure, finished_at, grade_ms, exercise_hash, grader_version";
    let sql = format!(
        "SELECT version, {columns} FROM (SELECT 1 AS version, {columns} FROM results WHERE submission_id = $1 \
         UNION ALL SELECT version, {columns} FROM result_versions WHERE submission_id = $1) v ORDER BY version"
    );
    let rows = c.query(sql.as_str(), &[&submission_id]).await?;
    let versions = rows
        .iter()
        .map(|r| {
            Ok(ResultRecord {
                version: r.try_get::<_, i32>(0)?.max(0) as u32,
                verdict: r.try_get(2)?,
                points: r.try_get::<_, Option<i64>>(3)?.map(|p| p.max(0) as u32),
                max_points: r.try_get::<_, Option<i64>>(4)?.map(|p| p.max(0) as u32),
                report: None,
                failure: r.try_get(5)?,
                finished_at: r.try_get(6)?,
                grade_ms: r.try_get::<_, Option<i64>>(7)?.map(|ms| ms.max(0) as u64),
                exercise_hash: r.try_get(8)?,
                grader_version: r.try_get(9)?,
            })
        })
        .collect::<Result<_, tokio_postgres::Error>>()?;
    Ok(versions)
}

pub(super) async fn latest_submissions<C: GenericClient>(
    c: &C,
    exercise: &str,
    filter: &RegradeFilter,
    limit: usize,
) -> Sql<Vec<SubmissionRecord>> {
    let learners: Option<&Vec<String>> = (!filter.learners.is_empty()).then_some(&filter.learners);
    let sql = format!(
        "{} WHERE s.exercise = $1 AND r.submission_id IS NOT NULL AND ($2::TEXT IS NULL OR r.verdict = $2) \
         AND ($4::TEXT[] IS NULL OR s.learner = ANY($4)) \
         AND s.id = (SELECT max(t.id) FROM submissions t WHERE t.exercise = s.exercise \
         AND t.client_id = s.client_id AND t.learner = s.learner) ORDER BY s.id LIMIT $3",
        SUBMISSION_QUERY
    );
    let rows = c
        .query(sql.as_str(), &[&exercise, &filter.verdict, &(limit.saturating_add(1) as i64), &learners])
        .await?;
    records(&rows)
}

pub(super) async fn submission_payload<C: GenericClient>(c: &C, id: i64) -> Sql<Option<Submission>> {
    let Some(row) = c.query_opt("SELECT kind, payload FROM submissions WHERE id = $1", &[&id]).await? else {
        return Ok(None);
    };
    let (kind, payload): (String, Vec<u8>) = (row.try_get(0)?, row.try_get(1)?);
    Ok(Some(crate::service::store::payload::stored_submission(id, &kind, payload)?))
}

pub(super) async fn queue_regrades<C: GenericClient>(
    tx: &C,
    node: &str,
    ids: &[i64],
    exercise_hash: Option<&str>,
) -> Sql<RegradesQueued> {
    let mut queued = RegradesQueued::default();
    let stmt = tx
        .prepare_cached(
            "INSERT INTO jobs (submission_id, regrade, exercise_hash) VALUES ($1, true, $2) \
             ON CONFLICT (submission_id) DO NOTHING",
        )
        .await?;
    for &id in ids {
        // Due at once; a submission with an open job (its first grading, or a regrade) keeps it.
        if tx.execute(&stmt, &[&id, &exercise_hash]).await? == 1 {
            queued.queued.push(id);
        } else {
            queued.already_open.push(id);
        }
    }
    if !queued.queued.is_empty() {
        tx.execute(&*format!("SELECT pg_notify('{JOBS_CHANNEL}', $1)"), &[&node]).await?;
    }
    Ok(queued)
}

pub(super) async fn exercise_submissions<C: GenericClient>(
    c: &C,
    exercise: &str,
    limit: usize,
) -> Sql<Vec<SubmissionRecord>> {
    let sql = format!("{SUBMISSION_QUERY} WHERE s.exercise = $1 ORDER BY s.id LIMIT $2");
    let rows = c.query(sql.as_str(), &[&exercise, &(limit.saturating_add(1) as i64)]).await?;
    records(&rows)
}

pub(super) async fn learner_submissions<C: GenericClient>(
    c: &C,
    client_id: i64,
    exercise: &str,
    learner: &str,
    limit: usize,
) -> Sql<Vec<SubmissionRecord>> {
    let stmt = c
        .prepare_cached(&format!(
            "{SUBMISSION_QUERY} WHERE s.client_id = $1 AND s.exercise = $2 AND s.learner = $3 \
             ORDER BY s.id DESC LIMIT $4"
        ))
        .await?;
    let rows = c.query(&stmt, &[&client_id, &exercise, &learner, &(limit as i64)]).await?;
    records(&rows)
}

// ---- LTI 1.3 ----

const PLATFORM_COLUMNS: &str =
    "id, name, issuer, client_id, auth_url, token_url, jwks_url, deployment_id, api_client_id, created_at";

fn platform_from_row(row: &Row) -> Result<PlatformRecord, tokio_postgres::Error> {
    Ok(PlatformRecord {
        id: row.try_get(0)?,
        platform: NewPlatform {
            name: row.try_get(1)?,
            issuer: row.try_get(2)?,
            client_id: row.try_get(3)?,
            auth_url: row.try_get(4)?,
            token_url: row.try_get(5)?,
            jwks_url: row.try_get(6)?,
            deployment_id: row.try_get(7)?,
        },
        api_client_id: row.try_get(8)?,
        created_at: row.try_get(9)?,
    })
}

pub(super) async fn add_platform<C: GenericClient>(
    tx: &C,
    platform: &NewPlatform,
    api_client_id: i64,
    now: Millis,
) -> Sql<PlatformRecord> {
    let taken = tx
        .query_opt(
            "SELECT name FROM lti_platforms WHERE name = $1 OR (issuer = $2 AND client_id = $3)",
            &[&platform.name, &platform.issuer, &platform.client_id],
        )
        .await?;
    if let Some(row) = taken {
        let name: String = row.try_get(0)?;
        return Err(StoreError::Conflict(format!(
            "the platform {name:?} has this name, or this issuer and client id, already"
        ))
        .into());
    }
    let row = tx
        .query_one(
            "INSERT INTO lti_platforms (name, issuer, client_id, auth_url, token_url, jwks_url, deployment_id, \
             api_client_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
            &[
                &platform.name,
                &platform.issuer,
                &platform.client_id,
                &platform.auth_url,
                &platform.token_url,
                &platform.jwks_url,
                &platform.deployment_id,
                &api_client_id,
                &now,
            ],
        )
        .await?;
    Ok(PlatformRecord { id: row.try_get(0)?, platform: platform.clone(), api_client_id, created_at: now })
}

pub(super) async fn update_platform<C: GenericClient>(tx: &C, platform: &NewPlatform) -> Sql<bool> {
    let taken = tx
        .query_opt(
            "SELECT name FROM lti_platforms WHERE name <> $1 AND issuer = $2 AND client_id = $3",
            &[&platform.name, &platform.issuer, &platform.client_id],
        )
        .await?;
    if let Some(row) = taken {
        let name: String = row.try_get(0)?;
        return Err(StoreError::Conflict(format!(
            "the platform {name:?} has this issuer and client id already"
        ))
        .into());
    }
    let changed = tx
        .execute(
            "UPDATE lti_platforms SET issuer = $2, client_id = $3, auth_url = $4, token_url = $5, jwks_url = $6, \
             deployment_id = $7 WHERE name = $1",
            &[
                &platform.name,
                &platform.issuer,
                &platform.client_id,
                &platform.auth_url,
                &platform.token_url,
                &platform.jwks_url,
                &platform.deployment_id,
            ],
        )
        .await?;
    Ok(changed == 1)
}

pub(super) async fn remove_platform<C: GenericClient>(tx: &C, name: &str, now: Millis) -> Sql<bool> {
    let Some(row) = tx
        .query_opt(
            "SELECT p.id, c.name FROM lti_platforms p JOIN clients c ON c.id = p.api_client_id WHERE p.name = $1",
            &[&name],
        )
        .await?
    else {
        return Ok(false);
    };
    let (id, client): (i64, String) = (row.try_get(0)?, row.try_get(1)?);
    tx.execute("DELETE FROM lti_states WHERE platform_id = $1", &[&id]).await?;
    tx.execute("DELETE FROM lti_contexts WHERE platform_id = $1", &[&id]).await?;
    tx.execute("DELETE FROM lti_platforms WHERE id = $1", &[&id]).await?;
    remove_client(tx, &client, now).await?;
    Ok(true)
}

pub(super) async fn list_platforms<C: GenericClient>(c: &C) -> Sql<Vec<PlatformRecord>> {
    let stmt =
        c.prepare_cached(&format!("SELECT {PLATFORM_COLUMNS} FROM lti_platforms ORDER BY name")).await?;
    let rows = c.query(&stmt, &[]).await?;
    Ok(rows.iter().map(platform_from_row).collect::<Result<_, _>>()?)
}

pub(super) async fn put_lti_state<C: GenericClient>(
    tx: &C,
    state: &str,
    entry: &LtiState,
    expires_at: Millis,
    evict: Option<&str>,
    now: Millis,
) -> Sql<()> {
    tx.execute("DELETE FROM lti_states WHERE expires_at <= $1", &[&now]).await?;
    if let Some(evict) = evict {
        tx.execute("DELETE FROM lti_states WHERE state = $1", &[&evict]).await?;
    }
    tx.execute(
        "INSERT INTO lti_states (state, nonce, platform_id, expires_at) VALUES ($1, $2, $3, $4)",
        &[&state, &entry.nonce, &entry.platform_id, &expires_at],
    )
    .await?;
    Ok(())
}

pub(super) async fn take_lti_state<C: GenericClient>(
    tx: &C,
    state: &str,
    now: Millis,
) -> Sql<Option<LtiState>> {
    // Taken once: the DELETE returns the row to one caller only, however many nodes ask at once.
    let found = tx
        .query_opt(
            "DELETE FROM lti_states WHERE state = $1 RETURNING nonce, platform_id, expires_at",
            &[&state],
        )
        .await?;
    let Some(row) = found else { return Ok(None) };
    let expires_at: i64 = row.try_get(2)?;
    if expires_at <= now {
        return Ok(None);
    }
    Ok(Some(LtiState { nonce: row.try_get(0)?, platform_id: row.try_get(1)? }))
}

pub(super) const CONTEXT_COLUMNS: &str = "id, platform_id, subject, exercise, lineitem";

pub(super) fn context_from_row(row: &Row) -> Result<LtiContext, tokio_postgres::Error> {
    Ok(LtiContext {
        id: row.try_get(0)?,
        platform_id: row.try_get(1)?,
        subject: row.try_get(2)?,
        exercise: row.try_get(3)?,
        lineitem: row.try_get(4)?,
    })
}

pub(super) async fn lti_context<C: GenericClient>(
    tx: &C,
    platform_id: i64,
    subject: &str,
    exercise: &str,
    lineitem: &str,
    now: Millis,
) -> Sql<LtiContext> {
    tx.execute(
        "INSERT INTO lti_contexts (platform_id, subject, exercise, lineitem, created_at) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (platform_id, subject, exercise, lineitem) \
         DO UPDATE SET created_at = greatest(lti_contexts.created_at, excluded.created_at)",
        &[&platform_id, &subject, &exercise, &lineitem, &now],
    )
    .await?;
    let row = tx
        .query_one(
            &*format!(
                "SELECT {CONTEXT_COLUMNS} FROM lti_contexts \
                 WHERE platform_id = $1 AND subject = $2 AND exercise = $3 AND lineitem = $4"
            ),
            &[&platform_id, &subject, &exercise, &lineitem],
        )
        .await?;
    Ok(context_from_row(&row)?)
}

pub(super) async fn set_lti_course<C: GenericClient>(tx: &C, context_id: i64, course: &str) -> Sql<()> {
    tx.execute("UPDATE lti_contexts SET course = $1 WHERE id = $2", &[&course, &context_id]).await?;
    Ok(())
}

pub(super) async fn lti_course_contexts<C: GenericClient>(
    c: &C,
    platform_id: i64,
    course: &str,
) -> Sql<Vec<i64>> {
    let rows = c
        .query(
            "SELECT id FROM lti_contexts WHERE platform_id = $1 AND course = $2 ORDER BY id",
            &[&platform_id, &course],
        )
        .await?;
    rows.iter().map(|r| r.try_get(0)).collect::<Result<Vec<i64>, _>>().map_err(Into::into)
}

pub(super) async fn lti_context_by_id<C: GenericClient>(c: &C, id: i64) -> Sql<Option<LtiContext>> {
    let row =
        c.query_opt(&*format!("SELECT {CONTEXT_COLUMNS} FROM lti_contexts WHERE id = $1"), &[&id]).await?;
    Ok(row.map(|r| context_from_row(&r)).transpose()?)
}
