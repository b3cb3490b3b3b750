"""Writes a text file as a C header with one string constant (a guest's embedded source: Python or JavaScript)."""
import sys

path, name = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8") as f:
    text = f.read()
out = ["/* Generated from %s by embed_text.py; do not edit. */" % path.rsplit("/", 1)[-1]]
out.append("static const char %s[] =" % name)
for line in text.splitlines(True):
    escaped = line.encode("utf-8").decode("ascii", "backslashreplace") if False else line
    escaped = escaped.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    escaped = "".join(c if ord(c) < 128 else "".join("\\%03o" % b for b in c.encode("utf-8")) for c in escaped)
    out.append('    "%s"' % escaped)
out.append(";")
print("\n".join(out))
