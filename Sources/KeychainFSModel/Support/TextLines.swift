/// The lines of a text from outside (env files, templates, `access.toml`): a line ends at `\n`, and a `\r`
/// just before it is not part of it. Nothing else ends a line: U+2028, NEL, VT, FF and a lone `\r` are
/// characters like any other (splitting at Swift's `isNewline` would let a value hide a line of its own).
public enum TextLines {
    /// The lines of `text`, in order; the text after the last `\n` is the last line (empty if it ends with one).
    public static func split(_ text: String) -> [Substring] {
        var lines: [Substring] = []
        let utf8 = text.utf8
        var start = utf8.startIndex, index = start
        while index < utf8.endIndex {
            if utf8[index] == UInt8(ascii: "\n") {
                let end =
                    index > start && utf8[utf8.index(before: index)] == UInt8(ascii: "\r")
                    ? utf8.index(before: index) : index
                lines.append(text[start..<end])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        lines.append(text[start...])
        return lines
    }

    /// Whether some reader of a line of text takes `scalar` for its end: `\n` and `\r`, VT, FF, NEL, U+2028
    /// and U+2029 (Swift's `isNewline`, Unicode's mandatory breaks). ``split(_:)`` ends a line at `\n` only;
    /// a name that is printed one a line (a sync member's) holds none of them, so that no reader sees two lines.
    public static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }
}
