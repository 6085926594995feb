import KeychainFSControlChannel
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// `mount --kernel-cache` (docs/spec.md §4 "Two read paths"): what it refuses. Its lock guarantees are tested
/// with the gatekeeper path's in ``ReadPathLockTests``.
@Suite struct KernelCachePathTests {
    let m: MountedVault

    /// A vault with an unprotected and a Face ID-protected item, mounted on the kernel-cache path.
    init() throws {
        m = try MountedVault()
        let connection = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller())
        _ = try connection.add(["class": "genp", "svce": "plain", "acct": "open", "v_Data": .data(Data("open".utf8))])
        _ = try connection.add([
            "class": "genp", "svce": "face", "acct": "token", "v_Data": .data(Data("s3cret".utf8)),
            "accc": .number(1 << 1),
        ])
        m.unmount()
        try expectSuccess(m.remount(["--kernel-cache"]))
    }

    @Test func servesValuesReadOnlyAndRefusesProtectedOnes() throws {
        #expect(FS.read(m.path("genp/plain/open/value")) == .success(Data("open".utf8)))
        #expect(
            FS.read(m.path("genp/face/token/value")) == .failure(Errno(EACCES)), "no prompt can be attributed: EACCES")
        #expect(FS.write(m.path("genp/plain/open/value"), "changed") == EROFS)
        #expect(FS.mkdir(m.path("genp/plain/new")) == EROFS)
        #expect(FS.read(m.path("genp/plain/open/value")) == .success(Data("open".utf8)))
        let log = (try? String(contentsOfFile: m.vault + "/daemon.log", encoding: .utf8)) ?? ""
        #expect(log.contains("access control refused on a --kernel-cache mount"), "the refusal is logged")
    }

    @Test func refusedWithAnAuditLogOrStrictAccess() throws {
        m.unmount()
        let audit = m.remount(["--kernel-cache", "--audit-log", m.root + "/audit.log"])
        #expect(!audit.succeeded && audit.stderr.contains("--kernel-cache cannot be combined with --audit-log"))
        let strict = m.remount(["--kernel-cache", "--strict"])
        #expect(!strict.succeeded && strict.stderr.contains("--kernel-cache cannot be combined with --strict"))
        #expect(!m.isMounted)
    }

    @Test func refusedWhileAccessRulesExistAndReadsStopWhenRulesAppear() throws {
        // Rules written while mounted: the daemon notices within a second, drops what the kernel holds (the
        // value read here is in the page cache) and stops serving files.
        #expect(FS.read(m.path("genp/plain/open/value")) == .success(Data("open".utf8)))
        try expectSuccess(m.cli(["access", "grant", "tools", "--exe", "/usr/bin/cat", "--vault", m.vault]))
        #expect(
            m.wait { FS.read(m.path("genp/plain/open/value")) == .failure(Errno(EACCES)) },
            "the kernel would serve one caller's pages to another: every read is refused")
        m.unmount()
        let remount = m.remount(["--kernel-cache"])
        #expect(
            !remount.succeeded
                && remount.stderr.contains("--kernel-cache cannot be used while the vault's access.toml has rules"))
        #expect(!m.isMounted)
    }
}
