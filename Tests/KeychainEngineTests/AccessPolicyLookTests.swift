import Foundation
@testable import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Testing

/// `access.toml` was stat'ed twice on every FUSE request. It is now looked at only when the
/// vault directory's watch heard it change (or a quiet second went by), and every change still applies
/// to the very next call.
@Suite struct AccessPolicyLookTests {
    func withVault(_ body: (Vault) throws -> Void) throws {
        let directory = "/tmp/kcfs-policy-look-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(Vault(directory: directory))
    }

    static func rule(_ name: String) -> AccessRule { AccessRule(name: name, match: .uid(getuid()), groups: [name]) }

    /// A thousand requests against an unchanged policy look at the file at most twice (the first call, and
    /// a quiet second going by on a slow machine). Without the watch (`watchesFile: false`, as before)
    /// every call looks: the counter shows the test can fail.
    @Test func anUnchangedPolicyIsNotLookedAtPerRequest() throws {
        try withVault { vault in
            try AccessPolicy.write([Self.rule("one")], to: vault)
            for watches in [true, false] {
                let policy = try AccessPolicy(
                    vault: vault, defaultCaller: Caller(), strict: false, watchesFile: watches)
                let before = policy.looks.load(ordering: .relaxed)
                for _ in 0..<1_000 {
                    #expect(policy.caller(pid: getpid(), uid: getuid())?.grantedBy == "one")
                    #expect(policy.hasRules)
                }
                let looks = policy.looks.load(ordering: .relaxed) - before
                if watches { #expect(looks <= 2, "looked at the file \(looks) times") } else { #expect(looks == 2_000) }
            }
        }
    }

    /// Every way the file changes applies to the next call at once: renamed over (`access grant`),
    /// written in place, removed, made again, and made malformed (the last good rules stay, and the call
    /// says why).
    @Test func everyChangeAppliesToTheNextCall() throws {
        try withVault { vault in
            let policy = try AccessPolicy(vault: vault, defaultCaller: Caller(), strict: false)
            let path = AccessPolicy.path(of: vault)
            #expect(try policy.rules().isEmpty)
            for round in 0..<50 {
                try AccessPolicy.write([Self.rule("renamed\(round)")], to: vault)
                #expect(try policy.rules().map(\.name) == ["renamed\(round)"])
                let inPlace = open(path, O_WRONLY | O_TRUNC)
                let text = AccessPolicyFile.render([Self.rule("inplace\(round)")])
                _ = text.withCString { write(inPlace, $0, strlen($0)) }
                close(inPlace)
                #expect(try policy.rules().map(\.name) == ["inplace\(round)"])
                unlink(path)
                #expect(try policy.rules().isEmpty)
            }
            try AccessPolicy.write([Self.rule("good")], to: vault)
            #expect(try policy.rules().map(\.name) == ["good"])
            try Data("[[rule]\nnot toml".utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: KeychainError.self) { try policy.rules() }
            #expect(throws: KeychainError.self, "still said while the file stays malformed") { try policy.rules() }
            #expect(
                policy.caller(pid: getpid(), uid: getuid())?.grantedBy == "good", "the last good rules stay in force")
            try AccessPolicy.write([Self.rule("fixed")], to: vault)
            #expect(try policy.rules().map(\.name) == ["fixed"])
        }
    }

    /// A FUSE request asked for the rules up to three times, each a `read` of the watch. Within
    /// ``AccessPolicy/asOneRequest(_:)`` the watch is asked once, and a change made before the request
    /// still applies to it. Outside a request every question asks (the count shows the test can fail).
    @Test func aRequestAsksTheWatchOnceAndSeesWhatChangedBeforeIt() throws {
        try withVault { vault in
            let policy = try AccessPolicy(vault: vault, defaultCaller: Caller(), strict: false)
            _ = try policy.rules()
            for round in 0..<20 {
                try AccessPolicy.write([Self.rule("r\(round)")], to: vault)
                _ = try policy.rules()  // the rename is heard; the quiet second starts again
                try AccessPolicy.write([Self.rule("s\(round)")], to: vault)
                let before = policy.watchAsks.load(ordering: .relaxed)
                AccessPolicy.asOneRequest {
                    #expect(policy.caller(pid: getpid(), uid: getuid())?.grantedBy == "s\(round)")
                    for _ in 0..<10 { #expect(policy.hasRules) }
                }
                #expect(policy.watchAsks.load(ordering: .relaxed) - before <= 1, "round \(round)")
            }
            let before = policy.watchAsks.load(ordering: .relaxed)
            for _ in 0..<10 { #expect(policy.hasRules) }
            #expect(policy.watchAsks.load(ordering: .relaxed) - before == 10)
        }
    }
}
