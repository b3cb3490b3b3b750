// The module `mail` of Prüfstein's JavaScript guest: the mail provider of an exercise that declares
// one, over ABI v1.1's world.send_mail (the glue leaves the call in globalThis.__pf_mail, taken away
// here before a student's code runs). sendMail({ key, to, body }) returns when the mail was sent (or
// its key's first result is replayed) and throws one of the errors below when the provider refuses.

const send = globalThis.__pf_mail;
delete globalThis.__pf_mail;

export class MailError extends Error {
    constructor(message) {
        super(message);
        this.name = "MailError";
    }
}

// HTTP 422: the key is known with another recipient or body.
export class KeyReused extends MailError {
    constructor(message) {
        super(message);
        this.name = "KeyReused";
    }
}

// HTTP 409: the key's first call is still in flight in another instance.
export class KeyInFlight extends MailError {
    constructor(message) {
        super(message);
        this.name = "KeyInFlight";
    }
}

// HTTP 400: a key, recipient or body out of bounds.
export class InvalidRequest extends MailError {
    constructor(message) {
        super(message);
        this.name = "InvalidRequest";
    }
}

export function sendMail({ key = "", to = "", body = "" } = {}) {
    const status = send(String(key), String(to), String(body));
    if (status === 0) {
        return;
    }
    if (status === 5) {
        throw new KeyReused(`422: idempotency key ${JSON.stringify(key)} was used with another payload`);
    }
    if (status === 6) {
        throw new KeyInFlight(`409: a request with idempotency key ${JSON.stringify(key)} is still in flight`);
    }
    throw new InvalidRequest(
        "400: invalid request (a key of 1 to 255 bytes without control characters, a recipient of " +
            "1 to 320 bytes, a body of at most 4 KiB)",
    );
}
