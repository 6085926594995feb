import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// Every change acknowledged to its caller survives a power cut, and no item reads as a secret that was
/// never written (docs/filesystem.md "Creating items and what survives").
///
/// This machine's kernel has no device-mapper (no dm-log-writes, docs/testing-and-packaging.md), so the cut
/// is made at the system-call level: the daemon runs under Tests/PowerCut/iolog.c (LD_PRELOAD), which logs
/// every change to the vault's files with its data; the test appends `ack N` after each call that returned
/// success; ``PowerCutReplay`` rebuilds the vault at every crash point and the real engine opens each one.
@Suite(.serialized) struct PowerCutTests {
    /// Creations through the mount (mkdir + write + close), through the CLI (SecItemAdd over the control
    /// socket), then rewrites of values through the mount: a few hundred crash points. `POWERCUT_SCALE=N`
    /// (`make soak`) multiplies them.
    static let scale = ProcessInfo.processInfo.environment["POWERCUT_SCALE"].flatMap { Int($0) } ?? 1
    static let mountCreations = 12 * scale
    static let cliCreations = 4 * scale
    static let updates = 120 * scale

    @Test func everyAcknowledgedChangeSurvivesEveryCrashPoint() throws {
        let run = try Self.run(environment: [:])
        #expect(run.points >= 200, "hundreds of crash points: \(run.points)")
        #expect(run.failures.isEmpty, "\(run.failures.count) of \(run.states) states: \(run.failures.prefix(8))")
    }

    /// With `synchronous = NORMAL` (the test switch) commits are not fsynced and the replay finds them lost.
    @Test func theTestFailsWithoutDurableCommits() throws {
        let run = try Self.run(environment: ["KEYCHAINFS_TEST_DISABLE_GUARDS": "durability"])
        #expect(
            run.failures.contains { $0.contains("lost") },
            "acknowledged changes lost at some crash point: \(run.states)"
        )
    }

    struct Run {
        var points = 0
        var states = 0
        var failures: [String] = []
    }

    /// What was written to each item, in order: (change number, value).
    typealias Writes = [String: [(change: Int, value: Data)]]

    static func run(environment: [String: String]) throws -> Run {
        let m = try MountedVault()
        defer { m.close() }
        let shim = try buildShim(in: m.root)
        m.unmount()
        let baseline = try vaultFiles(m.vault)
        let log = m.root + "/io.log"
        let shimEnvironment = ["LD_PRELOAD": shim, "IOLOG_DIR": m.vault, "IOLOG_PATH": log].merging(environment) { $1 }
        try expectSuccess(m.remount(environment: shimEnvironment))
        let writes = try workload(m, log: log)
        m.unmount()
        var run = Run()
        let logData = try Data(contentsOf: URL(fileURLWithPath: log))
        run.points = try PowerCutReplay.crashPoints(log: logData, root: m.vault, baseline: baseline) { state in
            run.states += 1
            let directory = m.root + "/state-\(run.states)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try write(state.files, to: directory)
            run.failures += check(directory, state, writes).map { "\(state.model) #\(run.states): \($0)" }
        }
        print(
            "PowerCutTests \(environment): \(run.points) crash points, \(run.states) states, \(run.failures.count) failures"
        )
        return run
    }

    /// The changes, each acknowledged in the log once its call returned success.
    static func workload(_ m: MountedVault, log: String) throws -> Writes {
        let ack = open(log, O_WRONLY | O_APPEND)
        guard ack >= 0 else { throw POSIXError(.EIO) }
        defer { close(ack) }
        var writes: Writes = [:]
        var change = 0
        func acknowledge(_ item: String, _ value: Data) {
            change += 1
            writes[item, default: []].append((change, value))
            let line = "ack \(change) 0\n"
            _ = line.withCString { Glibc.write(ack, $0, strlen($0)) }
        }
        func value(_ item: String, _ version: Int) -> Data { Data("\(item)-v\(version)-\(UUID().uuidString)".utf8) }
        #expect(FS.mkdir(m.path("genp/powercut")) == 0)
        for i in 0..<mountCreations {
            let item = "made\(i)", v = value(item, 0)
            guard FS.mkdir(m.path("genp/powercut/\(item)")) == 0 else { continue }
            // What mkdir stored, if anything, was not acknowledged as a secret: only the written value is.
            if FS.write(m.path("genp/powercut/\(item)/value"), v) == 0 { acknowledge(item, v) }
        }
        for i in 0..<cliCreations {
            let item = "cli\(i)", v = value(item, 0)
            let added = m.cli([
                "add-generic-password", "-s", "powercut", "-a", item, "-w", String(decoding: v, as: UTF8.self), m.vault,
            ])
            if added.status == 0 { acknowledge(item, v) }
        }
        let items = (0..<mountCreations).map { "made\($0)" } + (0..<cliCreations).map { "cli\($0)" }
        for j in 0..<updates {
            let item = items[j % items.count], v = value(item, j + 1)
            if FS.write(m.path("genp/powercut/\(item)/value"), v) == 0 { acknowledge(item, v) }
        }
        #expect(change == mountCreations + cliCreations + updates, "every change succeeded")
        return writes
    }

    /// Opens the rebuilt vault with the engine: every item holds its last acknowledged value or a later one
    /// written after it, an item never acknowledged holds nothing or one of its values, never anything else.
    static func check(_ directory: String, _ state: PowerCutReplay.State, _ writes: Writes) -> [String] {
        let keychain: Keychain
        do { keychain = try Keychain(vault: Vault(directory: directory)) } catch {
            return ["the vault does not open: \(error)"]
        }
        let acknowledged = Set(state.acknowledged)
        var failures: [String] = []
        for (item, history) in writes.sorted(by: { $0.key < $1.key }) {
            let lastAcknowledged = history.lastIndex { acknowledged.contains($0.change) }
            let allowed = history[(lastAcknowledged ?? 0)...].map(\.value)
            let query: KeychainDictionary = [
                "class": "genp", "svce": "powercut", "acct": .string(item), "r_Data": true,
            ]
            do {
                let stored = try keychain.copyMatching(query, caller: Caller())?.dataValue ?? Data()
                if !allowed.contains(stored) {
                    let older = history[..<(lastAcknowledged ?? 0)].map(\.value).contains(stored)
                    failures.append(
                        older
                            ? "\(item): an acknowledged change was lost (an older value)"
                            : stored.isEmpty
                                ? "\(item) reads as an empty secret" : "\(item) reads a value never written")
                }
            } catch let error where error.status == SecStatus.itemNotFound {
                if lastAcknowledged != nil { failures.append("\(item): an acknowledged creation was lost") }
            } catch {
                failures.append("\(item): \(error)")
            }
        }
        return failures
    }

    static func buildShim(in directory: String) throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PowerCut/iolog.c").path
        let library = directory + "/iolog.so"
        try expectSuccess(
            Command.run(
                "/usr/bin/cc", ["-shared", "-fPIC", "-O1", "-Wall", "-o", library, source, "-ldl"], timeout: 60))
        return library
    }

    /// The vault's files (not its WAL index, which SQLite rebuilds): the replay's starting point.
    static func vaultFiles(_ vault: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: vault) where !name.hasSuffix("-shm") {
            var st = stat()
            guard lstat(vault + "/" + name, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            files[name] = try Data(contentsOf: URL(fileURLWithPath: vault + "/" + name))
        }
        return files
    }

    static func write(_ files: [String: Data], to directory: String) throws {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for (relative, content) in files {
            let path = directory + "/" + relative
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            guard
                FileManager.default.createFile(atPath: path, contents: content, attributes: [.posixPermissions: 0o600])
            else { throw POSIXError(.EIO) }
        }
    }
}
