//! The simulated outside services an exercise declares (`[consumer.world]`): how many calls one run
//! may make to them, how large a call's key and payload may be, how long a key is kept at most.

/// Calls to outside services (`world.send_mail`) one run may make, over all its
/// instances and deliveries: the recorded calls the checks and the report read are bounded by it.
/// The call past it ends the instance with the fault `outside-call-limit`, naming the limit
/// "Aufrufe externer Dienste pro Lauf" / "outside calls per run". A correct consumer makes one call
/// per delivery; a schedule makes at most [`super::SCHEDULE_DELIVERIES_MAX`] deliveries.
pub const OUTSIDE_CALLS_PER_RUN_MAX: usize = 1_000;
/// The longest idempotency key a provider accepts, in bytes (Stripe's limit is 255 characters).
/// A longer or empty key, or one that is not UTF-8 or holds a control character, is refused with
/// the status "invalid request" (the limit "Länge eines Idempotenzschlüssels" / "idempotency key
/// length" named in the error).
pub const PROVIDER_KEY_BYTES_MAX: usize = 255;
/// The longest recipient, topic or message key of an outside call, in bytes (an e-mail address is
/// at most 254 characters).
pub const OUTSIDE_ADDRESS_BYTES_MAX: usize = 320;
/// The longest body or payload of an outside call, in bytes: a confirmation mail's text. A longer
/// one is refused with the status "invalid request" (limit "Länge einer Nachricht an einen Dienst"
/// / "payload length of an outside call").
pub const OUTSIDE_PAYLOAD_BYTES_MAX: usize = 4 * 1024;
/// The longest a provider keeps an idempotency key, in deliveries of the run after the one that
/// stored it (`ttl_deliveries` in `[consumer.world.mail]` may not exceed it).
pub const PROVIDER_KEY_TTL_DELIVERIES_MAX: u32 = 1_000;
/// The rows of a violated invariant a failure text shows.
pub const INVARIANT_ROWS_SHOWN: usize = 3;
/// The invariants one exercise may declare (each runs on every state the harness reads).
pub const INVARIANTS_MAX: usize = 16;
/// The highest `max_receive_count` a declared queue (`[consumer.world.queue]`) may have: receives
/// of one message before it moves to the dead letter queue. Every receive is a delivery of a
/// schedule, so the bound keeps a schedule of duplicated sends that all reach the dead letter queue
/// within [`super::SCHEDULE_DELIVERIES_MAX`]; `check` refuses a higher value with this limit's name
/// ("Zustellungen vor der Dead Letter Queue" / "receives before the dead letter queue").
pub const MAX_RECEIVE_COUNT_MAX: u32 = 5;
