# The module `broker` of Prüfstein's Python guest: the message broker of an exercise that declares
# one, over ABI v1.1's world.publish (`_world_publish`, set by the glue before this runs).
# publish(topic, key, payload) returns None when the broker took the message; it raises
# InvalidRequest when the message is malformed. The broker takes every message, a repeated one too.


class BrokerError(Exception):
    pass


class InvalidRequest(BrokerError):
    # A topic, key or payload out of bounds.
    pass


def publish(topic="", key="", payload=""):
    if _world_publish(topic, key, payload) != 0:
        raise InvalidRequest(
            "invalid message (a topic of 1 to 320 bytes, a key of at most 320 bytes, a payload of at "
            "most 4 KiB)"
        )
