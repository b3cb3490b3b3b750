// Your consumer for exercise 3 ("Idempotenten Konsumenten bauen"). Fill in `process`, then
//     npm run build
//     pruefstein grade exercises/03-idempotenter-konsument graders/consumer/kits/assemblyscript/build/consumer.wasm
//
// The message looks like {"id": 7, "body": {"kunde": "anna", "punkte": 50}};
// the tables are in exercises/03-idempotenter-konsument/schema.sql.
import { Outcome, Status, bindInt, bindText, exec, log, msgInt, msgText, transaction } from "./pruefstein";

// Runs inside one transaction (see `verarbeite`): Outcome.Processed commits, anything else rolls back.
function process(): Outcome {
  // TODO 1: remember the message id in the dedup table `gesehen`:
  //     bindInt(1, msgInt("id"));
  //     const status = exec("INSERT INTO gesehen (msg_id) VALUES (?)");
  // TODO 2: Status.Duplicate means: already processed -> return Outcome.AlreadyProcessed;
  //         any other status than Status.Ok -> return Outcome.Failed.
  // TODO 3: credit the points: bindInt(1, msgInt("body.punkte")); bindText(2, msgText("body.kunde"));
  //         exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?") must give Status.Ok,
  //         else return Outcome.Failed (CHECK stand <= 1000): the whole transaction rolls back.
  log("verarbeite is not written yet");
  return Outcome.Failed;
}

export function verarbeite(): i32 {
  return transaction(process);
}
