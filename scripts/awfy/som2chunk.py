#!/usr/bin/env python3
"""Converts Are We Fast Yet's Smalltalk benchmarks (SOM class files, `Name = Super ( ... )`)
into one chunk-format file Onyx files in with `onyx run`.

    som2chunk.py OUT.st DIR...

Every `*.som` file under the DIRs (not recursively) becomes a class definition and its
methods, superclasses first. SOM's string escapes (`\\n`, `\\t`, `\\'`, `\\\\`, ...) become
the characters they stand for; everything else in a method is SOM's Smalltalk syntax, which
Onyx compiles as it is. SOM's library messages that Pharo spells differently are defined by
prelude.st, not rewritten here.
"""

import pathlib
import sys

ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", "0": "\0", "'": "'", "\\": "\\"}
BINARY_CHARS = set("~!@%&*-+=|\\<>,/?")


class SomError(Exception):
    pass


class Reader:
    """A cursor over one SOM file's text."""

    def __init__(self, path, text):
        self.path, self.text, self.pos = path, text, 0

    def fail(self, message):
        line = self.text.count("\n", 0, self.pos) + 1
        raise SomError(f"{self.path}:{line}: {message}")

    def peek(self, n=1):
        return self.text[self.pos:self.pos + n]

    def skip_blank(self):
        """Skips white space and comments."""
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c.isspace():
                self.pos += 1
            elif c == '"':
                end = self.text.find('"', self.pos + 1)
                if end < 0:
                    self.fail("unterminated comment")
                self.pos = end + 1
            else:
                return

    def identifier(self):
        self.skip_blank()
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] == "_"):
            self.pos += 1
        if start == self.pos:
            self.fail(f"expected a name, found {self.peek(10)!r}")
        return self.text[start:self.pos]

    def expect(self, token):
        self.skip_blank()
        if self.peek(len(token)) != token:
            self.fail(f"expected {token!r}, found {self.peek(10)!r}")
        self.pos += len(token)

    def names_between_bars(self):
        """`| a b c |` if one comes next, else nothing."""
        self.skip_blank()
        if self.peek() != "|":
            return []
        end = self.text.find("|", self.pos + 1)
        if end < 0:
            self.fail("unterminated variable list")
        names = self.text[self.pos + 1:end].split()
        self.pos = end + 1
        return names

    def string_literal(self):
        """A SOM string at the cursor (escapes resolved), as a Smalltalk literal."""
        self.pos += 1
        out = []
        while True:
            if self.pos >= len(self.text):
                self.fail("unterminated string")
            c = self.text[self.pos]
            if c == "\\":
                escaped = self.text[self.pos + 1:self.pos + 2]
                if escaped not in ESCAPES:
                    self.fail(f"unknown escape \\{escaped}")
                out.append(ESCAPES[escaped])
                self.pos += 2
            elif c == "'":
                self.pos += 1
                return "'" + "".join(out).replace("'", "''") + "'"
            else:
                out.append(c)
                self.pos += 1

    def body(self):
        """A method's body between balanced parentheses, as Smalltalk source."""
        self.expect("(")
        out, depth = [], 1
        while True:
            if self.pos >= len(self.text):
                self.fail("unterminated method")
            c = self.text[self.pos]
            if c == "'":
                out.append(self.string_literal())
                continue
            if c == '"':
                end = self.text.find('"', self.pos + 1)
                if end < 0:
                    self.fail("unterminated comment")
                out.append(self.text[self.pos:end + 1])
                self.pos = end + 1
                continue
            self.pos += 1
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    return "".join(out).strip()
            out.append(c)

    def method(self):
        """One method: its pattern and body, as the Smalltalk source of the method."""
        self.skip_blank()
        if self.peek() in BINARY_CHARS:
            start = self.pos
            while self.peek() in BINARY_CHARS and self.peek():
                self.pos += 1
            pattern = f"{self.text[start:self.pos]} {self.identifier()}"
        else:
            name = self.identifier()
            if self.peek() == ":":
                parts = []
                while True:
                    self.pos += 1
                    parts.append(f"{name}: {self.identifier()}")
                    self.skip_blank()
                    save = self.pos
                    if self.peek() == "=":
                        break
                    name = self.identifier()
                    if self.peek() != ":":
                        self.pos = save
                        self.fail("malformed keyword pattern")
                pattern = " ".join(parts)
            else:
                pattern = name
        self.expect("=")
        self.skip_blank()
        if self.text.startswith("primitive", self.pos):
            self.fail(f"primitive method {pattern} has no Onyx counterpart")
        return f"{pattern}\n\t{self.body()}"


def read_class(path):
    """(name, superclass, instance variables, class-side variables, methods, class methods)."""
    r = Reader(path, path.read_text(encoding="utf-8"))
    name = r.identifier()
    r.expect("=")
    r.skip_blank()
    superclass = "Object" if r.peek() == "(" else r.identifier()
    r.expect("(")
    ivars, cvars, methods, class_methods = r.names_between_bars(), [], [], []
    side = methods
    while True:
        r.skip_blank()
        if r.peek() == ")":
            break
        if r.peek(4) == "----":
            while r.peek() == "-":
                r.pos += 1
            side = class_methods
            cvars = r.names_between_bars()
            continue
        side.append(r.method())
    return name, superclass, ivars, cvars, methods, class_methods


def chunk(text):
    return text.replace("!", "!!") + "!"


def main(out, dirs):
    classes = {}
    for d in dirs:
        for path in sorted(pathlib.Path(d).glob("*.som")):
            name, *rest = read_class(path)
            classes[name] = (name, *rest)
    ordered, seen = [], set()

    def visit(name):
        if name in seen or name not in classes:
            return
        seen.add(name)
        visit(classes[name][1])
        ordered.append(classes[name])

    for name in sorted(classes):
        visit(name)
    lines = []
    for name, superclass, ivars, cvars, _, _ in ordered:
        lines.append(chunk(f"{superclass} subclass: #{name} instanceVariableNames: '{' '.join(ivars)}' "
                           f"classVariableNames: '' package: 'AreWeFastYet'"))
        if cvars:
            lines.append(chunk(f"{name} class instanceVariableNames: '{' '.join(cvars)}'"))
    for name, _, _, _, methods, class_methods in ordered:
        for receiver, source in [(name, methods), (f"{name} class", class_methods)]:
            if source:
                lines.append(f"!{receiver} methodsFor: 'benchmarks'!")
                lines.extend(chunk(m) for m in source)
                lines.append(" !")
    pathlib.Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(ordered)} classes, {sum(len(c[4]) + len(c[5]) for c in ordered)} methods -> {out}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    try:
        main(sys.argv[1], sys.argv[2:])
    except SomError as e:
        sys.exit(f"som2chunk: {e}")
