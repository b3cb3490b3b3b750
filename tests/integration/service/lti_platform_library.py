"""The tool's JWTs as an independent LTI 1.3 platform implementation checks them.

Uses the PyPI package lti1p3platform (pinned in scripts/test) as a platform would: a registration
whose tool key set URL is the tool's /lti/jwks, then the library's own checks,
`validate_deeplinking_resp` for the tool's deep-linking response and `get_access_token` for the
client-credentials request that carries the tool's client assertion (score passback). A copy of
each JWT with a changed signature must be refused by the same checks.

Usage: lti_platform_library.py TOOL_JWKS_URL ISSUER CLIENT_ID DEPLOYMENT_ID MESSAGES.json
MESSAGES.json: {"deep_link_jwt": "...", "token_request": {form fields of the token request}}.
Prints a JSON object with what the library returned and what it refused.
"""

import json
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.registration import Registration


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


def main():
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
