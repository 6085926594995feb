import Foundation
import Testing
import KeychainFSTestSupport

/// What real keychain wrappers reach for (docs/swift-api.md): `security-compat`, built from the same files in Swift 6
/// and Swift 5 modes, run as an app would be, from a directory with its Info.plist (its bundle id), against
/// a mounted vault, so every SecItem call goes through the daemon.
@Suite struct CompatibilityTests {
    @Test(arguments: ["security-compat", "security-compat-swift5"])
    func wrapperConstructsAgainstTheDaemon(program: String) throws {
        let m = try MountedVault()
        let app = m.root + "/app"
        try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: MountedVault.builtProgram(program), toPath: app + "/" + program)
        try infoPlist(bundleIdentifier: "com.example.keychainfs-compat").write(
            to: URL(fileURLWithPath: app + "/Info.plist"))

        let run = Command.run(app + "/" + program, [], environment: ["KEYCHAIN_VAULT": m.vault])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasSuffix("all passed\n"), "\(run.stdout)")
        #expect(!run.stdout.contains("FAIL"))
        let services = try FileManager.default.contentsOfDirectory(atPath: m.path("genp"))
        #expect(
            services.contains { $0.hasPrefix("compat.anyhashable.") },
            "the daemon stored the program's item: it is in the mount")
    }
}

/// The smallest Info.plist that gives a program a bundle identifier under corelibs Foundation.
func infoPlist(bundleIdentifier: String) throws -> Data {
    try PropertyListSerialization.data(
        fromPropertyList: ["CFBundleIdentifier": bundleIdentifier], format: .xml, options: 0)
}
