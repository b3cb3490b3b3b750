//! Schema migrations for PostgreSQL: the `.sql` files in `postgres/migrations/`, compiled into the
//! binary and applied in order, each in its own transaction with its row in `schema_migrations`.
//! Every transaction first takes a transaction-level advisory lock, so that nodes starting together
//! apply each migration once: the others wait for the lock, then see the migration recorded.

use deadpool_postgres::Client;

use super::error::Sql;
use crate::service::store::StoreError;

/// Every migration, in the order applied: (name, SQL).
pub(crate) const MIGRATIONS: &[(&str, &str)] = &[
    ("0001_schema", include_str!("migrations/0001_schema.sql")),
    ("0002_exercise_versions", include_str!("migrations/0002_exercise_versions.sql")),
    ("0003_client_tokens", include_str!("migrations/0003_client_tokens.sql")),
    ("0004_lti_courses", include_str!("migrations/0004_lti_courses.sql")),
    ("0005_privacy", include_str!("migrations/0005_privacy.sql")),
];

/// The advisory lock's key: any number the nodes agree on ("prüf" in ASCII).
const MIGRATION_LOCK: i64 = 0x7072_7566;

/// Brings the schema up to date, one migration per transaction.
pub(crate) async fn migrate(client: &mut Client) -> Sql<()> {
    apply(client, MIGRATIONS).await
}

/// Applies `migrations`, each with its record in one transaction under the advisory lock.
pub(crate) async fn apply(client: &mut Client, migrations: &[(&str, &str)]) -> Sql<()> {
    loop {
        let tx = client.transaction().await?;
        tx.query_one("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (\
                 version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
        )
        .await?;
        let version: i64 = tx.query_one("SELECT count(*) FROM schema_migrations", &[]).await?.get(0);
        let version = version as usize;
        if version > migrations.len() {
            return Err(StoreError::NewerSchema { found: version, known: migrations.len() }.into());
        }
        let Some((name, sql)) = migrations.get(version) else {
            tx.commit().await?;
            return Ok(());
        };
        tx.batch_execute(sql).await?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
            &[&(version as i32 + 1), name],
        )
        .await?;
        tx.commit().await?;
    }
}
