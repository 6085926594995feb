"""docs/spec.md §4 "Layout" name escaping, written again from the spec (not from the Swift code), and random names."""
import unicodedata

HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def escape(raw: bytes) -> str:
    if raw == b"":
        return "%"
    if raw == b".":
        return "%2E"
    if raw == b"..":
        return "%2E%2E"
    out, i = [], 0
    while i < len(raw):
        lead = raw[i]
        length = 1 if lead < 0x80 else 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 0
        chunk = raw[i:i + length] if length else b""
        try:
            char = chunk.decode("utf-8") if length and len(chunk) == length else None
        except UnicodeDecodeError:
            char = None
        if char is None:
            out.append("%%%02X" % lead)
            i += 1
            continue
        if char in "%/;" or unicodedata.category(char) in HIDDEN:
            out.extend("%%%02X" % b for b in chunk)
        else:
            out.append(char)
        i += length
    return "".join(out)


# Characters whose Unicode category is the same in every recent Unicode version (Python's and Swift's
# tables may differ for newly assigned ones), plus the bytes the escaping is about.
ALPHABET = list("abcxyzAZ09-_.~ %;/=") + ["\u00e9", "e\u0301", "\u00df", "\u03a9", "\u4e2d", "\U0001F600", "\u200b", "\t", "\n", "\x00", "\x7f"]


def random_name(rng) -> bytes:
    """Random bytes for a service or account: mostly text, sometimes invalid UTF-8, '.', '..' or empty."""
    roll = rng.random()
    if roll < 0.03:
        return b""
    if roll < 0.06:
        return rng.choice([b".", b"..", b"..."])
    if roll < 0.12:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 6)))
    if roll < 0.14:
        return ("n" * rng.randint(240, 300)).encode()
    text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 10)))
    return text.encode("utf-8")


def shortened(name: str) -> str:
    """docs/spec.md §4: a name over 255 bytes keeps a prefix, `_` padding and `%~` + FNV-1a-64 of the full name."""
    raw = name.encode()
    if len(raw) <= 255:
        return name
    h = 0xCBF29CE484222325
    for byte in raw:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    suffix = "%%~%016x" % h
    prefix = name
    while len(prefix.encode()) > 255 - len(suffix):
        prefix = prefix[:-1]
    return prefix + "_" * (255 - len(suffix) - len(prefix.encode())) + suffix
