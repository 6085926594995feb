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
}
