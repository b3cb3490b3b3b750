// A correct consumer for exercise 3: the dedup row and the credit commit in one transaction.
import { Outcome, Status, bindInt, bindText, exec, msgInt, msgText, transaction } from "../assembly/pruefstein";

function credit(): Outcome {
  bindInt(1, msgInt("id"));
  const status = exec("INSERT INTO gesehen (msg_id) VALUES (?)");
  if (status == Status.Duplicate) return Outcome.AlreadyProcessed;
  if (status != Status.Ok) return Outcome.Failed;

  bindInt(1, msgInt("body.punkte"));
  bindText(2, msgText("body.kunde"));
  if (exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?") != Status.Ok) return Outcome.Failed;
  return Outcome.Processed;
}

export function verarbeite(): i32 {
  return transaction(credit);
}
