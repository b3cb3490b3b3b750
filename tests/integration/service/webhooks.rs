//! Webhooks end to end: retried, then dead, then redelivered by hand; loopback callbacks refused
//! unless allowed.

use super::*;

#[test]
fn webhooks_are_retried_then_dead_then_redelivered() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        dir.path(),
        &[
            "--allow-private-callbacks",
            "--webhook-attempts",
            "3",
            "--webhook-backoff-ms",
            "20",
            "--webhook-seed",
            "5",
        ],
    );
    let (token, secret) = server.client("lms");

    // The receiver fails once with 500, then accepts: two attempts, the same event id.
    let flaky = Receiver::start(|n| if n == 0 { 500 } else { 204 });
    let body =
        json!({"exercise": PREDICTION, "learner": "a", "answer": "(2, 2, 0)", "callback_url": flaky.url()});
    let id = server.post_json("/api/v1/submissions", &token, &body, None).json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let received = poll("two webhook attempts", Duration::from_secs(30), || {
        let r = flaky.received();
        (r.len() >= 2).then_some(r)
    });
    assert_eq!(received[0].id, format!("evt_{id}"));
    assert_eq!(received[0].id, received[1].id, "the event id is stable across retries");
    assert_eq!(received[0].body, received[1].body);
    assert!(received.iter().all(|r| signature_valid(&secret, r)), "signatures are valid");
    let payload: Value = serde_json::from_slice(&received[1].body).unwrap();
    assert_eq!(payload["type"], "submission.graded");
    assert_eq!(payload["data"]["id"], id.as_str());
    assert_eq!(payload["data"]["status"], "graded");
    assert!(!signature_valid("whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", &received[0]));

    // A receiver that always fails: three attempts, then dead; redeliver sends it again.
    let down = Receiver::start(|_| 503);
    let body =
        json!({"exercise": PREDICTION, "learner": "b", "answer": "(2, 2, 0)", "callback_url": down.url()});
    let id = server.post_json("/api/v1/submissions", &token, &body, None).json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let event_id = format!("evt_{id}");
    let dead = poll("the event to be dead", Duration::from_secs(30), || {
        let list = server.get("/api/v1/webhooks/dead", &token).json();
        list["events"].as_array().unwrap().iter().find(|e| e["event_id"] == event_id.as_str()).cloned()
    });
    assert_eq!(dead["attempts"], 3);
    assert!(dead["last_error"].as_str().unwrap().contains("503"), "{dead}");
    assert_eq!(down.received().len(), 3);
    let metrics = request(server.port, "GET", "/metrics", &[], b"").unwrap().text();
    assert!(metrics.contains("pruefstein_webhook_events{state=\"dead\"} 1"), "{metrics}");
    // Another client cannot redeliver it; a non-dead event cannot be redelivered.
    let (token2, _) = server.client("lms-2");
    let redeliver = format!("/api/v1/webhooks/dead/{event_id}/redeliver");
    assert_eq!(server.call("POST", &redeliver, &token2, &[], b"").status, 404);
    down.set_policy(|_| 200);
    assert_eq!(server.call("POST", &redeliver, &token, &[], b"").status, 202);
    let again = poll("the redelivery", Duration::from_secs(30), || {
        let r = down.received();
        (r.len() >= 4).then_some(r)
    });
    assert!(again.iter().all(|r| r.id == event_id && signature_valid(&secret, r)));
    poll("the dead list to be empty", Duration::from_secs(30), || {
        let list = server.get("/api/v1/webhooks/dead", &token).json();
        list["events"].as_array().unwrap().is_empty().then_some(())
    });
    assert_eq!(server.call("POST", &redeliver, &token, &[], b"").status, 409);
}

#[test]
fn loopback_callbacks_are_refused_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    for url in
        ["http://127.0.0.1:9/hook", "http://10.0.0.1/hook", "http://[::1]/hook", "http://169.254.169.254/"]
    {
        let body = json!({"exercise": PREDICTION, "learner": "a", "answer": "(1)", "callback_url": url});
        let r = server.post_json("/api/v1/submissions", &token, &body, None);
        assert_eq!(r.status, 422, "{url}: {}", r.text());
        assert_eq!(r.json()["type"], "urn:pruefstein:problem:bad-callback-url");
    }
}
