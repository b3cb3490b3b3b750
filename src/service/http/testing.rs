//! What the HTTP tests share: a service state on a temporary directory, and one request through
//! the real routes.

use std::sync::Arc;

use actix_web::http::header;
use actix_web::{App, test, web};

use crate::service::auth;
use crate::service::catalogue::Catalogue;
use crate::service::config::{Config, ServeArgs};
use crate::service::shared::Shared;
use crate::service::store::Store;
use crate::service::store::sqlite::{Durability, SqliteStore};

/// A service without exercises and with three clients: `good`, `revoked` and `teacher`.
pub(crate) fn shared(dir: &std::path::Path) -> web::Data<Shared> {
    let exercises = dir.join("exercises");
    std::fs::create_dir_all(&exercises).unwrap();
    let args =
        ServeArgs { data_dir: Some(dir.join("data")), exercises: Some(exercises), ..ServeArgs::default() };
    let config = Config::resolve(&args).unwrap();
    let store = SqliteStore::open(&config.data_dir, Durability::Normal).unwrap();
    store.add_client("good", &auth::token_hash("pst_good"), "whsec_g", 0).unwrap();
    store.add_client("revoked", &auth::token_hash("pst_revoked"), "whsec_r", 0).unwrap();
    store.revoke_client("revoked", 1).unwrap();
    store.add_client("teacher", &auth::token_hash("pst_teacher"), "whsec_t", 0).unwrap();
    store.set_teacher("teacher", true).unwrap();
    let catalogue = Catalogue::load(&config.exercises, &config.graders).unwrap();
    let secrets = crate::service::secrets::Secrets {
        report: crate::service::secrets::ReportKeys::only(b"report key".to_vec()),
        course: "course secret".into(),
    };
    web::Data::new(Shared::new(config, Arc::new(store), catalogue, secrets))
}

pub(crate) async fn call(
    data: &web::Data<Shared>,
    method: &str,
    uri: &str,
    token: Option<&str>,
) -> (u16, serde_json::Value) {
    let app = test::init_service(App::new().app_data(data.clone()).configure(super::server::routes)).await;
    let mut request = match method {
        "POST" => test::TestRequest::post(),
        _ => test::TestRequest::get(),
    }
    .uri(uri);
    if let Some(token) = token {
        request = request.insert_header((header::AUTHORIZATION, format!("Bearer {token}")));
    }
    let response = test::call_service(&app, request.to_request()).await;
    let status = response.status().as_u16();
    let body = test::read_body(response).await;
    (status, serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null))
}
