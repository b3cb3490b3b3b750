// expect-fail: concurrent-duplicate
// Mutant: check-then-act. It asks "seen already?" with a SELECT outside the transaction, then credits
// and remembers the id with INSERT OR IGNORE. One consumer at a time it is correct; but when a second
// process gets the same message while the first is still working, both pass the check and both credit.
import { Outcome, Status, bindInt, bindText, exec, msgInt, msgText, queryInt, transaction } from "../assembly/pruefstein";

function credit(): Outcome {
  bindInt(1, msgInt("body.punkte"));
  bindText(2, msgText("body.kunde"));
  if (exec("UPDATE punkte SET stand = stand + ? WHERE kunde = ?") != Status.Ok) return Outcome.Failed;
  bindInt(1, msgInt("id"));
  if (exec("INSERT OR IGNORE INTO gesehen (msg_id) VALUES (?)") != Status.Ok) return Outcome.Failed;
  return Outcome.Processed;
}

export function verarbeite(): i32 {
  bindInt(1, msgInt("id"));
  const seen = queryInt("SELECT count(*) FROM gesehen WHERE msg_id = ?");
  if (!seen.ok) return Outcome.Failed;
  if (seen.value > 0) return Outcome.AlreadyProcessed;
  return transaction(credit);
}
