//! The teachers' dashboard behind `pruefstein teacher link`: a forged, changed or expired link is
//! a 404 page; a regrade form without its CSRF token, or with another link's, is refused and
//! changes nothing; the link opens the course's exercises, an exercise's analytics with its
//! regrade buttons, a learner's submissions and two reports side by side, in German and English,
//! with the security headers of the student's pages. (The LTI instructor's way in, and that a
//! course's link never shows another course, are in `lti.rs`.)

use super::a11y::teacher_link;
use super::page::path_of;
use super::*;
use pruefstein::service::dashboard::{Course, DashboardLink, csrf_token};
use pruefstein::text::Lang;

const REPORT_SECRET: &str = "a-report-secret-for-the-dashboard-tests";

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

fn get(server: &Server, path: &str) -> Response {
    request(server.port, "GET", path, &[], b"").unwrap()
}

fn post(server: &Server, path: &str, body: &str) -> Response {
    request(
        server.port,
        "POST",
        path,
        &[("Content-Type", "application/x-www-form-urlencoded")],
        body.as_bytes(),
    )
    .unwrap()
}

fn regrade_jobs(server: &Server) -> i64 {
    server.db().query_row("SELECT count(*) FROM jobs", [], |r| r.get(0)).unwrap()
}

#[test]
fn forged_expired_and_changed_dashboard_links_and_forms_without_their_csrf_token_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--report-secret", REPORT_SECRET]);
    let (token, _) = server.client("lms");
    let r = server.post_json(
        "/api/v1/submissions?wait=30s",
        &token,
        &wat_submission("mutants/no-dedup.wat", "anna"),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let key = REPORT_SECRET.as_bytes();
    let good = DashboardLink::signed(key, Course::Service, now_ms() + 3_600_000, Lang::En);
    assert_eq!(get(&server, &good.href("/teach", Lang::En, "")).status, 200);

    // Forged, changed, expired, for another course, or signed with another key: 404, as an unknown page.
    let expired = DashboardLink::signed(key, Course::Service, now_ms() - 1, Lang::En);
    let other_key = DashboardLink::signed(b"another key", Course::Service, now_ms() + 3_600_000, Lang::En);
    let lti = Course::Lti { platform: 1, context: "course-a".into() };
    let course_a = DashboardLink::signed(key, lti, now_ms() + 3_600_000, Lang::En);
    let mut forged = good.clone();
    // The last digit changed (to another digit whatever it was: a forged token never equals the
    // signed one).
    let last = if good.token.ends_with('0') { '1' } else { '0' };
    forged.token = format!("{}{last}", &good.token[..good.token.len() - 1]);
    assert_ne!(forged.token, good.token);
    let mut longer = good.clone();
    longer.expires += 1_000_000;
    for (what, path) in [
        ("forged", forged.href("/teach", Lang::En, "")),
        ("expiry changed", longer.href("/teach", Lang::En, "")),
        ("expired", expired.href("/teach", Lang::En, "")),
        ("another key", other_key.href("/teach", Lang::En, "")),
        ("no token", "/teach?lang=en".to_string()),
        ("course added", good.href("/teach", Lang::En, "&p=1&k=course-a")),
        ("course changed", course_a.href("/teach", Lang::En, "").replace("course-a", "course-b")),
        ("course dropped", course_a.href("/teach", Lang::En, "").replace("p=1&k=course-a&", "")),
        ("analytics", forged.href(&format!("/teach/exercises/{CONSUMER}"), Lang::En, "")),
        ("learner", forged.href("/teach/learner", Lang::En, "&learner=anna")),
        ("compare", forged.href("/teach/compare", Lang::En, "&a=sub_1&b=sub_1")),
    ] {
        let r = get(&server, &path);
        assert_eq!(r.status, 404, "{what}: {path}");
        assert!(r.text().contains("Page not found") && !r.text().contains("anna"), "{what}: {}", r.text());
    }
    let r = post(&server, &forged.href(&format!("/teach/exercises/{CONSUMER}/regrade"), Lang::En, ""), "");
    assert_eq!(r.status, 404);

    // A regrade form needs its link's CSRF token: none, a wrong one, another link's are 403.
    let action = good.href(&format!("/teach/exercises/{CONSUMER}/regrade"), Lang::En, "");
    let before = regrade_jobs(&server);
    let other_csrf = csrf_token(key, &course_a.token);
    for body in [
        "dry_run=false".to_string(),
        "csrf=&dry_run=false".to_string(),
        format!("csrf={}&dry_run=false", "0".repeat(32)),
        format!("csrf={other_csrf}&dry_run=false"),
        format!("csrf={}&dry_run=false", good.token),
    ] {
        let r = post(&server, &action, &body);
        assert_eq!(r.status, 403, "{body}: {}", r.text());
        assert!(r.text().contains("token"), "{}", r.text());
    }
    assert_eq!(regrade_jobs(&server), before, "a refused form changed nothing");
    // With its token, a dry run answers what would change, and the regrade queues.
    let csrf = csrf_token(key, &good.token);
    let r = post(&server, &action, &format!("csrf={csrf}&dry_run=true"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(
        r.text().contains("Regrade dry run") && r.text().contains("1 submissions selected"),
        "{}",
        r.text()
    );
    let r = post(&server, &action, &format!("csrf={csrf}&dry_run=false"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("Regrade queued"), "{}", r.text());
    // Both are in the audit log, as the dashboard's (written beside the answer: polled).
    poll("the dashboard's regrades in the audit log", Duration::from_secs(10), || {
        let out =
            Command::new(BIN).args(["audit", "--json", "--data-dir"]).arg(&server.data).output().unwrap();
        let log = String::from_utf8_lossy(&out.stdout).into_owned();
        (log.matches("\"action\":\"regrade\"").count() == 2 && log.contains("\"actor\":\"dashboard"))
            .then_some(())
    });

    // The command line's link: bounded expiry, and a link that opens.
    for expires in ["0s", "31d"] {
        let out = Command::new(BIN)
            .args(["teacher", "link", "--expires", expires, "--report-secret", REPORT_SECRET, "--data-dir"])
            .arg(&server.data)
            .output()
            .unwrap();
        assert!(!out.status.success(), "--expires {expires} was accepted");
    }
    let url = teacher_link(&server, &["--expires", "2h", "--report-secret", REPORT_SECRET]);
    let r = get(&server, &path_of(&url));
    assert_eq!(r.status, 200, "{url}: {}", r.text());
}

/// The dashboard in both languages: the exercises with their pass rates, the analytics with the
/// regrade buttons and each form's CSRF token, a learner's submissions with their report links,
/// two reports side by side; the headers of the student's pages on each.
#[test]
fn the_dashboard_shows_the_course_in_both_languages_with_the_pages_security_headers() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let mut ids = Vec::new();
    for (file, learner) in [("mutants/no-dedup.wat", "anna"), ("solutions/reference.wat", "bert")] {
        let r =
            server.post_json("/api/v1/submissions?wait=30s", &token, &wat_submission(file, learner), None);
        assert_eq!(r.status, 200, "{}", r.text());
        ids.push(r.json()["id"].as_str().unwrap().to_string());
    }
    let url = path_of(&teacher_link(&server, &[]));
    assert!(url.starts_with("/teach?") && url.ends_with("&lang=de"), "{url}");
    for (lang, words) in [
        ("de", ["Aufgaben des Kurses", "Bestanden: 1/2", "Probelauf", "Abgaben von anna", "nebeneinander"]),
        ("en", ["The course's exercises", "Passed: 1/2", "Dry run", "Submissions of anna", "side by side"]),
    ] {
        let link = url.replace("lang=de", &format!("lang={lang}"));
        let pages = [
            link.clone(),
            link.replacen("/teach?", &format!("/teach/exercises/{CONSUMER}?"), 1),
            link.replacen("/teach?", "/teach/learner?", 1) + "&learner=anna",
            link.replacen("/teach?", "/teach/compare?", 1) + &format!("&a={}&b={}", ids[0], ids[1]),
        ];
        let mut text = String::new();
        for page in &pages {
            let r = get(&server, page);
            assert_eq!(r.status, 200, "{page}: {}", r.text());
            assert!(r.text().contains(&format!("<html lang=\"{lang}\"")), "{page}");
            assert_eq!(r.header("cache-control"), Some("private, no-store"), "{page}");
            assert_eq!(r.header("referrer-policy"), Some("no-referrer"), "{page}");
            assert_eq!(r.header("x-content-type-options"), Some("nosniff"), "{page}");
            let csp = r.header("content-security-policy").unwrap();
            assert!(csp.contains("default-src 'none'") && csp.contains("form-action 'self'"), "{csp}");
            assert!(!r.text().contains("<script"), "{page}");
            text.push_str(&r.text());
        }
        for word in words {
            assert!(text.contains(word), "{lang}: {word:?} missing");
        }
        assert!(text.contains(&format!("/reports/{}?t=", ids[0])), "{lang}: the learner's report link");
        assert!(text.contains("name=\"csrf\""), "{lang}: the regrade forms carry their token");
    }
}
