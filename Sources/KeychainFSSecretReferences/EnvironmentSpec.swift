import KeychainFSEngine
import KeychainFSModel

/// The environment `keychainfs run` gives its command (docs/spec.md §13): `NAME=VALUE` pairs from `--env` and
/// `--env-file`, where a value that is a `kc://` reference is resolved and any other value is kept as
/// written (as `op run` and `sops exec-env` files mix both).
package struct EnvironmentSpec: Sendable, Equatable {
    /// A variable's value as written.
    package enum Value: Sendable, Equatable {
        case literal(String)
        case reference(SecretReference)
    }

    /// Variables in the order given; a later one with the same name wins.
    package var variables: [(name: String, value: Value)]

    package init(variables: [(name: String, value: Value)] = []) { self.variables = variables }

    package static func == (a: EnvironmentSpec, b: EnvironmentSpec) -> Bool {
        a.variables.map(\.name) == b.variables.map(\.name) && a.variables.map(\.value) == b.variables.map(\.value)
    }

    /// One `NAME=VALUE` (an `--env` argument; fuzz entry point with ``parseFile(_:)``).
    package static func parseAssignment(_ text: String, line: Int? = nil) throws(ReferenceSyntaxError) -> (
        name: String, value: Value
    ) {
        guard let equals = text.firstIndex(of: "=") else {
            throw ReferenceSyntaxError(text, "expected NAME=VALUE", line: line)
        }
        let name = String(text[..<equals])
        guard isVariableName(name) else {
            throw ReferenceSyntaxError(
                name, "not an environment variable name (letters, digits and _, not starting with a digit)", line: line)
        }
        let value = String(text[text.index(after: equals)...])
        guard value.hasPrefix(SecretReference.scheme) else { return (name, .literal(value)) }
        do { return (name, .reference(try SecretReference.parse(value))) } catch {
            throw ReferenceSyntaxError(error.text, error.reason, line: line)
        }
    }

    /// An env file: one `NAME=VALUE` per line (ended by `\n` or `\r\n` only), optionally after `export `;
    /// blank lines and lines starting with `#` are skipped; a value may be wrapped in one pair of single or
    /// double quotes (no escapes inside). At most ``WorkflowText/maximumSize`` bytes.
    package static func parseFile(_ text: String) throws(ReferenceSyntaxError) -> EnvironmentSpec {
        try WorkflowText.checkSize(text, kind: "env file")
        var spec = EnvironmentSpec()
        for (index, rawLine) in TextLines.split(text).enumerated() {
            var line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = line.dropFirst("export ".count).drop { $0 == " " } }
            guard let equals = line.firstIndex(of: "=") else {
                throw ReferenceSyntaxError(String(line), "expected NAME=VALUE", line: index + 1)
            }
            var value = line[line.index(after: equals)...]
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = value.dropFirst().dropLast()
            }
            spec.variables.append(try parseAssignment(String(line[..<equals]) + "=" + value, line: index + 1))
        }
        return spec
    }

    /// POSIX's portable names: what every shell can export.
    package static func isVariableName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy {
            $0 == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
        }
    }
}
