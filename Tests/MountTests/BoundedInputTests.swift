import Foundation
import Testing
import KeychainFSTestSupport

/// What the CLI reads from a user's file or standard input is read with a limit and
/// refused beyond it at once: `security import` at 16 MiB, passcodes on standard input at 64 KiB.
@Suite struct BoundedInputTests {
    @Test func importRefusesAFileOver16MiB() throws {
        let root = TestDirectory.root + "/kcfs-bounded-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let big = root + "/big.pem"
        #expect(FileManager.default.createFile(atPath: big, contents: nil) && truncate(big, (16 << 20) + 1) == 0)
        let environment = ["KEYCHAIN_VAULT": root + "/vault", "KEYCHAIN_ACCESS_GROUPS": ""]
        let start = Date()
        let refused = Command.run(MountedVault.binary, ["import", big], environment: environment, timeout: 20)
        #expect(
            refused.status == 206 && refused.stderr.contains("larger than 16 MiB"),
            "\(refused.status) \(refused.stderr.prefix(200))")
        #expect(Date().timeIntervalSince(start) < 10)
    }

    /// A file the user names is read only if it is a regular file: a FIFO (whose open would wait for a
    /// writer), /dev/zero or a directory is refused at once, by `import` and by `run --env-file` alike.
    @Test func onlyARegularFileIsRead() throws {
        let root = TestDirectory.root + "/kcfs-bounded-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fifo = root + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let environment = ["KEYCHAIN_VAULT": root + "/vault", "KEYCHAIN_ACCESS_GROUPS": ""]
        for file in [fifo, "/dev/zero", root] {
            for arguments in [["import", file], ["run", "--env-file", file, "--", "/bin/true"]] {
                let start = Date()
                let refused = Command.run(MountedVault.binary, arguments, environment: environment, timeout: 20)
                #expect(
                    refused.status != 0 && refused.stderr.contains("not a regular file"),
                    "\(arguments): \(refused.status) \(refused.stderr.prefix(200))")
                #expect(Date().timeIntervalSince(start) < 10)
            }
        }
    }

    @Test func passcodesOnStandardInputAreBounded() throws {
        let m = try MountedVault()
        let refused = m.device("passcode", "set", passcode: String(repeating: "1", count: 64 << 10))
        #expect(
            refused.status != 0 && refused.stderr.contains("larger than 65536 bytes"),
            "\(refused.status) \(refused.stderr.prefix(200))")
        #expect(m.device("status").stdout.contains("passcode: not set"))
    }

    /// The sync merge driver reads the two versions git hands it (from the remote) with a limit too.
    @Test func theMergeDriverRefusesAVersionOver16MiB() throws {
        let root = TestDirectory.root + "/kcfs-bounded-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let ours = root + "/ours", theirs = root + "/theirs"
        #expect(
            FileManager.default.createFile(atPath: ours, contents: Data("x".utf8))
                && FileManager.default.createFile(atPath: theirs, contents: nil))
        #expect(truncate(theirs, (16 << 20) + 1) == 0)
        let refused = Command.run(
            MountedVault.binary, ["sync", "merge-driver", ours, ours, theirs, "items/x", "--vault", root + "/vault"],
            timeout: 20)
        #expect(
            refused.status != 0 && refused.stderr.contains("larger than 16 MiB"),
            "\(refused.status) \(refused.stderr.prefix(200))")
        #expect(FS.text(ours) == "x", "ours is left as it was")
    }
}
