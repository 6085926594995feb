import KeychainFSModel
import KeychainFSStore

/// `access.toml`: the vault's per-application access rules (docs/spec.md §12), in a small subset of TOML:
///
/// ```toml
/// [[rule]]
/// name = "deploy"                 # optional; default: what it matches (exe:/usr/bin/deploy)
/// exe = "/usr/bin/deploy"         # or sha256 = "…", uid = 1000, unit = "backup.service" (system),
///                                 # user-unit = "backup.service" (the caller's user manager)
/// ancestor = true                 # exe and sha256 only: an ancestor process may match
/// groups = ["deploy", "shared"]   # granted in order; the first takes new items
/// allow = ["device", "prompts"]   # optional: control commands beyond item calls (ControlPermission)
/// ```
///
/// Rules are tried in file order; the first that matches a caller decides. ``parse(_:)`` is pure (a fuzz
/// entry point) and ``render(_:)`` writes what it reads back.
public enum AccessPolicyFile {
    /// The file's name in the vault directory.
    public static let fileName = "access.toml"

    /// A malformed file: the line and what is wrong.
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { "\(AccessPolicyFile.fileName) line \(line): \(reason)" }
    }

    /// The rules of a file's text.
    public static func parse(_ text: String) throws(SyntaxError) -> [AccessRule] {
        var tables: [(line: Int, fields: [String: (line: Int, value: TOMLValue)])] = []
        for (index, raw) in TextLines.split(text).enumerated() {
            let number = index + 1
            var scanner = TOMLScanner(Substring(raw), line: number)
            scanner.skipSpace()
            if scanner.atEndOfLine { continue }
            if scanner.consume("[[") {
                scanner.skipSpace()
                guard scanner.consume("rule") else {
                    throw SyntaxError(line: number, reason: "only [[rule]] tables are known")
                }
                scanner.skipSpace()
                guard scanner.consume("]]") else { throw SyntaxError(line: number, reason: "expected ]] after [[rule") }
                scanner.skipSpace()
                guard scanner.atEndOfLine else {
                    throw SyntaxError(line: number, reason: "unexpected text after [[rule]]")
                }
                tables.append((number, [:]))
                continue
            }
            let key = try scanner.key()
            scanner.skipSpace()
            guard scanner.consume("=") else { throw SyntaxError(line: number, reason: "expected = after '\(key)'") }
            scanner.skipSpace()
            let value = try scanner.value()
            scanner.skipSpace()
            guard scanner.atEndOfLine else {
                throw SyntaxError(line: number, reason: "unexpected text after the value of '\(key)'")
            }
            guard !tables.isEmpty else { throw SyntaxError(line: number, reason: "'\(key)' outside a [[rule]] table") }
            guard tables[tables.count - 1].fields[key] == nil else {
                throw SyntaxError(line: number, reason: "'\(key)' given twice")
            }
            tables[tables.count - 1].fields[key] = (number, value)
        }
        var rules: [AccessRule] = []
        for table in tables { rules.append(try rule(table.fields, line: table.line)) }
        var names = Set<String>()
        for (rule, table) in zip(rules, tables) where !names.insert(rule.name).inserted {
            throw SyntaxError(line: table.line, reason: "two rules are named '\(rule.name)'")
        }
        return rules
    }

    private static func rule(_ fields: [String: (line: Int, value: TOMLValue)], line: Int) throws(SyntaxError)
        -> AccessRule
    {
        if let unknown = fields.first(where: {
            !["name", "exe", "sha256", "uid", "unit", "user-unit", "ancestor", "groups", "allow"].contains($0.key)
        }) {
            throw SyntaxError(
                line: unknown.value.line,
                reason:
                    "unknown key '\(unknown.key)' (name, exe, sha256, uid, unit, user-unit, ancestor, groups, allow)")
        }
        let matchers = ["exe", "sha256", "uid", "unit", "user-unit"].filter { fields[$0] != nil }
        guard matchers.count == 1, let which = matchers.first, let (valueLine, value) = fields[which] else {
            throw SyntaxError(line: line, reason: "a rule matches exactly one of exe, sha256, uid, unit, user-unit")
        }
        let match: AccessRule.Match
        switch (which, value) {
        case ("exe", .string(let path)):
            guard path.hasPrefix("/"), !path.contains("\0") else {
                throw SyntaxError(line: valueLine, reason: "exe must be an absolute path")
            }
            match = .executable(path)
        case ("sha256", .string(let hex)):
            let lower = hex.lowercased()
            guard lower.utf8.count == 64,
                lower.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
            else {
                throw SyntaxError(line: valueLine, reason: "sha256 must be 64 hex digits")
            }
            match = .sha256(lower)
        case ("uid", .integer(let uid)):
            guard let uid = UInt32(exactly: uid) else {
                throw SyntaxError(line: valueLine, reason: "uid must be 0…4294967295")
            }
            match = .uid(uid)
        case ("unit", .string(let unit)), ("user-unit", .string(let unit)):
            guard !unit.isEmpty, !unit.contains("/"), !unit.contains("\0"), !unit.hasSuffix(".slice") else {
                throw SyntaxError(
                    line: valueLine, reason: "\(which) must be a unit name (backup.service), not a path or a slice")
            }
            match = which == "unit" ? .unit(unit) : .userUnit(unit)
        default:
            throw SyntaxError(
                line: valueLine, reason: which == "uid" ? "uid must be an integer" : "\(which) must be a string")
        }
        var ancestor = false
        if let (ancestorLine, value) = fields["ancestor"] {
            guard case .boolean(let flag) = value else {
                throw SyntaxError(line: ancestorLine, reason: "ancestor must be true or false")
            }
            if flag, ["uid", "unit", "user-unit"].contains(which) {
                throw SyntaxError(line: ancestorLine, reason: "ancestor applies to exe and sha256 rules")
            }
            ancestor = flag
        }
        guard let (groupsLine, groupsValue) = fields["groups"] else {
            throw SyntaxError(line: line, reason: "a rule needs groups = [\"…\"]")
        }
        guard case .strings(let groups) = groupsValue, !groups.isEmpty, groups.allSatisfy({ !$0.isEmpty }) else {
            throw SyntaxError(line: groupsLine, reason: "groups must be a non-empty array of non-empty strings")
        }
        var name = AccessRule.defaultName(for: match)
        if let (nameLine, value) = fields["name"] {
            guard case .string(let given) = value, !given.isEmpty else {
                throw SyntaxError(line: nameLine, reason: "name must be a non-empty string")
            }
            name = given
        }
        return AccessRule(
            name: name, match: match, ancestor: ancestor, groups: groups, permissions: try permissions(fields["allow"]))
    }

    private static func permissions(_ field: (line: Int, value: TOMLValue)?) throws(SyntaxError) -> Set<
        ControlPermission
    > {
        guard let (line, value) = field else { return [] }
        let known = ControlPermission.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .strings(let names) = value else {
            throw SyntaxError(line: line, reason: "allow must be an array of \(known)")
        }
        var permissions = Set<ControlPermission>()
        for name in names {
            guard let permission = ControlPermission(rawValue: name) else {
                throw SyntaxError(line: line, reason: "allow: unknown permission '\(name)' (\(known))")
            }
            permissions.insert(permission)
        }
        return permissions
    }

    /// The file's text for `rules`; ``parse(_:)`` reads it back as the same rules.
    public static func render(_ rules: [AccessRule]) -> String {
        var out =
            "# keychainfs per-application access (docs/spec.md §12); edit with 'keychainfs access grant/revoke'.\n"
        for rule in rules {
            out += "\n[[rule]]\nname = \(quoted(rule.name))\n"
            switch rule.match {
            case .executable(let path): out += "exe = \(quoted(path))\n"
            case .sha256(let hex): out += "sha256 = \(quoted(hex))\n"
            case .uid(let uid): out += "uid = \(uid)\n"
            case .unit(let unit): out += "unit = \(quoted(unit))\n"
            case .userUnit(let unit): out += "user-unit = \(quoted(unit))\n"
            }
            if rule.ancestor { out += "ancestor = true\n" }
            out += "groups = [" + rule.groups.map(quoted).joined(separator: ", ") + "]\n"
            if !rule.permissions.isEmpty {
                out +=
                    "allow = [" + rule.permissions.sorted().map { quoted($0.rawValue) }.joined(separator: ", ") + "]\n"
            }
        }
        return out
    }

    /// A TOML basic string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// The values the rules use.
enum TOMLValue: Equatable {
    case string(String)
    case integer(Int64)
    case boolean(Bool)
    case strings([String])
}

/// Reads one line of TOML: bare keys, basic and literal strings, integers, booleans, arrays of strings,
/// `#` comments.
struct TOMLScanner {
    private var rest: Substring
    private let line: Int

    init(_ text: Substring, line: Int) {
        rest = text
        self.line = line
    }

    var atEndOfLine: Bool { rest.isEmpty || rest.first == "#" }

    mutating func skipSpace() { rest = rest.drop { $0 == " " || $0 == "\t" } }

    mutating func consume(_ token: String) -> Bool {
        guard rest.hasPrefix(token) else { return false }
        rest = rest.dropFirst(token.count)
        return true
    }

    private func error(_ reason: String) -> AccessPolicyFile.SyntaxError {
        AccessPolicyFile.SyntaxError(line: line, reason: reason)
    }

    mutating func key() throws(AccessPolicyFile.SyntaxError) -> String {
        let key = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
        guard !key.isEmpty else { throw error("expected a key") }
        rest = rest.dropFirst(key.count)
        return String(key)
    }

    mutating func value() throws(AccessPolicyFile.SyntaxError) -> TOMLValue {
        if rest.first == "\"" || rest.first == "'" { return .string(try string()) }
        if consume("true") { return .boolean(true) }
        if consume("false") { return .boolean(false) }
        if consume("[") {
            var items: [String] = []
            while true {
                skipSpace()
                if consume("]") { return .strings(items) }
                guard rest.first == "\"" || rest.first == "'" else { throw error("arrays hold strings here") }
                items.append(try string())
                skipSpace()
                if consume(",") { continue }
                skipSpace()
                guard consume("]") else { throw error("expected , or ] in the array (one line)") }
                return .strings(items)
            }
        }
        var digits = rest.prefix { $0 == "+" || $0 == "-" || $0 == "_" || ($0.isASCII && $0.isNumber) }
        guard !digits.isEmpty else { throw error("expected a value (string, integer, true/false or array)") }
        rest = rest.dropFirst(digits.count)
        digits = digits.filter { $0 != "_" }[...]
        guard let number = Int64(digits) else { throw error("'\(digits)' is not an integer") }
        return .integer(number)
    }

    private mutating func string() throws(AccessPolicyFile.SyntaxError) -> String {
        let quote = rest.removeFirst()
        var out = ""
        while let c = rest.first {
            rest.removeFirst()
            if c == quote { return out }
            if c == "\n" || c == "\r" { break }
            if c != "\\" || quote == "'" { out.append(c); continue }
            guard let escape = rest.first else { break }
            rest.removeFirst()
            switch escape {
            case "\"": out.append("\"")
            case "\\": out.append("\\")
            case "n": out.append("\n")
            case "t": out.append("\t")
            case "r": out.append("\r")
            case "u", "U":
                let count = escape == "u" ? 4 : 8
                let hex = rest.prefix(count)
                guard hex.count == count, let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else {
                    throw error("bad \\\(escape) escape")
                }
                rest = rest.dropFirst(count)
                out.unicodeScalars.append(scalar)
            default: throw error("unknown escape \\\(escape)")
            }
        }
        throw error("unterminated string")
    }
}
