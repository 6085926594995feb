/// A template for `keychainfs inject` (docs/spec.md §13): text with `{{ kc://… }}` references, rendered with each
/// reference replaced by the item's secret or attribute. Spaces inside the braces are optional. A literal
/// `{{` that is not a reference is kept as written; an unterminated `{{ kc://` is an error, so a typo never
/// leaks a reference (or half a secret) into a config file.
package struct Template: Sendable, Equatable {
    /// Literal bytes or a reference, in order.
    package enum Segment: Sendable, Equatable {
        case text(String)
        case reference(SecretReference)
    }

    package let segments: [Segment]

    /// The distinct references, in order of first use.
    package var references: [SecretReference] {
        var seen = Set<SecretReference>()
        return segments.compactMap { segment in
            guard case .reference(let reference) = segment, seen.insert(reference).inserted else { return nil }
            return reference
        }
    }

    /// Parses a template (fuzz entry point): at most ``WorkflowText/maximumSize`` bytes, in one pass over
    /// its UTF-8 (each byte is looked at a bounded number of times, whatever the text).
    package static func parse(_ text: String) throws(ReferenceSyntaxError) -> Template {
        try WorkflowText.checkSize(text, kind: "template")
        let bytes = Array(text.utf8), scheme = Array(SecretReference.scheme.utf8)
        // The first i ≥ start with c at i and i + 1; when i + 1 is not c, neither i nor i + 1 starts a pair.
        func pair(_ c: UInt8, from start: Int) -> Int? {
            var i = start
            while i + 1 < bytes.count {
                if bytes[i + 1] != c { i += 2 } else if bytes[i] == c { return i } else { i += 1 }
            }
            return nil
        }
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        var segments: [Segment] = []
        var literalStart = 0, searchFrom = 0
        while let open = pair(UInt8(ascii: "{"), from: searchFrom) {
            var inner = open + 2
            while inner < bytes.count, isBlank(bytes[inner]) { inner += 1 }
            guard bytes[inner...].starts(with: scheme) else {
                searchFrom = open + 2  // a literal `{{`, kept as written
                continue
            }
            guard let close = pair(UInt8(ascii: "}"), from: inner) else {
                throw ReferenceSyntaxError(
                    string(open..<min(open + 80, bytes.count)), "unterminated {{ reference (no closing }})",
                    line: line(ofOffset: open, in: bytes))
            }
            var end = close
            while end > inner, isBlank(bytes[end - 1]) { end -= 1 }
            let reference: SecretReference
            do { reference = try SecretReference.parse(string(inner..<end)) } catch {
                throw ReferenceSyntaxError(error.text, error.reason, line: line(ofOffset: open, in: bytes))
            }
            if open > literalStart { segments.append(.text(string(literalStart..<open))) }
            segments.append(.reference(reference))
            literalStart = close + 2
            searchFrom = literalStart
        }
        if literalStart < bytes.count { segments.append(.text(string(literalStart..<bytes.count))) }
        return Template(segments: segments)
    }

    /// The rendered bytes, with `value(reference)` for each reference.
    package func render(_ value: (SecretReference) throws -> [UInt8]) rethrows -> [UInt8] {
        var out: [UInt8] = []
        for segment in segments {
            switch segment {
            case .text(let text): out += Array(text.utf8)
            case .reference(let reference): out += try value(reference)
            }
        }
        return out
    }

    /// Lines end at `\n` only, as `TextLines` splits them.
    private static func line(ofOffset offset: Int, in bytes: [UInt8]) -> Int {
        bytes[..<offset].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }
}
