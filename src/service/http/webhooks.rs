//! Dead letters: a client's webhook events that ran out of attempts, and redelivering one by hand.

use crate::service::problem::answers::NoValidToken;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};

use super::auth::Client;
use super::handler::{Data, db};
use super::views::{DeadEvent, DeadEventList};
use crate::limits::DEAD_EVENTS_LISTED_MAX;
use crate::service::clock;
use crate::service::problem::Problem;

#[utoipa::path(
    get,
    path = "/api/v1/webhooks/dead",
    tag = "webhooks",
    responses(
        (status = 200, description = "This client's webhook events that ran out of attempts", body = DeadEventList),
        NoValidToken,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn dead_webhooks(shared: Data, Client(client): Client) -> Result<HttpResponse, Problem> {
    let client_id = client.id;
    let events = db(&shared, move |store| store.dead_events(client_id, DEAD_EVENTS_LISTED_MAX)).await?;
    let base = &shared.config.public_url;
    let events = events
        .into_iter()
        .map(|e| DeadEvent {
            redeliver: format!("{base}/api/v1/webhooks/dead/{}/redeliver", e.event_id),
            submission_id: crate::service::public_id::of(e.submission_id),
            url: e.url,
            attempts: e.attempts,
            last_error: e.last_error,
            created_at: clock::rfc3339(e.created_at),
            event_id: e.event_id,
        })
        .collect();
    Ok(HttpResponse::Ok().json(DeadEventList { events }))
}

#[utoipa::path(
    post,
    path = "/api/v1/webhooks/dead/{event_id}/redeliver",
    tag = "webhooks",
    params(("event_id" = String, Path, description = "The event id (`webhook-id` header)")),
    responses(
        (status = 202, description = "The event is pending again, with fresh attempts"),
        NoValidToken,
        (status = 404, description = "No such event of this client", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The event is not dead", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn redeliver_webhook(
    path: web::Path<String>,
    shared: Data,
    Client(client): Client,
) -> Result<HttpResponse, Problem> {
    let event_id = path.into_inner();
    let client_id = client.id;
    let id = event_id.clone();
    match db(&shared, move |store| store.redeliver(client_id, &id, clock::now_ms())).await? {
        None => Err(Problem::not_found(
            "unknown-event",
            format!("There is no webhook event {event_id:?} of this client."),
            format!("Es gibt kein Webhook-Ereignis {event_id:?} dieses Clients."),
        )),
        Some(false) => Err(Problem::new(
            StatusCode::CONFLICT,
            "event-not-dead",
            "Conflict",
            format!("The event {event_id:?} is not dead: it is delivered or still being tried."),
            format!("Das Ereignis {event_id:?} ist nicht tot: es ist zugestellt oder wird noch versucht."),
        )),
        Some(true) => {
            shared.outbox.notify();
            Ok(HttpResponse::Accepted().json(serde_json::json!({"event_id": event_id, "state": "pending"})))
        }
    }
}
