// Starter kit: the consumer of exercise 3 in JavaScript, written against Node's node:sqlite.
// Grade it from the repository's root (no toolchain needed):
//   pruefstein grade exercises/03-idempotenter-konsument graders/consumer/kits/javascript/consumer.js

/**
 * Processes one delivery of `msg`, e.g. {id: 7, body: {kunde: "anna", punkte: 50}}.
 *
 * Return true when the message is processed now, false when it was processed before (a
 * duplicate). Throw when it cannot be processed: the message is not acked and comes again.
 *
 * To do, in ONE transaction (db.transaction(fn)() commits when fn returns, rolls back when it
 * throws): remember msg.id in the table gesehen (a known id throws an error whose code is
 * "SQLITE_CONSTRAINT_PRIMARYKEY": then return false), and add msg.body.punkte to the row of
 * msg.body.kunde in punkte. If the credit fails (CHECK stand <= 1000, code
 * "SQLITE_CONSTRAINT_CHECK"), let the error leave the transaction: everything rolls back.
 *
 * @param {import("node:sqlite").DatabaseSync} db
 * @param {{id: number, body: {kunde: string, punkte: number}}} msg
 * @returns {boolean}
 */
export function verarbeite(db, msg) {
    console.log("verarbeite is not written yet");
    throw new Error("verarbeite is not written yet");
}
