"""Reads tests/data/known_answers.txt, the one copy of the known answers
(SPEC.md sections 3, 6 and 7); the file's header describes its format.

Used by tests/cli_test.py and python/tests/ (through philox_reference.py);
the C and C++ tests read the same file with known_answers.h. The file is
found beside this module, or at $RANDTENSOR_KNOWN_ANSWERS when that is set
(the CMake tests set it). A file that does not parse raises ValueError: a
broken file fails the tests that need it instead of leaving them nothing to
check.

    load() -> {"block": {name: Block}, "fill": {name: Fill},
               "element": {name: Element}}
"""

import collections
import os
import re

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "known_answers.txt")

# counter: words 0-3, key: k0 k1, block: the four output words.
Block = collections.namedtuple("Block", "name counter key block")
# state and out_state: six words; sizes: a list; n: their product; values:
# all n values in logical order, or [] when the file lists none.
Fill = collections.namedtuple("Fill", "name state sizes n values out_state")
# Element `index` of the stream that `state` starts is `value`.
Element = collections.namedtuple("Element", "name state index value")

_HEX = re.compile(r"^[0-9a-fA-F]{1,8}$")
_DECIMAL = re.compile(r"^[0-9]+$")
_SIZES = re.compile(r"^[0-9]+(x[0-9]+){0,7}$")


def path():
    return os.environ.get("RANDTENSOR_KNOWN_ANSWERS") or PATH


class _Tokens:
    def __init__(self, text, where):
        self._tokens = []
        for number, line in enumerate(text.splitlines(), 1):
            for token in line.split("#", 1)[0].split():
                self._tokens.append((token, number))
        self._at = 0
        self._where = where

    def done(self):
        return self._at == len(self._tokens)

    def fail(self, why):
        token, line = self._tokens[min(self._at, len(self._tokens)) - 1]
        raise ValueError('%s:%d: %s (at "%s")' % (self._where, line, why, token))

    def next(self, why="the record ends early"):
        if self.done():
            self._at += 1  # so that fail() names the last token
            self.fail(why)
        self._at += 1
        return self._tokens[self._at - 1][0]

    def word(self):
        token = self.next()
        if not _HEX.match(token):
            self.fail("expected a hexadecimal word")
        return int(token, 16)

    def words(self, n):
        return [self.word() for _ in range(n)]

    def decimal(self):
        token = self.next()
        if not _DECIMAL.match(token):
            self.fail("expected a decimal number")
        return int(token)

    def literal(self, expected):
        if self.next() != expected:
            self.fail('expected "%s"' % expected)


def parse(text, where="<text>"):
    tokens = _Tokens(text, where)
    records = {"block": {}, "fill": {}, "element": {}}
    while not tokens.done():
        kind = tokens.next()
        if kind not in records:
            tokens.fail("expected a record kind: block, fill or element")
        name = tokens.next("a record without a name")
        if name in records[kind]:
            tokens.fail("a second record of this kind and name")
        if kind == "block":
            counter, key = tokens.words(4), tokens.words(2)
            tokens.literal("->")
            record = Block(name, counter, key, tokens.words(4))
        elif kind == "element":
            state, index = tokens.words(6), tokens.decimal()
            tokens.literal("->")
            record = Element(name, state, index, tokens.word())
        else:
            state = tokens.words(6)
            sizes_text = tokens.next()
            if not _SIZES.match(sizes_text):
                tokens.fail("expected sizes such as 10 or 3x3x20x7219")
            sizes = [int(s) for s in sizes_text.split("x")]
            n = 1
            for s in sizes:
                n *= s
            tokens.literal("->")
            values = []
            while True:
                token = tokens.next()
                if token == ";":
                    break
                if not _HEX.match(token):
                    tokens.fail("expected a hexadecimal value or ;")
                values.append(int(token, 16))
            out_state = tokens.words(6)
            if values and len(values) != n:
                tokens.fail("a fill lists neither all its values nor none")
            record = Fill(name, state, sizes, n, values, out_state)
        records[kind][name] = record
    if not any(records.values()):
        raise ValueError("%s: no records" % where)
    return records


_cache = {}


def load():
    """The parsed file (read once per path)."""
    p = path()
    if p not in _cache:
        with open(p, encoding="utf-8") as f:
            _cache[p] = parse(f.read(), p)
    return _cache[p]
