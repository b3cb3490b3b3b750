// The module `broker` of Prüfstein's JavaScript guest: the message broker of an exercise that
// declares one, over ABI v1.1's world.publish (the glue leaves the call in globalThis.__pf_broker,
// taken away here before a student's code runs). publish({ topic, key, payload }) returns when the
// broker took the message and throws InvalidRequest when it is malformed. The broker takes every
// message, a repeated one too.

const send = globalThis.__pf_broker;
delete globalThis.__pf_broker;

export class BrokerError extends Error {
    constructor(message) {
        super(message);
        this.name = "BrokerError";
    }
}

// A topic, key or payload out of bounds.
export class InvalidRequest extends BrokerError {
    constructor(message) {
        super(message);
        this.name = "InvalidRequest";
    }
}

export function publish({ topic = "", key = "", payload = "" } = {}) {
    if (send(String(topic), String(key), String(payload)) !== 0) {
        throw new InvalidRequest(
            "invalid message (a topic of 1 to 320 bytes, a key of at most 320 bytes, a payload of at most 4 KiB)",
        );
    }
}
