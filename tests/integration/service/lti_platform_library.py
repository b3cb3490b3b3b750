"""The tool's JWTs as an independent LTI 1.3 platform implementation checks them.

Uses the PyPI package lti1p3platform (pinned in scripts/test) as a platform would: a registration
whose tool key set URL is the tool's /lti/jwks, then the library's own checks,
`validate_deeplinking_resp` for the tool's deep-linking response and `get_access_token` for the
client-credentials request that carries the tool's client assertion (score passback). A copy of
each JWT with a changed signature must be refused by the same checks.

With `launch`, the library is the platform that starts a launch: it serves its JWKS on
PLATFORM_PORT, builds the login initiation to the tool's /lti/login (`prepare_preflight_url`),
follows the tool's redirect as the learner's browser would, checks it as the authorisation request
it is (`validate_preflight_response`), builds and signs the resource-link launch with an AGS claim
(`generate_launch_request`) and posts it to the tool's /lti/launch.

Usage: lti_platform_library.py TOOL_JWKS_URL ISSUER CLIENT_ID DEPLOYMENT_ID MESSAGES.json
MESSAGES.json: {"deep_link_jwt": "...", "token_request": {form fields of the token request}}.
Usage: lti_platform_library.py launch TOOL_URL PLATFORM_PORT CLIENT_ID DEPLOYMENT_ID EXERCISE
With `deep-link` instead of `launch`, the launch is the library's deep-linking request (its
`data` a JSON object); the teacher picks EXERCISE on the tool's picker, and the tool's response is
checked with `validate_deeplinking_resp`. After a `launch`, the library serves its token endpoint
(`get_access_token`, which checks the tool's client assertion) and a score endpoint that checks
the bearer token (`validate_token`) and the score's progress values (the library's enums), until
one score arrives; it prints a second line with what arrived.
Prints a JSON object with what the library returned and what it refused, or what the tool
answered to each step of the launch.
"""

import html.parser
import http.server
import json
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request
from lti1p3platform.score import ActivityProgress, GradeProgress

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


class Platform(LTI1P3PlatformConfAbstract):
    """The library's platform, with one registration: the tool under test."""

    def init_platform_config(self, **kwargs):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        private = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        public = (
            key.public_key()
            .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            .decode()
        )
        self._registration = (
            Registration()
            .set_iss(kwargs["iss"])
            .set_client_id(kwargs["client_id"])
            .set_deployment_id(kwargs["deployment_id"])
            .set_platform_private_key(private)
            .set_platform_public_key(public)
            .set_tool_key_set_url(kwargs["tool_jwks"])
        )
        if "login_url" in kwargs:
            self._registration.set_oidc_login_url(kwargs["login_url"]).set_launch_url(kwargs["launch_url"])

    def get_registration_by_params(self, **kwargs):
        return self._registration


def tampered(jwt):
    """The JWT with the first character of its signature changed."""
    head, body, signature = jwt.split(".")
    first = "A" if signature[0] != "A" else "B"
    return ".".join([head, body, first + signature[1:]])


def refused(check):
    """The library's refusal of `check()` as text, or None when it accepted."""
    try:
        check()
    except Exception as error:  # the library raises its own and PyJWT's exceptions
        return f"{type(error).__name__}: {error}"
    return None


class Browser(Request):
    """What the platform received from the learner's browser: the query of a request."""

    def build_metadata(self, request):
        return {"method": "GET", "form_data": {}, "get_data": request, "headers": {}, "path": "/"}


class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs):
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url):
        return url


class Launch(LTIAdvantageMessageLaunchAbstract):
    def prepare_launch(self, preflight_response):
        self.validate_preflight_response(preflight_response)

    def render_launch_form(self, launch_data, **kwargs):
        return launch_data


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def fetch(url, form=None):
    """Status, headers and body of one request, redirects not followed."""
    opener = urllib.request.build_opener(NoRedirects)
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    try:
        with opener.open(url, data=data, timeout=60) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, {k.lower(): v for k, v in answer.headers.items()}, answer.read().decode()


class Forms(html.parser.HTMLParser):
    """The forms of a page: their action and their inputs' names and values."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append((attrs.get("action", ""), {}))
        elif tag == "input" and self.forms and "name" in attrs:
            self.forms[-1][1][attrs["name"]] = attrs.get("value", "")


def forms(page):
    parser = Forms()
    parser.feed(page)
    return parser.forms


DEEP_LINK_DATA = {"course": "verteilte-systeme", "placement": [3, {"week": 2}]}


def deep_link(platform, message, tool, iss, exercise):
    """The deep-linking request the library builds (its `data` an object), the teacher's choice
    on the tool's picker, and the tool's response as the library checks it."""
    message.set_dl(f"{iss}/return", title="Prüfstein", accept_types={"ltiResourceLink"},
                   extra_data=DEEP_LINK_DATA)
    data = message.generate_launch_request()
    status, _, page = fetch(message._redirect_url, data)
    if status != 200:
        raise SystemExit(f"the tool answered the deep-linking request with {status}: {page}")
    action, fields = next(f for f in forms(page) if f[1].get("exercise") == exercise)
    status, _, page = fetch(urllib.parse.urljoin(tool, action), fields)
    if status != 200:
        raise SystemExit(f"the tool answered the choice with {status}: {page}")
    action, fields = next(f for f in forms(page) if "JWT" in f[1])
    items = platform.validate_deeplinking_resp({"JWT": fields["JWT"]})
    return {
        "return_url": action,
        "items": items,
        "data": platform._jwt["body"].get("https://purl.imsglobal.org/spec/lti-dl/claim/data"),
        "sent_data": DEEP_LINK_DATA,
    }


def launch(kind, tool, port, client_id, deployment_id, exercise):
    iss = f"http://127.0.0.1:{port}"
    platform = Platform(
        iss=iss, client_id=client_id, deployment_id=deployment_id, tool_jwks=f"{tool}/lti/jwks",
        login_url=f"{tool}/lti/login", launch_url=f"{tool}/lti/launch?exercise={exercise}",
    )
    platform.get_registration().set_deeplink_launch_url(f"{tool}/lti/launch")
    jwks = json.dumps({"keys": platform.get_registration().get_jwks()}).encode()
    scores = []
    score_arrived = threading.Event()

    class Endpoints(http.server.BaseHTTPRequestHandler):
        """The platform's JWKS, and its token and score endpoints as the library serves them."""

        def answer(self, status, body):
            body = json.dumps(body).encode() if not isinstance(body, bytes) else body
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self.answer(200, jwks)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path == "/token":
                form = dict(urllib.parse.parse_qsl(body.decode()))
                try:
                    self.answer(200, platform.get_access_token(form))
                except Exception as error:
                    self.answer(400, {"error": "invalid_client", "error_description": str(error)})
            elif self.path == "/lineitems/1/lineitem/scores":
                bearer = self.headers.get("Authorization", "").removeprefix("Bearer ")
                authorized = platform.validate_token(bearer, allowed_scopes=[SCORE_SCOPE])
                score = json.loads(body)
                score["activityProgress"] = ActivityProgress(score["activityProgress"]).value
                score["gradingProgress"] = GradeProgress(score["gradingProgress"]).value
                scores.append({"authorized": authorized, "content_type": self.headers.get("Content-Type"),
                               "score": score})
                self.answer(200 if authorized else 403, {})
                score_arrived.set()
            else:
                self.answer(404, {})

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), Endpoints)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    login = Login(Browser({}), platform)
    login.set_lti_message_hint(hint="rl-1")
    if kind == "deep-link":
        login.set_deeplinking_launch_url()
    status, headers, body = fetch(login.prepare_preflight_url("learner-7"))
    if status != 302:
        raise SystemExit(f"the tool answered the login initiation with {status}: {body}")
    redirect = headers.get("location", "")
    preflight = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(redirect).query))
    message = Launch(Browser(preflight), platform)
    message._registration = platform.get_registration()
    message.prepare_launch(preflight)
    if kind == "deep-link":
        result = deep_link(platform, message, tool, iss, exercise)
        server.shutdown()
        return result
    message.set_user_data("learner-7", ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"])
    message.set_resource_link_claim("rl-1", title="Exercise")
    message.set_custom_parameters_claim({"exercise": exercise})
    message.set_ags(f"{iss}/lineitems", f"{iss}/lineitems/1/lineitem")
    data = message.generate_launch_request()
    launched, launched_headers, body = fetch(message._redirect_url, data)
    print(json.dumps({
        "login_status": status,
        "preflight": preflight,
        "launch_status": launched,
        "location": launched_headers.get("location", ""),
        "body": body[:2000],
    }), flush=True)
    # The learner submits on the page (the test does); the score comes through the library's
    # token endpoint to its score endpoint.
    score_arrived.wait(timeout=120)
    server.shutdown()
    return {"scores": scores}


def main():
    if sys.argv[1] in ("launch", "deep-link"):
        print(json.dumps(launch(*sys.argv[1:7])))
        return
    if sys.argv[1] == "verify-deep-link":
        # Deep-linking responses the tool signed, each checked by the library against the tool's
        # JWKS as it is published now: the items, or the library's refusal.
        tool_jwks, iss, client_id, deployment_id, jwts = sys.argv[2:7]
        platform = Platform(iss=iss, client_id=client_id, deployment_id=deployment_id, tool_jwks=tool_jwks)
        with open(jwts, encoding="utf-8") as f:
            jwts = json.load(f)
        results = []
        for jwt in jwts:
            try:
                results.append({"items": platform.validate_deeplinking_resp({"JWT": jwt})})
            except Exception as refusal:  # the library's refusal, whatever its class
                results.append({"refused": f"{type(refusal).__name__}: {refusal}"})
        print(json.dumps(results))
        return
    tool_jwks, iss, client_id, deployment_id, messages = sys.argv[1:6]
    with open(messages, encoding="utf-8") as f:
        messages = json.load(f)

    def platform():
        return Platform(iss=iss, client_id=client_id, deployment_id=deployment_id, tool_jwks=tool_jwks)

    items = platform().validate_deeplinking_resp({"JWT": messages["deep_link_jwt"]})
    token = platform().get_access_token(messages["token_request"])
    bad_request = dict(messages["token_request"])
    bad_request["client_assertion"] = tampered(bad_request["client_assertion"])
    print(
        json.dumps(
            {
                "deep_link_items": items,
                "token_scope": token["scope"],
                "token_type": token["token_type"],
                "tampered_deep_link": refused(
                    lambda: platform().validate_deeplinking_resp({"JWT": tampered(messages["deep_link_jwt"])})
                ),
                "tampered_assertion": refused(lambda: platform().get_access_token(bad_request)),
            }
        )
    )


if __name__ == "__main__":
    main()
