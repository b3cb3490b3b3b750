# The module `log` of Prüfstein's Python guest: the event log of an exercise whose log keeps the
# consumer group's committed offsets itself (`offsets = "broker"`), over ABI v1.1's
# world.commit_offset (`_world_commit_offset`, set by the glue before this runs).
# commit_offset(partition, offset) returns None when the log holds the offset (the next record to
# read: offset + 1 after processing offset); it raises CommitRefused when the log refuses it.


class LogError(Exception):
    pass


class CommitRefused(LogError):
    # No such partition, an offset below the log's first or beyond the partition's end, or a
    # partition whose record was not delivered yet: the log keeps the offset it held.
    pass


def commit_offset(partition, offset):
    if _world_commit_offset(partition, offset) != 0:
        raise CommitRefused(
            "commit_offset(%r, %r) refused: no such partition, an offset outside the partition's "
            "records, or a partition not delivered yet" % (partition, offset)
        )
