// The module `log` of Prüfstein's JavaScript guest: the event log of an exercise whose log keeps
// the consumer group's committed offsets itself (`offsets = "broker"`), over ABI v1.1's
// world.commit_offset (the glue leaves the call in globalThis.__pf_log, taken away here before a
// student's code runs). commitOffset(partition, offset) returns when the log holds the offset (the
// next record to read: offset + 1 after processing offset) and throws CommitRefused when the log
// refuses it.

const commit = globalThis.__pf_log;
delete globalThis.__pf_log;

export class LogError extends Error {
    constructor(message) {
        super(message);
        this.name = "LogError";
    }
}

// No such partition, an offset below the log's first or beyond the partition's end, or a
// partition whose record was not delivered yet: the log keeps the offset it held.
export class CommitRefused extends LogError {
    constructor(message) {
        super(message);
        this.name = "CommitRefused";
    }
}

export function commitOffset(partition, offset) {
    if (!Number.isSafeInteger(partition) || !Number.isSafeInteger(offset)) {
        throw new TypeError("commitOffset takes integer partition and offset");
    }
    if (commit(partition, offset) !== 0) {
        throw new CommitRefused(
            `commitOffset(${partition}, ${offset}) refused: no such partition, an offset outside the partition's records, or a partition not delivered yet`,
        );
    }
}
