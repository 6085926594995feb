import Foundation
import Testing
import KeychainFSTestSupport

/// `security export -o` and `inject -o` write only over a regular file or a missing name (a symlink is
/// replaced, not followed): a FIFO or a device node at the name is refused and left as it was (once,
/// as root, a rename turned a device node into a 0600 file holding a certificate).
@Suite struct ExportTargetTests {
    @Test func aFIFOOrADeviceNodeAtTheOutputNameIsRefusedAndUntouched() throws {
        let m = try MountedVault()
        let fixture = try PKCS12Fixture(keyType: "ec", commonName: "Export Target")
        let environment = ["KEYCHAIN_VAULT": m.vault, "KEYCHAIN_ACCESS_GROUPS": ""]
        let file = try fixture.pkcs12(legacy: false, passphrase: "p", friendlyName: "x", chain: false)
        try expectSuccess(Command.run(MountedVault.binary, ["import", file, "-P", "p"], environment: environment))
        var targets = [(fixture.directory + "/fifo", S_IFIFO, "a FIFO")]
        #expect(mkfifo(targets[0].0, 0o600) == 0)
        if geteuid() == 0 {
            let node = fixture.directory + "/null-node"
            try expectSuccess(Command.run("/usr/bin/mknod", ["-m", "600", node, "c", "1", "3"]))
            targets.append((node, S_IFCHR, "a character device"))
        }
        for (target, type, kind) in targets {
            var before = stat()
            #expect(lstat(target, &before) == 0)
            let export = Command.run(
                MountedVault.binary, ["export", "-t", "certs", "-o", target], environment: environment, timeout: 30)
            #expect(export.status != 0 && export.stderr.contains(kind), "\(export.stderr)")
            let inject = Command.run(
                MountedVault.binary, ["inject", "-o", target, "--force"], stdin: "plain text\n",
                environment: environment, timeout: 30)
            #expect(inject.status != 0 && inject.stderr.contains(kind), "\(inject.stderr)")
            var after = stat()
            #expect(
                lstat(target, &after) == 0 && after.st_mode & S_IFMT == type && after.st_ino == before.st_ino
                    && after.st_rdev == before.st_rdev, "\(target) is left as it was")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.directory).filter {
            $0.contains(".tmp-") || $0.contains(".keychainfs-")
        }
        #expect(leftovers.isEmpty, "no temporary file stays: \(leftovers)")
    }
}
