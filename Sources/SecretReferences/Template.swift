import KeychainEngine

/// A template for `keychainfs inject` (SPEC §13): text with `{{ kc://… }}` references, rendered with each
/// reference replaced by the item's secret or attribute. Spaces inside the braces are optional. A literal
/// `{{` that is not a reference is kept as written; an unterminated `{{ kc://` is an error, so a typo never
/// leaks a reference (or half a secret) into a config file.
public struct Template: Sendable, Equatable {
    /// Literal bytes or a reference, in order.
    public enum Segment: Sendable, Equatable {
        case text(String)
        case reference(SecretReference)
    }

    public let segments: [Segment]

    /// The distinct references, in order of first use.
    public var references: [SecretReference] {
        var seen = Set<SecretReference>()
        return segments.compactMap { segment in
            guard case .reference(let reference) = segment, seen.insert(reference).inserted else { return nil }
            return reference
        }
    }

    /// Parses a template (fuzz entry point).
    public static func parse(_ text: String) throws(ReferenceSyntaxError) -> Template {
        var segments: [Segment] = []
        var literal = ""
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{") {
            let afterOpen = rest[open.upperBound...]
            let inner = afterOpen.drop { $0 == " " || $0 == "\t" }
            guard inner.hasPrefix(SecretReference.scheme) else {
                literal += rest[..<open.upperBound]
                rest = afterOpen
                continue
            }
            guard let close = inner.firstRange(of: "}}") else {
                throw ReferenceSyntaxError(String(rest[open.lowerBound...].prefix(80)), "unterminated {{ reference (no closing }})",
                                           line: TextLines.line(of: open.lowerBound, in: text))
            }
            let written = inner[..<close.lowerBound].trimmingSuffix { $0 == " " || $0 == "\t" }
            let reference: SecretReference
            do { reference = try SecretReference.parse(String(written)) } catch {
                throw ReferenceSyntaxError(error.text, error.reason, line: TextLines.line(of: open.lowerBound, in: text))
            }
            literal += rest[..<open.lowerBound]
            if !literal.isEmpty { segments.append(.text(literal)) }
            literal = ""
            segments.append(.reference(reference))
            rest = inner[close.upperBound...]
        }
        literal += rest
        if !literal.isEmpty { segments.append(.text(literal)) }
        return Template(segments: segments)
    }

    /// The rendered bytes, with `value(reference)` for each reference.
    public func render(_ value: (SecretReference) throws -> [UInt8]) rethrows -> [UInt8] {
        var out: [UInt8] = []
        for segment in segments {
            switch segment {
            case .text(let text): out += Array(text.utf8)
            case .reference(let reference): out += try value(reference)
            }
        }
        return out
    }
}

extension Substring {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
