import ArgumentParser
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// `keychainfs access list | grant | revoke`: edits the vault's `access.toml` (docs/spec.md §12). A running daemon
/// re-reads it on its next request, so a change applies at once, without a remount.
struct Access: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "access",
        abstract: "Per-application access: which processes see which access groups.",
        discussion: """
            Rules match a caller by executable (--exe: the file itself, by device and inode), its SHA-256 (--sha256), \
            uid (--uid), a unit of the system manager (--unit, /system.slice/.../NAME in /proc/PID/cgroup) or of the \
            caller's user manager (--user-unit); --ancestor lets an executable rule match any ancestor process too (a rule \
            for a deploy program then covers the cat it runs). The first matching rule grants its groups in order; the \
            first takes new items. Callers no rule matches get the mount's --access-group list, or nothing with \
            'mount --strict'. While rules exist, items of groups a caller lacks do not exist for it.
            """,
        subcommands: [AccessList.self, AccessGrant.self, AccessRevoke.self])
}

extension ControlPermission: ExpressibleByArgument {}

/// The matcher flags shared by grant and revoke: exactly one.
struct RuleMatcher: ParsableArguments {
    @Option(help: ArgumentHelp("An executable's absolute path.", valueName: "PATH")) var exe: String?
    @Option(help: ArgumentHelp("An executable's SHA-256, hex.", valueName: "HEX")) var sha256: String?
    @Option(help: ArgumentHelp("A user id.", valueName: "N")) var uid: UInt32?
    @Option(help: ArgumentHelp("A unit of the system manager (system.slice).", valueName: "NAME")) var unit: String?
    @Option(help: ArgumentHelp("A unit of the caller's own user manager (user@UID.service).", valueName: "NAME"))
    var userUnit: String?
    @Flag(help: "Also match when an ancestor process runs the executable (--exe, --sha256).") var ancestor = false

    func validate() throws {
        let given = [exe != nil, sha256 != nil, uid != nil, unit != nil, userUnit != nil].filter { $0 }.count
        guard given == 1 else {
            throw ValidationError("give exactly one of --exe, --sha256, --uid, --unit, --user-unit")
        }
        if ancestor && (uid != nil || unit != nil || userUnit != nil) {
            throw ValidationError("--ancestor applies to --exe and --sha256")
        }
        if let exe, !exe.hasPrefix("/") { throw ValidationError("--exe takes an absolute path") }
        if let sha256, sha256.utf8.count != 64 || !sha256.allSatisfy(\.isHexDigit) {
            throw ValidationError("--sha256 takes 64 hex digits")
        }
    }

    var match: AccessRule.Match {
        if let exe { return .executable(exe) }
        if let sha256 { return .sha256(sha256.lowercased()) }
        if let uid { return .uid(uid) }
        if let userUnit { return .userUnit(userUnit) }
        return .unit(unit!)
    }
}

/// Reads and writes the rules of the vault a command names.
enum AccessRules {
    static func load(_ vault: Vault) throws -> [AccessRule] {
        do { return try AccessPolicy.read(AccessPolicy.path(of: vault)) } catch { throw CLIError(error.message) }
    }

    static func save(_ rules: [AccessRule], _ vault: Vault) throws {
        do { try AccessPolicy.write(rules, to: vault) } catch { throw CLIError(error.message) }
    }

    /// What `match` matches, for one line of output (``TerminalText``: a path or unit of access.toml holding a
    /// newline or an escape starts no line of its own).
    static func describe(_ match: AccessRule.Match) -> String {
        switch match {
        case .executable(let path): "exe \(TerminalText.escaped(path))"
        case .sha256(let hex): "sha256 \(hex)"
        case .uid(let uid): "uid \(uid)"
        case .unit(let unit): "unit \(TerminalText.escaped(unit))"
        case .userUnit(let unit): "user-unit \(TerminalText.escaped(unit))"
        }
    }
}

struct AccessList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the rules, in the order they are tried, each a boundary or advisory (docs/threat-model.md).")
    @OptionGroup var address: DaemonAddress

    func run() throws {
        let rules = try AccessRules.load(try address.resolveVault())
        if rules.isEmpty { print("no rules: every caller has the mount's access groups") }
        for rule in rules {
            let allowed =
                rule.permissions.isEmpty
                ? "" : "\tallow: " + rule.permissions.sorted().map(\.rawValue).joined(separator: ", ")
            // Names and groups are access.toml's text: escaped, so each rule is one line.
            let groups = rule.groups.map(TerminalText.escaped).joined(separator: ", ")
            print(
                "\(TerminalText.escaped(rule.name))\t\(AccessRules.describe(rule.match))\(rule.ancestor ? " (or an ancestor)" : "")\t\(rule.assurance.rawValue)\tgroups: \(groups)\(allowed)"
            )
        }
    }
}

struct AccessGrant: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant", abstract: "Grant an access group to the callers a rule matches.")
    @Argument(help: "The access group.") var group: String
    @OptionGroup var matcher: RuleMatcher
    @Option(help: "The rule's name (default: what it matches).") var name: String?
    @Option(
        help: ArgumentHelp(
            "Also allow these control commands (repeatable; needed under --strict, and for vault commands whenever rules exist).",
            valueName: "PERMISSION")) var allow: [ControlPermission] = []
    @OptionGroup var address: DaemonAddress

    func validate() throws {
        if group.isEmpty { throw ValidationError("the access group cannot be empty") }
    }

    func run() throws {
        if let exe = matcher.exe, let interpreter = ScriptInterpreter.of(exe) {
            throw CLIError(
                "\(TerminalText.escaped(exe)) is a script run by \(interpreter): the kernel runs \(interpreter), so a rule for the script never matches; "
                    + "grant a binary (a rule for \(interpreter) would admit every script it runs)")
        }
        let vault = try address.resolveVault()
        var rules = try AccessRules.load(vault)
        if let index = rules.firstIndex(where: { $0.match == matcher.match }) {
            if !rules[index].groups.contains(group) { rules[index].groups.append(group) }
            if matcher.ancestor { rules[index].ancestor = true }
            if let name { rules[index].name = name }
            rules[index].permissions.formUnion(allow)
        } else {
            rules.append(
                AccessRule(
                    name: name ?? AccessRule.defaultName(for: matcher.match), match: matcher.match,
                    ancestor: matcher.ancestor, groups: [group], permissions: Set(allow)))
        }
        if Set(rules.map(\.name)).count != rules.count {
            throw CLIError("another rule is already named '\(name ?? "")'")
        }
        try AccessRules.save(rules, vault)
    }
}

struct AccessRevoke: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Take an access group away from a rule (the rule goes with its last group).")
    @Argument(help: "The access group.") var group: String
    @OptionGroup var matcher: RuleMatcher
    @OptionGroup var address: DaemonAddress

    func run() throws {
        let vault = try address.resolveVault()
        var rules = try AccessRules.load(vault)
        guard let index = rules.firstIndex(where: { $0.match == matcher.match }), rules[index].groups.contains(group)
        else {
            throw CLIError("no rule for \(AccessRules.describe(matcher.match)) grants '\(group)'")
        }
        rules[index].groups.removeAll { $0 == group }
        if rules[index].groups.isEmpty { rules.remove(at: index) }
        try AccessRules.save(rules, vault)
    }
}
