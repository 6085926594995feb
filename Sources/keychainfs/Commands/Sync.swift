import ArgumentParser
import KeychainFSControlChannel
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSSync
import KeychainFSModel

/// `keychainfs sync …` (docs/spec.md §14): synchronizable items replicated through a git repository. Each verb
/// goes to the vault's daemon when one serves it, else runs in this process.
struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",  // not a schema code
        abstract: "Replicate synchronizable items through a git repository, end to end encrypted.",
        subcommands: [
            Now.self, InitRemote.self, Invite.self, Join.self, SyncStatus.self, Members.self, Remove.self, Rotate.self,
            Leave.self,
            MergeDriver.self,
        ],
        defaultSubcommand: Now.self)

    struct Now: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "now", abstract: "Fetch, merge and push.")
        @OptionGroup var address: DaemonAddress
        func run() throws { SyncRunner.report(try SyncRunner(address).run(SyncNow())) }
    }

    struct InitRemote: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Make a new sync key and push the vault's synchronizable items to REMOTE (an empty repository).")
        @OptionGroup var address: DaemonAddress
        @Argument(help: "The git repository (path or URL).") var remote: String
        @Option(help: "This vault's name in the circle (default: the host's name).") var name: String = SyncRunner
            .hostName
        func run() throws {
            let remote = SyncRunner.absolute(remote)
            SyncRunner.report(try SyncRunner(address).run(SyncInit(remote: remote, name: name)))
        }
    }

    struct Invite: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "invite",
            abstract: "Print a one-time code that lets another vault join (valid one hour unless --expires).")
        @OptionGroup var address: DaemonAddress
        @Option(help: "Seconds the invitation stays valid.") var expires: Int64 = 3600
        func run() throws {
            guard expires > 0 else { throw ValidationError("--expires takes a positive number of seconds") }
            print(try SyncRunner(address).run(SyncInvite(seconds: expires)))
        }
    }

    struct Join: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "join",
            abstract: "Join the sync group of REMOTE with an invitation code read from standard input.")
        @OptionGroup var address: DaemonAddress
        @Argument(help: "The git repository (path or URL).") var remote: String
        @Flag(help: "Read the invitation code from standard input (the only way: never in argv).") var codeStdin = false
        @Option(help: "This vault's name in the circle (default: the host's name).") var name: String = SyncRunner
            .hostName
        func run() throws {
            guard codeStdin else {
                throw ValidationError("pass --code-stdin and give the invitation code on standard input")
            }
            guard let input = try BoundedInput.read(.standardInput, limit: 64 << 10) else {
                throw CLIError("standard input is larger than 64 KiB: expected an invitation code")
            }
            let text = String(decoding: input, as: UTF8.self)
            let code: InvitationCode
            do { code = try InvitationCode.parse(text) } catch { throw CLIError(error.message) }
            let remote = SyncRunner.absolute(remote)
            SyncRunner.report(try SyncRunner(address).run(SyncJoin(remote: remote, code: code, name: name)))
        }
    }

    struct SyncStatus: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Whether the vault syncs, with which remote, how many items.")
        @OptionGroup var address: DaemonAddress
        func run() throws {
            let status = try SyncRunner(address).run(SyncStatusCall())
            for (key, value) in status.sorted(by: { $0.key < $1.key }) {
                print("\(key): \(SyncRunner.text(value))")
            }
        }
    }

    struct Members: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "members",
            abstract: "The circle's members as this vault last verified them: name, fingerprint, added by, when.")
        @OptionGroup var address: DaemonAddress
        func run() throws {
            for d in try SyncRunner(address).run(SyncMembers()) {
                let text = { (key: String) in SyncRunner.text(d[key] ?? .string("")) }
                var line = "\(text("name"))\t\(text("fingerprint"))\tadded by \(text("addedBy")) at \(text("addedAt"))"
                if d["removedBy"] != nil { line += "\tremoved by \(text("removedBy")) at \(text("removedAt"))" }
                if d["self"] == .bool(true) { line += "\t(this vault)" }
                print(line)
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove MEMBER (name or fingerprint): a new epoch key it is not given, every item re-sealed.")
        @OptionGroup var address: DaemonAddress
        @Argument(help: "The member's name or fingerprint.") var member: String
        func run() throws {
            SyncRunner.report(try SyncRunner(address).run(SyncRemove(member: member)))
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate", abstract: "Start a new epoch: a new items key, every item re-sealed, nobody removed."
        )
        @OptionGroup var address: DaemonAddress
        func run() throws {
            SyncRunner.report(try SyncRunner(address).run(SyncRotate()))
        }
    }

    struct Leave: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "leave",
            abstract: "Leave the circle: sign the leave, then drop this vault's sync setup (its items stay).")
        @OptionGroup var address: DaemonAddress
        func run() throws { SyncRunner.report(try SyncRunner(address).run(SyncLeave())) }
    }

    struct MergeDriver: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge-driver",
            abstract: "git's merge driver for item files (registered by init and join; git calls it).",
            shouldDisplay: false)
        @OptionGroup var address: DaemonAddress
        @Argument(help: "%O: the common ancestor (unused: the rule compares the two sides).") var base: String
        @Argument(help: "%A: our version; the result is written here.") var ours: String
        @Argument(help: "%B: their version.") var theirs: String
        @Argument(help: "%P: the file's path in the repository.") var path: String
        func run() throws {
            let name = (path as NSString).lastPathComponent
            // The versions come from the sync remote: read with an item file's bound.
            let limit = RepositoryFile.maxItemBytes
            let readA: Data?, readB: Data?
            do {
                readA = try BoundedInput.read(path: ours, limit: limit)
                readB = try BoundedInput.read(path: theirs, limit: limit)
            } catch {
                throw CLIError("merge driver: cannot read the versions of \(path): \(error)")
            }
            guard let a = readA, let b = readB else {
                throw CLIError("merge driver: a version of \(path) is larger than \(BoundedInput.describe(limit))")
            }
            let merged = try SyncRunner(address).run(SyncMerge(name: name, ours: a, theirs: b))
            do { try OutsideFile.replace(merged, at: ours) } catch {
                throw CLIError("merge driver: cannot write \(ours): \(error.message)")
            }
        }
    }
}

/// Runs a sync verb where the vault's engine runs (``VaultRoute``: its daemon, else this process).
struct SyncRunner {
    let address: DaemonAddress
    init(_ address: DaemonAddress) { self.address = address }

    func run<Call: SyncCall>(_ call: Call) throws -> Call.Reply {
        try VaultRoute(vault: try address.resolveVault()).perform(call, executable: Self.executable)
    }

    /// This program, which git runs as the merge driver.
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    static func report(_ report: SyncReport) {
        print("exported \(report.exported), imported \(report.imported)\(report.pushed ? ", pushed" : "")")
        for note in report.notes { print(note) }
        for skipped in report.skipped { FileHandle.standardError.write(Data("skipped \(skipped)\n".utf8)) }
    }

    /// The default member name: the host's name.
    static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "vault" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "vault" : name
    }

    static func text(_ value: KeychainValue) -> String {
        switch value {
        case .string(let s): TerminalText.escaped(s)  // names and notes from the repository: one line each
        case .number(let n): String(n)
        case .bool(let b): b ? "yes" : "no"
        case .date(let date): ISO8601DateFormatter().string(from: date)
        default: value.typeName
        }
    }

    /// A local path made absolute (the daemon runs elsewhere); URLs pass through.
    static func absolute(_ remote: String) -> String {
        remote.contains("://") || remote.contains(":") && !remote.hasPrefix("/") && !remote.hasPrefix(".")
            ? remote
            : URL(fileURLWithPath: remote).standardizedFileURL.path
    }
}
