"""Drives the service through a client generated from its OpenAPI document (openapi-python-client).

Usage: generated_client.py PACKAGE_DIR BASE_URL TOKEN EXERCISE REFERENCE_WAT MUTANT_WAT

Only the generated package's own types and operations are used: it submits the reference and a
mutant as typed request bodies (waiting for their results), reads each back, lists them, and sends
one request the service must refuse. Prints what it saw as one JSON object, for the Rust test to
judge; any exception (a response the generated code cannot parse) ends it with a traceback.
"""

import json
import sys

package_dir, base_url, token, exercise, reference_path, mutant_path = sys.argv[1:7]
sys.path.insert(0, package_dir)

from pruefstein_client import AuthenticatedClient  # noqa: E402
from pruefstein_client.api.submissions import (  # noqa: E402
    create_submission,
    get_submission,
    list_submissions,
)
from pruefstein_client.models import Problem, SubmissionView, WatSubmission  # noqa: E402


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def view(answer):
    """The fields of a SubmissionView the test judges."""
    if not isinstance(answer, SubmissionView):
        raise SystemExit(f"expected a SubmissionView, got {answer!r}")
    report = answer.report.to_dict() if answer.report else {}
    return {
        "id": answer.id,
        "status": str(answer.status),
        "verdict": str(answer.verdict) if answer.verdict else None,
        "points": answer.score.points if answer.score else None,
        "failed_checks": [c["name"] for c in report.get("checks", []) if not c.get("passed")],
    }


client = AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True, timeout=120.0)
seen = {}
with client:
    for name, path in [("reference", reference_path), ("mutant", mutant_path)]:
        body = WatSubmission(exercise=exercise, learner=f"client-{name}", wat=read(path))
        created = create_submission.sync_detailed(
            client=client, body=body, wait="30s", idempotency_key=f"generated-{name}"
        )
        seen[name] = {"created_status": int(created.status_code), **view(created.parsed)}
        again = get_submission.sync(client=client, id=created.parsed.id)
        seen[name]["read"] = view(again)

    listing = list_submissions.sync(client=client, exercise=exercise, limit=10)
    seen["listed"] = sorted(item.id for item in listing.submissions)

    refused = create_submission.sync_detailed(
        client=client, body=WatSubmission(exercise="no-such-exercise", learner="client", wat="(module)")
    )
    problem = refused.parsed
    if not isinstance(problem, Problem):
        raise SystemExit(f"expected a Problem, got {problem!r}")
    seen["refused"] = {"status": int(refused.status_code), "type": problem.type_}

print(json.dumps(seen, sort_keys=True))
