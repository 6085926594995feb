import Foundation
import Testing
import KeychainFSTestSupport

/// `keychainfs access` as a user meets it: `list` prints one line per rule whatever access.toml's names hold,
/// and `grant --exe` refuses a `#!` script, which the kernel never runs as itself (docs/access.md).
@Suite struct AccessCommandTests {
    @Test func listEscapesNamesAndGroupsOfTheRules() throws {
        let m = try MountedVault()
        let name = "deploy\nfake\trule\u{1B}[31m\u{2028}x"
        let group = "group\nuid 0\tgroups: everything"
        try expectSuccess(
            m.cli(["access", "grant", group, "--exe", "/usr/bin/true", "--name", name, "--vault", m.vault]))
        let listed = m.cli(["access", "list", "--vault", m.vault])
        try expectSuccess(listed)
        #expect(listed.stdout.split(separator: "\n", omittingEmptySubsequences: false).count == 2, "\(listed.stdout)")
        #expect(
            listed.stdout.hasPrefix("deploy\\u{A}fake\\u{9}rule\\u{1B}[31m\\u{2028}x\texe /usr/bin/true\t"),
            "\(listed.stdout)")
        #expect(listed.stdout.contains("groups: group\\u{A}uid 0\\u{9}groups: everything"), "\(listed.stdout)")
    }

    @Test func grantRefusesAScriptNamingItsInterpreter() throws {
        let m = try MountedVault()
        let script = m.root + "/deploy.sh"
        try "#!/bin/sh -e\necho deploying\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let refused = m.cli(["access", "grant", "deploy", "--exe", script, "--vault", m.vault])
        #expect(refused.status != 0)
        #expect(
            refused.stderr.contains("\(script) is a script run by /bin/sh") && !refused.stderr.contains("Usage:"),
            "\(refused.stderr)")
        #expect(m.cli(["access", "list", "--vault", m.vault]).stdout.hasPrefix("no rules"), "nothing was written")
        try expectSuccess(m.cli(["access", "grant", "deploy", "--exe", "/bin/sh", "--vault", m.vault]))
    }
}
