# The module `mail` of Prüfstein's Python guest: the mail provider of an exercise that declares one,
# over ABI v1.1's world.send_mail (`_world_send_mail`, set by the glue before this runs).
# send_mail(key, to, body) returns None when the mail was sent (or its key's first result is
# replayed) and raises one of the errors below when the provider refuses the call.


class MailError(Exception):
    pass


class KeyReused(MailError):
    # HTTP 422: the key is known with another recipient or body.
    pass


class KeyInFlight(MailError):
    # HTTP 409: the key's first call is still in flight in another instance.
    pass


class InvalidRequest(MailError):
    # HTTP 400: a key, recipient or body out of bounds.
    pass


def send_mail(key="", to="", body=""):
    status = _world_send_mail(key, to, body)
    if status == 0:
        return None
    if status == 5:
        raise KeyReused("422: idempotency key %r was used with another payload" % (key,))
    if status == 6:
        raise KeyInFlight("409: a request with idempotency key %r is still in flight" % (key,))
    raise InvalidRequest(
        "400: invalid request (a key of 1 to 255 bytes without control characters, a recipient of "
        "1 to 320 bytes, a body of at most 4 KiB)"
    )
