//! LTI 1.3 without a real LMS: a fake platform on loopback (its own RSA key and JWKS, a token
//! endpoint that checks the tool's signed client assertion, and an AGS line item whose `scores`
//! endpoint fails twice before it takes a score) drives login → deep linking → resource-link
//! launch → a submission on the student's page → the score at the line item with a valid bearer
//! token. Then the failure cases, each a clear page that changes nothing.

use std::sync::OnceLock;

use pruefstein::service::lti::keys::{ToolKey, generate_pem};

use super::page::{graded_page, multipart, path_of, post_form};
use super::*;

const CLIENT_ID: &str = "tool-1";
const DEPLOYMENT: &str = "dep-1";
const SCORE_SCOPE: &str = "https://purl.imsglobal.org/spec/lti-ags/scope/score";
const CLAIM: &str = "https://purl.imsglobal.org/spec/lti/claim/";

/// The fake platform's key, and another one (made once per test run: RSA keys take a while).
fn keys() -> &'static (ToolKey, ToolKey) {
    static KEYS: OnceLock<(ToolKey, ToolKey)> = OnceLock::new();
    KEYS.get_or_init(|| {
        (
            ToolKey::from_pem(&generate_pem().unwrap()).unwrap(),
            ToolKey::from_pem(&generate_pem().unwrap()).unwrap(),
        )
    })
}

/// One request the fake platform received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// The fake platform: `/jwks`, `/token`, `/lineitems/1/lineitem/scores`, `/auth` (never called:
/// the test plays the browser and takes state and nonce from the login's redirect).
/// How the line item answers its n-th score post (0-based): the status.
type ScorePolicy = Arc<Mutex<Box<dyn FnMut(usize) -> u16 + Send>>>;

struct Platform {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    /// The JWKS it publishes.
    jwks: Arc<Mutex<Value>>,
    /// The `Cache-Control` it sends with its JWKS (none: no such header).
    cache_control: Arc<Mutex<Option<String>>>,
    scores: ScorePolicy,
}

impl Platform {
    /// `score_failures`: how many score posts are answered 500 before one is taken.
    fn start(score_failures: usize) -> Platform {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let jwks = Arc::new(Mutex::new(json!({"keys": [keys().0.jwk]})));
        let published = jwks.clone();
        let scores: ScorePolicy =
            Arc::new(Mutex::new(Box::new(move |n| if n < score_failures { 500 } else { 200 })));
        let policy = scores.clone();
        let cache_control = Arc::new(Mutex::new(None::<String>));
        let cache = cache_control.clone();
        std::thread::spawn(move || {
            let mut posted = 0usize;
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let Some(request) = read_any(&mut stream) else { continue };
                let mut extra = String::new();
                let (status, body) = match (request.method.as_str(), request.path.as_str()) {
                    ("GET", "/jwks") if cache.lock().unwrap().is_some() => {
                        extra = format!("Cache-Control: {}\r\n", cache.lock().unwrap().as_deref().unwrap());
                        (200, published.lock().unwrap().to_string())
                    }
                    ("GET", "/jwks") => (200, published.lock().unwrap().to_string()),
                    ("POST", "/token") => (
                        200,
                        json!({"access_token": "tok-1", "token_type": "Bearer", "expires_in": 3600})
                            .to_string(),
                    ),
                    ("POST", "/lineitems/1/lineitem/scores") => {
                        let status = (policy.lock().unwrap())(posted);
                        posted += 1;
                        (status, "{}".to_string())
                    }
                    _ => (404, String::new()),
                };
                log.lock().unwrap().push(request);
                let _ = stream.write_all(
                    format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                    .as_bytes(),
                );
            }
        });
        Platform { port, seen, jwks, cache_control, scores }
    }

    fn issuer(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn seen(&self, path: &str) -> Vec<Seen> {
        self.seen.lock().unwrap().iter().filter(|s| s.path == path).cloned().collect()
    }

    /// Registers this platform with the server through `pruefstein platform add`.
    fn register(&self, server: &Server) -> Value {
        self.register_as(server, "fake")
    }

    /// Registers this platform under `name`.
    fn register_as(&self, server: &Server, name: &str) -> Value {
        let out = Command::new(BIN)
            .args(["platform", "add", name, "--json", "--issuer"])
            .arg(self.issuer())
            .args(["--client-id", CLIENT_ID, "--auth-url"])
            .arg(format!("{}/auth", self.issuer()))
            .arg("--token-url")
            .arg(format!("{}/token", self.issuer()))
            .arg("--jwks-url")
            .arg(format!("{}/jwks", self.issuer()))
            .args(["--deployment-id", DEPLOYMENT, "--data-dir"])
            .arg(&server.data)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The claims of a launch as this platform would sign them.
    fn claims(&self, nonce: &str, message_type: &str) -> Value {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        json!({
            "iss": self.issuer(), "sub": "u1", "aud": CLIENT_ID, "iat": now, "exp": now + 300, "nonce": nonce,
            format!("{CLAIM}message_type"): message_type,
            format!("{CLAIM}version"): "1.3.0",
            format!("{CLAIM}deployment_id"): DEPLOYMENT,
            format!("{CLAIM}target_link_uri"): "http://tool.example/lti/launch",
        })
    }

    fn resource_link_claims(&self, nonce: &str) -> Value {
        let mut claims = self.claims(nonce, "LtiResourceLinkRequest");
        claims[format!("{CLAIM}resource_link")] = json!({"id": "rl-1"});
        claims[format!("{CLAIM}custom")] = json!({"exercise": CONSUMER});
        claims[format!("{CLAIM}launch_presentation")] = json!({"locale": "en-GB"});
        claims["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"] = json!({
            "scope": [SCORE_SCOPE, "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"],
            "lineitem": format!("{}/lineitems/1/lineitem", self.issuer()),
        });
        claims
    }
}

/// Reads one HTTP request: method, path, headers, body.
fn read_any(stream: &mut TcpStream) -> Option<Seen> {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let mut raw = Vec::new();
    let mut buffer = [0u8; 8192];
    let split = loop {
        let n = stream.read(&mut buffer).ok()?;
        if n == 0 {
            return None;
        }
        raw.extend_from_slice(&buffer[..n]);
        if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
    };
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = raw[split + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut buffer).ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&buffer[..n]);
    }
    Some(Seen { method, path, headers, body })
}

/// A form body, URL-encoded.
fn form(fields: &[(&str, &str)]) -> Vec<u8> {
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in fields {
        out.append_pair(name, value);
    }
    out.finish().into_bytes()
}

fn post_urlencoded(server: &Server, path: &str, body: &[u8]) -> Response {
    request(server.port, "POST", path, &[("Content-Type", "application/x-www-form-urlencoded")], body)
        .unwrap()
}

/// Starts a login as the platform would (GET); returns state and nonce from the redirect.
fn login(server: &Server, platform: &Platform) -> (String, String) {
    let query = String::from_utf8(form(&[
        ("iss", &platform.issuer()),
        ("login_hint", "u1"),
        ("target_link_uri", "http://tool.example/lti/launch"),
        ("client_id", CLIENT_ID),
        ("lti_message_hint", "hint-1"),
    ]))
    .unwrap();
    let r = request(server.port, "GET", &format!("/lti/login?{query}"), &[], b"").unwrap();
    assert_eq!(r.status, 302, "{}", r.text());
    let location = url::Url::parse(r.header("location").unwrap()).unwrap();
    assert_eq!(location.path(), "/auth");
    let pairs: HashMap<String, String> = location.query_pairs().into_owned().collect();
    for (name, value) in [
        ("scope", "openid"),
        ("response_type", "id_token"),
        ("response_mode", "form_post"),
        ("prompt", "none"),
        ("client_id", CLIENT_ID),
        ("login_hint", "u1"),
        ("lti_message_hint", "hint-1"),
    ] {
        assert_eq!(pairs.get(name).map(String::as_str), Some(value), "{name} in {location}");
    }
    assert_eq!(pairs["redirect_uri"], format!("http://127.0.0.1:{}/lti/launch", server.port));
    (pairs["state"].clone(), pairs["nonce"].clone())
}

fn launch(server: &Server, id_token: &str, state: &str) -> Response {
    post_urlencoded(server, "/lti/launch", &form(&[("id_token", id_token), ("state", state)]))
}

/// Undoes maud's escaping in an attribute value.
fn unescape(value: &str) -> String {
    value
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The hidden fields of the form of `html` that holds `needle`.
fn form_fields(html: &str, needle: &str) -> (String, Vec<(String, String)>) {
    let form = html
        .split("<form")
        .find(|f| f.contains(needle))
        .unwrap_or_else(|| panic!("no form with {needle}: {html}"));
    let action = unescape(form.split("action=\"").nth(1).unwrap().split('"').next().unwrap());
    let fields = form
        .split("<input")
        .skip(1)
        .filter_map(|input| {
            let name = input.split("name=\"").nth(1)?.split('"').next()?;
            let value = input.split("value=\"").nth(1)?.split('"').next()?;
            Some((unescape(name), unescape(value)))
        })
        .collect();
    (action, fields)
}

/// Runs the independent platform library `lti1p3platform` (PyPI, installed by `scripts/test`) on
/// the tool's deep-linking response and its client-credentials token request, as a platform that
/// registered the tool with its `/lti/jwks` checks them: what the library returned. Signatures
/// made by the tool's key (AWS-LC) verify with the library's check (PyJWT and jwcrypto), and the
/// same JWTs with a changed signature are refused by it.
fn platform_library_checks(
    server: &Server,
    platform: &Platform,
    deep_link_jwt: &str,
    token_request: &HashMap<String, String>,
) -> Value {
    let messages = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        messages.path(),
        json!({"deep_link_jwt": deep_link_jwt, "token_request": token_request}).to_string(),
    )
    .unwrap();
    let out = Command::new("python3")
        .arg(repo().join("tests/integration/service/lti_platform_library.py"))
        .arg(format!("http://127.0.0.1:{}/lti/jwks", server.port))
        .args([&platform.issuer(), CLIENT_ID, DEPLOYMENT])
        .arg(messages.path())
        .output()
        .unwrap_or_else(|e| panic!("python3 cannot be started ({e}); scripts/test installs it"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("No module named 'lti1p3platform'"),
        "lti1p3platform is not installed: scripts/test installs the pinned version"
    );
    assert!(out.status.success(), "the platform library refused the tool's JWTs:\n{stderr}");
    let checked: Value = serde_json::from_slice(&out.stdout).unwrap();
    for tampered in ["tampered_deep_link", "tampered_assertion"] {
        let refusal = checked[tampered].as_str().unwrap_or_else(|| panic!("{tampered} accepted: {checked}"));
        assert!(refusal.contains("Signature"), "{tampered}: {refusal}");
    }
    checked
}

/// Verifies a JWT of the tool with its published JWKS.
fn verify_tool_jwt(server: &Server, jwt: &str, audience: &str) -> Value {
    let r = request(server.port, "GET", "/lti/jwks", &[], b"").unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    let set: jsonwebtoken::jwk::JwkSet = serde_json::from_slice(&r.body).unwrap();
    let kid = jsonwebtoken::decode_header(jwt).unwrap().kid.unwrap();
    let key =
        jsonwebtoken::DecodingKey::from_jwk(set.find(&kid).expect("the JWT's key is published")).unwrap();
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
    validation.set_audience(&[audience]);
    jsonwebtoken::decode::<Value>(jwt, &key, &validation).expect("the tool's signature verifies").claims
}

fn count(server: &Server, table: &str) -> i64 {
    server.db().query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap()
}

#[test]
fn a_fake_platform_launches_links_and_receives_the_score_after_two_failures() {
    let platform = Platform::start(2);
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--allow-private-callbacks", "--webhook-backoff-ms", "100"]);
    let registration = platform.register(&server);
    let points = crate::support::consumer_exercise().points;

    // Deep linking: the teacher picks exercise 03; the platform gets a signed resource link.
    // Its `data` is an object (any JSON value is opaque to the tool), with a number no float
    // holds, a repeated key and a line break: it comes back exactly as it was signed.
    let (state, nonce) = login(&server, &platform);
    let mut claims = platform.claims(&nonce, "LtiDeepLinkingRequest");
    claims["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"] = json!({
        "deep_link_return_url": format!("{}/return", platform.issuer()),
        "accept_types": ["ltiResourceLink"], "data": "@DATA@",
    });
    const DATA: &str =
        "{\"z\": 1, \"a\": [2.50, 123456789012345678901234567890],\n \"z\": {\"ctx\": \"c-7\"}}";
    let signed: Box<serde_json::value::RawValue> =
        serde_json::from_str(&claims.to_string().replace("\"@DATA@\"", DATA)).unwrap();
    let r = launch(&server, &keys().0.sign(&signed).unwrap(), &state);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("Aufgabe auswählen"), "{}", r.text());
    let (action, fields) = form_fields(&r.text(), &format!("value=\"{CONSUMER}\""));
    assert_eq!(action, "/lti/deep-link");
    let fields: Vec<(&str, &str)> = fields.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let r = post_urlencoded(&server, "/lti/deep-link", &form(&fields));
    assert_eq!(r.status, 200, "{}", r.text());
    let csp = r.header("content-security-policy").unwrap().to_string();
    assert!(csp.contains(&format!("form-action {}", platform.issuer())), "{csp}");
    let (action, fields) = form_fields(&r.text(), "name=\"JWT\"");
    let deep_link_jwt = fields[0].1.clone();
    assert_eq!(action, format!("{}/return", platform.issuer()));
    let response = verify_tool_jwt(&server, &fields[0].1, &platform.issuer());
    assert_eq!(response["iss"], CLIENT_ID);
    assert_eq!(response[format!("{CLAIM}message_type")], "LtiDeepLinkingResponse");
    assert_eq!(response[format!("{CLAIM}deployment_id")], DEPLOYMENT);
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(fields[0].1.split('.').nth(1).unwrap())
        .unwrap();
    let payload = String::from_utf8(payload).unwrap();
    assert!(
        payload.contains(&format!("\"https://purl.imsglobal.org/spec/lti-dl/claim/data\":{DATA}")),
        "the data as it was signed: {payload}"
    );
    let item = &response["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"][0];
    assert_eq!(item["type"], "ltiResourceLink");
    assert_eq!(item["custom"]["exercise"], CONSUMER);
    assert_eq!(item["lineItem"]["scoreMaximum"], points);
    assert_eq!(item["url"], format!("http://127.0.0.1:{}/lti/launch", server.port));
    // A choice whose token does not match what the launch allowed is refused.
    let r = post_urlencoded(&server, "/lti/deep-link", &form(&[("exercise", PREDICTION), ("t", "0")]));
    assert_eq!(r.status, 422, "{}", r.text());

    // The resource link: the learner's page, in the language the launch asks for.
    let (state, nonce) = login(&server, &platform);
    let r = launch(&server, &keys().0.sign(&platform.resource_link_claims(&nonce)).unwrap(), &state);
    assert_eq!(r.status, 303, "{}", r.text());
    let page = path_of(r.header("location").unwrap());
    assert!(
        page.starts_with(&format!("/learn/{CONSUMER}?")) && page.contains("&x=") && page.contains("lang=en"),
        "{page}"
    );
    let r = request(server.port, "GET", &page, &[], b"").unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("<html lang=\"en\"") && r.text().contains("Submit"), "{}", r.text());
    let csp = r.header("content-security-policy").unwrap();
    assert!(csp.contains(&format!("frame-ancestors 'self' {}", platform.issuer())), "{csp}");

    // A submission there is graded, and its score reaches the line item after two failures.
    let learner = page.split("l=").nth(1).unwrap().split('&').next().unwrap();
    let learner =
        url::form_urlencoded::parse(format!("l={learner}").as_bytes()).next().unwrap().1.into_owned();
    assert_eq!(learner, "lti:1:u1", "the platform's subject, scoped by the platform");
    let body = multipart(&[
        ("exercise", None, CONSUMER.as_bytes()),
        ("learner", None, learner.as_bytes()),
        ("file", Some("reference.wat"), exercise_file("solutions/reference.wat").as_bytes()),
    ]);
    let r = post_form(&server, &page, &body);
    assert_eq!(r.status, 303, "{}", r.text());
    let graded = graded_page(&server, r.header("location").unwrap());
    assert!(graded.contains("PASSED"), "{graded}");
    let scores = poll("the score to be taken", Duration::from_secs(60), || {
        let seen = platform.seen("/lineitems/1/lineitem/scores");
        (seen.len() >= 3).then_some(seen)
    });
    assert_eq!(scores.len(), 3, "two failures, then one delivery: {scores:?}");
    for score in &scores {
        assert_eq!(score.method, "POST");
        assert_eq!(score.header("authorization"), Some("Bearer tok-1"));
        assert_eq!(score.header("content-type"), Some("application/vnd.ims.lis.v1.score+json"));
        assert_eq!(score.body, scores[0].body, "every retry carries the same score and timestamp");
    }
    let body: Value = serde_json::from_slice(&scores[0].body).unwrap();
    assert_eq!(body["userId"], "u1");
    assert_eq!(
        (body["scoreGiven"].as_u64(), body["scoreMaximum"].as_u64()),
        (Some(points.into()), Some(points.into()))
    );
    assert_eq!(
        (body["activityProgress"].as_str(), body["gradingProgress"].as_str()),
        (Some("Completed"), Some("FullyGraded"))
    );
    assert!(body["timestamp"].as_str().unwrap().ends_with('Z'), "{body}");
    // One token, cached for the retries; its request carries a client assertion the tool signed.
    let tokens = platform.seen("/token");
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    let request: HashMap<String, String> =
        url::form_urlencoded::parse(&tokens[0].body).into_owned().collect();
    assert_eq!(request["grant_type"], "client_credentials");
    assert_eq!(request["scope"], SCORE_SCOPE);
    assert_eq!(request["client_assertion_type"], "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    let assertion =
        verify_tool_jwt(&server, &request["client_assertion"], &format!("{}/token", platform.issuer()));
    assert_eq!((assertion["iss"].as_str(), assertion["sub"].as_str()), (Some(CLIENT_ID), Some(CLIENT_ID)));
    // The same deep-linking response and client assertion pass the platform library's own checks.
    let checked = platform_library_checks(&server, &platform, &deep_link_jwt, &request);
    assert_eq!(checked["deep_link_items"][0]["custom"]["exercise"], CONSUMER, "{checked}");
    assert_eq!(checked["token_scope"], SCORE_SCOPE, "{checked}");
    let attempts: i64 = poll("the delivery to be recorded", Duration::from_secs(30), || {
        server
            .db()
            .query_row(
                "SELECT attempts FROM outbox WHERE event_id = 'lti_sub_1' AND state = 'delivered'",
                [],
                |r| r.get(0),
            )
            .ok()
    });
    assert_eq!(attempts, 3);
    // The submission belongs to the platform's API client, whose token reads it.
    let token = registration["token"].as_str().unwrap();
    let (status, view) = server.call_json("GET", "/api/v1/submissions/sub_1", token, &Value::Null);
    assert_eq!((status, view["learner"].as_str()), (200, Some("lti:1:u1")), "{view}");
}

#[test]
fn launch_failures_are_clear_pages_that_change_nothing() {
    let platform = Platform::start(0);
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--allow-private-callbacks"]);
    platform.register(&server);
    let (good, other) = keys();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();

    type Mutate = Box<dyn Fn(&mut Value, &str) -> String>;
    let sign = |claims: &Value| good.sign(claims).unwrap();
    let cases: Vec<(&str, u16, &str, Mutate)> = vec![
        (
            "wrong issuer",
            401,
            "(iss)",
            Box::new(move |c, _| {
                c["iss"] = json!("http://evil.example");
                sign(c)
            }),
        ),
        (
            "wrong audience",
            401,
            "(aud)",
            Box::new(move |c, _| {
                c["aud"] = json!("someone-else");
                sign(c)
            }),
        ),
        (
            "several audiences, no azp",
            401,
            "(azp)",
            Box::new(move |c, _| {
                c["aud"] = json!([CLIENT_ID, "x"]);
                sign(c)
            }),
        ),
        (
            "expired",
            401,
            "abgelaufen",
            Box::new(move |c, _| {
                c["exp"] = json!(now - 3600);
                c["iat"] = json!(now - 4000);
                sign(c)
            }),
        ),
        (
            "unknown kid",
            401,
            "unbekannten Schlüssel",
            Box::new(move |c, _| good.sign_with_kid(c, "rotated-away").unwrap()),
        ),
        ("bad signature", 401, "Signatur", Box::new(move |c, _| other.sign_with_kid(c, &good.kid).unwrap())),
        (
            "unknown deployment",
            401,
            "Installation",
            Box::new(move |c, _| {
                c[format!("{CLAIM}deployment_id")] = json!("dep-2");
                sign(c)
            }),
        ),
        (
            "another login's nonce",
            401,
            "(nonce)",
            Box::new(move |c, _| {
                c["nonce"] = json!("not-this-one");
                sign(c)
            }),
        ),
        (
            "wrong LTI version",
            401,
            "1.3.0",
            Box::new(move |c, _| {
                c[format!("{CLAIM}version")] = json!("1.1");
                sign(c)
            }),
        ),
        ("not a JWT", 401, "kein RS256", Box::new(|_, _| "abc.def".to_string())),
        (
            "not valid before an hour from now",
            401,
            "s (nbf): ihre Uhr",
            Box::new(move |c, _| {
                c["nbf"] = json!(now + 3600);
                sign(c)
            }),
        ),
        (
            "issued an hour from now",
            401,
            "s (iat): ihre Uhr",
            Box::new(move |c, _| {
                c["iat"] = json!(now + 3600);
                sign(c)
            }),
        ),
        (
            "resource link without sub (the learner)",
            400,
            "fehlt eine nötige Angabe: sub",
            Box::new(move |c, _| {
                c.as_object_mut().unwrap().remove("sub");
                c[format!("{CLAIM}launch_presentation")] = json!({"locale": "de"});
                sign(c)
            }),
        ),
        (
            "custom claim of the wrong type",
            401,
            "Angabe https://purl.imsglobal.org/spec/lti/claim/custom im Token hat den falschen Typ",
            Box::new(move |c, _| {
                c[format!("{CLAIM}custom")] = json!("exercise=03");
                sign(c)
            }),
        ),
    ];
    for (name, status, text, mutate) in &cases {
        let (state, nonce) = login(&server, &platform);
        let mut claims = platform.resource_link_claims(&nonce);
        let token = mutate(&mut claims, &nonce);
        let r = launch(&server, &token, &state);
        assert_eq!(r.status, *status, "{name}: {}", r.text());
        assert!(r.text().contains(text), "{name}: {text:?} in {}", r.text());
        assert!(r.text().contains("LTI-Start abgelehnt"), "{name}");
        assert_eq!((count(&server, "lti_contexts"), count(&server, "submissions")), (0, 0), "{name}");
        // The login was used up by the failed launch.
        let r = launch(&server, &sign(&platform.resource_link_claims(&nonce)), &state);
        assert!(r.text().contains("schon benutzt"), "{name}: the state is spent: {}", r.text());
    }
    // A replayed launch (the same state and token again) is refused and changes nothing.
    let (state, nonce) = login(&server, &platform);
    let token = sign(&platform.resource_link_claims(&nonce));
    assert_eq!(launch(&server, &token, &state).status, 303);
    assert_eq!(count(&server, "lti_contexts"), 1);
    let r = launch(&server, &token, &state);
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("schon benutzt"), "{}", r.text());
    // The token again with a fresh login: its nonce belongs to the old one.
    let (fresh, _) = login(&server, &platform);
    let r = launch(&server, &token, &fresh);
    assert!(r.text().contains("(nonce)"), "{}", r.text());
    assert_eq!(count(&server, "lti_contexts"), 1, "nothing changed");
    // Malformed launches and logins (400), and well-formed ones whose meaning is refused (422).
    for (path, body, status, text) in [
        ("/lti/launch", form(&[("state", "x")]), 400, "id_token"),
        ("/lti/launch", form(&[("id_token", "a"), ("id_token", "b"), ("state", "x")]), 400, "twice"),
        (
            "/lti/launch",
            form(&[("error", "login_required"), ("error_description", "no session")]),
            422,
            "login_required",
        ),
        (
            "/lti/login",
            form(&[("iss", "http://unknown.example"), ("login_hint", "u"), ("target_link_uri", "x")]),
            422,
            "nicht (mehr) registriert",
        ),
        ("/lti/login", form(&[("iss", &platform.issuer())]), 400, "login_hint"),
        (
            "/lti/login",
            form(&[("iss", &platform.issuer()), ("login_hint", ""), ("target_link_uri", "x")]),
            400,
            "login_hint",
        ),
    ] {
        let r = post_urlencoded(&server, path, &body);
        assert_eq!(r.status, status, "{path}: {}", r.text());
        assert!(r.text().contains(text), "{path}: {text:?} in {}", r.text());
    }
    let huge = form(&[("id_token", &"a".repeat(pruefstein::limits::LTI_FORM_BYTES_MAX)), ("state", "x")]);
    let r = post_urlencoded(&server, "/lti/launch", &huge);
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("larger than") || r.text().contains("longer than"), "{}", r.text());
    let reasons = [
        "issuer",
        "audience",
        "expired",
        "unknown-kid",
        "signature",
        "deployment",
        "nonce",
        "state",
        "not-yet-valid",
        "claim-type",
    ];
    let names = |log: &str, reason: &str| log.contains(&format!("\"reason\":\"{reason}\""));
    let log = server.log_until("every refusal to be logged", |log| reasons.iter().all(|r| names(log, r)));
    for reason in reasons {
        assert!(names(&log, reason), "a log line names {reason}: {log}");
    }
    assert!(!log.contains("\"status\":500"), "never a 500: {log}");
}

#[test]
fn platform_registrations_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(["platform", "add"])
            .args(args)
            .arg("--data-dir")
            .arg(dir.path())
            .output()
            .unwrap()
    };
    let good = [
        "--issuer",
        "https://lms.example",
        "--client-id",
        "c1",
        "--auth-url",
        "https://lms.example/auth",
        "--token-url",
        "https://lms.example/token",
        "--jwks-url",
        "https://lms.example/jwks",
    ];
    let out = run(&[&["moodle"], &good[..]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("/lti/login"));
    for (args, error) in [
        ([&["moodle"], &good[..]].concat(), "already"),
        ([&["other"], &good[..]].concat(), "already"),
        ([&["bad name"], &good[..]].concat(), "platform name"),
        (
            [&["x"], &good[..8], &["--jwks-url", "ftp://lms.example/jwks"]].concat(),
            "not an http or https URL",
        ),
    ] {
        let out = run(&args);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(error),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The platform rotates its key: the cached JWKS lacks the new `kid`, so it is fetched again once
/// the refetch interval is over, and the launch succeeds. A score the line item refuses for good
/// is dead, listed for the platform's API client, and redelivered by hand with the same score and
/// timestamp.
#[test]
fn a_rotated_platform_key_is_fetched_and_a_dead_score_is_redelivered() {
    let platform = Platform::start(0);
    *platform.scores.lock().unwrap() = Box::new(|_| 400);
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        dir.path(),
        &["--allow-private-callbacks", "--webhook-backoff-ms", "100", "--lti-jwks-interval-ms", "300"],
    );
    let registration = platform.register(&server);
    let token = registration["token"].as_str().unwrap();
    let (old, new) = keys();

    let (state, nonce) = login(&server, &platform);
    assert_eq!(
        launch(&server, &old.sign(&platform.resource_link_claims(&nonce)).unwrap(), &state).status,
        303
    );
    assert_eq!(platform.seen("/jwks").len(), 1, "fetched once");
    // The old key again: from the cache.
    let (state, nonce) = login(&server, &platform);
    let r = launch(&server, &old.sign(&platform.resource_link_claims(&nonce)).unwrap(), &state);
    assert_eq!(r.status, 303);
    assert_eq!(platform.seen("/jwks").len(), 1, "cached");
    // Rotated: only the new key is published now. Within the interval since the last fetch the
    // unknown key is refused without a fetch; after it, the set is fetched again, once.
    *platform.jwks.lock().unwrap() = json!({"keys": [new.jwk]});
    let r = poll("the rotated key to be fetched", Duration::from_secs(60), || {
        let (state, nonce) = login(&server, &platform);
        let r = launch(&server, &new.sign(&platform.resource_link_claims(&nonce)).unwrap(), &state);
        if r.status == 303 {
            return Some(r);
        }
        assert_eq!(r.status, 401, "{}", r.text());
        assert!(r.text().contains("unbekannten Schlüssel"), "{}", r.text());
        assert_eq!(platform.seen("/jwks").len(), 1, "refused without a fetch");
        None
    });
    assert_eq!(platform.seen("/jwks").len(), 2, "fetched again for the unknown kid, once");
    let page = path_of(r.header("location").unwrap());

    let body = multipart(&[
        ("exercise", None, CONSUMER.as_bytes()),
        ("learner", None, b"lti:1:u1"),
        ("file", Some("no-dedup.wat"), exercise_file("mutants/no-dedup.wat").as_bytes()),
    ]);
    let r = post_form(&server, &page, &body);
    assert_eq!(r.status, 303, "{}", r.text());
    let dead = poll("the score to be dead", Duration::from_secs(60), || {
        let (status, list) = server.call_json("GET", "/api/v1/webhooks/dead", token, &Value::Null);
        assert_eq!(status, 200, "{list}");
        let events = list["events"].as_array().unwrap().clone();
        (!events.is_empty()).then_some(events)
    });
    assert_eq!(dead[0]["event_id"], "lti_sub_1");
    assert!(dead[0]["last_error"].as_str().unwrap().contains("400"), "{dead:?}");
    let first = platform.seen("/lineitems/1/lineitem/scores");
    assert_eq!(first.len(), 1, "a 400 is not retried");
    let score: Value = serde_json::from_slice(&first[0].body).unwrap();
    assert!(score["scoreGiven"].as_u64().unwrap() < score["scoreMaximum"].as_u64().unwrap(), "{score}");

    *platform.scores.lock().unwrap() = Box::new(|_| 200);
    let (status, body) =
        server.call_json("POST", "/api/v1/webhooks/dead/lti_sub_1/redeliver", token, &Value::Null);
    assert!(status < 300, "{status}: {body}");
    let again = poll("the redelivered score", Duration::from_secs(60), || {
        let seen = platform.seen("/lineitems/1/lineitem/scores");
        (seen.len() >= 2).then_some(seen)
    });
    assert_eq!(again[1].body, first[0].body, "the same score with the same timestamp");
    // Another client cannot see or redeliver the platform's events.
    let (other, _) = server.client("lms");
    let (_, list) = server.call_json("GET", "/api/v1/webhooks/dead", &other, &Value::Null);
    assert_eq!(list["events"], json!([]));
}

/// A login and a launch signed with `key` under `kid`: the launch's answer.
fn launch_with(server: &Server, platform: &Platform, key: &ToolKey, kid: &str) -> Response {
    let (state, nonce) = login(server, platform);
    launch(server, &key.sign_with_kid(&platform.resource_link_claims(&nonce), kid).unwrap(), &state)
}

/// Launches naming keys the platform does not have, all at once and one after another, make the
/// tool fetch the platform's JWKS once in the interval (60 s by default), not once per launch.
#[test]
fn unknown_kids_fetch_the_platforms_keys_at_most_once_per_interval() {
    let platform = Platform::start(0);
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--allow-private-callbacks"]);
    platform.register(&server);
    let (good, _) = keys();
    let refused = |r: &Response| r.status == 401 && r.text().contains("unbekannten Schlüssel");

    // A burst before anything is cached: one fetch, the others wait for it and use its answer.
    let burst: Vec<Response> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..12)
            .map(|i| {
                let (server, platform) = (&server, &platform);
                scope.spawn(move || launch_with(server, platform, good, &format!("unknown-{i}")))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in &burst {
        assert!(refused(r), "{}: {}", r.status, r.text());
    }
    assert_eq!(platform.seen("/jwks").len(), 1, "one fetch for the whole burst");
    // The platform's real key is in that set: no fetch.
    assert_eq!(launch_with(&server, &platform, good, &good.kid).status, 303);
    // More unknown keys within the interval: refused, no fetch.
    for i in 0..20 {
        let r = launch_with(&server, &platform, good, &format!("later-{i}"));
        assert!(refused(&r), "{}: {}", r.status, r.text());
    }
    assert_eq!(platform.seen("/jwks").len(), 1, "still one fetch");
    server.log_until("the unknown kid to be logged", |log| log.contains("\"reason\":\"unknown-kid\""));
}

/// How long a set is kept follows the platform's `Cache-Control`, never shorter than the
/// interval: a platform that says `no-store` is asked again once per interval, one that says
/// `max-age=3600` not in that time.
#[test]
fn a_platforms_cache_control_decides_how_long_its_keys_are_kept() {
    const INTERVAL_MS: u64 = 300;
    let (no_store, max_age) = (Platform::start(0), Platform::start(0));
    *no_store.cache_control.lock().unwrap() = Some("no-store".into());
    *max_age.cache_control.lock().unwrap() = Some("public, max-age=3600".into());
    let dir = tempfile::tempdir().unwrap();
    let interval = INTERVAL_MS.to_string();
    let server =
        Server::start(dir.path(), &["--allow-private-callbacks", "--lti-jwks-interval-ms", &interval]);
    no_store.register_as(&server, "no-store");
    max_age.register_as(&server, "max-age");
    let good = &keys().0;

    let started = std::time::Instant::now();
    let launches = std::cell::Cell::new(0);
    poll("the no-store platform's keys to be fetched three times", Duration::from_secs(60), || {
        for platform in [&no_store, &max_age] {
            assert_eq!(launch_with(&server, platform, good, &good.kid).status, 303);
        }
        launches.set(launches.get() + 1);
        (no_store.seen("/jwks").len() >= 3).then_some(())
    });
    let elapsed = started.elapsed().as_millis() as u64;
    let fetched = no_store.seen("/jwks").len() as u64;
    assert!(
        fetched <= 1 + elapsed / INTERVAL_MS,
        "{fetched} fetches in {elapsed} ms: more than one per {INTERVAL_MS} ms"
    );
    assert!(launches.get() > fetched, "launches between the fetches were served from the cache");
    assert_eq!(max_age.seen("/jwks").len(), 1, "max-age=3600 is kept beyond the interval");
}

/// The value of the counter `pruefstein_lti_logins_total{outcome="..."}` on `/metrics`.
fn logins_counted(server: &Server, outcome: &str) -> u64 {
    let metrics = request(server.port, "GET", "/metrics", &[], b"").unwrap().text();
    let series = format!("pruefstein_lti_logins_total{{outcome=\"{outcome}\"}} ");
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(&series))
        .unwrap_or_else(|| panic!("no {series} in {metrics}"))
        .trim()
        .parse()
        .unwrap()
}

/// The query of a login initiation of `platform`, as it starts one.
fn login_query(platform: &Platform) -> String {
    let query = form(&[
        ("iss", &platform.issuer()),
        ("login_hint", "u1"),
        ("target_link_uri", "http://tool.example/lti/launch"),
        ("client_id", CLIENT_ID),
    ]);
    format!("/lti/login?{}", String::from_utf8(query).unwrap())
}

/// A full launch of `platform` (login, then the id_token): it must open the learner's page.
fn launches(server: &Server, platform: &Platform) {
    let (state, nonce) = login(server, platform);
    let r = launch(server, &keys().0.sign(&platform.resource_link_claims(&nonce)).unwrap(), &state);
    assert_eq!(r.status, 303, "{}", r.text());
}

/// The logins of the platform registered as `name` that wait in the store.
fn platform_states(server: &Server, name: &str) -> i64 {
    server
        .db()
        .query_row(
            "SELECT count(*) FROM lti_states s JOIN lti_platforms p ON p.id = s.platform_id WHERE p.name = ?1",
            [name],
            |r| r.get(0),
        )
        .unwrap()
}

/// One address starts logins without end (the flood): with the default bounds it gets
/// `LTI_LOGINS_PER_ADDRESS_MAX` pending logins and then 429s that write nothing, are logged once
/// and counted; a student at another address and another platform launch as usual.
#[test]
fn a_login_flood_from_one_address_is_refused_cheaply_and_locks_no_one_else_out() {
    use pruefstein::limits::LTI_LOGINS_PER_ADDRESS_MAX;
    const BEYOND: usize = 300;
    let (flooded, other) = (Platform::start(0), Platform::start(0));
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--allow-private-callbacks"]);
    flooded.register_as(&server, "flooded");
    other.register_as(&server, "other");
    let flooder = std::net::Ipv4Addr::new(127, 0, 0, 2);
    let path = login_query(&flooded);
    let answers: Vec<Response> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let (server, path) = (&server, &path);
                scope.spawn(move || {
                    (0..(LTI_LOGINS_PER_ADDRESS_MAX + BEYOND) / 4)
                        .map(|_| {
                            crate::support::http::request_from(flooder, server.port, "GET", path, &[])
                                .unwrap()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let started = answers.iter().filter(|r| r.status == 302).count();
    let refused: Vec<&Response> = answers.iter().filter(|r| r.status == 429).collect();
    assert_eq!((started, refused.len()), (LTI_LOGINS_PER_ADDRESS_MAX, BEYOND), "the bound, exactly");
    for r in &refused {
        let retry: u64 = r.header("retry-after").expect("Retry-After").parse().unwrap();
        assert!((1..=600).contains(&retry), "{retry}");
        assert!(
            r.text().contains("127.0.0.2") && r.text().contains("lti_logins_per_address"),
            "{}",
            r.text()
        );
    }
    assert_eq!(
        platform_states(&server, "flooded"),
        LTI_LOGINS_PER_ADDRESS_MAX as i64,
        "refusals store nothing"
    );
    assert_eq!(logins_counted(&server, "refused_address"), BEYOND as u64);
    let lines = server
        .log_until("the flood to be logged", |log| log.contains("\"reason\":\"too-many-logins\""))
        .matches("\"reason\":\"too-many-logins\"")
        .count();
    assert_eq!(lines, 1, "one log line for the whole flood, with its count");

    // Everyone else: the flooded platform's students at their own address, and another platform.
    launches(&server, &flooded);
    launches(&server, &other);
    // The flooding address itself is still refused.
    let r = crate::support::http::request_from(flooder, server.port, "GET", &path, &[]).unwrap();
    assert_eq!(r.status, 429, "{}", r.text());
}

/// A flood from twelve addresses at once, against bounds small enough to be reached: 48 pending
/// logins wanted, 40 allowed for the platform, 4 per address, so at least four addresses reach
/// their own bound before the platform is full (twelve times three is 36), and then the others are
/// refused at their share of the platform. While the flood runs, a student of the flooded
/// platform and one of another platform log in and launch. The counters show both bounds were
/// reached, and the flood went on during the launches.
#[test]
fn a_distributed_login_flood_reaches_its_bounds_while_real_students_launch() {
    const PER_PLATFORM: usize = 40;
    const PER_ADDRESS: usize = 4;
    const ADDRESSES: u8 = 12;
    let (flooded, other) = (Platform::start(0), Platform::start(0));
    let dir = tempfile::tempdir().unwrap();
    let (per_platform, per_address) = (PER_PLATFORM.to_string(), PER_ADDRESS.to_string());
    let server = Server::start(
        dir.path(),
        &[
            "--allow-private-callbacks",
            "--lti-logins-per-platform",
            &per_platform,
            "--lti-logins-per-address",
            &per_address,
        ],
    );
    flooded.register_as(&server, "flooded");
    other.register_as(&server, "other");
    let path = login_query(&flooded);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (started, refused) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let refusals =
        || logins_counted(&server, "refused_address") + logins_counted(&server, "refused_platform");
    std::thread::scope(|scope| {
        for host in 2..2 + ADDRESSES {
            let (server, path, stop, started, refused) = (&server, &path, &stop, &started, &refused);
            scope.spawn(move || {
                let source = std::net::Ipv4Addr::new(127, 0, 0, host);
                while !stop.load(Ordering::Relaxed) {
                    let r =
                        crate::support::http::request_from(source, server.port, "GET", path, &[]).unwrap();
                    match r.status {
                        302 => started.fetch_add(1, Ordering::Relaxed),
                        429 => refused.fetch_add(1, Ordering::Relaxed),
                        other => panic!("{other}: {}", r.text()),
                    };
                }
            });
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            poll("both bounds to be reached", Duration::from_secs(60), || {
                (logins_counted(&server, "refused_address") > 0
                    && logins_counted(&server, "refused_platform") > 0)
                    .then_some(())
            });
            let before = refusals();
            launches(&server, &flooded);
            launches(&server, &other);
            let during = refusals();
            assert!(during > before, "the flood ran during the launches: {before} → {during} refusals");
        }));
        stop.store(true, Ordering::Relaxed);
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
    });
    let (started, refused) = (started.into_inner(), refused.into_inner());
    assert_eq!(refusals(), refused as u64, "every refusal counted");
    // Started: the flood's and the two students'. At its bound the platform refused rather than
    // rotated: an address two below the heaviest may take one of the heaviest's (each such swap
    // lowers the sum of squares of the addresses' counts, from at most 10 * 4² to at least
    // 4 * 4² + 8 * 3², so at most 12 swaps), and the student took one.
    assert_eq!(logins_counted(&server, "started"), started as u64 + 2);
    assert!(started <= PER_PLATFORM + 12, "{started} logins of the flood started: it rotated");
    let pending = platform_states(&server, "flooded");
    assert!(pending <= PER_PLATFORM as i64, "{pending} pending");
    // Every login of the flooded platform is accounted for: pending, taken (the student's) or
    // given up; the other platform's student took its own.
    let evicted = logins_counted(&server, "evicted");
    assert_eq!(evicted as i64, started as i64 + 1 - 1 - pending, "started {started}, pending {pending}");
    assert!(evicted >= 1, "the student's login gave up one of the flood's");
    assert_eq!(platform_states(&server, "other"), 0);
}

/// A platform on a private address (here loopback) while the service does not allow such
/// targets: the registration notes it, and a launch is refused with a page and a log line that
/// name the flag that allows it. The platform is never contacted.
#[test]
fn a_platform_on_a_private_address_is_refused_naming_allow_private_callbacks() {
    let platform = Platform::start(0);
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let out = Command::new(BIN)
        .args(["platform", "add", "campus", "--json", "--issuer"])
        .arg(platform.issuer())
        .args(["--client-id", CLIENT_ID, "--auth-url"])
        .arg(format!("{}/auth", platform.issuer()))
        .arg("--token-url")
        .arg(format!("{}/token", platform.issuer()))
        .arg("--jwks-url")
        .arg(format!("{}/jwks", platform.issuer()))
        .arg("--data-dir")
        .arg(&server.data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let note = String::from_utf8_lossy(&out.stderr);
    assert!(note.contains("--jwks-url") && note.contains("--allow-private-callbacks"), "{note}");

    let r = launch_with(&server, &platform, &keys().0, &keys().0.kid);
    assert_eq!(r.status, 401, "{}", r.text());
    let page = r.text();
    assert!(
        page.contains("Schlüssel der Lernplattform waren nicht abrufbar")
            && page.contains("--allow-private-callbacks"),
        "{page}"
    );
    let log = server.log_until("the refusal to be logged", |log| log.contains("\"reason\":\"jwks\""));
    let line = log.lines().find(|l| l.contains("\"reason\":\"jwks\"")).unwrap_or_else(|| panic!("{log}"));
    assert!(line.contains("--allow-private-callbacks"), "{line}");
    assert!(platform.seen("/jwks").is_empty(), "never contacted");
}

/// Registers a platform at a free port for the library's launches and starts the library in
/// `mode` (`launch` or `deep-link`), its output piped.
fn platform_library(server: &Server, mode: &str) -> std::process::Child {
    let port = crate::support::http::free_port();
    let issuer = format!("http://127.0.0.1:{port}");
    let out = Command::new(BIN)
        .args(["platform", "add", "library", "--issuer", &issuer, "--client-id", CLIENT_ID])
        .args(["--deployment-id", DEPLOYMENT, "--auth-url", &format!("{issuer}/auth")])
        .args(["--token-url", &format!("{issuer}/token"), "--jwks-url", &format!("{issuer}/jwks")])
        .arg("--data-dir")
        .arg(&server.data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Command::new("python3")
        .arg(repo().join("tests/integration/service/lti_platform_library.py"))
        .arg(mode)
        .arg(format!("http://127.0.0.1:{}", server.port))
        .args([&port.to_string(), CLIENT_ID, DEPLOYMENT, CONSUMER])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// The next line the library printed, as JSON; its error output when it printed none.
fn library_line(child: &mut std::process::Child, lines: &mut impl Iterator<Item = String>) -> Value {
    match lines.next() {
        Some(line) => serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}")),
        None => {
            let mut stderr = String::new();
            child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
            panic!("the platform library stopped:\n{stderr}");
        }
    }
}

/// The platform library `lti1p3platform` is the platform: its login initiation reaches the tool,
/// the tool's redirect passes the library's check of an authorisation request, and the
/// resource-link launch it builds and signs (its own key, published by its JWKS) opens the
/// learner's page. The learner's graded submission is passed back through the library's token
/// endpoint (which checks the tool's client assertion) to a score endpoint that checks the bearer
/// token the library issued and the score's progress values.
#[test]
fn the_platform_library_logs_in_launches_and_receives_the_score() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--allow-private-callbacks"]);
    let mut library = platform_library(&server, "launch");
    let stdout = std::io::BufReader::new(library.stdout.take().unwrap());
    let mut lines = std::io::BufRead::lines(stdout).map_while(Result::ok);
    let seen = library_line(&mut library, &mut lines);
    assert_eq!(seen["login_status"], 302, "{seen}");
    assert_eq!(seen["preflight"]["login_hint"], "learner-7", "{seen}");
    assert_eq!(seen["preflight"]["lti_message_hint"], "rl-1", "{seen}");
    assert_eq!(seen["launch_status"], 303, "{seen}");
    let page = path_of(seen["location"].as_str().unwrap());
    assert!(page.starts_with(&format!("/learn/{CONSUMER}?")), "{seen}");
    let r = request(server.port, "GET", &page, &[], b"").unwrap();
    assert_eq!(r.status, 200, "{}", r.text());

    let body = multipart(&[
        ("exercise", None, CONSUMER.as_bytes()),
        ("learner", None, b"lti:1:learner-7"),
        ("file", Some("reference.wat"), exercise_file("solutions/reference.wat").as_bytes()),
    ]);
    let r = post_form(&server, &page, &body);
    assert_eq!(r.status, 303, "{}", r.text());
    let arrived = library_line(&mut library, &mut lines);
    assert!(library.wait().unwrap().success());
    let score = &arrived["scores"][0];
    assert_eq!(score["authorized"], true, "{arrived}");
    assert_eq!(score["content_type"], "application/vnd.ims.lis.v1.score+json", "{arrived}");
    assert_eq!(score["score"]["userId"], "learner-7", "{arrived}");
    assert_eq!(score["score"]["scoreGiven"], score["score"]["scoreMaximum"], "{arrived}");
    assert_eq!(score["score"]["activityProgress"], "Completed", "{arrived}");
    assert_eq!(score["score"]["gradingProgress"], "FullyGraded", "{arrived}");
}

/// The library's deep-linking request, whose `data` is a JSON object (as the library sends it):
/// the teacher picks an exercise, and the tool's response passes the library's check, with the
/// exercise as a resource link and the `data` returned unchanged.
#[test]
fn the_platform_library_deep_links_with_data_as_an_object() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--allow-private-callbacks"]);
    let mut library = platform_library(&server, "deep-link");
    let stdout = std::io::BufReader::new(library.stdout.take().unwrap());
    let mut lines = std::io::BufRead::lines(stdout).map_while(Result::ok);
    let seen = library_line(&mut library, &mut lines);
    assert!(library.wait().unwrap().success());
    assert!(seen["return_url"].as_str().unwrap().ends_with("/return"), "{seen}");
    assert_eq!(seen["items"][0]["type"], "ltiResourceLink", "{seen}");
    assert_eq!(seen["items"][0]["custom"]["exercise"], CONSUMER, "{seen}");
    assert_eq!(seen["data"], seen["sent_data"], "{seen}");
    assert!(seen["data"].is_object(), "{seen}");
}

/// A deep-linking response the tool signs now: the teacher picks exercise 03 after a
/// deep-linking launch of `platform`.
fn deep_link_response(server: &Server, platform: &Platform) -> String {
    let (state, nonce) = login(server, platform);
    let mut claims = platform.claims(&nonce, "LtiDeepLinkingRequest");
    claims["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"] = json!({
        "deep_link_return_url": format!("{}/return", platform.issuer()), "accept_types": ["ltiResourceLink"],
    });
    let r = launch(server, &keys().0.sign(&claims).unwrap(), &state);
    assert_eq!(r.status, 200, "{}", r.text());
    let (_, fields) = form_fields(&r.text(), &format!("value=\"{CONSUMER}\""));
    let fields: Vec<(&str, &str)> = fields.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let r = post_urlencoded(server, "/lti/deep-link", &form(&fields));
    assert_eq!(r.status, 200, "{}", r.text());
    form_fields(&r.text(), "name=\"JWT\"").1[0].1.clone()
}

/// Each JWT checked by the platform library against the tool's JWKS as published now: its kid and
/// whether the library took it.
fn library_verdicts(server: &Server, platform: &Platform, jwts: &[&String]) -> Vec<(String, bool)> {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), serde_json::to_string(jwts).unwrap()).unwrap();
    let out = Command::new("python3")
        .arg(repo().join("tests/integration/service/lti_platform_library.py"))
        .arg("verify-deep-link")
        .arg(format!("http://127.0.0.1:{}/lti/jwks", server.port))
        .args([&platform.issuer(), CLIENT_ID, DEPLOYMENT])
        .arg(file.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let results: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    jwts.iter()
        .zip(results)
        .map(|(jwt, result)| {
            let kid = jsonwebtoken::decode_header(jwt).unwrap().kid.unwrap();
            (kid, result["items"][0]["custom"]["exercise"] == CONSUMER)
        })
        .collect()
}

/// The kids the tool publishes.
fn published_kids(server: &Server) -> Vec<String> {
    let set: Value =
        serde_json::from_slice(&request(server.port, "GET", "/lti/jwks", &[], b"").unwrap().body).unwrap();
    set["keys"].as_array().unwrap().iter().map(|k| k["kid"].as_str().unwrap().to_string()).collect()
}

/// `pruefstein platform tool-key …` on the server's data directory: its output.
fn tool_key_command(server: &Server, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(["platform", "tool-key"])
        .args(args)
        .arg("--data-dir")
        .arg(&server.data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The tool key's rollover, as platforms see it: the new key is published beside the old one
/// while the old one still signs; after the switch the new one signs and the old one stays
/// published; after the withdrawal only the new one is. At every step each JWT the tool signed
/// verifies with the platform library as long as its key is published, and not after.
#[test]
fn the_tool_key_rolls_over_and_the_platform_library_verifies_every_signature_while_published() {
    let platform = Platform::start(0);
    let dir = tempfile::tempdir().unwrap();
    let server =
        Server::start(dir.path(), &["--allow-private-callbacks", "--lti-tool-keys-refresh-ms", "100"]);
    platform.register(&server);
    let old_jwt = deep_link_response(&server, &platform);
    let [old] = published_kids(&server).try_into().unwrap();

    tool_key_command(&server, &["--rotate", "--switch-after", "24h", "--withdraw-after", "24h"]);
    let both = poll("the new key to be published", Duration::from_secs(30), || {
        let kids = published_kids(&server);
        (kids.len() == 2).then_some(kids)
    });
    assert_eq!(both[0], old, "the old key still signs, first in the set");
    let new = both[1].clone();
    let still_old = deep_link_response(&server, &platform);
    assert_eq!(
        library_verdicts(&server, &platform, &[&old_jwt, &still_old]),
        [(old.clone(), true), (old.clone(), true)]
    );

    let shown = tool_key_command(&server, &["--switch"]);
    assert!(
        shown.contains(&format!("signing:  {new}")) && shown.contains(&format!("previous: {old}")),
        "{shown}"
    );
    poll("the new key to sign", Duration::from_secs(30), || {
        (published_kids(&server) == [new.clone(), old.clone()]).then_some(())
    });
    let new_jwt = deep_link_response(&server, &platform);
    assert_eq!(
        library_verdicts(&server, &platform, &[&old_jwt, &new_jwt]),
        [(old.clone(), true), (new.clone(), true)],
        "both keys published: JWTs of either verify"
    );

    tool_key_command(&server, &["--withdraw"]);
    poll("the old key to be withdrawn", Duration::from_secs(30), || {
        (published_kids(&server) == [new.clone()]).then_some(())
    });
    assert_eq!(
        library_verdicts(&server, &platform, &[&old_jwt, &new_jwt]),
        [(old.clone(), false), (new.clone(), true)],
        "the withdrawn key's JWTs no longer verify"
    );
}

/// `platform update` changes a registration (here its key set's URL, fetched afresh) and
/// `platform remove` ends it: its launches are refused, its name can be registered again.
#[test]
fn a_platform_is_updated_and_removed_from_the_command_line() {
    let platform = Platform::start(0);
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--allow-private-callbacks"]);
    platform.register(&server);
    let platform_command = |args: &[&str]| {
        Command::new(BIN).arg("platform").args(args).arg("--data-dir").arg(&server.data).output().unwrap()
    };
    let broken = platform_command(&["update", "fake", "--jwks-url", "not a url"]);
    assert!(!broken.status.success() && String::from_utf8_lossy(&broken.stderr).contains("--jwks-url"));
    let unknown = platform_command(&["update", "nobody", "--issuer", "https://x.example"]);
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no platform named \"nobody\""));
    // The key set moves to another address (a second fake platform publishing the same keys).
    let elsewhere = Platform::start(0);
    let moved = format!("{}/jwks", elsewhere.issuer());
    assert!(platform_command(&["update", "fake", "--jwks-url", &moved]).status.success());
    deep_link_response(&server, &platform);
    assert_eq!(elsewhere.seen("/jwks").len(), 1, "fetched from the new URL");
    assert!(platform.seen("/jwks").is_empty(), "never from the old one");

    assert!(platform_command(&["remove", "fake"]).status.success());
    let r = request(server.port, "GET", &format!("/lti/login?{}", login_query(&platform)), &[], b"").unwrap();
    assert!(r.status >= 400 && r.status < 500, "a removed platform's login is refused: {}", r.status);
    let listed = String::from_utf8(platform_command(&["list"]).stdout).unwrap();
    assert!(!listed.contains("fake"), "{listed}");
    platform.register(&server);
    deep_link_response(&server, &platform);
}

/// One launch of a resource link by subject `sub` in course `course`, with `roles`: the response.
fn launch_in_course(
    server: &Server,
    platform: &Platform,
    sub: &str,
    course: Option<&str>,
    roles: &[&str],
) -> Response {
    let (state, nonce) = login(server, platform);
    let mut claims = platform.resource_link_claims(&nonce);
    claims["sub"] = json!(sub);
    claims[format!("{CLAIM}roles")] = json!(roles);
    if let Some(course) = course {
        claims[format!("{CLAIM}context")] = json!({"id": course, "title": "Verteilte Systeme"});
    }
    launch(server, &keys().0.sign(&claims).unwrap(), &state)
}

const LEARNER: &str = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner";
const INSTRUCTOR: &str = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor";

/// An instructor's launch opens the dashboard of the launch's course, never another course's: a
/// learner's launch still opens the student's page; a changed course in the link, a learner of
/// another course, or an API client's submission naming a course's context in its metadata stay
/// out of it; a launch without a course is refused; the other instructor roles open it too.
#[test]
fn an_instructor_launch_opens_the_dashboard_of_its_own_course_only() {
    let platform = Platform::start(0);
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--allow-private-callbacks"]);
    platform.register(&server);

    // Two learners, one in each course, each submits from their page.
    let mut pages = Vec::new();
    for (sub, course, file) in
        [("u1", "course-a", "solutions/reference.wat"), ("u2", "course-b", "mutants/no-dedup.wat")]
    {
        let r = launch_in_course(&server, &platform, sub, Some(course), &[LEARNER]);
        assert_eq!(r.status, 303, "{}", r.text());
        let page = path_of(r.header("location").unwrap());
        assert!(page.starts_with("/learn/"), "a learner's launch opens the student's page: {page}");
        let learner = format!("lti:1:{sub}");
        let body = multipart(&[
            ("exercise", None, CONSUMER.as_bytes()),
            ("learner", None, learner.as_bytes()),
            ("file", Some("consumer.wat"), exercise_file(file).as_bytes()),
        ]);
        let r = post_form(&server, &page, &body);
        assert_eq!(r.status, 303, "{}", r.text());
        graded_page(&server, r.header("location").unwrap());
        pages.push(page);
    }
    // An ordinary API client names course A's launch context in its submission's metadata.
    let (token, _) = server.client("lms");
    let context: i64 =
        server.db().query_row("SELECT id FROM lti_contexts WHERE subject = 'u1'", [], |r| r.get(0)).unwrap();
    let mut body = wat_submission("mutants/no-dedup.wat", "intruder");
    body["metadata"] = json!({"lti_context": context});
    let r = server.post_json("/api/v1/submissions?wait=30s", &token, &body, None);
    assert_eq!(r.status, 200, "{}", r.text());

    // Without a course, an instructor's launch is refused with a page that says why.
    let r = launch_in_course(&server, &platform, "t1", None, &[INSTRUCTOR]);
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("context"), "{}", r.text());

    for role in [
        INSTRUCTOR,
        "http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper",
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator",
    ] {
        let r = launch_in_course(&server, &platform, "t1", Some("course-a"), &[role]);
        assert_eq!(r.status, 303, "{role}: {}", r.text());
        let dashboard = path_of(r.header("location").unwrap());
        assert!(dashboard.starts_with("/teach?") && dashboard.contains("k=course-a"), "{dashboard}");
        assert!(dashboard.contains("lang=en"), "the launch's language: {dashboard}");
        let r = request(server.port, "GET", &dashboard, &[], b"").unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
        assert!(r.text().contains("course course-a") && r.text().contains("Passed: 1/1"), "{}", r.text());
        let csp = r.header("content-security-policy").unwrap();
        assert!(csp.contains(&format!("frame-ancestors 'self' {}", platform.issuer())), "{csp}");

        // The analytics count course A alone: u1's pass, neither u2's nor the intruder's failure.
        let analytics = dashboard.replacen("/teach?", &format!("/teach/exercises/{CONSUMER}?"), 1);
        let r = request(server.port, "GET", &analytics, &[], b"").unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
        assert!(r.text().contains("<td>1/1 (100 %)</td>"), "{}", r.text());
        // Another course's learner, and two reports of which one is not the course's: nothing.
        let learner = dashboard.replacen("/teach?", "/teach/learner?", 1);
        let r = request(server.port, "GET", &format!("{learner}&learner=lti:1:u2"), &[], b"").unwrap();
        assert!(r.text().contains("No submission in this course"), "{}", r.text());
        let r = request(server.port, "GET", &format!("{learner}&learner=lti:1:u1"), &[], b"").unwrap();
        assert!(r.text().contains("sub_1"), "{}", r.text());
        let compare = dashboard.replacen("/teach?", "/teach/compare?", 1);
        for pair in ["a=sub_1&b=sub_2", "a=sub_1&b=sub_3"] {
            let r = request(server.port, "GET", &format!("{compare}&{pair}"), &[], b"").unwrap();
            assert_eq!(r.status, 404, "{pair}");
        }
        // The same link with another course: not a link.
        let r =
            request(server.port, "GET", &dashboard.replace("k=course-a", "k=course-b"), &[], b"").unwrap();
        assert_eq!(r.status, 404);

        // The learner routes (export, erasure) take an API client's bearer token: the instructor's
        // link, as its query or its token as a bearer, reaches neither, in its course or another.
        let query = dashboard.split_once('?').unwrap().1;
        let link_token = query.split('&').find_map(|p| p.strip_prefix("t=")).unwrap();
        let bearer = format!("Bearer {link_token}");
        for learner in ["lti:1:u1", "lti:1:u2"] {
            for (method, path) in [
                ("GET", format!("/api/v1/learners/{learner}/export")),
                ("DELETE", format!("/api/v1/learners/{learner}")),
            ] {
                let r = request(server.port, method, &format!("{path}?{query}"), &[], b"").unwrap();
                assert_eq!(r.status, 401, "{method} {path} with the link's query: {}", r.text());
                let r = request(server.port, method, &path, &[("authorization", &bearer)], b"").unwrap();
                assert_eq!(r.status, 401, "{method} {path} with the link's token: {}", r.text());
            }
        }
        let erased: i64 = server
            .db()
            .query_row("SELECT count(*) FROM audit_log WHERE action = 'erase'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(erased, 0, "nothing was erased");
        for page in &pages {
            assert_eq!(request(server.port, "GET", page, &[], b"").unwrap().status, 200, "{page} still open");
        }
    }
    // The student's page of a learner of course A is not a dashboard.
    let r = request(
        server.port,
        "GET",
        &pages[0].replacen(&format!("/learn/{CONSUMER}?"), "/teach?", 1),
        &[],
        b"",
    )
    .unwrap();
    assert_eq!(r.status, 404, "a learner's link opens no dashboard");
}
