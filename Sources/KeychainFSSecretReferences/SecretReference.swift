import KeychainFSModel

/// A `kc://` reference to an item's secret or one of its attributes (docs/spec.md §13), written with the mount's
/// names: `kc://<class>/<group name>/<item name>[#<attribute constant>]`, e.g.
/// `kc://genp/com.example.api/deploy`, `kc://inet/example.com/alice;port=8443;ptcl=htps#kSecAttrLabel`.
///
/// The names are the mount's directory names, so their `%XX` escapes and `;code=value` qualifiers are
/// kept as written and interpreted by the mount's naming rules when the reference is resolved. A `#`
/// starts the attribute only when what follows is an attribute constant (`kSec…`): names may hold `#`.
package struct SecretReference: Sendable, Hashable, CustomStringConvertible {
    /// The class directory: `genp`, `inet`, `keys`, `cert`.
    package let classCode: String
    /// The group directory name (service, server, tag, label), still escaped.
    package let groupName: String
    /// The item directory name (account, key class, serial) with its qualifiers, still escaped.
    package let itemName: String
    /// The attribute constant named after `#` (`kSecAttrLabel`), or nil for the secret.
    package let attribute: String?

    /// The scheme every reference starts with.
    package static let scheme = "kc://"

    /// The reference as written.
    package var description: String {
        Self.scheme + classCode + "/" + groupName + "/" + itemName + (attribute.map { "#" + $0 } ?? "")
    }

    /// Parses one reference (fuzz entry point). Throws a ``ReferenceSyntaxError`` saying what is wrong.
    package static func parse(_ text: String) throws(ReferenceSyntaxError) -> SecretReference {
        guard text.hasPrefix(scheme) else { throw ReferenceSyntaxError(text, "a reference starts with \(scheme)") }
        var body = Substring(text.dropFirst(scheme.count))
        var attribute: String?
        if let hash = body.lastIndex(of: "#") {
            let fragment = body[body.index(after: hash)...]
            if fragment.hasPrefix("kSec") {
                guard fragment.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                    throw ReferenceSyntaxError(
                        text, "'#\(fragment)' is not an attribute constant such as #kSecAttrLabel")
                }
                attribute = String(fragment)
                body = body[..<hash]
            }
        }
        let parts = body.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw ReferenceSyntaxError(
                text, "expected kc://<class>/<group>/<item> (a '/' inside a name is written %2F)")
        }
        // Every class with a table of its own (the identity join has no secret of its own to refer to).
        guard let classPart = parts.first, let schema = Schema.schema(for: String(classPart)), !schema.isVirtual else {
            throw ReferenceSyntaxError(text, "'\(parts[0])' is not an item class (genp, inet, keys, cert)")
        }
        guard !parts[1].isEmpty, !parts[2].isEmpty else {
            throw ReferenceSyntaxError(text, "empty name (the empty string is written %)")
        }
        if let control = body.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            throw ReferenceSyntaxError(
                text,
                "control character U+\(String(control.value, radix: 16, uppercase: true)) in a name (write it %XX)")
        }
        return SecretReference(
            classCode: String(classPart), groupName: String(parts[1]), itemName: String(parts[2]), attribute: attribute)
    }

    /// Memberwise; ``parse(_:)`` is the way in from text.
    package init(classCode: String, groupName: String, itemName: String, attribute: String?) {
        self.classCode = classCode
        self.groupName = groupName
        self.itemName = itemName
        self.attribute = attribute
    }
}

/// A malformed reference, template or environment file, with the text and what is wrong with it.
package struct ReferenceSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The offending text (a reference, or a line of a file). Never a secret: only what the user wrote.
    package let text: String
    /// What is wrong.
    package let reason: String
    /// 1-based line in a file, when the text came from one.
    package let line: Int?

    package init(_ text: String, _ reason: String, line: Int? = nil) {
        self.text = text
        self.reason = reason
        self.line = line
    }

    /// The reason and the text, cut at 80 characters (a line of a large file stays a readable message).
    package var description: String {
        let shown = text.utf8.count > 80 ? String(text.prefix(80)) + "…" : text
        return (line.map { "line \($0): " } ?? "") + "\(reason): \(shown.debugDescription)"
    }
}
