// expect-fail: constraint-violation
// Mutant: ignores the status of the credit. When `CHECK (stand <= 1000)` rejects it, the dedup row
// still commits and the queue acks a message whose effect never happened.
import { Outcome, Status, bindInt, bindText, exec, msgInt, msgText, transaction } from "../assembly/pruefstein";

function credit(): Outcome {
  bindInt(1, msgInt("id"));
  const status = exec("INSERT INTO gesehen (msg_id) VALUES (?)");
  if (status == Status.Duplicate) return Outcome.AlreadyProcessed;
  if (status != Status.Ok) return Outcome.Failed;

  bindInt(1, msgInt("body.punkte"));
  bindText(2, msgText("body.kunde"));
  exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?");
  return Outcome.Processed;
}

export function verarbeite(): i32 {
  return transaction(credit);
}
