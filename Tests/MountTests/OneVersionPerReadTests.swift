import Foundation
import Testing
import KeychainFSTestSupport

/// docs/filesystem.md, "One version per read": a read held across a rewrite and a device change never returns two versions
/// mixed. It continues the version it began (its copy), or, once a lock wiped that copy and the item holds
/// another version, fails with EIO; it never goes on at its offset in the other version.
@Suite struct OneVersionPerReadTests {
    static let half = 512 << 10

    /// Opens a 1 MiB value of `a`s, reads its first half, rewrites it with `b`s, locks and unlocks, and
    /// reads the second half: what that read returned, or its errno.
    static func readAcrossARewrite(_ m: MountedVault) throws -> Result<Data, Errno> {
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try FileManager.default.createDirectory(atPath: m.path("genp/svc/big"), withIntermediateDirectories: true)
        try Data(repeating: UInt8(ascii: "a"), count: 2 * half).write(
            to: URL(fileURLWithPath: m.path("genp/svc/big/value")))
        let fd = open(m.path("genp/svc/big/value"), O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: half)
        #expect(pread(fd, &buffer, half, 0) == half && buffer.allSatisfy { $0 == UInt8(ascii: "a") }, "version A")
        try Data(repeating: UInt8(ascii: "b"), count: 2 * half).write(
            to: URL(fileURLWithPath: m.path("genp/svc/big/value")))
        try expectSuccess(m.device("lock"))
        try expectSuccess(m.device("unlock", passcode: "1234"))
        let n = pread(fd, &buffer, half, off_t(half))
        guard n >= 0 else { return .failure(Errno(errno)) }
        return .success(Data(buffer[0..<n]))
    }

    @Test(.timeLimit(.minutes(3))) func aReadHeldAcrossARewriteAndALockNeverMixesVersions() throws {
        let m = try MountedVault()
        let second = try Self.readAcrossARewrite(m)
        #expect(second == .failure(Errno(EIO)), "the second half came from another version: \(second.map(\.count))")
        let fresh = try Data(contentsOf: URL(fileURLWithPath: m.path("genp/svc/big/value")))
        #expect(fresh.count == 2 * Self.half && fresh.allSatisfy { $0 == UInt8(ascii: "b") }, "a new read is B, whole")
    }

    @Test(.timeLimit(.minutes(3))) func withOneVersionPerReadSwitchedOffTheReadMixesVersions() throws {
        let m = try MountedVault(mountEnvironment: ["KEYCHAINFS_TEST_DISABLE_GUARDS": "one-version-per-read"])
        let second = try Self.readAcrossARewrite(m)
        #expect(second.map { $0.allSatisfy { $0 == UInt8(ascii: "b") } } == .success(true), "\(second.map(\.count))")
    }
}
