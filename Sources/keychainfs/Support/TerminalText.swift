/// Text from outside (a caller's executable path, an app's prompt reason, an item's name) made safe for a
/// terminal line: control and format characters (ESC, newline, tab, bidi overrides…) are written `\u{1B}`,
/// so a name cannot move the cursor, colour the terminal, reorder the line or start a line of its own;
/// everything else (UTF-8 text in any script) is kept. The `security` verbs print as macOS does instead
/// (``SecurityOutput/buffer(_:)``).
enum TerminalText {
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate, .privateUse:
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
